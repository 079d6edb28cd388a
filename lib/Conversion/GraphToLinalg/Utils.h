//===- Utils.h - Building blocks shared by the op lowerings -----*- C++ -*-===//
//
// What more than one op family builds: empty and filled tensors, scalar
// constants, broadcasting elementwise generics, reductions, reshapes, casts
// and padding. Every family file includes this header and registers its
// lowerings through one register*Lowerings function.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_CONVERSION_GRAPHTOLINALG_UTILS_H
#define PLACER_LIB_CONVERSION_GRAPHTOLINALG_UTILS_H

#include "Rules.h"

#include "placer/Conversion/GraphToLinalg.h"
#include "placer/Conversion/OnnxOps.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"

namespace placer::lowering {

using Results = mlir::FailureOr<llvm::SmallVector<mlir::Value>>;

inline Results single(mlir::Value value) {
  return llvm::SmallVector<mlir::Value>{value};
}

/// ONNX's negative axes count from the end.
inline int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// A tensor.empty of `type`; `dynamicSizes` gives its dynamic dims' sizes,
/// in order.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type,
                        mlir::ValueRange dynamicSizes = {});
/// The sizes of `value`'s dynamic dims at run time (tensor.dim), in order.
llvm::SmallVector<mlir::Value>
dynamicSizesOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value);
/// `value` as a constant of `type` (float, or integer truncated toward 0;
/// +-infinity as the signed integer extremes).
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Type type, double value);
mlir::Value filled(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::RankedTensorType type, double value,
                   mlir::ValueRange dynamicSizes = {});

/// The map reading an input of `inShape` inside a loop nest over `outShape`
/// under numpy broadcasting (trailing dimensions align; size 1 reads 0).
mlir::AffineMap broadcastMap(llvm::ArrayRef<int64_t> inShape,
                             llvm::ArrayRef<int64_t> outShape,
                             mlir::MLIRContext *context);

/// The type a sum of `element` values accumulates in: f32 for f16 and
/// bf16 (one rounding at the end, as PyTorch and the vendor libraries sum
/// half-precision products: bf16's 8-bit mantissa would drop the low bits
/// of a long sum at every step), `element` otherwise.
mlir::Type getAccumulatorType(mlir::Type element);

/// `value` (a tensor) with its elements rounded to `element`: itself when
/// they are of it, else an elementwise truncation (a half-precision sum's
/// one rounding); `dynamicSizes` are its dynamic dims'.
mlir::Value roundTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                    mlir::Type element, mlir::ValueRange dynamicSizes = {});

/// The body of a contraction: acc + lhs * rhs (floats, or integers of the
/// accumulator's type); half-precision operands widened to a float
/// accumulator's type (getAccumulatorType).
void multiplyAdd(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange args);

using BodyFn = llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                              mlir::ValueRange)>;

/// An elementwise linalg.generic over `outType` reading broadcast inputs;
/// a dynamic output dim has the size of the first input dynamic there.
mlir::Value elementwise(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::ValueRange inputs, mlir::RankedTensorType outType,
                        BodyFn body);
/// The same with the output's dynamic sizes given (Expand: an input dim of
/// 1 stretched to a dynamic one).
mlir::Value elementwise(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::ValueRange inputs, mlir::RankedTensorType outType,
                        mlir::ValueRange outDynamicSizes, BodyFn body);

using CombineFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::Value, mlir::Value)>;

/// Reduces `input` over `axes` (sorted, unique) with `combine(x, acc)`,
/// starting from `init`; the result drops the reduced dimensions. A
/// half-precision input reduces in f32 (`combine` sees f32 values) and the
/// result is rounded back once.
mlir::Value reduce(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                   llvm::ArrayRef<int64_t> axes, double init,
                   CombineFn combine);
mlir::Value reduce(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                   llvm::ArrayRef<int64_t> axes, mlir::Value init,
                   CombineFn combine);

/// Element `position` of the last dimension (index 0 of the others) of a
/// scalar or small tensor operand, read at run time and cast to `to`.
mlir::Value extractScalar(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value tensor, mlir::Type to,
                          int64_t position = 0, bool isUnsigned = false);
/// extractScalar as an i64 (axes, counts, offsets).
mlir::Value extractI64(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value tensor, int64_t position = 0);

/// `candidates[i]` (all of one type) where `key == keys[i]` at run time, the
/// last candidate when none matches: how a lowering handles an operand
/// known only at run time that decides among a few static shapes' worth of
/// code (an axis, an axes set).
mlir::Value selectByKey(mlir::OpBuilder &b, mlir::Location loc, mlir::Value key,
                        llvm::ArrayRef<int64_t> keys,
                        llvm::ArrayRef<mlir::Value> candidates);

/// Any reshape with the same element count: collapse to 1-D, expand to the
/// target (both are views after bufferization). `targetDynamicSizes` gives
/// the target's dynamic dims, in order (rank-0 inputs and targets are
/// static).
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                      mlir::RankedTensorType target,
                      mlir::ValueRange targetDynamicSizes = {});

bool isFloat(mlir::Type type);

/// Whether every input broadcasts (numpy rules) to `outType`, and, when
/// `exact`, whether `outType` is exactly the shape they broadcast to. The
/// declared type comes from the model: a contradicting one would make
/// broadcastMap's maps invalid, so it is refused here.
mlir::LogicalResult checkBroadcast(NodeLowering &n, mlir::ValueRange inputs,
                                   mlir::RankedTensorType outType, bool exact);

/// Cast between float, integer and bool scalars (ONNX Cast); integers are
/// signless values, read and written as unsigned where the flags say so.
mlir::Value castScalar(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, mlir::Type to,
                       bool fromUnsigned = false, bool toUnsigned = false);

/// Pads the trailing `begin.size()` dimensions of `input` with `padValue`.
mlir::Value padSpatial(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value input, llvm::ArrayRef<int64_t> begin,
                       llvm::ArrayRef<int64_t> end, double padValue);

mlir::DenseIntElementsAttr i64Elements(mlir::OpBuilder &b,
                                       llvm::ArrayRef<int64_t> values);

/// Softmax (or LogSoftmax) of `x` over `axes`: max-reduce, exp of the
/// shifted input, sum-reduce, divide (or subtract the log).
mlir::Value softmax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                    llvm::ArrayRef<int64_t> axes, bool log);

using GenerateFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, llvm::ArrayRef<mlir::Value>)>;

/// A linalg.generic over `outType` with no inputs whose body yields
/// `read(the output element's indices)`: for outputs read from computed
/// positions (tensor.extract).
mlir::Value generate(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::RankedTensorType outType, GenerateFn read);

/// A (.., m, k) x (.., k, n) product with numpy broadcasting of the batch
/// dimensions and ONNX's 1-D promotion, in `outType` (float, or integer
/// operands already of the accumulator's type).
mlir::Value matmul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                   mlir::Value rhs, mlir::RankedTensorType outType);

/// Conv of `input` by `weight` (+ `bias` when given) with the node's
/// attributes (pads, strides, dilations, group), into `outType`: float, or
/// integer operands already of the accumulator's type.
mlir::FailureOr<mlir::Value> convolve(NodeLowering &n, mlir::Value input,
                                      mlir::Value weight, mlir::Value bias,
                                      mlir::RankedTensorType outType);

using LoopBodyFn = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::Value iv,
    mlir::ValueRange carried)>;

/// An scf.for over [lo, hi) with step 1 carrying `init`; `body` returns the
/// next carried values. Returns the loop's results.
llvm::SmallVector<mlir::Value> buildFor(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value lo, mlir::Value hi,
                                        mlir::ValueRange init, LoopBodyFn body);

/// An index read from an index tensor's element (any integer type), wrapped
/// when negative and clamped into [0, extent): indices come from the
/// program's inputs, and ONNX's "out of range is an error" must not become
/// a read outside a tensor (docs/Execution.md, Limits).
mlir::Value boundedIndex(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value raw, int64_t extent);

/// `stacked` with `row` (the shape of `stacked` without its first
/// dimension) written at index `at` of that dimension: one step of a scan's
/// or a recurrence's stacked output.
mlir::Value insertRow(mlir::OpBuilder &b, mlir::Location loc, mlir::Value row,
                      mlir::Value stacked, mlir::Value at);

// One per family file.
void registerElementwiseOps(OpRegistry &registry);
void registerContractionOps(OpRegistry &registry);
void registerConvolutionPoolingOps(OpRegistry &registry);
void registerReductionOps(OpRegistry &registry);
void registerNormalizationOps(OpRegistry &registry);
void registerShapeIndexingOps(OpRegistry &registry);
void registerLossOps(OpRegistry &registry);
void registerGatherScatterOps(OpRegistry &registry);
void registerQuantizationOps(OpRegistry &registry);
void registerResizeOps(OpRegistry &registry);
void registerRecurrentOps(OpRegistry &registry);
void registerSignalOps(OpRegistry &registry);
void registerControlFlowOps(OpRegistry &registry);
void registerDetectionOps(OpRegistry &registry);

} // namespace placer::lowering

#endif // PLACER_LIB_CONVERSION_GRAPHTOLINALG_UTILS_H
