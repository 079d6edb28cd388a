//===- Passes.h - Placer's passes ------------------------------*- C++ -*-===//
#ifndef PLACER_TRANSFORMS_PASSES_H
#define PLACER_TRANSFORMS_PASSES_H

#include "placer/Dialect/Dist/DistDialect.h"

#include "mlir/Pass/Pass.h"

namespace placer {

#define GEN_PASS_DECL
#include "placer/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "placer/Transforms/Passes.h.inc"

/// Names of the attributes the cost pass writes and later passes read.
namespace costattrs {
inline constexpr llvm::StringLiteral kCost = "placer.cost";
inline constexpr llvm::StringLiteral kCluster = "placer.cluster";
} // namespace costattrs

} // namespace placer

#endif // PLACER_TRANSFORMS_PASSES_H
