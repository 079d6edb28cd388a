//===- MemoryTest.cpp - Peak and training memory of a device --------------===//
#include "RandomProblems.h"
#include "placer/Solver/Memory.h"
#include "placer/Solver/Solvers.h"

#include <gtest/gtest.h>

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

TEST(Memory, TrainingStageUnder1F1B) {
  MemoryGraph g = chainWithSkip();
  // Weights 30 * (1 + 1 + 2) = 120; activations 300 stashed for
  // stagesFromEnd + 1 microbatches.
  EXPECT_EQ(getTrainingStageMemory(g, {0, 1}, 0), 120 + 300);
  EXPECT_EQ(getTrainingStageMemory(g, {0, 1}, 3), 120 + 4 * 300);
  TrainingMemoryOptions sgd;
  sgd.optimizerStateFactor = 0;
  EXPECT_EQ(getTrainingStageMemory(g, {0, 1}, 0, sgd), 60 + 300);
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
