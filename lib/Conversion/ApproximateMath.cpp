//===- ApproximateMath.cpp - Inline polynomials for libm calls ------------===//
//
// math.tanh and math.erf otherwise become scalar libm calls, which keep
// LLVM from vectorizing the loops around them (GELU's tanh was 17% of a
// GPT-2 decoder's time). Upstream's polynomial approximations are plain
// arithmetic, accurate to a few ulp in f32, and vectorize.
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace placer {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;

namespace {

struct ApproximateMathPass
    : placer::impl::ApproximateMathBase<ApproximateMathPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    for (const std::string &name : functions) {
      if (name != "tanh" && name != "erf")
        return emitError(UnknownLoc::get(context),
                         "--placer-approximate-math: no approximation of '")
               << name << "' (choose from tanh, erf)";
      chosen.insert(name);
    }
    return success();
  }

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [&](StringRef name) {
          return name.consume_front("math.") && chosen.contains(name);
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }

  llvm::StringSet<> chosen;
};

} // namespace
