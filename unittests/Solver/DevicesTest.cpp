//===- DevicesTest.cpp - Accelerator kinds and link hierarchies -----------===//
//
// Hand-computed cases of docs/Placement.md, "Device kinds and links".
//
//===----------------------------------------------------------------------===//
#include "placer/Solver/Solve.h"
#include "placer/Solver/Solvers.h"

#include <gtest/gtest.h>

using namespace placer::solver;

namespace {

/// A chain of nodes with the given accelerator times and transfer costs
/// (c(u) of the last is unused).
Problem chain(std::vector<double> times, std::vector<double> transfers,
              int accelerators) {
  Problem p;
  p.numAccelerators = accelerators;
  for (size_t i = 0; i < times.size(); ++i) {
    Node node;
    node.name = std::string(1, static_cast<char>('a' + i));
    node.id = static_cast<int64_t>(i);
    node.acceleratorTime = times[i];
    node.cpuTime = kInfinity;
    node.transferCost = i < transfers.size() ? transfers[i] : 0;
    p.nodes.push_back(node);
    p.successors.emplace_back();
    if (i > 0)
      p.addEdge(static_cast<int>(i) - 1, static_cast<int>(i));
  }
  return p;
}

/// Nodes of `perNode` accelerators; between nodes a transfer costs
/// `factor` times c(u).
std::vector<double> twoLevelLinks(int accelerators, int perNode,
                                  double factor) {
  std::vector<double> links;
  for (int a = 0; a < accelerators; ++a)
    for (int b = 0; b < accelerators; ++b)
      links.push_back(a / perNode == b / perNode ? 1.0 : factor);
  return links;
}

// a(2) -> b(3) -> c(2) -> d(3) -> e(1), c = 1, 1/4, 2, 1, on two nodes of
// two accelerators, 8x slower between them. Four stages a | b | c | d e put
// b's tensor, the smallest, on the slow link (1 -> 2): loads 2 + 1 = 3,
// 1 + 3 + 8/4 = 6, 2 + 2 + 2 = 6, 2 + 4 = 6. Blind to the link, the split
// a b | c | d e on devices 0-2 costs the same 6 by the flat model but
// sends c's tensor (2) across: device 2 pays 16 + 4 = 20.
TEST(Links, SlowLinkCarriesTheSmallestTensor) {
  Problem p = chain({2, 3, 2, 3, 1}, {1, 0.25, 2, 1}, 4);
  p.linkFactors = twoLevelLinks(4, 2, 8);
  Solution solution = solveIdealDP(p);
  ASSERT_TRUE(solution.feasible());
  EXPECT_DOUBLE_EQ(solution.maxLoad, 6);
  EXPECT_EQ(solution.assignment, (Assignment{0, 1, 2, 3, 3}));
  EXPECT_TRUE(solution.optimal);
  EXPECT_DOUBLE_EQ(solution.lowerBound, 6);
  Evaluation blind = evaluate(p, {0, 0, 1, 2, 2});
  EXPECT_DOUBLE_EQ(blind.devices[1].load, 0.25 + 2 + 2 * 8);
  EXPECT_DOUBLE_EQ(blind.devices[2].load, 2 * 8 + 4);
  EXPECT_DOUBLE_EQ(blind.maxLoad, 20);
  // On a flat cluster both splits cost 6.
  p.linkFactors.clear();
  EXPECT_DOUBLE_EQ(solveIdealDP(p).maxLoad, 6);
  EXPECT_DOUBLE_EQ(evaluate(p, {0, 0, 1, 2, 2}).maxLoad, 6);
}

// The sender pays its slowest link; a receiver the link it is fed by.
TEST(Links, EvaluateChargesEachPair) {
  Problem p = chain({1, 1, 1}, {1, 1}, 3);
  p.addEdge(0, 2); // a feeds b (intra-node) and c (across)
  p.linkFactors = twoLevelLinks(3, 2, 5);
  Evaluation e = evaluate(p, {0, 1, 2});
  EXPECT_DOUBLE_EQ(e.devices[0].communicationOut, 5);
  EXPECT_DOUBLE_EQ(e.devices[1].communicationIn, 1);
  EXPECT_DOUBLE_EQ(e.devices[1].communicationOut, 5);
  EXPECT_DOUBLE_EQ(e.devices[2].communicationIn, 5 + 5);
}

// Two kinds, the slow one first in device order: V (device 0, 20 bytes,
// twice as slow on a) and A (device 1, 10 bytes). a(4 on A, 8 on V) -> b
// (2 on both), 8 bytes of weights each, no transfer cost. Without a memory
// limit the DP leaves V empty and runs both on A: 6. With the limits both
// do not fit on A (16 > 10): a goes to V, b to A, 8. Neither is a split the
// first accelerator kind alone would give.
TEST(Kinds, TimesAndMemoryPerKind) {
  Problem p = chain({8, 2}, {0}, 2);
  p.acceleratorKinds = {1, 0};
  p.kindMemoryLimits = {kInfinity, kInfinity};
  p.nodes[0].kindTimes = {4, 8};
  p.nodes[1].kindTimes = {2, 2};
  ASSERT_EQ(p.checkDevices(), "");
  EXPECT_FALSE(p.isUniform());
  Solution free = solveIdealDP(p);
  EXPECT_DOUBLE_EQ(free.maxLoad, 6);
  EXPECT_EQ(free.assignment, (Assignment{1, 1}));
  EXPECT_TRUE(free.optimal);
  // The single-device baseline tries each kind: the fast one, 6.
  EXPECT_EQ(solveSingleDevice(p).assignment, (Assignment{1, 1}));

  p.kindMemoryLimits = {10, 20};
  p.memoryLimit = 20;
  p.nodes[0].memory = p.nodes[1].memory = 8;
  Solution limited = solveIdealDP(p);
  EXPECT_DOUBLE_EQ(limited.maxLoad, 8);
  EXPECT_EQ(limited.assignment, (Assignment{0, 1}));
  Evaluation e = evaluate(p, {1, 1});
  EXPECT_NE(e.violation.find("over the limit of 10"), std::string::npos)
      << e.violation;
  EXPECT_DOUBLE_EQ(lowerBound(p), 4); // a on its fastest kind
}

// Seven nodes of 3 on two accelerators and a core ten times slower: a
// split with loads <= B carries at most 2 B + B / 10 of accelerator work,
// so B >= 21 / 2.1 = 10, where counting the core as a third accelerator
// gives 7. A node only the core runs (6) counts 6 / 10: 21.6 / 2.1. The
// optimum is 12 either way (4 | 3 nodes; the core takes the last one).
TEST(Cores, SlowCoresCarryLessWork) {
  Problem p = chain({3, 3, 3, 3, 3, 3, 3}, {}, 2);
  p.numCpus = 1;
  for (Node &node : p.nodes)
    node.cpuTime = 10 * node.acceleratorTime;
  EXPECT_DOUBLE_EQ(bestWorkMeasure(p).slowdown, 10);
  EXPECT_DOUBLE_EQ(lowerBound(p), 10);
  Solution solution = solveIdealDP(p);
  EXPECT_DOUBLE_EQ(solution.maxLoad, 12);
  EXPECT_DOUBLE_EQ(solution.lowerBound, 10);

  Node cpuOnly;
  cpuOnly.name = "h";
  cpuOnly.id = 7;
  cpuOnly.supported = false;
  cpuOnly.cpuTime = 6;
  p.nodes.push_back(cpuOnly);
  p.successors.emplace_back();
  p.addEdge(6, 7);
  EXPECT_DOUBLE_EQ(lowerBound(p), 21.6 / 2.1);
  solution = solveIdealDP(p);
  EXPECT_DOUBLE_EQ(solution.maxLoad, 12);
  EXPECT_EQ(solution.assignment.back(), 2);

  // One node twice as fast on the core (1.5): its least slowdown 0.5 gives
  // (21 + 6 / 0.5) / (2 + 2) = 8.25, counting the core as one more
  // accelerator (21 - 1.5 + 6) / 3 = 8.5, which is kept.
  p.nodes[0].cpuTime = 1.5;
  EXPECT_DOUBLE_EQ(bestWorkMeasure(p).slowdown, 1);
  EXPECT_DOUBLE_EQ(lowerBound(p), 8.5);
}

// Replicas are of one kind, and their ring runs at its slowest link.
TEST(Kinds, ReplicasShareAKind) {
  Problem p = chain({4}, {}, 3);
  p.replication = true;
  p.schedule = Schedule::GPipe;
  p.microbatches = 2;
  p.allReduceBandwidth = 1;
  p.nodes[0].gradientBytes = 6;
  p.acceleratorKinds = {0, 0, 1};
  p.kindMemoryLimits = {kInfinity, kInfinity};
  p.nodes[0].kindTimes = {4, 4};
  Evaluation mixed = evaluate(p, {0}, {3, 1, 1});
  EXPECT_NE(mixed.violation.find("replicas are of one kind"),
            std::string::npos);
  // Two replicas, one microbatch each of two: 4 / 2 + ring 2 (2 - 1) / 2
  // x 6 bytes / 1 B/s / 2 microbatches = 5 ...
  EXPECT_DOUBLE_EQ(evaluate(p, {0}, {2, 1, 1}).maxLoad, 2 + 3);
  // ... and over a link twice as slow, 2 + 6.
  p.linkFactors = twoLevelLinks(3, 1, 2);
  EXPECT_DOUBLE_EQ(evaluate(p, {0}, {2, 1, 1}).maxLoad, 2 + 6);
  Solution solution = solveIdealDP(p);
  EXPECT_DOUBLE_EQ(solution.maxLoad, 4); // not worth replicating now
}

TEST(Kinds, CheckDevicesNamesTheProblem) {
  Problem p = chain({1, 1}, {0}, 2);
  p.acceleratorKinds = {0};
  EXPECT_NE(p.checkDevices().find("1 entries for 2 accelerators"),
            std::string::npos);
  p.acceleratorKinds = {0, 2};
  p.kindMemoryLimits = {1, 1};
  EXPECT_NE(p.checkDevices().find("kind 2 is not one of 2"), std::string::npos);
  p.acceleratorKinds = {0, 1};
  p.nodes[1].kindTimes = {1};
  EXPECT_NE(p.checkDevices().find("node b has times for 1 of 2 kinds"),
            std::string::npos);
  p.nodes[1].kindTimes = {1, 1};
  p.linkFactors = {1, 1, 1};
  EXPECT_NE(p.checkDevices().find("one factor per pair"), std::string::npos);
}

// Capacity on mixed kinds: the total is every accelerator's memory, the
// count the largest kind's; one CPU core or no limit lifts the check.
TEST(Kinds, CheckCapacitySaysWhatIsNeeded) {
  Problem p = chain({1, 1, 1}, {0, 0}, 3);
  for (Node &node : p.nodes)
    node.memory = 4e9;
  p.acceleratorKinds = {0, 1, 1};
  p.kindMemoryLimits = {5e9, 3e9};
  p.memoryLimit = 5e9;
  EXPECT_EQ(p.checkCapacity(), "the model's weights need 12.0 GB and the 3 "
                               "accelerators hold 11.0 GB in all: at least 3 "
                               "accelerators of 5.0 GB are needed (weights "
                               "only; activations add to it)");
  // A training step's nodes keep their gradients and optimizer state too.
  p.schedule = Schedule::OneFOneB;
  EXPECT_EQ(p.checkCapacity().substr(0, 57),
            "the model's weights and their training state need 12.0 GB");
  p.schedule = Schedule::Inference;
  p.kindMemoryLimits = {6e9, 3e9};
  p.memoryLimit = 6e9;
  EXPECT_EQ(p.checkCapacity(), "");
  p.nodes[2].memory = 7e9;
  EXPECT_NE(p.checkCapacity().find("node 'c' alone keeps 7.0 GB of weights, "
                                   "more than any accelerator holds (6.0 GB)"),
            std::string::npos);
  p.numCpus = 1;
  EXPECT_EQ(p.checkCapacity(), "");
  // And solve() says it before any search.
  p.numCpus = 0;
  SolveResult result = solve(p, SolveOptions{});
  EXPECT_NE(result.error.find("node 'c' alone keeps"), std::string::npos);
}

} // namespace
