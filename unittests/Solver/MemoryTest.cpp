//===- MemoryTest.cpp - Peak and training memory of a device --------------===//
#include "RandomProblems.h"
#include "placer/Solver/Memory.h"
#include "placer/Solver/Solve.h"
#include "placer/Solver/Solvers.h"

#include <gtest/gtest.h>

#include <tuple>

using namespace placer::solver;

namespace {

// a -> b -> c -> d, and a -> c (a skip connection).
MemoryGraph chainWithSkip() {
  MemoryGraph g;
  g.paramBytes = {10, 20, 30, 40};
  g.outputBytes = {100, 200, 300, 400};
  g.successors = {{1, 2}, {2}, {3}, {}};
  return g;
}

TEST(Memory, PeakOnOneDevice) {
  MemoryGraph g = chainWithSkip();
  // Step a: 100. Step b: a alive (c needs it) + b = 300. Step c: a + b + c
  // = 600, then a and b die. Step d: c + d = 700 (d is a graph output).
  EXPECT_EQ(getPeakInferenceMemory(g, {0, 1, 2, 3}).total(), 100 + 700);
}

TEST(Memory, ReceivedAndSentActivations) {
  MemoryGraph g = chainWithSkip();
  // Device runs b and c: a (100) is received and alive until c; c is sent
  // to d on another device, so it stays. Peak at c: a + b + c = 600.
  EXPECT_EQ(getPeakInferenceMemory(g, {1, 2}).total(), 20 + 30 + 600);
  // Device runs d alone: receives c (300), produces d (400).
  EXPECT_EQ(getPeakInferenceMemory(g, {3}).total(), 40 + 700);
}

TEST(Memory, RepeatedCallsForgetEarlierDevices) {
  MemoryGraph g = chainWithSkip();
  PeakMemory peak(g);
  MemoryUsage bc = peak({1, 2});
  EXPECT_EQ(bc.weights, 50);
  EXPECT_EQ(bc.activations, 600);
  // d after {b, c}: c received (300), d (400) produced.
  EXPECT_EQ(peak({3}).activations, 700);
  EXPECT_EQ(peak({0, 1, 2, 3}).activations, 700);
  EXPECT_EQ(peak({1, 2}).activations, 600);
  // a alone: its output leaves for b and c, so it stays to the end.
  EXPECT_EQ(peak({0}).activations, 100);
}

/// a -> b -> c -> d on two accelerators of 100 bytes: times 1, 1, 1, 1.1,
/// no transfer cost, d keeps 60 weight bytes, outputs 10, 50, 10, 10.
Problem activationBoundChain() {
  Problem p;
  p.numAccelerators = 2;
  p.memoryLimit = 100;
  const double times[] = {1, 1, 1, 1.1}, outputs[] = {10, 50, 10, 10};
  for (int i = 0; i < 4; ++i) {
    Node node;
    node.name = std::string(1, static_cast<char>('a' + i));
    node.acceleratorTime = times[i];
    node.outputBytes = outputs[i];
    node.memory = i == 3 ? 60 : 0;
    p.nodes.push_back(node);
    p.successors.emplace_back();
  }
  for (int i = 0; i + 1 < 4; ++i)
    p.addEdge(i, i + 1);
  return p;
}

TEST(Memory, ActivationsMoveTheSplit) {
  Problem problem = activationBoundChain();
  // Weights only, {a, b} | {c, d} balances best (2.1) and "fits" (0, 60);
  // but c's device holds 60 weight bytes, the received b (50) and c (10)
  // while c runs: 120 > 100.
  Solution blind =
      solveIdealDP(placer::solver::testing::withoutActivations(problem));
  ASSERT_TRUE(blind.feasible());
  EXPECT_EQ(blind.assignment, (Assignment{0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(blind.maxLoad, 2.1);
  Evaluation real = evaluate(problem, blind.assignment);
  EXPECT_FALSE(real.feasible());
  EXPECT_EQ(real.devices[1].memory, 120);

  // With activations: {a, b, c} | {d}, load 3. Device 0 peaks at 60 (a and
  // b while b runs; b and c while c runs, c waiting to be sent); device 1
  // holds 60 weight bytes, the received c and d: 80.
  Solution aware = solveIdealDP(problem);
  ASSERT_TRUE(aware.feasible());
  EXPECT_EQ(aware.assignment, (Assignment{0, 0, 0, 1}));
  EXPECT_DOUBLE_EQ(aware.maxLoad, 3);
  Evaluation fits = evaluate(problem, aware.assignment);
  ASSERT_TRUE(fits.feasible());
  EXPECT_EQ(fits.devices[0].weights, 0);
  EXPECT_EQ(fits.devices[0].activations, 60);
  EXPECT_EQ(fits.devices[1].weights, 60);
  EXPECT_EQ(fits.devices[1].activations, 20);
  EXPECT_EQ(fits.devices[1].memory, 80);
}

TEST(Memory, TightenedModelsProveNothing) {
  // The throughput MILP sees the additive bound: a 10, b 60, c 60, d 80
  // bytes, so no split fits its model, while the DP's {a, b, c} | {d} fits
  // the real peak. CBC's verdict is the model's: the answer is the DP's,
  // not claimed optimal, with the problem's own lower bound.
  Problem problem = activationBoundChain();
  SolveOptions options;
  options.algorithm = Algorithm::IP;
  options.ip.progressSeconds = 0;
  SolveResult result = solve(problem, options);
  ASSERT_TRUE(result.feasible());
  EXPECT_EQ(result.solution.assignment, (Assignment{0, 0, 0, 1}));
  EXPECT_DOUBLE_EQ(result.solution.maxLoad, 3);
  EXPECT_FALSE(result.solution.optimal);
  EXPECT_DOUBLE_EQ(result.solution.lowerBound, lowerBound(problem));
}

/// a -> b -> c -> d, one unit of time each, no transfer cost; 10 bytes of
/// weights (with gradients and optimizer state) each, stashes of 30, 30, 5
/// and 5 bytes per microbatch; two accelerators of 100 bytes.
Problem stashChain(Schedule schedule, int microbatches) {
  Problem problem;
  double stash[] = {30, 30, 5, 5};
  for (int i = 0; i < 4; ++i) {
    Node node;
    node.name = std::string(1, static_cast<char>('a' + i));
    node.acceleratorTime = 1;
    node.memory = 10;
    node.outputBytes = stash[i];
    problem.nodes.push_back(node);
    problem.successors.push_back(i < 3 ? std::vector<int>{i + 1}
                                       : std::vector<int>{});
  }
  problem.numAccelerators = 2;
  problem.memoryLimit = 100;
  problem.schedule = schedule;
  problem.microbatches = microbatches;
  return problem;
}

TEST(Memory, ScheduleDecidesTheSplit) {
  // 1F1B, 4 microbatches: the first of two stages holds 2, the last 1.
  // {a, b} | {c, d} (load 2) needs 20 + 60 x 2 = 140 on the first stage;
  // {a} | {b, c, d} (load 3) needs 10 + 30 x 2 = 70 and 30 + 40 x 1 = 70.
  Problem oneFOneB = stashChain(Schedule::OneFOneB, 4);
  EXPECT_FALSE(evaluate(oneFOneB, {0, 0, 1, 1}).feasible());
  Solution solution = solveIdealDP(oneFOneB);
  ASSERT_TRUE(solution.feasible());
  EXPECT_TRUE(solution.optimal);
  EXPECT_EQ(solution.assignment, (Assignment{0, 1, 1, 1}));
  EXPECT_DOUBLE_EQ(solution.maxLoad, 3);
  Evaluation evaluation = evaluate(oneFOneB, solution.assignment);
  EXPECT_EQ(evaluation.devices[0].inFlight, 2);
  EXPECT_EQ(evaluation.devices[0].memory, 70);
  EXPECT_EQ(evaluation.devices[1].inFlight, 1);
  EXPECT_EQ(evaluation.devices[1].memory, 70);
  // The stage order is the index order: the same split numbered the other
  // way round runs its forward pass from accelerator 1 to 0.
  EXPECT_FALSE(evaluate(oneFOneB, {1, 0, 0, 0}).feasible());

  // One microbatch in flight everywhere: the balanced split fits (80, 30).
  Solution single = solveIdealDP(stashChain(Schedule::OneFOneB, 1));
  EXPECT_EQ(single.assignment, (Assignment{0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(single.maxLoad, 2);

  // GPipe with 2 microbatches keeps 2 on the last stage too: {b, c, d}
  // needs 30 + 40 x 2 = 110, and nothing else fits either.
  EXPECT_FALSE(solveIdealDP(stashChain(Schedule::GPipe, 2)).feasible());
  // 1F1B with 2 microbatches: as with 4.
  EXPECT_DOUBLE_EQ(solveIdealDP(stashChain(Schedule::OneFOneB, 2)).maxLoad, 3);
}

TEST(Memory, RecomputationTradesTimeForMemory) {
  // With recomputation (0.25 s per node) {a, b} | {c, d} fits after all:
  // the first stage keeps its inputs per microbatch (none: a reads the
  // graph's input) and one microbatch's stash, 20 + 60 = 80 <= 100, and
  // pays 0.5 s: load 2.5, better than {a} | {b, c, d} at 3.
  for (auto [schedule, microbatches, lastStage] :
       {std::tuple{Schedule::OneFOneB, 4, 30.0},
        std::tuple{Schedule::GPipe, 2, 40.0}}) {
    Problem problem = stashChain(schedule, microbatches);
    problem.recomputation = true;
    for (Node &node : problem.nodes)
      node.recomputeTime = 0.25;
    Solution solution = solveIdealDP(problem);
    ASSERT_TRUE(solution.feasible()) << getName(schedule);
    EXPECT_EQ(solution.assignment, (Assignment{0, 0, 1, 1}));
    EXPECT_DOUBLE_EQ(solution.maxLoad, 2.5);
    EXPECT_TRUE(solution.optimal);
    Evaluation evaluation = evaluate(problem, solution.assignment);
    EXPECT_TRUE(evaluation.devices[0].recompute);
    EXPECT_DOUBLE_EQ(evaluation.devices[0].memory, 80);
    EXPECT_DOUBLE_EQ(evaluation.devices[0].load, 2.5);
    // The last stage's stash fits: it does not recompute.
    EXPECT_FALSE(evaluation.devices[1].recompute);
    EXPECT_DOUBLE_EQ(evaluation.devices[1].memory, lastStage);
    EXPECT_DOUBLE_EQ(evaluation.devices[1].load, 2);
    EXPECT_DOUBLE_EQ(placer::solver::testing::bruteForce(problem, true), 2.5);
    // {a} | {b, c, d} under GPipe: recomputing the second stage keeps a's
    // 30 bytes x 2 microbatches and its stash, 30 + 40 + 60 = 130: no fit.
    if (schedule == Schedule::GPipe) {
      EXPECT_FALSE(evaluate(problem, {0, 1, 1, 1}).feasible());
    }

    // The integer programs do not model recomputation: their memory rows
    // restrict the problem, so CBC proves nothing about it, and the DP's
    // split (their warm start) is kept. (The non-contiguous model finds
    // {a, c} | {b, d} at 2 under GPipe without recomputing.)
    SolveOptions options;
    options.algorithm = Algorithm::IP;
    options.ip.contiguous = true;
    options.ip.progressSeconds = 0;
    SolveResult result = solve(problem, options);
    ASSERT_TRUE(result.feasible());
    EXPECT_DOUBLE_EQ(result.solution.maxLoad, 2.5);
    EXPECT_FALSE(result.solution.optimal);
  }
}

TEST(Memory, AdditiveBoundUnderSchedules) {
  // The linear models' bound counts every stash for the most microbatches
  // a stage holds: 2 under 1F1B on two accelerators, M under GPipe.
  Problem additive = withAdditiveMemory(stashChain(Schedule::OneFOneB, 4));
  EXPECT_EQ(additive.nodes[0].memory, 10 + 30 * 2);
  EXPECT_EQ(additive.nodes[3].memory, 10 + 5 * 2);
  EXPECT_EQ(additive.nodes[0].outputBytes, 0);
  Problem gpipe = withAdditiveMemory(stashChain(Schedule::GPipe, 3));
  EXPECT_EQ(gpipe.nodes[1].memory, 10 + 30 * 3);
}

TEST(Memory, AdditiveBoundCoversThePeak) {
  Problem problem = activationBoundChain();
  Problem additive = withAdditiveMemory(problem);
  // Each node: its weights, its output and its inputs.
  EXPECT_EQ(additive.nodes[0].memory, 10);
  EXPECT_EQ(additive.nodes[1].memory, 60);
  EXPECT_EQ(additive.nodes[2].memory, 60);
  EXPECT_EQ(additive.nodes[3].memory, 80);
  EXPECT_FALSE(hasActivations(additive));
  for (const Assignment &a : {Assignment{0, 0, 0, 1}, Assignment{0, 0, 1, 1},
                              Assignment{0, 1, 1, 1}, Assignment{0, 0, 0, 0}})
    for (int d = 0; d < 2; ++d)
      EXPECT_GE(evaluate(additive, a).devices[d].memory,
                evaluate(problem, a).devices[d].memory);
}

} // namespace

namespace {

/// a (1 s, no weights) -> b (4 s, 3 bytes of gradients), free transfers,
/// three accelerators, one microbatch per iteration; the all-reduce runs
/// at `bandwidth` bytes/s.
Problem replicationChain(double bandwidth) {
  Problem problem;
  for (auto [name, time, gradients] :
       {std::tuple{"a", 1.0, 0.0}, std::tuple{"b", 4.0, 18.0}}) {
    Node node;
    node.name = name;
    node.acceleratorTime = time;
    node.gradientBytes = gradients;
    problem.nodes.push_back(node);
    problem.successors.emplace_back();
  }
  problem.addEdge(0, 1);
  problem.numAccelerators = 3;
  problem.schedule = Schedule::GPipe;
  // (Six microbatches: two or three copies share them evenly.)
  problem.microbatches = 6;
  problem.replication = true;
  problem.allReduceBandwidth = bandwidth;
  return problem;
}

TEST(Replication, OnlyWorthItWhenTheAllReduceIsCheap) {
  // Cheap (100 B/s): {a, b} on all three devices takes 5 / 3 per sample
  // plus a ring all-reduce of b's 18 bytes per iteration of 6 microbatches,
  // 2 x 2 / 3 x 18 / 100 / 6 = 0.04; {a} | {b} x 2 would take
  // 4 / 2 + 2 x 1 / 2 x 18 / 100 / 6 = 2.03.
  Solution cheap = solveIdealDP(replicationChain(100));
  ASSERT_TRUE(cheap.feasible());
  EXPECT_EQ(cheap.assignment, (Assignment{0, 0}));
  EXPECT_EQ(cheap.replication, (Replication{3, 1, 1}));
  EXPECT_NEAR(cheap.maxLoad, 5.0 / 3 + 0.04, 1e-12);
  EXPECT_TRUE(cheap.optimal);
  Evaluation evaluation =
      evaluate(replicationChain(100), cheap.assignment, cheap.replication);
  EXPECT_EQ(evaluation.devices[0].replicas, 3);
  EXPECT_EQ(evaluation.devices[2].replicaOf, 0);
  EXPECT_NEAR(evaluation.devices[2].load, 5.0 / 3 + 0.04, 1e-12);

  // Expensive (1 B/s): b x 2 costs 2 + 3 = 5, {a, b} x 3 costs 5/3 + 4,
  // {a, b} x 2 costs 2.5 + 3: the plain split {a} | {b} at 4 wins.
  Solution expensive = solveIdealDP(replicationChain(1));
  EXPECT_EQ(expensive.assignment, (Assignment{0, 1}));
  EXPECT_EQ(expensive.replication, (Replication{1, 1, 1}));
  EXPECT_DOUBLE_EQ(expensive.maxLoad, 4);
  EXPECT_DOUBLE_EQ(evaluate(replicationChain(1), {0, 1}, {1, 2, 1}).maxLoad, 5);
  EXPECT_DOUBLE_EQ(evaluate(replicationChain(1), {0, 0}, {2, 1, 1}).maxLoad, 5.5);

  // Without replication the cheap case is the plain split too.
  Problem plain = replicationChain(100);
  plain.replication = false;
  EXPECT_DOUBLE_EQ(solveIdealDP(plain).maxLoad, 4);
  EXPECT_TRUE(solveIdealDP(plain).replication.empty());
}

// Training deals an iteration's M microbatches to the copies round robin:
// the busiest runs ceil(M / r) of them, and copies past M stay idle.
TEST(Replication, CopiesShareAnIterationsMicrobatches) {
  Problem problem = replicationChain(kInfinity); // a free all-reduce
  problem.microbatches = 4;
  // {a, b} on three copies: ceil(4 / 3) = 2 of 4 microbatches, 5 x 2 / 4.
  EXPECT_DOUBLE_EQ(evaluate(problem, {0, 0}, {3, 1, 1}).maxLoad, 2.5);
  EXPECT_DOUBLE_EQ(evaluate(problem, {0, 0}, {2, 1, 1}).maxLoad, 2.5);
  problem.microbatches = 1;
  EXPECT_DOUBLE_EQ(evaluate(problem, {0, 0}, {3, 1, 1}).maxLoad, 5);
  EXPECT_DOUBLE_EQ(solveIdealDP(problem).maxLoad, 4); // {a} | {b}
  // Inference streams samples: r copies take 1 / r each.
  problem.schedule = Schedule::Inference;
  EXPECT_DOUBLE_EQ(evaluate(problem, {0, 0}, {3, 1, 1}).maxLoad, 5.0 / 3);
}

TEST(Replication, EvaluateRefusesMalformedGroups) {
  Problem problem = replicationChain(100);
  // A copy that holds a node of its own, a group past the last device.
  EXPECT_FALSE(evaluate(problem, {0, 1}, {2, 1, 1}).feasible());
  EXPECT_FALSE(evaluate(problem, {0, 2}, {1, 1, 2}).feasible());
  // Replication off: no groups.
  problem.replication = false;
  EXPECT_FALSE(evaluate(problem, {0, 0}, {3, 1, 1}).feasible());
}

} // namespace
