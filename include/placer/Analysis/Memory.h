//===- Memory.h - Memory of a set of ops on one device ---------*- C++ -*-===//
//
// Plain C++ on a small graph, so that the placement solvers can use it.
// The rules are in docs/CostModel.md ("Memory").
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_ANALYSIS_MEMORY_H
#define PLACER_ANALYSIS_MEMORY_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace placer {

/// What memory needs to know of a graph: per node, the bytes of the weights
/// it keeps and of the activation it produces, and its consumers.
struct MemoryGraph {
  std::vector<int64_t> paramBytes;
  std::vector<int64_t> outputBytes;
  std::vector<std::vector<int>> successors;

  size_t size() const { return paramBytes.size(); }
};

/// Peak bytes of a device that runs `order` (nodes of `graph`, in a
/// topological order) for one sample: all their weights, plus the largest
/// set of activations alive at once. An activation is alive from the step
/// that produces (or receives) it to the last step on this device that reads
/// it; one that leaves the device (or is a graph output) stays to the end.
int64_t getPeakInferenceMemory(const MemoryGraph &graph,
                               llvm::ArrayRef<int> order);

struct TrainingMemoryOptions {
  /// Gradient bytes per weight byte.
  double gradientFactor = 1.0;
  /// Optimizer state bytes per weight byte: Adam keeps two moments.
  double optimizerStateFactor = 2.0;
};

/// Bytes a pipeline stage needs in training under 1F1B scheduling: weights,
/// gradients and optimizer state, plus the activations of every forward op
/// of the stage stashed for each microbatch in flight. A stage that is
/// `stagesFromEnd` stages from the last one (0 for the last) has
/// stagesFromEnd + 1 microbatches in flight.
int64_t getTrainingStageMemory(const MemoryGraph &graph,
                               llvm::ArrayRef<int> order, int stagesFromEnd,
                               const TrainingMemoryOptions &options = {});

} // namespace placer

#endif // PLACER_ANALYSIS_MEMORY_H
