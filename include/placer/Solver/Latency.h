//===- Latency.h - Single-sample latency: model, evaluator, heuristic -*- C++ -*-===//
//
// The latency objective of Tarnawski et al. (docs/IntegerPrograms.md):
// one sample goes through the placed graph. A CPU op finishes at the
// latest finish of its inputs plus its CPU time (CPU ops run in parallel:
// as many cores as the graph is wide). The ops an accelerator holds run
// as calls: each call is a convex subgraph that starts when all its
// external inputs are ready and the accelerator's previous call is done,
// and takes transfer-in + the sum of its op times + transfer-out; every
// result of a call is ready when the call ends. Plain C++, no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_SOLVER_LATENCY_H
#define PLACER_SOLVER_LATENCY_H

#include "placer/Solver/Solvers.h"

#include <chrono>
#include <optional>

namespace placer::solver {

/// For every node on an accelerator, the index (0, 1, ...) of the call
/// that runs it on that accelerator; -1 for nodes on CPU cores.
using Calls = std::vector<int>;

struct CallReport {
  int device = 0;
  int index = 0;
  double start = 0, transferIn = 0, compute = 0, transferOut = 0, finish = 0;
  std::vector<int> nodes;
};

struct LatencyEvaluation {
  double latency = 0;
  /// When each node's result is ready.
  std::vector<double> finish;
  /// Per accelerator, in call order.
  std::vector<CallReport> calls;
  /// The largest number of calls one accelerator makes.
  int maxCallsPerAccelerator = 0;
  /// Empty when the placement can run; otherwise why not.
  std::string violation;
  bool feasible() const { return violation.empty(); }
};

/// Evaluates placements of one problem (which must outlive it). What
/// depends only on the graph (its topological order, its predecessor
/// lists) is computed once, so a local search that scores thousands of
/// placements pays per placement only for the placement.
class LatencyEvaluator {
public:
  explicit LatencyEvaluator(const Problem &problem);

  /// The fewest convex calls that run each accelerator's nodes: a node's
  /// call is the number of times a path into it re-enters its accelerator.
  Calls fewestCalls(const Assignment &assignment) const;

  /// The latency of `assignment` with the given calls (empty:
  /// fewestCalls). Checks the placement constraints of evaluate() too, and
  /// that the calls can run: each is convex and they can run in index
  /// order.
  LatencyEvaluation evaluate(const Assignment &assignment,
                             const Calls &calls = {}) const;

private:
  const Problem &problem;
  std::vector<int> order;
  std::vector<std::vector<int>> preds;
};

/// LatencyEvaluator(problem).fewestCalls(assignment).
Calls fewestCalls(const Problem &problem, const Assignment &assignment);

/// LatencyEvaluator(problem).evaluate(assignment, calls).
LatencyEvaluation evaluateLatency(const Problem &problem,
                                  const Assignment &assignment,
                                  const Calls &calls = {});

/// No placement whose accelerators make at most `callsPerAccelerator`
/// calls is faster: the longest path with each node at its cheapest time,
/// and for the longest such path into each sink the least time of its
/// nodes cut into CPU nodes and accelerator runs (at most k x calls runs),
/// each run paying what convexity forces on its call: the nodes between
/// its nodes (and, with one call per accelerator, their whole colour
/// classes), within an accelerator's memory, and the transfers into and
/// out of it (docs/IntegerPrograms.md, "Lower bound"); with one call per
/// accelerator and `chainOfBlocks`, also the chain-of-blocks DP's bound
/// (solveLatencyChain; off: the path bound alone, for comparison).
double latencyLowerBound(const Problem &problem, int callsPerAccelerator = 1,
                         bool chainOfBlocks = true);

/// The latency DP over the chain of blocks (docs/IntegerPrograms.md, "Chain
/// of blocks"), for one call per accelerator: the graph's colour classes cut
/// at their cut vertices into small blocks, each block's heads and tails
/// enumerated.
struct ChainSolution {
  /// Whether the DP ran; where not, `skipped` says why (the graph has too
  /// large a block, its classes form cycles, the cluster is not uniform).
  bool applies = false;
  std::string skipped;
  /// No placement with one call per accelerator is faster.
  double lowerBound = 0;
  /// The DP's best placement with every middle node of a block on the CPU
  /// (empty where there is none), and its latency as the DP counts it (an
  /// upper bound: CPU classes are timed as a whole).
  Assignment placement;
  double placementBound = kInfinity;
};
ChainSolution solveLatencyChain(const Problem &problem);

/// Per node, the earliest its result can be ready under any placement
/// (the longest path into it at cheapest times).
std::vector<double> earliestFinish(const Problem &problem);

struct LatencyOptions {
  /// Calls each accelerator may make (q of the paper).
  int callsPerAccelerator = 1;
  /// The local search stops here with the best placement found so far
  /// (every starting packing is still scored).
  std::optional<std::chrono::steady_clock::time_point> deadline;
  /// Placements to start from beside the heuristic's own packings, with
  /// what they are ("the throughput DP's split"): the result is never
  /// worse than any of them that can run within the call limit.
  std::vector<std::pair<std::string, Assignment>> seeds;
  /// Once no single class's move helps, the local search also moves runs of
  /// consecutive classes (2 to 64, in topological order) to one device.
  /// Off, it is the single-move search alone (for comparison).
  bool moveRuns = true;
};

/// Topological greedy packing followed by local search (moving one color
/// class at a time to the CPU or to another accelerator, then runs of
/// consecutive classes), keeping the best of several packings and of the
/// seeds, each improved the same way, the most promising first. The
/// MILP's warm start and the baseline it must beat. The note names the seed
/// the result came from, if any.
Solution solveLatencyGreedy(const Problem &problem,
                            const LatencyOptions &options = {});

/// Scores any placement (the DP's split, an expert's split) for latency:
/// fills `latency` and `calls` (fewest calls), leaves the rest.
void scoreLatency(const Problem &problem, Solution &solution);

/// Spreads the CPU nodes of `assignment` over the CPU cores so that ops
/// that run at the same time (by `finish`) use different cores where
/// possible; color classes stay on one core. The latency model itself does
/// not limit CPU parallelism, this only picks the core each op names.
void assignCpuCores(const Problem &problem, const std::vector<double> &finish,
                    Assignment &assignment);

} // namespace placer::solver

#endif // PLACER_SOLVER_LATENCY_H
