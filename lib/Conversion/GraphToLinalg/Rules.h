//===- Rules.h - Rules the op families register -----------------*- C++ -*-===//
//
// The cost model's work rules (Work.cpp), the gradient rules
// (Gradients.cpp), the importer's shape folders (Folders.cpp) and the
// tensor-parallel carry rules (Sharding.cpp) that more
// than one family, or one family's many ops, register: each family file names
// them in its ops' registry entries, so an op's whole description stays in one
// statement (OpRegistry.h).
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_CONVERSION_GRAPHTOLINALG_RULES_H
#define PLACER_LIB_CONVERSION_GRAPHTOLINALG_RULES_H

#include "placer/Dialect/Graph/OpRegistry.h"

namespace placer::work {

/// `n` FLOPs per element of output 0 / input 0. Transcendental functions
/// count 4, an estimate of their polynomial evaluation.
WorkRule perOutputElement(double n);
WorkRule perInputElement(double n);
/// Sum/Mean/Max/Min of n inputs: n - 1 combines per output element.
WorkRule variadic();
WorkRule conv();
WorkRule convInteger();
WorkRule qlinearConv();
WorkRule convTranspose();
WorkRule matMul();
WorkRule gemm();
WorkRule einsum();
WorkRule pool();
WorkRule dft();
WorkRule determinant();
WorkRule topK();
WorkRule unique();
WorkRule nonMaxSuppression();
WorkRule loss();
WorkRule softmaxLoss();
WorkRule recurrent();
/// Slice: a view (tensor.extract_slice) when its starts, ends, axes and
/// steps are known at compile time and every step is forward; otherwise a
/// copy.
WorkRule slice();

} // namespace placer::work

namespace placer::folders {

/// What Shape gives for `shape` with its `start` and `end` attributes (ONNX
/// 15: negative from the end, clamped into range): the import-time folder
/// and the placement's type folding share it.
std::vector<int64_t> sliceShape(llvm::ArrayRef<int64_t> shape,
                                std::optional<int64_t> start,
                                std::optional<int64_t> end);

// The import-time folders (Folders.cpp), one per op.
FoldRule shape();
FoldRule size();
FoldRule constant();
FoldRule constantOfShape();
FoldRule identity();
FoldRule cast();
FoldRule neg();
FoldRule abs();
FoldRule sqrt();
FoldRule logicalNot();
FoldRule floor();
FoldRule ceil();
FoldRule unsqueeze();
FoldRule squeeze();
FoldRule reshape();
FoldRule concat();
FoldRule gather();
FoldRule slice();
FoldRule transpose();
FoldRule range();
FoldRule where();
FoldRule add();
FoldRule sub();
FoldRule mul();
FoldRule div();
FoldRule mod();
FoldRule pow();
FoldRule max();
FoldRule min();
FoldRule equal();
FoldRule less();
FoldRule greater();

} // namespace placer::folders

namespace placer::gradients {

// One per op (or family of ops that share one), bound to its rule in
// Gradients.cpp.
#define PLACER_GRADIENT(name) extern const GradientFn name;
PLACER_GRADIENT(identity)
PLACER_GRADIENT(add)
PLACER_GRADIENT(sub)
PLACER_GRADIENT(mul)
PLACER_GRADIENT(div)
PLACER_GRADIENT(relu)
PLACER_GRADIENT(sigmoid)
PLACER_GRADIENT(tanh)
PLACER_GRADIENT(matmul)
PLACER_GRADIENT(gemm)
PLACER_GRADIENT(reshape)
PLACER_GRADIENT(transpose)
PLACER_GRADIENT(softmax)
PLACER_GRADIENT(conv)
PLACER_GRADIENT(globalAveragePool)
PLACER_GRADIENT(neg)
PLACER_GRADIENT(exp)
PLACER_GRADIENT(sqrt)
PLACER_GRADIENT(erf)
PLACER_GRADIENT(pow)
PLACER_GRADIENT(where)
PLACER_GRADIENT(expand)
PLACER_GRADIENT(reduceSum)
PLACER_GRADIENT(reduceMean)
PLACER_GRADIENT(layerNorm)
PLACER_GRADIENT(gather)
PLACER_GRADIENT(slice)
PLACER_GRADIENT(concat)
PLACER_GRADIENT(split)
PLACER_GRADIENT(batchNorm)
PLACER_GRADIENT(maxPool)
PLACER_GRADIENT(averagePool)
#undef PLACER_GRADIENT

} // namespace placer::gradients

namespace placer::sharding {

/// ShardCarryFn rules (OpRegistry.h): Reshape-like ops (Reshape, Flatten,
/// Squeeze, Unsqueeze: the split stays where the same elements stay
/// contiguous), Transpose (the split follows its axis), Softmax and
/// LayerNormalization (kept off the normalized axes), Split (a blocked axis
/// handed out, one block a piece; other axes kept).
ShardCarry reshape(graph::NodeOp node, unsigned result, ShardSplit input,
                   int64_t degree);
ShardCarry transpose(graph::NodeOp node, unsigned result, ShardSplit input,
                     int64_t degree);
ShardCarry softmax(graph::NodeOp node, unsigned result, ShardSplit input,
                   int64_t degree);
ShardCarry layerNorm(graph::NodeOp node, unsigned result, ShardSplit input,
                     int64_t degree);
ShardCarry split(graph::NodeOp node, unsigned result, ShardSplit input,
                 int64_t degree);

/// ShardCarryFn of the reductions: a split off the reduced axes is kept
/// (moved where keepdims=0 drops axes before it); one on them is summed
/// in parts when `sums` (ReduceSum, ReduceSumSquare, ReduceL1: an
/// all-reduce completes them), else needs the input whole.
template <bool sums>
ShardCarry reduce(graph::NodeOp node, unsigned result, ShardSplit input,
                  int64_t degree);
/// ShardJoinFn of Concat: inputs split along another axis join cut alike;
/// equal inputs split along the joined axis are the result's blocks.
std::optional<ShardJoin>
concat(graph::NodeOp node, llvm::ArrayRef<std::optional<ShardSplit>> inputs,
       int64_t degree);

/// ShardStrategiesFn rules: Gemm's column- and row-parallel products on
/// its (maybe transposed) operands, the row one only without a bias C (it
/// would be added on every device before the sum); Gather's
/// vocabulary-parallel lookup of a table cut along the gathered axis 0
/// (each device finds the rows it holds, zeros elsewhere, and an
/// all-reduce sums them).
llvm::SmallVector<ShardingStrategy, 2> gemm(graph::NodeOp node);
llvm::SmallVector<ShardingStrategy, 2> gather(graph::NodeOp node);
/// Conv with one group: output channels (a bias cut alike) or, without a
/// bias, input channels with an all-reduce: Gemm's column and row.
llvm::SmallVector<ShardingStrategy, 2> conv(graph::NodeOp node);
/// ShardCarryFn of pooling and batch normalization: a split of the batch or
/// channel axis stays; a spatial one does not.
ShardCarry channels(graph::NodeOp node, unsigned result, ShardSplit input,
                    int64_t degree);

} // namespace placer::sharding

namespace placer::fusion {

/// FusionRoleFn rules (OpRegistry.h): an elementwise op that does not
/// follow a split (Expand, CastLike); a reduction whose reduced axes the
/// shapes tell (Reduce*, global pooling); Softmax and LogSoftmax (rows when
/// the normalized axes are the last ones: from opset 13 one `axis`, before
/// every axis from `axis` on); LayerNormalization (the axes
/// before `axis`); InstanceNormalization (batch and channel); inference
/// BatchNormalization (elementwise); MatMul, and Gemm, Conv, ConvTranspose
/// and MaxPool when their lowering ends with the product or window
/// reduction (no bias or scaling generic, one result): contractions.
FusionRole elementwise(graph::NodeOp node);
FusionRole contraction(graph::NodeOp node);
FusionRole gemm(graph::NodeOp node);
FusionRole convolution(graph::NodeOp node);
FusionRole maxPool(graph::NodeOp node);
FusionRole reduction(graph::NodeOp node);
FusionRole coercedSoftmax(graph::NodeOp node);
FusionRole softmax(graph::NodeOp node);
FusionRole layerNorm(graph::NodeOp node);
FusionRole spatial(graph::NodeOp node);
FusionRole batchNorm(graph::NodeOp node);

} // namespace placer::fusion

#endif // PLACER_LIB_CONVERSION_GRAPHTOLINALG_RULES_H
