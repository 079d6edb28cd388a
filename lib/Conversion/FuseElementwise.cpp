//===- FuseElementwise.cpp - Elementwise chains as one op -----------------===//
#include "placer/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace placer {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;

namespace {

bool isElementwise(Operation *op) {
  auto linalgOp = dyn_cast_if_present<linalg::LinalgOp>(op);
  return linalgOp && linalg::isElementwise(linalgOp);
}

struct FuseElementwisePass
    : placer::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Both sides elementwise, and the producer read by this consumer alone:
    // otherwise its values would be computed twice.
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return isElementwise(producer) && producer->hasOneUse() &&
             isElementwise(fused->getOwner());
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
