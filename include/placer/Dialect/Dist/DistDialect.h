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
} // namespace placer::dist

#endif // PLACER_DIALECT_DIST_DISTDIALECT_H
