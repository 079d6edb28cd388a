//===- RandomProblems.h - Random small placement problems for tests -------===//
#ifndef PLACER_UNITTESTS_SOLVER_RANDOMPROBLEMS_H
#define PLACER_UNITTESTS_SOLVER_RANDOMPROBLEMS_H

#include "placer/Solver/Problem.h"

#include <cmath>
#include <random>
#include <string>

namespace placer::solver::testing {

struct Shape {
  int nodes;
  int accelerators;
  int cpus;
  bool training;   // backward partners in color classes
  bool unsupported;
  bool tightMemory;
  /// Zero-time nodes (some also free of cost and memory): the DP's exact
  /// reductions (free sources, leaves joining their producer) kick in.
  bool zeroTime = false;
  /// Nodes produce activations, which count in memory (Memory.h).
  bool activations = false;
  /// With activations: a training schedule makes them a stash of forward
  /// activations per microbatch in flight.
  Schedule schedule = Schedule::Inference;
  int microbatches = 1;
  /// Training: stages may recompute their stash (a third of a node's time).
  bool recompute = false;
  /// Stages may be replicated; training all-reduces each node's gradients
  /// (as many bytes as its weights) over a link of bandwidth 4.
  bool replicate = false;
  /// Two accelerator kinds: the later half of the accelerators is slower
  /// per node by a random factor, with half as much memory again.
  bool twoKinds = false;
  /// Nodes of two accelerators, links between nodes 3x slower.
  bool hierarchy = false;
};

/// A random DAG; in training mode every forward node gets a backward twin
/// in its color class, wired like a gradient graph (edges reversed).
inline Problem randomProblem(std::mt19937 &rng, const Shape &shape) {
  std::uniform_real_distribution<double> time(0.5, 10.0), cost(0.0, 3.0),
      memory(1.0, 5.0), coin(0.0, 1.0);
  Problem p;
  p.numAccelerators = shape.accelerators;
  p.numCpus = shape.cpus;
  p.schedule = shape.schedule;
  p.microbatches = shape.microbatches;
  p.recomputation = shape.recompute;
  p.replication = shape.replicate;
  p.allReduceBandwidth = 4;
  int forward = shape.nodes;
  auto addNode = [&](bool backward, int64_t color) {
    Node node;
    node.name = "n" + std::to_string(p.nodes.size());
    node.id = static_cast<int64_t>(p.nodes.size());
    node.acceleratorTime = std::round(time(rng) * 4) / 4;
    node.cpuTime = node.acceleratorTime * (2 + std::round(coin(rng) * 8));
    node.memory = std::round(memory(rng));
    node.transferCost = std::round(cost(rng) * 4) / 4;
    node.backward = backward;
    node.colorClass = color;
    node.supported = !(shape.unsupported && coin(rng) < 0.15);
    // Training schedules stash what forward nodes produce.
    if (shape.activations && !(p.isTraining() && backward))
      node.outputBytes = std::round(memory(rng) * 2);
    if (shape.replicate && p.isTraining())
      node.gradientBytes = node.memory;
    if (shape.recompute && !backward)
      node.recomputeTime = std::round(node.acceleratorTime / 3 * 4) / 4;
    if (shape.zeroTime && coin(rng) < 0.4) {
      node.acceleratorTime = node.cpuTime = 0;
      if (coin(rng) < 0.5)
        node.memory = node.transferCost = 0;
    }
    p.nodes.push_back(node);
    p.successors.emplace_back();
  };
  for (int i = 0; i < forward; ++i)
    addNode(false, shape.training ? i : (coin(rng) < 0.2 ? i % 3 : -1));
  for (int i = 0; i < forward; ++i)
    for (int j = i + 1; j < forward; ++j)
      if (coin(rng) < 0.35)
        p.addEdge(i, j);
  if (shape.training) {
    for (int i = 0; i < forward; ++i)
      addNode(true, i);
    for (int i = 0; i < forward; ++i) {
      p.addEdge(i, forward + i); // stashed activation
      for (int j : std::vector<int>(p.successors[i]))
        if (j < forward)
          p.addEdge(forward + j, forward + i); // gradient flows back
    }
  }
  // Activations: a device holds every tensor it sends until its end, so
  // about half of all of them is a limit that binds without ruling out
  // every placement.
  double total = 0;
  for (const Node &node : p.nodes)
    total += node.memory + node.outputBytes *
                               (p.isTraining()
                                    ? p.inFlight(shape.accelerators)
                                    : std::max(1, shape.accelerators) / 2.0);
  p.memoryLimit = shape.tightMemory
                      ? std::ceil(total / std::max(1, shape.accelerators)) + 1
                      : kInfinity;
  int k = shape.accelerators;
  if (shape.twoKinds) {
    for (int d = 0; d < k; ++d)
      p.acceleratorKinds.push_back(d < (k + 1) / 2 ? 0 : 1);
    p.kindMemoryLimits = {p.memoryLimit, p.memoryLimit * 1.5};
    p.memoryLimit = p.kindMemoryLimits[1];
    for (Node &node : p.nodes)
      node.kindTimes = {node.acceleratorTime,
                        std::round(node.acceleratorTime *
                                   (1 + std::round(coin(rng) * 4) / 2) * 4) /
                            4};
  }
  if (shape.hierarchy)
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b)
        p.linkFactors.push_back(a / 2 == b / 2 ? 1.0 : 3.0);
  return p;
}

/// The same problem with memory counting weights only.
inline Problem withoutActivations(Problem p) {
  for (Node &node : p.nodes)
    node.outputBytes = 0;
  return p;
}

inline std::string describe(const Problem &p, const Assignment &a) {
  std::string out;
  for (int u = 0; u < p.size(); ++u) {
    out += "node " + std::to_string(u) + " dev " + std::to_string(a[u]) +
           " class " + std::to_string(p.nodes[u].colorClass) + " ->";
    for (int v : p.successors[u])
      out += " " + std::to_string(v);
    out += "\n";
  }
  return out;
}

/// The best load of feasible `assignment` over every way to replicate its
/// stages (one way when replication is off).
inline double bestReplication(const Problem &problem,
                              const Assignment &assignment, double best) {
  if (!problem.replication)
    return best;
  int k = problem.numAccelerators;
  Replication replication(k, 1);
  while (true) {
    int d = 0;
    while (d < k && ++replication[d] > k - d)
      replication[d++] = 1;
    if (d == k)
      return best;
    Evaluation evaluation = evaluate(problem, assignment, replication);
    if (evaluation.feasible())
      best = std::min(best, evaluation.maxLoad);
  }
}

/// The best feasible placement by exhaustive search, contiguous or not
/// (where devices differ, contiguous in device order, as the DP's).
inline double bruteForce(const Problem &problem, bool contiguous) {
  int n = problem.size(), devices = problem.numDevices();
  Assignment assignment(n, 0);
  double best = kInfinity;
  while (true) {
    // Copies never lower a device's memory: an infeasible placement stays
    // so replicated.
    Evaluation evaluation = evaluate(problem, assignment);
    if (evaluation.feasible() &&
        (problem.replication || evaluation.maxLoad < best) &&
        (!contiguous ||
         isContiguous(problem, assignment, !problem.isUniform())))
      best = std::min(best, bestReplication(problem, assignment,
                                            evaluation.maxLoad));
    int i = 0;
    while (i < n && ++assignment[i] == devices)
      assignment[i++] = 0;
    if (i == n)
      return best;
  }
}

} // namespace placer::solver::testing

#endif // PLACER_UNITTESTS_SOLVER_RANDOMPROBLEMS_H
