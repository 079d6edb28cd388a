//===- GpuSplitReductions.cpp - Reductions split for a GPU's threads ------===//
//
// A reduction lowered to GPU loops runs one thread per result element, so a
// normalization over a few hundred rows occupies a few hundred threads of
// the chip's hundred thousand. Splitting the reduced dimension gives each
// row S threads (partial results) and a second, short reduction over them:
// upstream's linalg::splitReduction does the rewrite; this pass decides
// where and by how much.
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/Buffers.h"
#include "placer/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace placer {
#define GEN_PASS_DEF_GPUSPLITREDUCTIONS
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;

namespace {

/// Fewer elements per thread than this are not worth a second kernel.
constexpr int64_t kMinPerThread = 4;

/// The split factor S for `op` (0: leave it): a power of two dividing the
/// reduced size R, with R / S >= kMinPerThread and P * S <= threads, where
/// P is the number of result elements. The first op's threads take R / S
/// steps each, the second's S: the smallest max(R / S, S) is fastest (the
/// larger S on a tie).
int64_t chooseSplit(linalg::LinalgOp op, int64_t threads) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1 || op.hasDynamicShape())
    return 0;
  // Products and convolutions go to cuBLAS and cuDNN, whole.
  if (linalg::isaContractionOpInterface(op) ||
      linalg::isaConvolutionOpInterface(op))
    return 0;
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t reduced = ranges[reductions.front()], results = 1;
  for (auto [i, range] : llvm::enumerate(ranges))
    if (i != reductions.front())
      results *= range;
  int64_t split = 0;
  for (int64_t s = 2; reduced / s >= kMinPerThread && results * s <= threads;
       s *= 2)
    if (reduced % s == 0 && (!split || std::max(reduced / s, s) <=
                                           std::max(reduced / split, split)))
      split = s;
  return split;
}

/// The loop order that puts `op`'s reduction loops after its parallel
/// ones, each group in its order.
SmallVector<unsigned> getReductionsLast(linalg::GenericOp op) {
  SmallVector<unsigned> parallel, reductions;
  op.getParallelDims(parallel);
  op.getReductionDims(reductions);
  llvm::append_range(parallel, reductions);
  return parallel;
}

/// Whether a parallel loop of `op` comes after a reduction loop (library
/// calls aside).
bool hasParallelInsideReduction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || linalg::isaContractionOpInterface(op) ||
      linalg::isaConvolutionOpInterface(op))
    return false;
  bool reduction = false;
  for (utils::IteratorType type : op.getIteratorTypesArray()) {
    if (type == utils::IteratorType::reduction)
      reduction = true;
    else if (reduction)
      return true;
  }
  return false;
}

struct GpuSplitReductionsPass
    : placer::impl::GpuSplitReductionsBase<GpuSplitReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (threads < 1) {
      getOperation().emitError(
          "--placer-gpu-split-reductions: threads must be positive, got ")
          << static_cast<int64_t>(threads);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    // Reduction loops innermost first: a parallel loop inside a reduction
    // (a softmax over channels, NCHW) would run sequentially in a thread,
    // if upstream mapped it at all.
    SmallVector<linalg::LinalgOp> outOfOrder;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (hasParallelInsideReduction(op))
        outOfOrder.push_back(op);
    });
    for (linalg::LinalgOp op : outOfOrder) {
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> general =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(general))
          continue;
        generic = *general;
      }
      (void)linalg::interchangeGenericOp(rewriter, generic,
                                         getReductionsLast(generic));
    }
    SmallVector<std::pair<linalg::LinalgOp, int64_t>> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (int64_t split = chooseSplit(op, threads))
        ops.emplace_back(op, split);
    });
    for (auto [op, factor] : ops) {
      // (A structured binding cannot be captured in C++17.)
      int64_t split = factor;
      // The partials' dimension last in the intermediate result, and
      // innermost in the loops: thread s of a row reads elements s, s + S,
      // ... so a warp's loads are adjacent.
      unsigned index =
          cast<ShapedType>(op.getDpsInits()[0].getType()).getRank();
      linalg::ControlSplitReductionFn control = [&](linalg::LinalgOp) {
        return linalg::SplitReductionOptions{split, index,
                                             /*innerParallel=*/true};
      };
      rewriter.setInsertionPoint(op);
      // A combiner without a neutral element (or a body upstream cannot
      // split) leaves the op as it is. The partials get an alloc_tensor
      // (see giveFillsOwnBuffers).
      FailureOr<linalg::SplitReductionResult> result =
          linalg::splitReduction(rewriter, op, control, /*useAlloc=*/true);
      if (failed(result))
        continue;
      // The new parallel dimension comes after the reduced one; parallel
      // loops must be outermost to become threads (a reduction between
      // them would make the inner ones sequential in each thread).
      if (auto generic =
              dyn_cast<linalg::GenericOp>(result->splitLinalgOp.getOperation()))
        (void)linalg::interchangeGenericOp(rewriter, generic,
                                           getReductionsLast(generic));
    }
    placer::giveFillsOwnBuffers(rewriter, getOperation());
  }
};

} // namespace
