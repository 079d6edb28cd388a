//===- CostModel.h - Work of ops and their time on devices -----*- C++ -*-===//
//
// The formulas behind `--placer-estimate-costs`; docs/CostModel.md lists
// them with their limits.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_ANALYSIS_COSTMODEL_H
#define PLACER_ANALYSIS_COSTMODEL_H

#include "placer/Analysis/Cluster.h"
#include "placer/Interfaces/CostOpInterface.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace placer {

/// Attaches the CostOpInterface models of Placer's own ops (graph.node with
/// its ONNX formulas, graph.constant, graph.none) and of the upstream
/// dialects (registerUpstreamCostModels).
void registerCostModels(mlir::DialectRegistry &registry);

/// Attaches CostOpInterface models to the upstream ops other stacks hand
/// over: every linalg structured op (from the LinalgOp interface), the
/// tosa ops, tensor views and data movement, and elementwise arith/math
/// (on tensors; free on scalars). Each attaches when its dialect loads.
void registerUpstreamCostModels(mlir::DialectRegistry &registry);

/// While one is alive (on this thread), the cost models remember which
/// kernel each op runs in (docs/CostModel.md, "Kernels"): a module's ops
/// then cost linear time together instead of a search per reader of each
/// operand (a constant read by every layer). The IR must not change
/// meanwhile (attributes may); --placer-estimate-costs holds one while it
/// estimates a module. Scopes nest.
class KernelCache {
public:
  KernelCache();
  ~KernelCache();
  KernelCache(const KernelCache &) = delete;
  KernelCache &operator=(const KernelCache &) = delete;

  /// The innermost live cache, or null.
  static KernelCache *current();
  /// The kernel of `op` from the cache, computed by `compute` on a miss
  /// (always computed when no cache is alive).
  static mlir::Operation *
  lookup(mlir::Operation *op,
         llvm::function_ref<mlir::Operation *(mlir::Operation *)> compute);

private:
  llvm::DenseMap<mlir::Operation *, mlir::Operation *> kernels;
  KernelCache *outer;
};

/// The estimate for an op with no model: it reads its operands and writes
/// its results once, and computes nothing.
OpWork estimateGenericWork(mlir::Operation *op);

/// Roofline: max(FLOPs / peak FLOP/s, bytes moved / memory bandwidth) plus
/// the kind's per-op overhead; 0 for free (view) ops.
double getRooflineTime(const OpWork &work, const DeviceKind &kind);

/// Bytes of a statically shaped tensor (strings count 0 bytes), 0 for
/// `none`, std::nullopt for dynamic or unknown types and for tensors over
/// graph::kMaxTensorBytes (which the graph dialect's verifiers refuse).
std::optional<int64_t> getTypeBytes(mlir::Type type);

/// A type as printed ("f32"): the element type that picks a peak FLOP/s.
std::string getTypeName(mlir::Type type);

/// Bytes of a statically shaped tensor, memref or vector; 0 for scalars
/// and other values without a shape; std::nullopt for a dynamic, unranked
/// or scalable shape and for sizes past graph::kMaxTensorBytes.
std::optional<int64_t> getValueBytes(mlir::Type type);

/// The error for an op whose cost needs a shape it lacks (or a size past
/// the limit), naming the op and the operand or result (`role`).
mlir::LogicalResult emitShapeError(mlir::Operation *op, llvm::StringRef role,
                                   mlir::Type type);

/// Every operand and result has a size (getValueBytes), or the error above
/// for the first that has none.
mlir::LogicalResult checkStaticShapes(mlir::Operation *op);

/// Bytes of an activation: its tensor type's, or for workload values (no
/// shapes) the producer's `output_bytes` cost field. The placement's and
/// the simulator's memory both count activations with it.
int64_t getActivationBytes(mlir::Value value);

/// Backward time as a multiple of forward time for `op`'s ONNX op, from its
/// op registry entry (docs/OpCoverage.md; the reasons in docs/CostModel.md,
/// "Backward times"); std::nullopt for ops that set none.
std::optional<double> getBackwardFactor(mlir::Operation *op);

/// The backward factor of op types the table does not list: that of a
/// contraction, the ops that dominate a model's time.
constexpr double kFallbackBackwardFactor = 2.0;

/// The attribute (in a graph.node's `attrs`) that marks an op of a training
/// graph's backward pass; workload imports write it.
constexpr llvm::StringLiteral kBackwardAttrName = "backward";

/// Whether `op` is marked as part of a training graph's backward pass.
bool isBackwardOp(mlir::Operation *op);

} // namespace placer

#endif // PLACER_ANALYSIS_COSTMODEL_H
