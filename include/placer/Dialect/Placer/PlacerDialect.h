//===- PlacerDialect.h - Typed state between Placer's passes ---*- C++ -*-===//
//
// The cluster, per-op cost, device and placement attributes, and accessors
// that read and write them on ops (docs/Architecture.md, "Pass-to-pass
// contract").
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_DIALECT_PLACER_PLACERDIALECT_H
#define PLACER_DIALECT_PLACER_PLACERDIALECT_H

#include "placer/Solver/Schedule.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/bit.h"
#include "llvm/ADT/Hashing.h"

#include <optional>

#include "placer/Dialect/Placer/PlacerEnums.h.inc"

namespace placer {
class Cluster;
class ClusterAttr;
class CostAttr;
class DeviceAttr;
class PlacementAttr;

/// A double as an attribute parameter: hashed and compared by its bits, so
/// that attributes are uniqued exactly.
struct F64 {
  double value = 0;
  F64(double value = 0) : value(value) {}
  operator double() const { return value; }
  bool operator==(const F64 &other) const {
    return llvm::bit_cast<uint64_t>(value) ==
           llvm::bit_cast<uint64_t>(other.value);
  }
};
inline llvm::hash_code hash_value(F64 f) {
  return llvm::hash_value(llvm::bit_cast<uint64_t>(f.value));
}

namespace detail {
mlir::FailureOr<F64> parseF64(mlir::AsmParser &parser);
mlir::FailureOr<std::optional<F64>> parseOptionalF64(mlir::AsmParser &parser);
void printF64(mlir::AsmPrinter &printer, double value);
mlir::FailureOr<bool> parseBool(mlir::AsmParser &parser);
mlir::FailureOr<solver::Objective> parseObjective(mlir::AsmParser &parser);
mlir::FailureOr<solver::Schedule> parseSchedule(mlir::AsmParser &parser);
} // namespace detail
} // namespace placer

// The attributes first: the dialect's typed helpers for its discardable
// attributes need them complete.
#define GET_ATTRDEF_CLASSES
#include "placer/Dialect/Placer/PlacerAttrs.h.inc"

#include "placer/Dialect/Placer/PlacerDialect.h.inc"

namespace placer {

/// Typed access to the discardable attributes of the `placer` dialect. A
/// getter returns a null attribute when the op has none.
ClusterAttr getCluster(mlir::Operation *module);
void setCluster(mlir::Operation *module, ClusterAttr cluster);
CostAttr getCost(mlir::Operation *op);
void setCost(mlir::Operation *op, CostAttr cost);
/// The device index of `op`, or std::nullopt when it is not placed.
std::optional<int64_t> getDevice(mlir::Operation *op);
void setDevice(mlir::Operation *op, int64_t device);
PlacementAttr getPlacement(mlir::Operation *module);
void setPlacement(mlir::Operation *module, PlacementAttr placement);

/// The module attribute of a profiled module (--placer-lower-graph-to-linalg
/// with profile=true): the node names, indexed by the number each node
/// passes to the profile hooks. An array of strings.
inline constexpr llvm::StringLiteral kProfileNodesAttrName =
    "placer.profile_nodes";

/// A training step's attributes (--placer-build-training): on a graph node
/// of the backward pass, a unit attribute (the optimizer's nodes carry it
/// and a second unit attribute of their own); on a node and its backward
/// twin, the class of nodes that share a device (a non-negative i64), as a
/// paper workload's `backward` and `color_class` node attributes are; on a
/// step function's result, the initializer (weight or optimizer state)
/// whose next value it is (a string).
inline constexpr llvm::StringLiteral kBackwardNodeAttrName = "placer.backward";
inline constexpr llvm::StringLiteral kOptimizerNodeAttrName =
    "placer.optimizer";
inline constexpr llvm::StringLiteral kColorClassAttrName = "placer.color_class";
/// On a backward node, a unit attribute: it computes weight gradients only
/// (W work, which nothing upstream waits for: the zero-bubble schedules
/// defer it); the other backward nodes compute the input gradients (B).
inline constexpr llvm::StringLiteral kWeightGradientAttrName =
    "placer.weight_gradient";
/// On a forward graph.node, a unit attribute: a training step computes its
/// results again before its backward pass reads them, instead of keeping
/// them from the forward pass (a chosen `recompute` configuration).
inline constexpr llvm::StringLiteral kRecomputeAttrName = "placer.recompute";
/// On a graph.node a placement with several chunks per accelerator
/// (interleaved, zb-v) placed: its chunk of the model, a non-negative i64
/// in pipeline order (chunk c runs on the device the schedule gives it).
inline constexpr llvm::StringLiteral kChunkAttrName = "placer.chunk";
inline constexpr llvm::StringLiteral kUpdatesAttrName = "placer.updates";
/// Beside `placer.updates`, a unit attribute: the result updates one more
/// device's copy of the state, which another result updates alike (a
/// weight tied across stages, or read by the copies of a replicated
/// stage: --placer-split-devices); the runtime saves the other.
inline constexpr llvm::StringLiteral kReplicaAttrName = "placer.replica";
/// On a tensor-parallel member's result beside kUpdatesAttrName: the
/// member holds that state as its slice (#placer.shard).
inline constexpr llvm::StringLiteral kShardAttrName = "placer.shard";
/// On a training step's function (--placer-accumulate-microbatches): the
/// microbatches it averages (a positive i64) and the schedule its work is
/// ordered by (a string: the name of a solver::Schedule that
/// solver::parseStepSchedule reads: "sequential", "gpipe", "1f1b" or
/// "zb-h1").
inline constexpr llvm::StringLiteral kMicrobatchesAttrName =
    "placer.microbatches";
inline constexpr llvm::StringLiteral kScheduleAttrName = "placer.schedule";
/// On a module placer-autocast rewrote: the half-precision type (bf16 or
/// f16) its products compute in. Compiled programs record it (the
/// manifest's `precision`), and it is rewritten in no other type.
inline constexpr llvm::StringLiteral kPrecisionAttrName = "placer.precision";

/// The cluster recorded on `op`'s module, with an error naming `pass` and
/// what to run first when there is none.
mlir::FailureOr<Cluster> requireCluster(mlir::Operation *op,
                                        llvm::StringRef pass);

} // namespace placer

#endif // PLACER_DIALECT_PLACER_PLACERDIALECT_H
