//===- PlaceParallel.h - Three-dimensional plans ----------------*- C++ -*-===//
//
// Internal to the transforms library: --placer-place-devices on a module
// whose nodes carry tensor-parallel configurations (placer.tensor_configs,
// e.g. Piper's input through placer-translate --import-workload).
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_TRANSFORMS_PLACEPARALLEL_H
#define PLACER_LIB_TRANSFORMS_PLACEPARALLEL_H

#include "placer/Analysis/Cluster.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Solver/ParallelPlan.h"
#include "placer/Transforms/PlacementOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

namespace placer {

/// Whether some node of `module` has placer.tensor_configs.
bool hasTensorConfigs(mlir::ModuleOp module);

/// Drops what the three-dimensional planner read of `node` and chose for it
/// (configurations, the one taken, edge sizes): they describe the graph it
/// planned, which a split or a training step's backward pass changes.
void dropTensorPlanInputs(graph::NodeOp node);

/// Plans the module's nodes as stages with tensor- and data-parallel
/// degrees (solver::planParallel), with the devices, memory and
/// microbatches of `settings` or else the cluster's and the bandwidth of the
/// cluster's link between its first two accelerators. Annotates each node
/// with its stage's first device and its configuration, the module with
/// placer.placement (its `stages`), and gives the report; errors are emitted
/// on the module and leave it unchanged.
mlir::FailureOr<llvm::json::Value>
placeParallel(mlir::ModuleOp module, const PlacementSettings &settings,
              const Cluster &cluster);

/// The module's one function, or an error on the module starting with
/// `what` (three-dimensional plans and tensor-parallel layouts are of one
/// graph function).
mlir::FailureOr<mlir::func::FuncOp> getSoleFunction(mlir::ModuleOp module,
                                                    llvm::StringRef what);

/// Gives every graph.node of the module's function placer.tensor_configs
/// (one configuration per degree of `degrees`, named by the sharding
/// strategy it uses) and placer.edge_bytes, from its placer.cost and
/// planSharding at each degree (docs/Sharding.md, "Configurations"): `time`
/// on the cluster's first accelerator kind, and `times` on each when it has
/// several. With `recompute`, a training graph's nodes get a second
/// configuration per degree that recomputes its output in the backward
/// pass instead of stashing it. A decode step's KV caches (KVCache.h) for
/// `kvBatch` sequences of `context` tokens (0: the step's sizes) are each
/// its Concat's `cache_bytes`, 1 / t where the Concat runs on slices (its
/// past held split as the new entries come out: a device keeps its heads').
/// Errors name the node.
mlir::LogicalResult
deriveTensorConfigs(mlir::ModuleOp module, llvm::ArrayRef<int64_t> degrees,
                    const Cluster &cluster, bool recompute = false,
                    int64_t kvBatch = 0, int64_t context = 0);

/// A placed module's three-dimensional plan, read back from its attributes
/// (the layers in program order, as placeParallel numbered them).
struct PlacedParallelPlan {
  solver::ParallelProblem problem;
  solver::ParallelPlan plan;
  llvm::SmallVector<graph::NodeOp> nodes;
};

/// The plan placeParallel left on `module`: the problem rebuilt from its
/// nodes, cluster and placement (the planned devices and microbatches;
/// memory is not checked again), each stage's layers from placer.device and
/// their configurations from placer.tensor_config, re-scored. Errors name
/// the node or what is invalid, on the module.
mlir::FailureOr<PlacedParallelPlan> readParallelPlan(mlir::ModuleOp module);

} // namespace placer

#endif // PLACER_LIB_TRANSFORMS_PLACEPARALLEL_H
