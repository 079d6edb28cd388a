//===- DistDialect.h - Per-device programs and their transfers -*- C++ -*-===//
#ifndef PLACER_DIALECT_DIST_DISTDIALECT_H
#define PLACER_DIALECT_DIST_DISTDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "placer/Dialect/Dist/DistDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "placer/Dialect/Dist/DistAttrs.h.inc"

#define GET_OP_CLASSES
#include "placer/Dialect/Dist/DistOps.h.inc"

namespace placer::dist {
/// On an op of a stage function: its position in the function it was split
/// from, so that --placer-merge-devices can restore the order.
inline constexpr llvm::StringLiteral kPositionAttrName = "dist.position";
/// On a stage function's argument / result: the index of the graph input /
/// output it is.
inline constexpr llvm::StringLiteral kArgAttrName = "dist.arg";
inline constexpr llvm::StringLiteral kResultAttrName = "dist.result";
/// On a stage function compiled alone (one MPI rank per device): the
/// program's devices in rank order, so that a transfer's peer device maps
/// to the rank that runs it.
inline constexpr llvm::StringLiteral kRanksAttrName = "dist.ranks";
/// Next to dist.ranks when the program replicates stages: per rank, how
/// many ranks run its stage (they are consecutive, the stage's own device
/// first), so that a transfer routes each microbatch to the copy taking it.
inline constexpr llvm::StringLiteral kReplicasAttrName = "dist.replicas";

/// The rank that runs `device` in the program `func` is a stage of: its
/// position in the function's dist.ranks, or the device itself where the
/// function has none; an error on `anchor` naming the device's `role` when
/// dist.ranks does not list it.
mlir::FailureOr<int64_t> getRankOf(mlir::Operation *func,
                                   mlir::Operation *anchor, int64_t device,
                                   llvm::StringRef role);

/// The ranks a tensor-parallel group's devices run on, as (first, count,
/// stride): the split lays a group's programs side by side, each followed
/// by its data-parallel copies, so its ranks are evenly spaced (as compiled
/// for the stages' first copy; copy c's are c ranks further).
struct GroupRanks {
  int64_t first = 0, count = 0, stride = 0;
};
mlir::FailureOr<GroupRanks> getGroupRanks(mlir::Operation *func,
                                          mlir::Operation *anchor,
                                          llvm::ArrayRef<int64_t> group);
} // namespace placer::dist

#endif // PLACER_DIALECT_DIST_DISTDIALECT_H
