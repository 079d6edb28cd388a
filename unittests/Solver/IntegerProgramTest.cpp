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

namespace {

/// A chain of four nodes taking `times`, each with `memory` bytes of
/// weights and `stash` bytes of output, no transfer cost.
Problem chainOf(std::vector<double> times, double memory = 0,
                double stash = 0) {
  Problem p;
  p.numAccelerators = 2;
  for (double t : times) {
    Node node;
    node.name = "n" + std::to_string(p.size());
    node.acceleratorTime = t;
    node.memory = memory;
    node.outputBytes = stash;
    p.nodes.push_back(node);
    p.successors.emplace_back();
    if (p.size() > 1)
      p.addEdge(p.size() - 2, p.size() - 1);
  }
  return p;
}

PipelineSchedule layoutOf(PipelineKind kind, int devices, int microbatches) {
  llvm::Expected<PipelineSchedule> layout =
      buildPipelineSchedule(kind, devices, microbatches);
  EXPECT_TRUE(static_cast<bool>(layout)) << llvm::toString(layout.takeError());
  return *layout;
}

} // namespace

// Loads 3, 3, 1, 1 on two accelerators: one stage each can do no better
// than 3 | 3 + 1 + 1 = 5, four chunks round-robin (chunks 0 and 2 on
// accelerator 0, 1 and 3 on 1) balance it, 3 + 1 on each; ZB-V's V (0 and
// 3 on accelerator 0, 1 and 2 on 1) too. Every edge goes forward.
TEST(IntegerProgram, ChunksBalanceWhatOneStagePerDeviceCannot) {
  Problem p = chainOf({3, 3, 1, 1});
  EXPECT_DOUBLE_EQ(solveIdealDP(p).maxLoad, 5);
  std::vector<int> chunkOf;
  IPResult interleaved = solveChunkedThroughputIP(
      p, layoutOf(PipelineKind::Interleaved, 2, 4), IPOptions{}, chunkOf);
  ASSERT_EQ(interleaved.status, "optimal");
  EXPECT_DOUBLE_EQ(interleaved.solution.maxLoad, 4);
  EXPECT_TRUE(interleaved.solution.optimal);
  EXPECT_EQ(chunkOf, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(interleaved.solution.assignment, (Assignment{0, 1, 0, 1}));

  IPResult v = solveChunkedThroughputIP(
      p, layoutOf(PipelineKind::ZeroBubbleV, 2, 4), IPOptions{}, chunkOf);
  ASSERT_EQ(v.status, "optimal");
  EXPECT_DOUBLE_EQ(v.solution.maxLoad, 4);
  EXPECT_EQ(v.solution.assignment, (Assignment{0, 1, 1, 0}));
}

// The objective is the time per microbatch with the schedule's fill and
// drain: a uniform chain of four 1-s nodes balances 2 | 2 both in one stage
// per accelerator (chunks 0 and 1, the DP's split, which the program starts
// from: 2 + (k - 1) / M x 2 = 2.5 with M = 4) and in one node per chunk
// (2 + 1/4 x 1 = 2.25, what interleaving is for); the load alone cannot
// tell them apart.
TEST(IntegerProgram, ChunksPriceTheFillAndDrain) {
  Problem p = chainOf({1, 1, 1, 1});
  IPOptions options;
  Assignment dp = solveIdealDP(p).assignment;
  options.warmStart = &dp;
  std::vector<int> chunkOf;
  IPResult result = solveChunkedThroughputIP(
      p, layoutOf(PipelineKind::Interleaved, 2, 4), options, chunkOf);
  ASSERT_EQ(result.status, "optimal");
  EXPECT_DOUBLE_EQ(result.solution.maxLoad, 2);
  EXPECT_DOUBLE_EQ(result.solution.pipelineTime, 2.25);
  EXPECT_EQ(chunkOf, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(result.solution.optimal);
  // ZB-V's fill and drain is a third of it: 2 + 1/12.
  IPResult v = solveChunkedThroughputIP(
      p, layoutOf(PipelineKind::ZeroBubbleV, 2, 4), options, chunkOf);
  EXPECT_DOUBLE_EQ(v.solution.pipelineTime, 2 + 1.0 / 12);
  EXPECT_EQ(chunkOf, (std::vector<int>{0, 1, 2, 3}));
}

// Memory per chunk: four nodes of 10 bytes of weights and 1 byte of stash,
// four microbatches, interleaved on two accelerators. At uniform times the
// chunks hold 4, 3, 2 and 1 microbatches at most (chunk 0 the first
// accelerator's warm-up). One node per chunk needs 20 + 4 + 2 = 26 bytes on
// accelerator 0; in 24 bytes the only balanced split leaves chunks 0 and 1
// empty: two nodes in chunk 2 (20 + 2 x 2) and two in chunk 3 (20 + 2 x 1).
// In 23.5 bytes nothing fits (three nodes need 30).
TEST(IntegerProgram, ChunkMemoryCountsEachChunksMicrobatches) {
  Problem p = chainOf({1, 1, 1, 1}, 10, 1);
  p.schedule = Schedule::OneFOneB;
  p.microbatches = 4;
  PipelineSchedule layout = layoutOf(PipelineKind::Interleaved, 2, 4);
  llvm::Expected<PipelineRun> run = runPipelineSchedule(
      layout, PipelineTimes::uniform(4, {1, 1, 1}));
  ASSERT_TRUE(static_cast<bool>(run));
  EXPECT_EQ(run->peakPerChunk, (std::vector<int>{4, 3, 2, 1}));
  std::vector<int> chunkOf;
  p.memoryLimit = 26;
  IPResult roomy = solveChunkedThroughputIP(p, layout, IPOptions{}, chunkOf);
  ASSERT_EQ(roomy.status, "optimal");
  EXPECT_DOUBLE_EQ(roomy.solution.maxLoad, 2);
  p.memoryLimit = 24;
  IPResult tight = solveChunkedThroughputIP(p, layout, IPOptions{}, chunkOf);
  ASSERT_EQ(tight.status, "optimal");
  EXPECT_DOUBLE_EQ(tight.solution.maxLoad, 2);
  EXPECT_EQ(chunkOf, (std::vector<int>{2, 2, 3, 3}));
  p.memoryLimit = 23.5;
  EXPECT_EQ(solveChunkedThroughputIP(p, layout, IPOptions{}, chunkOf).status,
            "infeasible");
}

TEST(IntegerProgram, ChunksRefuseCpuCoresAndOtherDeviceCounts) {
  Problem p = chainOf({1, 1, 1, 1});
  std::vector<int> chunkOf;
  IPResult three = solveChunkedThroughputIP(
      p, layoutOf(PipelineKind::Interleaved, 3, 6), IPOptions{}, chunkOf);
  EXPECT_EQ(three.status, "infeasible");
  EXPECT_EQ(three.solution.note,
            "chunks of a schedule go on 3 identical accelerators, not 2");
  p.numCpus = 1;
  IPResult cpus = solveChunkedThroughputIP(
      p, layoutOf(PipelineKind::Interleaved, 2, 4), IPOptions{}, chunkOf);
  EXPECT_EQ(cpus.status, "infeasible");
}
