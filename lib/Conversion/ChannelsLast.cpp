//===- ChannelsLast.cpp - Convolutions on NHWC tensors --------------------===//
//
// oneDNN's fast convolution kernels take channels-last (NHWC) activations;
// on NCHW they fall back to im2col, and a reorder around each call costs
// more than a depthwise convolution itself (docs/Execution.md, "Fast
// code"). So each NCHW convolution becomes an NHWC one between transposes,
//
//   conv_nchw(x, w)  ->  T_nchw(conv_nhwc(T_nhwc(x), T_fhwc(w)))
//
// and transposes move towards their consumers through what does not care
// about the layout (elementwise ops, zero padding, reshapes of the channel
// dimension, reductions, which then reduce the permuted dimensions) until
// one meets its inverse and both fold away (upstream's transpose
// canonicalization). What remains is a transpose before an op that does
// care (a flatten, a product), and a weight's, which
// placer-cpu-library-calls reads through without copying.
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/Layouts.h"
#include "placer/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace placer {
#define GEN_PASS_DEF_CHANNELSLAST
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;

namespace {

using namespace placer::layouts;

/// A transpose into a buffer of its own: an alloc_tensor, which CSE does
/// not merge (equal tensor.empty ops merged would let bufferization write
/// two weights' transposes into one buffer, and placer-cpu-library-calls
/// could not read through either).
Value transpose(PatternRewriter &rewriter, Location loc, Value value,
                ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  Value init = bufferization::AllocTensorOp::create(
      rewriter, loc, RankedTensorType::get(shape, type.getElementType()),
      ValueRange());
  return linalg::TransposeOp::create(rewriter, loc, value, init, perm)
      ->getResult(0);
}

/// Per-dimension values of T(a) (sizes, offsets, padding) as those of a:
/// dimension i of T(a) is dimension perm[i] of a.
template <typename T>
SmallVector<T> toSource(ArrayRef<T> values, ArrayRef<int64_t> perm) {
  SmallVector<T> result(values.size());
  for (auto [i, d] : llvm::enumerate(perm))
    result[d] = values[i];
  return result;
}

bool isStaticF32Tensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getElementType().isF32();
}

/// conv_2d_nchw_fchw -> transposes around conv_2d_nhwc_fhwc, and the
/// grouped conv_2d_ngchw_gfchw -> conv_2d_nhwgc_gfhwc likewise; pooling
/// the same way, its window (a shape only) as it is (`weights` empty).
template <typename From, typename To>
struct ConvolutionToChannelsLast : OpRewritePattern<From> {
  ConvolutionToChannelsLast(MLIRContext *context, ArrayRef<int64_t> toLast,
                            ArrayRef<int64_t> toFirst,
                            ArrayRef<int64_t> weights)
      : OpRewritePattern<From>(context), toLast(toLast), toFirst(toFirst),
        weights(weights) {}

  LogicalResult matchAndRewrite(From conv,
                                PatternRewriter &rewriter) const override {
    if (!conv.hasPureTensorSemantics() ||
        !llvm::all_of(conv->getOperands(), isStaticF32Tensor))
      return rewriter.notifyMatchFailure(conv, "not static f32 tensors");
    Location loc = conv.getLoc();
    Value x = transpose(rewriter, loc, conv.getInputs()[0], toLast);
    Value w = conv.getInputs()[1];
    if (!weights.empty())
      w = transpose(rewriter, loc, w, weights);
    Value init = transpose(rewriter, loc, conv.getOutputs()[0], toLast);
    auto last = To::create(rewriter, loc, TypeRange{init.getType()},
                           ValueRange{x, w}, ValueRange{init},
                           conv.getStrides(), conv.getDilations());
    rewriter.replaceOp(conv,
                       transpose(rewriter, loc, last->getResult(0), toFirst));
    return success();
  }

  SmallVector<int64_t> toLast, toFirst, weights;
};

/// generic(T(a), b...) -> T(generic'(a, b...)) for an elementwise op whose
/// full-rank inputs are all transposed the same way: the op runs in the
/// layout of a, its other (broadcast) inputs read through the permutation.
struct TransposeThroughElementwise : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumParallelLoops() != op.getNumLoops() ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
        !op.getMatchingBlockArgument(op.getDpsInitOperand(0)).use_empty() ||
        op.hasIndexSemantics())
      return rewriter.notifyMatchFailure(op, "not elementwise");
    std::optional<ArrayRef<int64_t>> perm;
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (!op.getMatchingIndexingMap(input).isIdentity())
        continue;
      auto transposeOp = input->get().getDefiningOp<linalg::TransposeOp>();
      if (!transposeOp || (perm && *perm != transposeOp.getPermutation()))
        return rewriter.notifyMatchFailure(op, "an input in another layout");
      perm = transposeOp.getPermutation();
    }
    if (!perm)
      return rewriter.notifyMatchFailure(op, "no transposed input");
    // Loop i of the op is loop perm[i] of the new one.
    SmallVector<unsigned> permutation(perm->begin(), perm->end());
    AffineMap fromNew =
        AffineMap::getPermutationMap(permutation, op.getContext());
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (map.isIdentity()) {
        inputs.push_back(
            input->get().getDefiningOp<linalg::TransposeOp>().getInput());
        maps.push_back(map);
      } else {
        inputs.push_back(input->get());
        maps.push_back(map.compose(fromNew));
      }
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(op.getNumLoops()));
    auto resultType = cast<RankedTensorType>(op.getResultTypes()[0]);
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc,
                                         toSource(resultType.getShape(), *perm),
                                         resultType.getElementType());
    auto moved = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
        maps, op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), moved.getRegion(),
                                moved.getRegion().begin());
    rewriter.replaceOp(op, transpose(rewriter, loc, moved->getResult(0), *perm));
    return success();
  }
};

/// insert_slice(T(a), T(b) or empty) -> T(insert_slice'(a, b)): a
/// concatenation (DenseNet's, Inception's) of transposed tensors.
struct TransposeThroughInsertSlice : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    auto source = insert.getSource().getDefiningOp<linalg::TransposeOp>();
    if (!source ||
        insert.getSourceType().getRank() != insert.getType().getRank())
      return rewriter.notifyMatchFailure(insert, "no transposed source");
    ArrayRef<int64_t> perm = source.getPermutation();
    Location loc = insert.getLoc();
    Value dest;
    if (auto destTranspose =
            insert.getDest().getDefiningOp<linalg::TransposeOp>();
        destTranspose && destTranspose.getPermutation() == perm) {
      dest = destTranspose.getInput();
    } else if (auto empty = insert.getDest().getDefiningOp<tensor::EmptyOp>();
               empty && insert.getType().hasStaticShape()) {
      dest = tensor::EmptyOp::create(
          rewriter, loc, toSource(insert.getType().getShape(), perm),
          insert.getType().getElementType());
    } else {
      return rewriter.notifyMatchFailure(insert,
                                         "destination in another layout");
    }
    auto permuted = [&](SmallVector<OpFoldResult> values) {
      return toSource<OpFoldResult>(values, perm);
    };
    Value moved = tensor::InsertSliceOp::create(
        rewriter, loc, source.getInput(), dest,
        permuted(insert.getMixedOffsets()), permuted(insert.getMixedSizes()),
        permuted(insert.getMixedStrides()));
    rewriter.replaceOp(insert, transpose(rewriter, loc, moved, perm));
    return success();
  }
};

/// pad(T(a)) -> T(pad'(a)) for a constant padding value.
struct TransposeThroughPad : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    auto transposeOp = pad.getSource().getDefiningOp<linalg::TransposeOp>();
    Value value = pad.getConstantPaddingValue();
    if (!transposeOp || !value)
      return rewriter.notifyMatchFailure(pad, "no transposed source");
    ArrayRef<int64_t> perm = transposeOp.getPermutation();
    Location loc = pad.getLoc();
    Value moved = tensor::PadOp::create(
        rewriter, loc, Type(), transposeOp.getInput(),
        toSource<OpFoldResult>(pad.getMixedLowPad(), perm),
        toSource<OpFoldResult>(pad.getMixedHighPad(), perm), value,
        pad.getNofold());
    rewriter.replaceOp(pad, transpose(rewriter, loc, moved, perm));
    return success();
  }
};

/// The groups of a reshape of T(a) as a reshape of a: for each dimension
/// of a, in order, the dimensions of the reshape's group it is.
/// expand(T(a)) -> T'(expand'(a)), and collapse(T(a)) -> T'(collapse'(a))
/// where each collapsed group is consecutive in a.
struct MovedReshape {
  SmallVector<ReassociationIndices> groups;
  SmallVector<int64_t> shape, perm;
};

/// `groups` maps dimensions `d` of T(a) (the collapsed side) to those of
/// the expanded side; `expanded` is that side's shape. Reorders the groups
/// into a's order and gives the permutation of the expanded side.
MovedReshape moveGroups(ArrayRef<ReassociationIndices> groups,
                        ArrayRef<int64_t> perm, ArrayRef<int64_t> expanded) {
  // Group j of T(a) is dimension perm[j] of a.
  SmallVector<unsigned> order(groups.size());
  for (auto [j, d] : llvm::enumerate(perm))
    order[d] = j;
  MovedReshape moved;
  SmallVector<int64_t> start(groups.size());
  int64_t next = 0;
  for (unsigned j : order) {
    start[j] = next;
    ReassociationIndices group;
    for (int64_t e : groups[j]) {
      group.push_back(next++);
      moved.shape.push_back(expanded[e]);
    }
    moved.groups.push_back(group);
  }
  for (auto [j, group] : llvm::enumerate(groups))
    for (size_t t = 0; t < group.size(); ++t)
      moved.perm.push_back(start[j] + t);
  return moved;
}

struct TransposeThroughExpand : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    auto transposeOp = expand.getSrc().getDefiningOp<linalg::TransposeOp>();
    if (!transposeOp || !expand.getResultType().hasStaticShape())
      return rewriter.notifyMatchFailure(expand, "no transposed source");
    MovedReshape moved =
        moveGroups(expand.getReassociationIndices(),
                   transposeOp.getPermutation(),
                   expand.getResultType().getShape());
    Location loc = expand.getLoc();
    Value reshaped = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get(moved.shape,
                              expand.getResultType().getElementType()),
        transposeOp.getInput(), moved.groups);
    rewriter.replaceOp(expand,
                       transpose(rewriter, loc, reshaped, moved.perm));
    return success();
  }
};

struct TransposeThroughCollapse : OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp collapse,
                                PatternRewriter &rewriter) const override {
    auto transposeOp = collapse.getSrc().getDefiningOp<linalg::TransposeOp>();
    if (!transposeOp || !collapse.getSrcType().hasStaticShape())
      return rewriter.notifyMatchFailure(collapse, "no transposed source");
    ArrayRef<int64_t> perm = transposeOp.getPermutation();
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    // A collapsed group must be consecutive dimensions of a, in order; as
    // a's dimension, group j is then the first of them.
    SmallVector<int64_t> groupPerm;
    for (const ReassociationIndices &group : groups) {
      for (size_t t = 1; t < group.size(); ++t)
        if (perm[group[t]] != perm[group[0]] + static_cast<int64_t>(t))
          return rewriter.notifyMatchFailure(collapse, "group not adjacent");
      groupPerm.push_back(perm[group[0]]);
    }
    // Number the groups in a's order.
    SmallVector<int64_t> rank(groupPerm.size());
    for (size_t j = 0; j < groupPerm.size(); ++j)
      rank[j] = llvm::count_if(groupPerm,
                               [&](int64_t d) { return d < groupPerm[j]; });
    SmallVector<ReassociationIndices> moved(groups.size());
    SmallVector<int64_t> shape(groups.size());
    ArrayRef<int64_t> source = transposeOp.getInput().getType().getShape();
    for (size_t j = 0; j < groups.size(); ++j) {
      int64_t size = 1;
      for (size_t t = 0; t < groups[j].size(); ++t) {
        moved[rank[j]].push_back(groupPerm[j] + t);
        size *= source[groupPerm[j] + t];
      }
      shape[rank[j]] = size;
    }
    Location loc = collapse.getLoc();
    Value reshaped = tensor::CollapseShapeOp::create(
        rewriter, loc,
        RankedTensorType::get(shape, collapse.getResultType().getElementType()),
        transposeOp.getInput(), moved);
    rewriter.replaceOp(collapse, transpose(rewriter, loc, reshaped, rank));
    return success();
  }
};

/// reduce(T(a), dims) -> T'(reduce'(a, perm(dims))): a reduction (a global
/// average pool's, a mean over the image) reads the tensor where it is,
/// rather than after a transpose of all of it; only its (smaller) result
/// is transposed back, and not at all when the kept dimensions keep their
/// order (N C of N H W C).
struct TransposeThroughReduce : OpRewritePattern<linalg::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::ReduceOp reduce,
                                PatternRewriter &rewriter) const override {
    if (reduce.getInputs().size() != 1 || !reduce.hasPureTensorSemantics() ||
        !llvm::all_of(reduce->getOperandTypes(), [](Type type) {
          return cast<ShapedType>(type).hasStaticShape();
        }))
      return rewriter.notifyMatchFailure(reduce, "not one static tensor input");
    auto transposeOp =
        reduce.getInputs()[0].getDefiningOp<linalg::TransposeOp>();
    if (!transposeOp)
      return rewriter.notifyMatchFailure(reduce, "no transposed input");
    ArrayRef<int64_t> perm = transposeOp.getPermutation();
    llvm::SmallDenseSet<int64_t> reduced(reduce.getDimensions().begin(),
                                         reduce.getDimensions().end());
    // The reduced dimensions as a's; the kept ones in T(a)'s order, as a's.
    SmallVector<int64_t> dims, kept;
    for (auto [i, d] : llvm::enumerate(perm))
      (reduced.contains(i) ? dims : kept).push_back(d);
    llvm::sort(dims);
    // Result dimension i of the old reduction is dimension order[i] of the
    // new one, whose dimensions are a's kept ones in a's order.
    SmallVector<int64_t> order;
    for (int64_t d : kept)
      order.push_back(llvm::count_if(kept, [&](int64_t e) { return e < d; }));
    Location loc = reduce.getLoc();
    Value init = reduce.getInits()[0];
    SmallVector<int64_t> inverse(order.size());
    for (auto [i, d] : llvm::enumerate(order))
      inverse[d] = i;
    bool reordered = !llvm::equal(order, llvm::seq<int64_t>(0, order.size()));
    if (reordered)
      init = transpose(rewriter, loc, init, inverse);
    auto moved = linalg::ReduceOp::create(rewriter, loc, init.getType(),
                                          transposeOp.getInput(), init, dims);
    rewriter.inlineRegionBefore(reduce.getCombiner(), moved.getCombiner(),
                                moved.getCombiner().begin());
    Value result = moved->getResult(0);
    rewriter.replaceOp(
        reduce, reordered ? transpose(rewriter, loc, result, order) : result);
    return success();
  }
};

struct ChannelsLastPass : placer::impl::ChannelsLastBase<ChannelsLastPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<ConvolutionToChannelsLast<linalg::Conv2DNchwFchwOp,
                                           linalg::Conv2DNhwcFhwcOp>>(
        context, kNchwToNhwc, kNhwcToNchw, kNchwToNhwc);
    patterns.add<ConvolutionToChannelsLast<linalg::Conv2DNgchwGfchwOp,
                                           linalg::Conv2DNhwgcGfhwcOp>>(
        context, kGroupedSwap, kGroupedSwap, kGfchwToGfhwc);
    patterns.add<ConvolutionToChannelsLast<linalg::PoolingNchwMaxOp,
                                           linalg::PoolingNhwcMaxOp>>(
        context, kNchwToNhwc, kNhwcToNchw, ArrayRef<int64_t>());
    patterns.add<ConvolutionToChannelsLast<linalg::PoolingNchwSumOp,
                                           linalg::PoolingNhwcSumOp>>(
        context, kNchwToNhwc, kNhwcToNchw, ArrayRef<int64_t>());
    patterns.add<TransposeThroughElementwise, TransposeThroughPad,
                 TransposeThroughExpand, TransposeThroughCollapse,
                 TransposeThroughInsertSlice, TransposeThroughReduce>(context);
    // Inverse transposes fold, and so does a transposed fill.
    linalg::TransposeOp::getCanonicalizationPatterns(patterns, context);
    linalg::FillOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
