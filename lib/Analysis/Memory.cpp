//===- Memory.cpp - Memory of a set of ops on one device ------------------===//
#include "placer/Analysis/Memory.h"

#include <algorithm>
#include <cmath>

using namespace placer;

int64_t placer::getPeakInferenceMemory(const MemoryGraph &graph,
                                       llvm::ArrayRef<int> order) {
  const int kAbsent = -1;
  std::vector<int> position(graph.size(), kAbsent);
  for (size_t i = 0; i < order.size(); ++i)
    position[order[i]] = static_cast<int>(i);
  int end = static_cast<int>(order.size());

  // The last step that needs each activation on this device.
  std::vector<int> lastUse(graph.size(), kAbsent);
  std::vector<bool> received(graph.size(), false);
  int64_t weights = 0;
  for (int node : order) {
    weights += graph.paramBytes[node];
    bool leaves = graph.successors[node].empty();
    for (int user : graph.successors[node])
      leaves |= position[user] == kAbsent;
    lastUse[node] = leaves ? end : position[node];
    for (int user : graph.successors[node])
      if (position[user] != kAbsent)
        lastUse[node] = std::max(lastUse[node], position[user]);
  }
  // Activations received from other devices are alive from the start.
  int64_t live = 0;
  for (size_t producer = 0; producer < graph.size(); ++producer) {
    if (position[producer] != kAbsent)
      continue;
    for (int user : graph.successors[producer]) {
      if (position[user] == kAbsent)
        continue;
      if (!received[producer]) {
        received[producer] = true;
        live += graph.outputBytes[producer];
      }
      lastUse[producer] = std::max(lastUse[producer], position[user]);
    }
  }

  // Frees at each step, then a sweep over the steps.
  std::vector<int64_t> freedAfter(order.size() + 1, 0);
  for (size_t node = 0; node < graph.size(); ++node)
    if (lastUse[node] != kAbsent && lastUse[node] < end &&
        (position[node] != kAbsent || received[node]))
      freedAfter[lastUse[node]] += graph.outputBytes[node];
  int64_t peak = live;
  for (size_t step = 0; step < order.size(); ++step) {
    live += graph.outputBytes[order[step]]; // inputs are still alive here
    peak = std::max(peak, live);
    live -= freedAfter[step];
  }
  return weights + peak;
}

int64_t placer::getTrainingStageMemory(const MemoryGraph &graph,
                                       llvm::ArrayRef<int> order,
                                       int stagesFromEnd,
                                       const TrainingMemoryOptions &options) {
  int64_t weights = 0, activations = 0;
  for (int node : order) {
    weights += graph.paramBytes[node];
    activations += graph.outputBytes[node];
  }
  double state = weights * (1.0 + options.gradientFactor +
                            options.optimizerStateFactor);
  double stash = static_cast<double>(activations) * (stagesFromEnd + 1);
  return static_cast<int64_t>(std::llround(state + stash));
}
