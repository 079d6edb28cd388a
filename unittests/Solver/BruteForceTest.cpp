//===- BruteForceTest.cpp - The DP is optimal on random small DAGs --------===//
//
// Every assignment of every node to every device is tried; the best
// feasible contiguous one must equal the DP's answer, and the DP's split
// must itself be feasible and contiguous.
//
//===----------------------------------------------------------------------===//
#include "RandomProblems.h"
#include "placer/Solver/Solvers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace placer::solver;
using namespace placer::solver::testing;

namespace {

class DPMatchesBruteForce : public ::testing::TestWithParam<Shape> {};

TEST_P(DPMatchesBruteForce, OnRandomGraphs) {
  std::mt19937 rng(12345 + GetParam().nodes * 7 + GetParam().cpus);
  int feasible = 0, weightsOnlyMisfits = 0;
  for (int trial = 0; trial < 25; ++trial) {
    Problem problem = randomProblem(rng, GetParam());
    double expected = bruteForce(problem, /*contiguous=*/true);
    Solution solution = solveIdealDP(problem);
    if (expected == kInfinity) {
      EXPECT_FALSE(solution.feasible()) << "trial " << trial;
      continue;
    }
    ASSERT_TRUE(solution.feasible()) << "trial " << trial;
    ++feasible;
    EXPECT_NEAR(solution.maxLoad, expected, 1e-9 * expected)
        << "trial " << trial;
    if (GetParam().activations) {
      weightsOnlyMisfits +=
          !evaluate(problem,
                    solveIdealDP(withoutActivations(problem)).assignment)
               .feasible();
    }
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
  // The cases are not vacuous: most have a placement, and where activations
  // count, some weights-only optima do not fit.
  EXPECT_GE(feasible, 5);
  if (GetParam().activations) {
    EXPECT_GE(weightsOnlyMisfits, 2);
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
                      Shape{6, 3, 0, false, false, true, true},
                      Shape{7, 2, 0, false, false, true, false, true},
                      Shape{7, 3, 0, false, false, true, false, true},
                      Shape{6, 2, 1, false, true, true, true, true},
                      Shape{7, 3, 0, false, false, true, false, true,
                            Schedule::OneFOneB, 3},
                      Shape{6, 3, 1, false, false, true, false, true,
                            Schedule::OneFOneB, 2},
                      Shape{5, 2, 0, true, false, true, false, true,
                            Schedule::OneFOneB, 4},
                      Shape{6, 2, 1, false, false, true, false, true,
                            Schedule::GPipe, 2}),
    [](const auto &info) {
      const Shape &s = info.param;
      return "n" + std::to_string(s.nodes) + "k" +
             std::to_string(s.accelerators) + "l" + std::to_string(s.cpus) +
             (s.training ? "train" : "") + (s.unsupported ? "unsup" : "") +
             (s.tightMemory ? "mem" : "") + (s.zeroTime ? "zero" : "") +
             (s.activations ? "act" : "") +
             (s.schedule == Schedule::GPipe      ? "gpipe"
              : s.schedule == Schedule::OneFOneB ? "1f1b"
                                                 : "") +
             (s.microbatches > 1 ? "m" + std::to_string(s.microbatches)
                                 : "");
    });

} // namespace
