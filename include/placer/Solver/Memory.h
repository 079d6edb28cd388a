//===- Memory.h - Memory of a set of ops on one device ---------*- C++ -*-===//
//
// Plain C++ on a small graph: the placement solvers, the placement report
// and the simulator all measure a device's memory here. The rules are in
// docs/CostModel.md ("Memory").
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_SOLVER_MEMORY_H
#define PLACER_SOLVER_MEMORY_H

#include "placer/Solver/Problem.h"

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace placer::solver {

/// What memory needs to know of a graph: per node, the bytes of the weights
/// it keeps and of the activation it produces, and its consumers.
struct MemoryGraph {
  std::vector<double> paramBytes;
  std::vector<double> outputBytes;
  std::vector<std::vector<int>> successors;

  size_t size() const { return paramBytes.size(); }
};

/// A device's memory for one sample: its weights, and the largest set of
/// activations alive at once while it runs its nodes in order.
struct MemoryUsage {
  double weights = 0;
  double activations = 0;
  double total() const { return weights + activations; }
};

/// Measures devices of one graph again and again (the DP asks for many
/// sets): the scratch space is allocated once and cleaned per call, so a
/// call costs O(nodes in `order` + their edges), not O(graph).
///
/// An activation is alive from the step that produces it to the last step
/// on the device that reads it; one that leaves the device (or is a graph
/// output) stays to the end, waiting to be sent. One received from another
/// device is alive from the start to its last reader.
class PeakMemory {
public:
  explicit PeakMemory(const MemoryGraph &graph);

  /// `order`: nodes of the graph, in a topological order.
  MemoryUsage operator()(llvm::ArrayRef<int> order);

private:
  const MemoryGraph &graph;
  std::vector<std::vector<int>> predecessors;
  std::vector<int> position, lastUse;
  std::vector<int> received;
  std::vector<double> freedAfter;
};

/// The problem's nodes as a memory graph (weights: `Node::memory`).
MemoryGraph memoryGraph(const Problem &problem);

/// The problem with each node's memory replaced by its weights, its output
/// and its inputs, and no activation bytes left: summed over any set of
/// nodes, in any order, this bounds the set's memory (every live activation
/// is produced there or read there), so linear models (the MILPs, the
/// greedy heuristics) that respect it respect the real peak. It is loose:
/// on a chain each activation counts twice where the peak holds two.
/// Under a training schedule each node's stash counts for the most
/// microbatches any stage holds (exact for GPipe, the first stage's for
/// 1F1B).
Problem withAdditiveMemory(const Problem &problem);

/// One-off form of PeakMemory.
MemoryUsage getPeakInferenceMemory(const MemoryGraph &graph,
                                   llvm::ArrayRef<int> order);

} // namespace placer::solver

#endif // PLACER_SOLVER_MEMORY_H
