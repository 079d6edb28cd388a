//===- Memory.cpp - Memory of a set of ops on one device ------------------===//
#include "placer/Solver/Memory.h"

#include <algorithm>

using namespace placer::solver;

static constexpr int kAbsent = -1;

PeakMemory::PeakMemory(const MemoryGraph &graph)
    : graph(graph), predecessors(graph.size()),
      position(graph.size(), kAbsent), lastUse(graph.size(), kAbsent) {
  for (size_t node = 0; node < graph.size(); ++node)
    for (int user : graph.successors[node])
      predecessors[user].push_back(static_cast<int>(node));
}

MemoryUsage PeakMemory::operator()(llvm::ArrayRef<int> order) {
  int end = static_cast<int>(order.size());
  for (int i = 0; i < end; ++i)
    position[order[i]] = i;

  // The last step that needs each activation on this device. Produced
  // here: its own step at least; kept to the end when it leaves.
  MemoryUsage usage;
  for (int node : order) {
    usage.weights += graph.paramBytes[node];
    bool leaves = graph.successors[node].empty();
    int last = position[node];
    for (int user : graph.successors[node]) {
      leaves |= position[user] == kAbsent;
      if (position[user] != kAbsent)
        last = std::max(last, position[user]);
    }
    lastUse[node] = leaves ? end : last;
  }
  // Received: alive from before the first step to its last reader here
  // (steps are visited in order, so the last visit wins).
  double live = 0;
  for (int step = 0; step < end; ++step)
    for (int producer : predecessors[order[step]]) {
      if (position[producer] != kAbsent)
        continue;
      if (lastUse[producer] == kAbsent) {
        live += graph.outputBytes[producer];
        received.push_back(producer);
      }
      lastUse[producer] = step;
    }

  freedAfter.assign(order.size() + 1, 0);
  for (int node : order)
    if (lastUse[node] < end)
      freedAfter[lastUse[node]] += graph.outputBytes[node];
  for (int producer : received)
    freedAfter[lastUse[producer]] += graph.outputBytes[producer];

  double peak = live;
  for (int step = 0; step < end; ++step) {
    live += graph.outputBytes[order[step]]; // its inputs are still alive
    peak = std::max(peak, live);
    live -= freedAfter[step];
  }
  usage.activations = peak;

  for (int node : order)
    position[node] = lastUse[node] = kAbsent;
  for (int producer : received)
    lastUse[producer] = kAbsent;
  received.clear();
  return usage;
}

MemoryUsage placer::solver::getPeakInferenceMemory(const MemoryGraph &graph,
                                                   llvm::ArrayRef<int> order) {
  return PeakMemory(graph)(order);
}

Problem placer::solver::withAdditiveMemory(const Problem &problem) {
  Problem additive = problem;
  if (problem.isTraining()) {
    int most = problem.inFlight(problem.numAccelerators);
    for (Node &node : additive.nodes)
      node.memory += node.outputBytes * most;
  } else {
    for (int u = 0; u < problem.size(); ++u)
      for (int v : problem.successors[u])
        additive.nodes[v].memory += problem.nodes[u].outputBytes;
    for (Node &node : additive.nodes)
      node.memory += node.outputBytes;
  }
  for (Node &node : additive.nodes)
    node.outputBytes = 0;
  return additive;
}
