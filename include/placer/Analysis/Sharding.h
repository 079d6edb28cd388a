//===- Sharding.h - Tensor-parallel layouts of a graph ----------*- C++ -*-===//
//
// How a graph function runs on a tensor-parallel group of `degree` devices:
// for every node, which of its op registry entry's sharding rules it uses,
// how its results come out cut (OpRegistry.h, ShardSplit), and which
// collectives it needs (an all-gather of an input whose split it cannot
// take, an all-reduce of partial sums). Decided node by node in program
// order, Megatron-LM's way: a product takes the strategy that needs the
// fewest gathers, then the fewest collectives after it (so a weight product
// on a whole input goes column-parallel and one on a split input
// row-parallel: one all-reduce per MLP or attention block), elementwise ops
// run on the slices they are given, and ops without a rule run whole on
// every device. docs/Sharding.md has the rules.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_ANALYSIS_SHARDING_H
#define PLACER_ANALYSIS_SHARDING_H

#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Graph/OpRegistry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>
#include <vector>

namespace placer {

/// A collective one node needs: on input `operand` before it runs (an
/// all-gather), or on result `result` after (an all-reduce of partial sums
/// into the whole result). `bytes`: the whole tensor's.
struct CollectiveUse {
  Collective kind = Collective::None;
  int operand = -1, result = -1;
  int64_t bytes = 0;
};

struct NodeSharding {
  graph::NodeOp node;
  /// "column", "row", "batch" (a product's strategy), "follow" (elementwise
  /// on its inputs' slices), "carry" (a split carried through), or
  /// "replicated" (whole on every device).
  std::string strategy;
  /// Per result: its split, or std::nullopt when every device holds it
  /// whole (after this node's collectives).
  llvm::SmallVector<std::optional<ShardSplit>, 1> results;
  llvm::SmallVector<CollectiveUse, 1> collectives;
  /// Per input: whether each device reads only its slice of it (split
  /// already, or cut from a whole value: a weight sliced at compile time).
  llvm::SmallVector<bool, 3> cutInputs;
  /// Per cut input: the slice each device reads (of a whole input, the cut
  /// the per-device programs make: a weight column-cut in the blocks of a
  /// fused projection's result).
  llvm::SmallVector<std::optional<ShardSplit>, 3> inputSplits;
  /// Whether each device does 1 / degree of the node's work.
  bool isSharded() const { return strategy != "replicated"; }
};

struct ShardingPlan {
  int64_t degree = 1;
  /// The function's nodes, in program order.
  std::vector<NodeSharding> nodes;
  /// All-gathers of the function's results that come out split
  /// (`operand`: the result's index).
  llvm::SmallVector<CollectiveUse, 1> outputs;
  /// Where each split value lies (values held whole are absent).
  llvm::DenseMap<mlir::Value, ShardSplit> splits;

  int64_t countCollectives(Collective kind) const;
};

/// The plan for `func` (graph.nodes with static shapes) on `degree`
/// devices; an error on the function when a shape is not static or the
/// degree is below 1. `held`: values every device holds split from the
/// start (a training step's state kept as slices from step to step),
/// where the plan otherwise starts with every input and weight whole.
mlir::FailureOr<ShardingPlan>
planSharding(mlir::func::FuncOp func, int64_t degree,
             const llvm::DenseMap<mlir::Value, ShardSplit> &held =
                 llvm::DenseMap<mlir::Value, ShardSplit>());

} // namespace placer

#endif // PLACER_ANALYSIS_SHARDING_H
