//===- BruteForceTest.cpp - The DP is optimal on random small DAGs --------===//
//
// Every assignment of every node to every device is tried; the best
// feasible contiguous one must equal the DP's answer, and the DP's split
// must itself be feasible and contiguous.
//
//===----------------------------------------------------------------------===//
#include "placer/Solver/Solvers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace placer::solver;

namespace {

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
};

/// A random DAG; in training mode every forward node gets a backward twin
/// in its color class, wired like a gradient graph (edges reversed).
Problem randomProblem(std::mt19937 &rng, const Shape &shape) {
  std::uniform_real_distribution<double> time(0.5, 10.0), cost(0.0, 3.0),
      memory(1.0, 5.0), coin(0.0, 1.0);
  Problem p;
  p.numAccelerators = shape.accelerators;
  p.numCpus = shape.cpus;
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
  double total = 0;
  for (const Node &node : p.nodes)
    total += node.memory;
  p.memoryLimit = shape.tightMemory
                      ? std::ceil(total / std::max(1, shape.accelerators)) + 1
                      : kInfinity;
  return p;
}

std::string describe(const Problem &p, const Assignment &a) {
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

/// The best feasible contiguous placement by exhaustive search.
double bruteForce(const Problem &problem) {
  int n = problem.size(), devices = problem.numDevices();
  Assignment assignment(n, 0);
  double best = kInfinity;
  while (true) {
    Evaluation evaluation = evaluate(problem, assignment);
    if (evaluation.feasible() && evaluation.maxLoad < best &&
        isContiguous(problem, assignment))
      best = evaluation.maxLoad;
    int i = 0;
    while (i < n && ++assignment[i] == devices)
      assignment[i++] = 0;
    if (i == n)
      return best;
  }
}

class DPMatchesBruteForce : public ::testing::TestWithParam<Shape> {};

TEST_P(DPMatchesBruteForce, OnRandomGraphs) {
  std::mt19937 rng(12345 + GetParam().nodes * 7 + GetParam().cpus);
  for (int trial = 0; trial < 25; ++trial) {
    Problem problem = randomProblem(rng, GetParam());
    double expected = bruteForce(problem);
    Solution solution = solveIdealDP(problem);
    if (expected == kInfinity) {
      EXPECT_FALSE(solution.feasible()) << "trial " << trial;
      continue;
    }
    ASSERT_TRUE(solution.feasible()) << "trial " << trial;
    EXPECT_NEAR(solution.maxLoad, expected, 1e-9 * expected)
        << "trial " << trial;
    EXPECT_TRUE(isContiguous(problem, solution.assignment))
        << "trial " << trial << "\n" << describe(problem, solution.assignment);
    EXPECT_TRUE(evaluate(problem, solution.assignment).feasible());
    // Contiguous baselines are never better (greedy need not be
    // contiguous: it sends unsupported nodes to the CPU cores).
    for (const Solution &other :
         {solvePipeDream(problem), solveGreedy(problem),
          solveSingleDevice(problem)}) {
      if (other.feasible() && isContiguous(problem, other.assignment)) {
        EXPECT_GE(other.maxLoad, solution.maxLoad * (1 - 1e-9))
            << other.algorithm << " trial " << trial;
      }
    }
    EXPECT_LE(lowerBound(problem), solution.maxLoad * (1 + 1e-9));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Random, DPMatchesBruteForce,
    ::testing::Values(Shape{7, 2, 0, false, false, false},
                      Shape{7, 3, 0, false, false, true},
                      Shape{6, 2, 1, false, true, false},
                      Shape{6, 1, 2, false, true, true},
                      Shape{4, 2, 1, true, false, false},
                      Shape{4, 2, 0, true, false, true},
                      Shape{4, 1, 1, true, true, false},
                      Shape{7, 2, 0, false, false, false, true},
                      Shape{7, 2, 1, false, false, true, true},
                      Shape{6, 3, 0, false, false, true, true}),
    [](const auto &info) {
      const Shape &s = info.param;
      return "n" + std::to_string(s.nodes) + "k" +
             std::to_string(s.accelerators) + "l" + std::to_string(s.cpus) +
             (s.training ? "train" : "") + (s.unsupported ? "unsup" : "") +
             (s.tightMemory ? "mem" : "") + (s.zeroTime ? "zero" : "");
    });

} // namespace
