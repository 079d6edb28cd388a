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
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

namespace placer {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;

namespace {

/// The functions upstream's polynomial approximations cover (f32).
constexpr llvm::StringLiteral kApproximated[] = {
    "tanh", "erf",  "erfc", "exp",  "expm1", "log",  "log1p", "log2",
    "sin",  "cos",  "atan", "atan2", "asin", "acos", "cbrt"};

struct ApproximateMathPass
    : placer::impl::ApproximateMathBase<ApproximateMathPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    for (const std::string &name : functions) {
      if (!llvm::is_contained(kApproximated, name))
        return emitError(UnknownLoc::get(context),
                         "--placer-approximate-math: no approximation of '")
               << name << "' (choose from "
               << llvm::join(std::begin(kApproximated), std::end(kApproximated), ", ")
               << ")";
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
