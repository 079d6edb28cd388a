//===- LatencyTest.cpp - Latency evaluator, heuristic and MILP ------------===//
#include "RandomProblems.h"
#include "placer/Solver/IntegerProgram.h"
#include "placer/Solver/Latency.h"
#include "placer/Solver/Solve.h"
#include "placer/Solver/Workload.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <random>
#include <fstream>
#include <sstream>

using namespace placer::solver;
using namespace placer::solver::testing;

namespace {

/// Nodes with (accelerator time, CPU time, transfer cost); edges added by
/// the caller.
Problem makeProblem(int accelerators, int cpus,
                    std::vector<std::array<double, 3>> nodes) {
  Problem p;
  p.numAccelerators = accelerators;
  p.numCpus = cpus;
  for (auto [acc, cpu, cost] : nodes) {
    Node node;
    node.name = "n" + std::to_string(p.size());
    node.id = p.size();
    node.acceleratorTime = acc;
    node.cpuTime = cpu;
    node.transferCost = cost;
    p.nodes.push_back(node);
    p.successors.emplace_back();
  }
  return p;
}

/// A chain of `nodes` (as makeProblem's) of weight 1 each, on
/// `accelerators` of room `room` and one CPU core.
Problem unitChain(int accelerators, std::vector<std::array<double, 3>> nodes,
                  double room) {
  Problem p = makeProblem(accelerators, 1, std::move(nodes));
  for (int v = 0; v < p.size(); ++v) {
    p.nodes[v].memory = 1;
    if (v > 0)
      p.addEdge(v - 1, v);
  }
  p.memoryLimit = room;
  return p;
}

TEST(LatencyEvaluator, ChainWithTransfersIntoAndOutOfACall) {
  // a (CPU) -> b -> c (one call on accelerator 0) -> d (CPU)
  Problem p = makeProblem(1, 1, {{1, 4, 0.5}, {2, 20, 0.25}, {3, 30, 0.75},
                                 {1, 2, 0}});
  p.addEdge(0, 1);
  p.addEdge(1, 2);
  p.addEdge(2, 3);
  LatencyEvaluation e = evaluateLatency(p, {1, 0, 0, 1});
  ASSERT_TRUE(e.feasible()) << e.violation;
  ASSERT_EQ(e.calls.size(), 1u);
  EXPECT_DOUBLE_EQ(e.calls[0].start, 4);
  EXPECT_DOUBLE_EQ(e.calls[0].transferIn, 0.5);  // a's output
  EXPECT_DOUBLE_EQ(e.calls[0].compute, 5);
  EXPECT_DOUBLE_EQ(e.calls[0].transferOut, 0.75); // c's output, not b's
  EXPECT_DOUBLE_EQ(e.calls[0].finish, 10.25);
  EXPECT_DOUBLE_EQ(e.finish[1], 10.25); // results come when the call ends
  EXPECT_DOUBLE_EQ(e.latency, 12.25);
}

// a -> b -> c, accelerator time 1, CPU time 10, transfers 2, 3, 0, room
// for one op on the one accelerator: along the path one run of one node,
// the rest on the CPU. a on it: 1 + 2 + 10 + 10 = 23; b: 10 + 2 + 1 + 3 +
// 10 = 26; c: 10 + 10 + 3 + 1 = 24; none: 30. The bound is 23 (the
// optimum), where the cheapest path alone says 3. With two calls each run
// only has to fit alone (a relaxation: the accelerator holds both): a and
// c on it, b on the CPU, 1 + 2 + 10 + 3 + 1 = 17. With room for all three
// it is 3.
TEST(LatencyBound, PathCutIntoRunsThatFit) {
  Problem p = unitChain(1, {{1, 10, 2}, {1, 10, 3}, {1, 10, 0}}, 1);
  EXPECT_DOUBLE_EQ(latencyLowerBound(p, 1, false), 23);
  EXPECT_DOUBLE_EQ(latencyLowerBound(p, 2), 17);
  p.memoryLimit = 3;
  EXPECT_DOUBLE_EQ(latencyLowerBound(p, 1, false), 3);
  // Two accelerators of room 2: {a} then {b, c} pays a's output out of
  // one run and into the next, 1 + 2 + 2 + 2 = 7 ({a, b} then {c}: 9).
  p.numAccelerators = 2;
  p.memoryLimit = 2;
  EXPECT_DOUBLE_EQ(latencyLowerBound(p, 1, false), 7);
}

TEST(LatencyEvaluator, CpuBranchesRunInParallel) {
  // s -> {x, y} -> t, all on the CPU: latency is the longer branch.
  Problem p = makeProblem(0, 1, {{0, 1, 0}, {0, 5, 0}, {0, 7, 0}, {0, 1, 0}});
  p.addEdge(0, 1);
  p.addEdge(0, 2);
  p.addEdge(1, 3);
  p.addEdge(2, 3);
  LatencyEvaluation e = evaluateLatency(p, {0, 0, 0, 0});
  ASSERT_TRUE(e.feasible()) << e.violation;
  EXPECT_DOUBLE_EQ(e.latency, 9);
  EXPECT_TRUE(e.calls.empty());
}

TEST(LatencyEvaluator, NonConvexSetsNeedTwoCalls) {
  // a -> b -> c with a, c on the accelerator and b on the CPU.
  Problem p = makeProblem(1, 1, {{2, 9, 1}, {5, 3, 0.5}, {4, 9, 0}});
  p.addEdge(0, 1);
  p.addEdge(1, 2);
  Assignment assignment = {0, 1, 0};
  EXPECT_EQ(fewestCalls(p, assignment), (Calls{0, -1, 1}));
  LatencyEvaluation e = evaluateLatency(p, assignment);
  ASSERT_TRUE(e.feasible()) << e.violation;
  EXPECT_EQ(e.maxCallsPerAccelerator, 2);
  // call 0: 2 + out 1 = 3; b: 3 + 3 = 6; call 1: in 0.5 + 4 = 10.5.
  EXPECT_DOUBLE_EQ(e.latency, 10.5);
  LatencyEvaluation oneCall = evaluateLatency(p, assignment, {0, -1, 0});
  EXPECT_FALSE(oneCall.feasible());
  EXPECT_NE(oneCall.violation.find("call 0 of accelerator 0 cannot run"),
            std::string::npos)
      << oneCall.violation;
}

TEST(LatencyEvaluator, CallsOfOneAcceleratorRunInOrder) {
  // Two independent nodes on one accelerator in calls 1 and 0.
  Problem p = makeProblem(1, 0, {{3, 9, 0}, {4, 9, 0}});
  LatencyEvaluation e = evaluateLatency(p, {0, 0}, {1, 0});
  ASSERT_TRUE(e.feasible()) << e.violation;
  EXPECT_DOUBLE_EQ(e.finish[1], 4);
  EXPECT_DOUBLE_EQ(e.finish[0], 7);
  // Calls out of dependency order cannot run.
  p.addEdge(0, 1);
  EXPECT_FALSE(evaluateLatency(p, {0, 0}, {1, 0}).feasible());
  // n nodes make at most n calls: indices 0 .. n - 1.
  EXPECT_EQ(evaluateLatency(p, {0, 0}, {0, 2}).violation,
            "node n1 is in call 2, past the last possible (1)");
}

TEST(LatencyEvaluator, OneEvaluatorScoresManyPlacements) {
  // The evaluator keeps only the graph; each placement is scored afresh,
  // the first again after the others.
  Problem p = makeProblem(2, 1, {{2, 9, 1}, {5, 3, 0.5}, {4, 9, 0}});
  p.addEdge(0, 1);
  p.addEdge(1, 2);
  LatencyEvaluator evaluator(p);
  struct Case {
    Assignment assignment;
    Calls calls;
    double latency;
    int maxCalls;
  };
  for (const Case &c : {
           // a, c on accelerator 0 around b on the CPU: 3, 6, 10.5.
           Case{{0, 2, 0}, {0, -1, 1}, 10.5, 2},
           // a, b on 0 (2 + 5 + out 0.5), c on 1 (in 0.5 + 4): 7.5, 12.
           Case{{0, 0, 1}, {0, 0, 0}, 12, 1},
           // All on the CPU: 9 + 3 + 9.
           Case{{2, 2, 2}, {-1, -1, -1}, 21, 0},
           Case{{0, 2, 0}, {0, -1, 1}, 10.5, 2},
       }) {
    EXPECT_EQ(evaluator.fewestCalls(c.assignment), c.calls);
    LatencyEvaluation e = evaluator.evaluate(c.assignment);
    ASSERT_TRUE(e.feasible()) << e.violation;
    EXPECT_DOUBLE_EQ(e.latency, c.latency);
    EXPECT_EQ(e.maxCallsPerAccelerator, c.maxCalls);
  }
}

TEST(LatencyEvaluator, PlacementConstraintsStillHold) {
  Problem p = makeProblem(1, 1, {{1, 1, 0}, {1, 1, 0}});
  p.nodes[0].supported = false;
  EXPECT_NE(evaluateLatency(p, {0, 0}).violation.find("cannot run on "
                                                      "accelerator 0"),
            std::string::npos);
  p.nodes[0].supported = true;
  p.nodes[0].memory = p.nodes[1].memory = 6;
  p.memoryLimit = 10;
  EXPECT_FALSE(evaluateLatency(p, {0, 0}).feasible());
  EXPECT_TRUE(evaluateLatency(p, {0, 1}).feasible());
}

TEST(LatencyIP, OffloadsWhatPaysForItsTransfers) {
  // a -> b -> c on the CPU takes 30; b on the accelerator takes
  // 10 + in 2 + 1 + out 3 + 10 = 26.
  Problem p = makeProblem(1, 1, {{1, 10, 2}, {1, 10, 3}, {1, 10, 0}});
  p.addEdge(0, 1);
  p.addEdge(1, 2);
  IPResult result = solveLatencyIP(p, IPOptions{});
  ASSERT_EQ(result.status, "optimal");
  // Everything on the accelerator: 3, no transfers at all.
  EXPECT_DOUBLE_EQ(result.solution.latency, 3);
  p.memoryLimit = 1;
  for (Node &node : p.nodes)
    node.memory = 1;
  // One node fits: b alone (26) or a alone (1 + out 2 + 10 + 10 = 23) or
  // c alone (10 + 10 + in 3 + 1 = 24).
  result = solveLatencyIP(p, IPOptions{});
  ASSERT_EQ(result.status, "optimal");
  EXPECT_DOUBLE_EQ(result.solution.latency, 23);
  EXPECT_EQ(result.solution.assignment, (Assignment{0, 1, 1}));
}

TEST(LatencyIP, SecondCallHelpsWhenAPathLeavesAndReturns) {
  // a -> b -> c where b cannot run on the accelerator and a, c are slow
  // on the CPU: with one call only a or c gets the accelerator.
  Problem p = makeProblem(1, 1, {{1, 20, 0}, {1, 1, 0}, {1, 20, 0}});
  p.nodes[1].supported = false;
  p.addEdge(0, 1);
  p.addEdge(1, 2);
  IPResult one = solveLatencyIP(p, IPOptions{});
  ASSERT_EQ(one.status, "optimal");
  EXPECT_DOUBLE_EQ(one.solution.latency, 22);
  IPOptions two;
  two.callsPerAccelerator = 2;
  IPResult both = solveLatencyIP(p, two);
  ASSERT_EQ(both.status, "optimal");
  EXPECT_DOUBLE_EQ(both.solution.latency, 3);
  EXPECT_EQ(both.solution.calls, (Calls{0, -1, 1}));
}

TEST(LatencyIP, InfeasibleMemoryIsReported) {
  Problem p = makeProblem(2, 0, {{1, 1, 0}, {1, 1, 0}, {1, 1, 0}});
  for (Node &node : p.nodes)
    node.memory = 10;
  p.memoryLimit = 15;
  IPResult result = solveLatencyIP(p, IPOptions{});
  EXPECT_EQ(result.status, "infeasible");
  EXPECT_FALSE(result.solution.feasible());
  EXPECT_FALSE(solveLatencyGreedy(p).feasible());
}

/// The best latency over every placement whose accelerators each run one
/// convex call (CPU nodes all on the first core: the model does not limit
/// CPU parallelism).
double bruteForceLatency(const Problem &problem) {
  int n = problem.size(), devices = problem.numAccelerators + 1;
  Assignment assignment(n, 0);
  double best = kInfinity;
  while (true) {
    LatencyEvaluation e = evaluateLatency(problem, assignment);
    if (e.feasible() && e.maxCallsPerAccelerator <= 1)
      best = std::min(best, e.latency);
    int i = 0;
    while (i < n && ++assignment[i] == devices)
      assignment[i++] = 0;
    if (i == n)
      return best;
  }
}

// A diamond s -> {a, b} -> t, accelerator times 1, 2, 1, 1 (CPU ten times
// slower), transfers 3 (t: 0), weights 1 each, one accelerator of room 3.
// The path s a t fits as one run by its own weights (bound 1 + 2 + 1 = 4),
// but a call holding s and t holds b too (convexity): 4 > 3. The runs that
// fit: {s, a} then t on the CPU, paying a's tensor out (it feeds t, which
// the call cannot hold): 3 + 3 + 10 = 16; or s on the CPU, then {a, t},
// paying s's tensor in: 10 + 3 + 3 = 16; the rest cost more. The optimum
// is 17 (s on the CPU, then {a, b, t}: 10 + 3 + 4), which the DP over the
// chain of blocks (s, the block {a, b}, t) finds and proves.
TEST(LatencyBound, RunsHoldWhatLiesBetweenTheirNodes) {
  Problem p =
      makeProblem(1, 1, {{1, 10, 3}, {2, 20, 3}, {1, 10, 3}, {1, 10, 0}});
  p.addEdge(0, 1);
  p.addEdge(0, 2);
  p.addEdge(1, 3);
  p.addEdge(2, 3);
  for (Node &node : p.nodes)
    node.memory = 1;
  p.memoryLimit = 3;
  EXPECT_DOUBLE_EQ(latencyLowerBound(p, 1, false), 16);
  EXPECT_DOUBLE_EQ(bruteForceLatency(p), 17);
  ChainSolution chain = solveLatencyChain(p);
  ASSERT_TRUE(chain.applies) << chain.skipped;
  EXPECT_DOUBLE_EQ(chain.lowerBound, 17);
  EXPECT_DOUBLE_EQ(latencyLowerBound(p), 17);
  EXPECT_EQ(chain.placement, (Assignment{1, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(evaluateLatency(p, chain.placement).latency, 17);
}

// a -> b -> c, accelerator times 1, CPU 100, c(a) = 0, c(b) = 10, weights 1,
// two accelerators of room 2. Cutting after a is free: {a} then {b, c}, 3.
// With a and b in one colour class and one call per accelerator, the call
// that holds b holds a: {a, b} then {c}, 2 + 10 + 10 + 1 = 23, the optimum.
TEST(LatencyBound, ColourClassesStayInOneCall) {
  Problem p = unitChain(2, {{1, 100, 0}, {1, 100, 10}, {1, 100, 0}}, 2);
  EXPECT_DOUBLE_EQ(latencyLowerBound(p, 1, false), 3);
  p.nodes[0].colorClass = p.nodes[1].colorClass = 7;
  EXPECT_DOUBLE_EQ(latencyLowerBound(p, 1, false), 23);
  EXPECT_DOUBLE_EQ(bruteForceLatency(p), 23);
  // With two calls the class may span both calls of one accelerator: the
  // bound does not assume otherwise.
  EXPECT_DOUBLE_EQ(latencyLowerBound(p, 2), 3);
}

/// A random chain of blocks, the shape of the paper's convolutional latency
/// graphs: cut vertices joined by one to three parallel branches of up to
/// two nodes each, `nodes` in all; times, costs and weights as
/// randomProblem's, a third of the graphs with memory that binds.
Problem randomChainOfBlocks(std::mt19937 &rng, int accelerators, int nodes) {
  std::uniform_real_distribution<double> time(0.5, 10.0), cost(0.0, 3.0),
      memory(1.0, 5.0), coin(0.0, 1.0);
  Problem p = makeProblem(accelerators, 1, {});
  auto addNode = [&] {
    Node node;
    node.name = "n" + std::to_string(p.size());
    node.id = p.size();
    node.acceleratorTime = std::round(time(rng) * 4) / 4;
    node.cpuTime = node.acceleratorTime * (2 + std::round(coin(rng) * 8));
    node.memory = std::round(memory(rng));
    node.transferCost = std::round(cost(rng) * 4) / 4;
    node.supported = coin(rng) > 0.1;
    p.nodes.push_back(node);
    p.successors.emplace_back();
    return p.size() - 1;
  };
  int cut = addNode();
  while (p.size() < nodes) {
    std::vector<int> ends;
    int branches = 1 + static_cast<int>(coin(rng) * 3);
    for (int b = 0; b < branches && p.size() + 1 < nodes; ++b) {
      int last = cut;
      for (int length = static_cast<int>(coin(rng) * 3);
           length > 0 && p.size() + 1 < nodes; --length) {
        int v = addNode();
        p.addEdge(last, v);
        last = v;
      }
      ends.push_back(last);
    }
    if (ends.empty())
      ends.push_back(cut);
    int join = addNode();
    for (int end : ends)
      p.addEdge(end, join);
    cut = join;
  }
  double total = 0;
  for (const Node &node : p.nodes)
    total += node.memory;
  if (coin(rng) < 1.0 / 3)
    p.memoryLimit = std::ceil(total / accelerators) + 1;
  return p;
}

// The DP over the chain of blocks against exhaustive search on random
// chains of blocks: its bound never above the optimum, its placement never
// below, and both the optimum on most graphs (measured: 173 and 173 of 200,
// where the path bound alone reaches it on 115; the DP's bound is above
// the path bound on 82 and below it on 1, where a block's middle prices
// each path through it on its own).
TEST(LatencyChain, BoundsTheOptimumFromBothSidesOnChainsOfBlocks) {
  std::mt19937 rng(1206);
  int exactBound = 0, exactPlacement = 0, exactPathBound = 0;
  int above = 0, below = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Problem p = randomChainOfBlocks(rng, 1 + trial % 3, 5 + trial % 3);
    SCOPED_TRACE("trial " + std::to_string(trial));
    double optimum = bruteForceLatency(p);
    ChainSolution chain = solveLatencyChain(p);
    ASSERT_TRUE(chain.applies) << chain.skipped;
    EXPECT_LE(chain.lowerBound, optimum * (1 + 1e-9));
    ASSERT_FALSE(chain.placement.empty()); // all on the CPU always runs
    LatencyEvaluation e = evaluateLatency(p, chain.placement);
    ASSERT_TRUE(e.feasible()) << e.violation;
    EXPECT_LE(e.maxCallsPerAccelerator, 1);
    EXPECT_GE(e.latency, optimum * (1 - 1e-9));
    EXPECT_LE(e.latency, chain.placementBound * (1 + 1e-9));
    exactBound += chain.lowerBound >= optimum * (1 - 1e-9);
    exactPlacement += e.latency <= optimum * (1 + 1e-9);
    double path = latencyLowerBound(p, 1, false);
    exactPathBound += path >= optimum * (1 - 1e-9);
    above += chain.lowerBound > path * (1 + 1e-9);
    below += chain.lowerBound < path * (1 - 1e-9);
  }
  EXPECT_GE(exactBound, 165) << exactBound;
  EXPECT_GE(exactPlacement, 165) << exactPlacement;
  EXPECT_LE(exactPathBound, 130) << exactPathBound;
  EXPECT_GE(above, 70) << above;
  EXPECT_LE(below, 5) << below;
}

// What the DP does not take on, it says, and the bound is then the path's.
TEST(LatencyChain, SaysWhyItDoesNotApply) {
  // s -> 70 parallel nodes -> t: one block of 70 classes.
  std::vector<std::array<double, 3>> nodes(72, {1, 10, 1});
  Problem wide = makeProblem(2, 1, nodes);
  for (int v = 1; v <= 70; ++v) {
    wide.addEdge(0, v);
    wide.addEdge(v, 71);
  }
  ChainSolution chain = solveLatencyChain(wide);
  EXPECT_FALSE(chain.applies);
  EXPECT_EQ(chain.skipped,
            "a block between two cut vertices has 70 classes (at most 64)");
  EXPECT_TRUE(chain.placement.empty());
  EXPECT_DOUBLE_EQ(latencyLowerBound(wide), latencyLowerBound(wide, 1, false));
  // a -> b (times 1, CPU 10, transfers 2 and 3) on one accelerator of room
  // 1: a or b on it, 1 + 2 + 10 = 13. With two calls per accelerator the
  // DP (one call each) does not run and the bound is the path's, whose runs
  // only have to fit alone: {a} then {b}, 1 + 2 + 2 + 1 = 6.
  Problem twoNodes = unitChain(1, {{1, 10, 2}, {1, 10, 3}}, 1);
  EXPECT_DOUBLE_EQ(solveLatencyChain(twoNodes).lowerBound, 13);
  EXPECT_DOUBLE_EQ(latencyLowerBound(twoNodes), 13);
  EXPECT_DOUBLE_EQ(latencyLowerBound(twoNodes, 2), 6);
  // A colour class whose members a and c sit on either side of b: its
  // classes depend on each other both ways.
  Problem cyclic = unitChain(2, {{1, 10, 2}, {1, 10, 3}, {1, 10, 1}}, 3);
  cyclic.nodes[0].colorClass = cyclic.nodes[2].colorClass = 4;
  chain = solveLatencyChain(cyclic);
  EXPECT_FALSE(chain.applies);
  EXPECT_EQ(chain.skipped, "its colour classes depend on each other both ways");
}

// The bound against exhaustive search on 300 random graphs (memory tight on
// a third, unsupported nodes on a third, colour classes throughout):
// never above the optimum, and above the cheapest path on many (measured:
// 104 of 300; 83 without the colour classes, 62 when a run counted its own
// nodes and the path's two transfers only).
TEST(LatencyBound, NeverAboveTheOptimumOnRandomGraphs) {
  std::mt19937 rng(4096);
  int stronger = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Shape shape{4 + trial % 4, 1 + trial % 3,  1,
                false,         trial % 3 == 1, trial % 3 != 2};
    Problem p = randomProblem(rng, shape);
    double optimum = bruteForceLatency(p);
    double bound = latencyLowerBound(p);
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_LE(bound, optimum * (1 + 1e-9));
    double cheapestPath = 0;
    for (double f : earliestFinish(p))
      cheapestPath = std::max(cheapestPath, f);
    stronger += bound > cheapestPath * (1 + 1e-9);
  }
  EXPECT_GE(stronger, 100) << stronger;
}

TEST(LatencyIP, EqualsExhaustiveSearchOnRandomGraphs) {
  std::mt19937 rng(20201206);
  int strongerBound = 0;
  for (int trial = 0; trial < 40; ++trial) {
    Shape shape{4 + trial % 4, 1 + trial % 2, 1, false, trial % 3 == 0,
                trial % 2 == 0};
    Problem p = randomProblem(rng, shape);
    double expected = bruteForceLatency(p);
    Solution greedy = solveLatencyGreedy(p);
    IPOptions options;
    if (greedy.feasible()) {
      options.warmStart = &greedy.assignment;
      options.warmStartCalls = &greedy.calls;
    }
    IPResult result = solveLatencyIP(p, options);
    SCOPED_TRACE(describe(p, result.solution.assignment));
    if (expected == kInfinity) {
      EXPECT_EQ(result.status, "infeasible");
      continue;
    }
    ASSERT_EQ(result.status, "optimal");
    EXPECT_NEAR(result.solution.latency, expected, 1e-9 * expected);
    LatencyEvaluation check =
        evaluateLatency(p, result.solution.assignment, result.solution.calls);
    ASSERT_TRUE(check.feasible()) << check.violation;
    EXPECT_LE(check.maxCallsPerAccelerator, 1);
    // The heuristic is a placement too: never better than the optimum,
    // never below the bound.
    ASSERT_TRUE(greedy.feasible());
    EXPECT_GE(greedy.latency, expected - 1e-9 * expected);
    EXPECT_LE(latencyLowerBound(p), expected + 1e-9);
    double cheapestPath = 0;
    for (double f : earliestFinish(p))
      cheapestPath = std::max(cheapestPath, f);
    strongerBound += latencyLowerBound(p) > cheapestPath + 1e-9;
  }
  // The runs along the longest path see transfers and memory (measured:
  // 5 of the 40 graphs).
  EXPECT_GE(strongerBound, 3);
}

// Moving runs of consecutive classes reaches placements that single moves
// cannot: on random graphs with costly transfers the search with run
// moves ends lower on some and higher on none (measured: 17 of 200).
TEST(LatencyGreedy, RunMovesGoWhereSingleMovesStop) {
  std::mt19937 rng(77);
  int better = 0, worse = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Problem p = randomProblem(
        rng, {10 + trial % 8, 2 + trial % 3, 1, false, false, trial % 2 == 0});
    for (Node &node : p.nodes)
      node.transferCost *= 4;
    LatencyOptions single;
    single.moveRuns = false;
    double withRuns = solveLatencyGreedy(p).latency;
    double without = solveLatencyGreedy(p, single).latency;
    better += withRuns < without * (1 - 1e-12);
    worse += withRuns > without * (1 + 1e-12);
  }
  EXPECT_GE(better, 12);
  EXPECT_EQ(worse, 0);
}

// The heuristic starts from every throughput placement too (solve() seeds
// it with the DP's, the PipeDream-style and the single-device split), so
// its answer is never worse than any of them; unseeded, it sometimes is.
TEST(LatencyGreedy, NeverWorseThanTheThroughputSplits) {
  std::mt19937 rng(1443);
  int unseededWorse = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Problem p = randomProblem(
        rng, {10 + trial % 6, 2 + trial % 3, 1, false, false, trial % 2 == 0});
    SolveOptions options;
    options.objective = Objective::Latency;
    options.algorithm = Algorithm::Greedy;
    SolveResult seeded = solve(p, options);
    ASSERT_TRUE(seeded.error.empty()) << seeded.error;
    double best = kInfinity;
    for (Algorithm baseline :
         {Algorithm::DP, Algorithm::PipeDream, Algorithm::Single}) {
      options.algorithm = baseline;
      SolveResult scored = solve(p, options);
      if (!scored.feasible())
        continue;
      LatencyEvaluation e = evaluateLatency(p, scored.solution.assignment);
      if (e.feasible() && e.maxCallsPerAccelerator <= 1)
        best = std::min(best, e.latency);
    }
    if (best == kInfinity)
      continue;
    SCOPED_TRACE(describe(p, seeded.solution.assignment));
    ASSERT_TRUE(seeded.solution.feasible()) << "trial " << trial;
    EXPECT_LE(seeded.solution.latency, best * (1 + 1e-12)) << "trial " << trial;
    LatencyEvaluation check = evaluateLatency(p, seeded.solution.assignment);
    EXPECT_NEAR(check.latency, seeded.solution.latency, 1e-9 * best);
    unseededWorse += solveLatencyGreedy(p).latency > best * (1 + 1e-12);
  }
  // (Measured: 8 of 400; 1 of the first 60 before the run moves.)
  EXPECT_GE(unseededWorse, 4);
}

TEST(LatencyIP, MoreCallsNeverHurt) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 15; ++trial) {
    Problem p = randomProblem(rng, {6, 1, 1, false, true, false});
    IPResult one = solveLatencyIP(p, IPOptions{});
    IPOptions two;
    two.callsPerAccelerator = 2;
    IPResult more = solveLatencyIP(p, two);
    ASSERT_EQ(one.status, "optimal");
    ASSERT_EQ(more.status, "optimal");
    EXPECT_LE(more.solution.latency, one.solution.latency + 1e-9);
    EXPECT_LE(evaluateLatency(p, more.solution.assignment, more.solution.calls)
                  .maxCallsPerAccelerator,
              2);
  }
}

TEST(LatencyIP, ExportWritesTheLatencyModel) {
  Problem p = makeProblem(1, 1, {{1, 10, 2}, {1, 10, 0}});
  p.addEdge(0, 1);
  std::string path = ::testing::TempDir() + "latency.lp";
  IPOptions options;
  options.exportPath = path;
  IPResult result = solveLatencyIP(p, options);
  EXPECT_EQ(result.status, "exported");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  for (const char *name : {"latency", "x_0_0", "y_1", "wait_0_0",
                           "duration_0", "z_cut_0_1_0"})
    EXPECT_NE(text.str().find(name), std::string::npos) << name;
}

TEST(LatencyWorkloads, Bert24LayerGraph) {
  auto workload = readWorkloadFile(
      PLACER_WORKLOADS_DIR "/latency/LayerGraphs/bert24_inference.json");
  ASSERT_TRUE(static_cast<bool>(workload))
      << llvm::toString(workload.takeError());
  const Problem &p = workload->problem;
  // A chain whose layers need three accelerators' memory: the fastest
  // placement runs every layer on an accelerator and crosses two
  // boundaries, each paying out + in of 1.953125.
  double sum = 0;
  for (const Node &node : p.nodes)
    sum += node.acceleratorTime;
  Solution greedy = solveLatencyGreedy(p);
  ASSERT_TRUE(greedy.feasible());
  EXPECT_NEAR(greedy.latency, sum + 4 * 1.953125, 1e-9);
  // The bound cuts the chain into runs that fit: it proves the heuristic
  // optimal (the cheapest path alone says `sum`).
  EXPECT_NEAR(latencyLowerBound(p), sum + 4 * 1.953125, 1e-9);
  // The DP's throughput split is a worse latency placement.
  Solution dp = solveIdealDP(p);
  scoreLatency(p, dp);
  EXPECT_GT(dp.latency, greedy.latency);
}

} // namespace

namespace {

TEST(LatencyIP, ProgressLinesGoToTheCallerSink) {
  std::mt19937 rng(3);
  Problem p = randomProblem(rng, {9, 2, 1, false, false, true});
  IPOptions options;
  options.progressSeconds = 1e-9; // a line at every node CBC reports
  std::vector<std::string> lines;
  options.onProgress = [&](const std::string &line) { lines.push_back(line); };
  IPResult result = solveLatencyIP(p, options);
  ASSERT_EQ(result.status, "optimal");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front().rfind("placer: CBC on the latency model: ", 0), 0u)
      << lines.front();
  EXPECT_NE(lines.front().find(" nodes"), std::string::npos) << lines.front();
}

} // namespace

namespace {
/// A source feeding `chains` parallel chains of `length` unit-time nodes,
/// on 4 accelerators: the heuristic's packings cut chains, and its local
/// search rebalances them, node by node.
Problem parallelChains(int chains, int length) {
  std::vector<std::array<double, 3>> nodes(1 + chains * length,
                                           {1, 10, 0.01});
  Problem problem = makeProblem(4, 0, nodes);
  for (int chain = 0; chain < chains; ++chain)
    for (int i = 0; i < length; ++i) {
      int v = 1 + chain * length + i;
      problem.addEdge(i == 0 ? 0 : v - 1, v);
    }
  return problem;
}

/// The MILP of `options` with a 1 ms limit: spent before CBC could start.
SolveResult solveWithin1ms(const Problem &problem, SolveOptions options) {
  options.algorithm = Algorithm::IP;
  options.ip.timeLimitSeconds = 1e-3;
  options.ip.progressSeconds = 0;
  SolveResult result = solve(problem, options);
  EXPECT_TRUE(result.ip && result.ip->status == "time limit");
  return result;
}
} // namespace

// The time limit covers the whole solve: with it spent before CBC could
// start, CBC does not run and the heuristic's placement (its local search
// cut short at the same deadline) is the answer.
TEST(LatencyIP, TimeLimitCoversTheHeuristicAndModelBuilding) {
  Problem problem = parallelChains(6, 30);
  SolveOptions options;
  options.objective = Objective::Latency;
  SolveResult result = solveWithin1ms(problem, options);
  ASSERT_TRUE(result.feasible());

  LatencyOptions past;
  past.deadline = std::chrono::steady_clock::now();
  Solution packed = solveLatencyGreedy(problem, past);
  EXPECT_DOUBLE_EQ(result.solution.latency, packed.latency);
  EXPECT_EQ(result.solution.assignment, packed.assignment);
  // Without a deadline the local search improves on the bare packings.
  EXPECT_LT(solveLatencyGreedy(problem).latency, packed.latency);
}

// The DP stops at its deadline (read every 65,536 differences) with the
// PipeDream-style split, and says so: the latency heuristic's seeds run
// under the heuristic's deadline. Four chains of 12 (28,561 ideals) need
// far more differences than that.
TEST(DPLimits, DeadlineAnswersWithThePipeDreamSplit) {
  Problem problem = parallelChains(4, 12);
  for (int v = 0; v < problem.size(); ++v)
    problem.nodes[v].acceleratorTime = 1 + v % 5;
  DPOptions past;
  past.deadline = std::chrono::steady_clock::now();
  Solution stopped = solveIdealDP(problem, past);
  ASSERT_TRUE(stopped.feasible());
  EXPECT_EQ(stopped.assignment, solvePipeDream(problem).assignment);
  EXPECT_NE(stopped.note.find("the time limit ended the DP"), std::string::npos)
      << stopped.note;
  Solution exact = solveIdealDP(problem);
  EXPECT_TRUE(exact.optimal);
  EXPECT_EQ(exact.note.find("time limit"), std::string::npos);
  EXPECT_LT(exact.maxLoad, stopped.maxLoad);
}

// The throughput MILP shares its limit with the DP that warm-starts it:
// nothing left for CBC, the DP's split is kept.
TEST(IntegerProgramLimits, ThroughputKeepsTheWarmStartWhenTheLimitIsSpent) {
  Problem problem = parallelChains(2, 40);
  SolveOptions options;
  options.ip.contiguous = true;
  SolveResult result = solveWithin1ms(problem, options);
  ASSERT_TRUE(result.feasible());
  SolveOptions dp;
  Solution exact = solve(problem, dp).solution;
  EXPECT_DOUBLE_EQ(result.solution.maxLoad, exact.maxLoad);
}
