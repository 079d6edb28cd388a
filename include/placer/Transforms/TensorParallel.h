//===- TensorParallel.h - Per-device programs of a tensor-parallel group --===//
//
// A stage that a three-dimensional plan runs on a tensor-parallel group of
// t devices becomes t programs: each holds its slices of the weights and
// computes its part of every sharded node, and the group's collectives
// (dist.all_reduce, dist.all_gather) make whole what the next node needs
// whole. Which node splits how is planSharding's decision
// (placer/Analysis/Sharding.h, docs/Sharding.md); this is the rewrite that
// carries it out.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_TRANSFORMS_TENSORPARALLEL_H
#define PLACER_TRANSFORMS_TENSORPARALLEL_H

#include "placer/Dialect/Dist/DistDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace placer {

/// Rewrites `stage` (graph nodes on static shapes, no transfers) into one
/// function per device of `group` (ascending device indices, at least two),
/// inserted after it: the first keeps the stage's name and results, the
/// others are named `<stage>_t<i>` and return nothing (every member runs
/// the same collectives, in the same order; the first writes the outputs).
/// Weights held inline are sliced at compile time; other whole values a
/// node needs cut are sliced by Slice nodes. Fails, leaving `stage` as it
/// was, after an error naming the node when a sharded node has no
/// per-device form yet (subgraphs, a grouped convolution, training-mode
/// BatchNormalization).
///
/// Transfers with other stages: what the stage sends, the first member
/// sends (whole: a split value is gathered by every member first); what it
/// receives, every member receives, the first on the stage's channel and
/// member i on the channel `receiveOn(recv, i)` returns, which the caller
/// makes (a new channel, and a send of the same value to member i's device
/// where the sender sends to the stage).
using ReceiveChannelFn = llvm::function_ref<mlir::FailureOr<int64_t>(
    placer::dist::RecvOp recv, int64_t member)>;
mlir::FailureOr<llvm::SmallVector<mlir::func::FuncOp>>
buildGroupPrograms(mlir::func::FuncOp stage, llvm::ArrayRef<int64_t> group,
                   ReceiveChannelFn receiveOn);

} // namespace placer

#endif // PLACER_TRANSFORMS_TENSORPARALLEL_H
