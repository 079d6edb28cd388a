//===- WorkloadOptimaTest.cpp - The DP reaches the published optima -------===//
#include "placer/Solver/Solvers.h"
#include "placer/Solver/Workload.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <optional>

using namespace placer::solver;

namespace {

struct Known {
  const char *file;
  double optimum;
};

// test/Inputs/workloads/README.md: optimal contiguous max-load, k and l as in
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

class WorkloadOptima : public ::testing::TestWithParam<Known> {
protected:
  /// The workload's problem (test/Inputs/workloads); a file that is not
  /// there or does not read fails the test.
  std::optional<Problem> load() {
    std::string path =
        std::string(PLACER_WORKLOADS_DIR) + "/" + GetParam().file;
    llvm::Expected<Workload> workload = readWorkloadFile(path);
    if (!workload) {
      ADD_FAILURE() << llvm::toString(workload.takeError());
      return std::nullopt;
    }
    return std::move(workload->problem);
  }
};

TEST_P(WorkloadOptima, DPMatchesPublishedOptimum) {
  std::optional<Problem> loaded = load();
  ASSERT_TRUE(loaded) << GetParam().file;
  const Problem &problem = *loaded;
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

// Reductions to the paper's model: two kinds that are the same machine,
// and links all twice as slow as priced with transfer costs halved, take
// the DP's unlike-device path (positions, empties anywhere, per-kind sums,
// neighbour links) and must give the same optimum, proven.
TEST_P(WorkloadOptima, UnlikeDevicePathGivesTheSameOptimum) {
  std::optional<Problem> loaded = load();
  ASSERT_TRUE(loaded) << GetParam().file;
  Problem problem = *loaded;
  int k = problem.numAccelerators;
  for (int d = 0; d < k; ++d)
    problem.acceleratorKinds.push_back(d % 2);
  problem.kindMemoryLimits = {problem.memoryLimit, problem.memoryLimit};
  for (Node &node : problem.nodes) {
    node.kindTimes = {node.acceleratorTime, node.acceleratorTime};
  }
  ASSERT_FALSE(problem.isUniform());
  Solution kinds = solveIdealDP(problem);
  ASSERT_TRUE(kinds.feasible()) << kinds.note;
  EXPECT_TRUE(kinds.optimal) << kinds.note;
  EXPECT_NEAR(kinds.maxLoad, GetParam().optimum, 1e-6 * GetParam().optimum);

  // Every link twice as slow as priced, every c(u) halved: the same
  // transfers between accelerators. Without CPU cores (which are reached
  // at c(u), so would get cheaper) the optimum is the uniform DP's.
  Problem flat = *loaded;
  flat.numCpus = 0;
  Solution reference = solveIdealDP(flat);
  if (!reference.feasible())
    return; // some nodes need a CPU core
  Problem slow = flat;
  for (Node &node : slow.nodes)
    node.transferCost /= 2;
  slow.linkFactors.assign(static_cast<size_t>(k) * k, 2.0);
  for (int d = 0; d < k; ++d)
    slow.linkFactors[d * k + d] = 1;
  ASSERT_FALSE(slow.isUniform());
  Solution links = solveIdealDP(slow);
  ASSERT_TRUE(links.feasible()) << links.note;
  EXPECT_TRUE(links.optimal) << links.note;
  EXPECT_NEAR(links.maxLoad, reference.maxLoad, 1e-9 * reference.maxLoad);
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
