//===- Passes.h - Placer's passes ------------------------------*- C++ -*-===//
#ifndef PLACER_TRANSFORMS_PASSES_H
#define PLACER_TRANSFORMS_PASSES_H

#include "placer/Transforms/PlacementOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace placer {

#define GEN_PASS_DECL
#include "placer/Transforms/Passes.h.inc"

/// The passes with settings given in C++ (the pipeline builds them so).
std::unique_ptr<mlir::Pass> createEstimateCosts(CostSettings settings);
std::unique_ptr<mlir::Pass> createPlaceDevices(PlacementSettings settings);

/// --placer-bind-dims on `module`: every dim a symbol of `bindings`
/// (NAME=VALUE) names gets that size. Fails, changing nothing, on a
/// malformed entry or a name the module does not have.
mlir::LogicalResult bindDims(mlir::ModuleOp module,
                             llvm::ArrayRef<std::string> bindings);
/// The symbolic dims the module's functions and nodes name, sorted.
std::vector<std::string> getSymbolicDims(mlir::ModuleOp module);

/// --placer-accumulate-microbatches on `module` (a training step): its
/// inputs hold `microbatches` microbatches (0: the placement's), whose
/// gradients it averages before the optimizer's update, the work ordered
/// by `schedule` (sequential, gpipe, 1f1b, zb-h1; empty: the placement's, else
/// sequential). Errors are emitted on the module.
mlir::LogicalResult accumulateMicrobatches(mlir::ModuleOp module,
                                           int64_t microbatches,
                                           llvm::StringRef schedule = "");

#define GEN_PASS_REGISTRATION
#include "placer/Transforms/Passes.h.inc"

} // namespace placer

#endif // PLACER_TRANSFORMS_PASSES_H
