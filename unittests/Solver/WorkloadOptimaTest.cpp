//===- WorkloadOptimaTest.cpp - The DP reaches the published optima -------===//
#include "placer/Solver/Solvers.h"
#include "placer/Solver/Workload.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace placer::solver;

namespace {

struct Known {
  const char *file;
  double optimum;
};

// ../shared/workloads/README.md: optimal contiguous max-load, k and l as in
// each file.
const Known kOptima[] = {
    {"throughput/LayerGraphs/bert24_inference.json", 17.78990625},
    {"throughput/LayerGraphs/bert24_training.json", 41.7458125},
    {"throughput/LayerGraphs/gnmt_inference.json", 32.910658203125},
    {"throughput/LayerGraphs/resnet50_inference.json", 33.774666015625},
    {"throughput/OperatorGraphs/bert_l-3_inference.json", 27.9185676799125},
    {"throughput/OperatorGraphs/bert_l-3_training.json", 65.3031491220861},
    {"throughput/OperatorGraphs/bert_l-6_inference.json", 29.5795058064516},
    {"throughput/OperatorGraphs/resnet50_inference.json", 124.348849774045},
};

class WorkloadOptima : public ::testing::TestWithParam<Known> {};

TEST_P(WorkloadOptima, DPMatchesPublishedOptimum) {
  std::string path = std::string(PLACER_SHARED_DIR) + "/workloads/" +
                     GetParam().file;
  if (!llvm::sys::fs::exists(path))
    GTEST_SKIP() << path << " is not there";
  llvm::Expected<Workload> workload = readWorkloadFile(path);
  ASSERT_TRUE(static_cast<bool>(workload))
      << llvm::toString(workload.takeError());
  const Problem &problem = workload->problem;
  Solution solution = solveIdealDP(problem);
  ASSERT_TRUE(solution.feasible()) << solution.note;
  EXPECT_TRUE(solution.optimal);
  EXPECT_NEAR(solution.maxLoad, GetParam().optimum,
              1e-6 * GetParam().optimum);
  // An independent re-evaluation of the split gives the same number, and
  // the split is contiguous.
  Evaluation evaluation = evaluate(problem, solution.assignment);
  EXPECT_TRUE(evaluation.feasible()) << evaluation.violation;
  EXPECT_NEAR(evaluation.maxLoad, GetParam().optimum,
              1e-6 * GetParam().optimum);
  EXPECT_TRUE(isContiguous(problem, solution.assignment));
  // The baselines are feasible and never better than the optimum.
  Solution chain = solvePipeDream(problem);
  ASSERT_TRUE(chain.feasible());
  EXPECT_GE(chain.maxLoad, solution.maxLoad * (1 - 1e-9));
  EXPECT_LE(lowerBound(problem), solution.maxLoad * (1 + 1e-9));
}

INSTANTIATE_TEST_SUITE_P(Shared, WorkloadOptima, ::testing::ValuesIn(kOptima),
                         [](const auto &info) {
                           std::string name = info.param.file;
                           for (char &c : name)
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

} // namespace
