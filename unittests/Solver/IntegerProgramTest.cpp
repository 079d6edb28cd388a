//===- IntegerProgramTest.cpp - The MILP on graphs with known optima ------===//
#include "RandomProblems.h"
#include "placer/Solver/IntegerProgram.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace placer::solver;
using namespace placer::solver::testing;

namespace {

/// a -> b -> c with a skip a -> c: placing a and c together and b alone is
/// not contiguous (a path leaves {a, c} and comes back) but it is the best
/// non-contiguous split.
Problem skipGraph() {
  Problem p;
  p.numAccelerators = 2;
  for (double t : {5.0, 10.0, 5.0}) {
    Node node;
    node.name = "n" + std::to_string(p.size());
    node.acceleratorTime = t;
    node.cpuTime = 100;
    node.transferCost = 0;
    p.nodes.push_back(node);
    p.successors.emplace_back();
  }
  p.addEdge(0, 1);
  p.addEdge(1, 2);
  p.addEdge(0, 2);
  return p;
}

TEST(IntegerProgram, NonContiguousBeatsTheBestPipeline) {
  Problem p = skipGraph();
  IPResult free = solveThroughputIP(p, IPOptions{});
  ASSERT_EQ(free.status, "optimal");
  EXPECT_DOUBLE_EQ(free.solution.maxLoad, 10); // {a, c} | {b}
  EXPECT_FALSE(isContiguous(p, free.solution.assignment));
  IPOptions contiguous;
  contiguous.contiguous = true;
  IPResult pipeline = solveThroughputIP(p, contiguous);
  ASSERT_EQ(pipeline.status, "optimal");
  EXPECT_DOUBLE_EQ(pipeline.solution.maxLoad, 15); // {a, b} | {c}
  EXPECT_DOUBLE_EQ(pipeline.solution.maxLoad, solveIdealDP(p).maxLoad);
}

TEST(IntegerProgram, InfeasibleMemoryIsReported) {
  Problem p = skipGraph();
  for (Node &node : p.nodes)
    node.memory = 10;
  p.memoryLimit = 15; // three nodes of 10 on two devices of 15: no way
  IPResult result = solveThroughputIP(p, IPOptions{});
  EXPECT_EQ(result.status, "infeasible");
  EXPECT_FALSE(result.solution.feasible());
}

TEST(IntegerProgram, ExportWritesTheModelWithoutSolving) {
  Problem p = skipGraph();
  IPOptions options;
  options.exportPath = ::testing::TempDir() + "placer_ip_test.lp";
  IPResult result = solveThroughputIP(p, options);
  EXPECT_EQ(result.status, "exported");
  std::ifstream in(options.exportPath);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("maxload"), std::string::npos);
  EXPECT_NE(text.str().find("assign_0"), std::string::npos);
}

class IPMatchesExhaustiveSearch : public ::testing::TestWithParam<Shape> {};

TEST_P(IPMatchesExhaustiveSearch, BothVariants) {
  std::mt19937 rng(777 + GetParam().nodes);
  for (int trial = 0; trial < 8; ++trial) {
    Problem problem = randomProblem(rng, GetParam());
    for (bool contiguous : {false, true}) {
      double expected = bruteForce(problem, contiguous);
      IPOptions options;
      options.contiguous = contiguous;
      IPResult result = solveThroughputIP(problem, options);
      if (expected == kInfinity) {
        EXPECT_EQ(result.status, "infeasible") << "trial " << trial;
        continue;
      }
      ASSERT_EQ(result.status, "optimal") << "trial " << trial;
      EXPECT_NEAR(result.solution.maxLoad, expected, 1e-6 * expected)
          << (contiguous ? "contiguous" : "free") << " trial " << trial;
      if (contiguous) {
        // Unlike devices: a pipeline in device order, as the DP's; its
        // neighbour-link charge may miss the optimum under a hierarchy.
        EXPECT_TRUE(isContiguous(problem, result.solution.assignment,
                                 !problem.isUniform()));
        double dp = solveIdealDP(problem).maxLoad;
        if (problem.linkFactors.empty()) {
          EXPECT_NEAR(result.solution.maxLoad, dp, 1e-6 * expected);
        } else {
          EXPECT_GE(dp, result.solution.maxLoad * (1 - 1e-9));
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Random, IPMatchesExhaustiveSearch,
    ::testing::Values(
        Shape{6, 2, 0, false, false, false}, Shape{5, 2, 1, false, true, true},
        Shape{3, 2, 0, true, false, true},
        // Without CPU cores, a placement 1F1B can run is a
        // pipeline: the free variant solves the contiguous
        // model, with a stash per microbatch in flight.
        Shape{6, 3, 0, false, false, true, false, true, Schedule::OneFOneB, 3},
        Shape{5, 2, 1, false, false, true, false, true, Schedule::GPipe, 2},
        // Two kinds (per-kind times and memory), a two-level
        // hierarchy (per-pair transfer costs), both.
        Shape{6, 3, 0, false, false, true, false, false, Schedule::Inference, 1,
              false, false, true},
        Shape{5, 4, 1, false, false, false, false, false, Schedule::Inference,
              1, false, false, false, true},
        Shape{5, 4, 0, false, false, true, false, false, Schedule::GPipe, 2,
              false, false, true, true}),
    [](const auto &info) {
      return "n" + std::to_string(info.param.nodes) + "k" +
             std::to_string(info.param.accelerators) + "l" +
             std::to_string(info.param.cpus) +
             (info.param.training ? "train" : "") +
             (info.param.schedule == Schedule::GPipe      ? "gpipe"
              : info.param.schedule == Schedule::OneFOneB ? "1f1b"
                                                          : "") +
             (info.param.twoKinds ? "kinds" : "") +
             (info.param.hierarchy ? "links" : "");
    });

} // namespace
