//===- Solvers.h - Contiguous placement: exact DP and baselines -*- C++ -*-===//
#ifndef PLACER_SOLVER_SOLVERS_H
#define PLACER_SOLVER_SOLVERS_H

#include "placer/Solver/Problem.h"

#include <chrono>
#include <optional>

namespace placer::solver {

struct Solution {
  Assignment assignment;
  /// Replicated stages (Problem::replication); empty: none.
  Replication replication;
  double maxLoad = kInfinity;
  std::string algorithm;
  /// Ideals the DP enumerated (0 for other algorithms).
  int64_t numIdeals = 0;
  double seconds = 0;
  /// The DP's answer is the optimum among contiguous splits, unless the
  /// graph had to be coarsened (then it is optimal for the coarsened graph).
  bool optimal = false;
  bool coarsened = false;
  double lowerBound = 0;
  std::string note;
  /// Latency objective (Latency.h): the single-sample latency and, per
  /// accelerator node, the call that runs it.
  double latency = kInfinity;
  std::vector<int> calls;
  /// Schedules with several chunks per accelerator (usesChunks): each
  /// node's chunk, in pipeline order; empty otherwise.
  std::vector<int> chunks;
  /// Schedules with several chunks per accelerator: the objective the
  /// chunked program minimized, the time per microbatch the schedule is
  /// expected to take (maxLoad plus its fill and drain over M:
  /// solveChunkedThroughputIP), which `lowerBound` then bounds.
  double pipelineTime = kInfinity;
  bool feasible() const { return maxLoad < kInfinity; }
};

struct DPOptions {
  /// Past this many ideals the DP refines the PipeDream-style split exactly
  /// within windows around its stage boundaries (docs/Placement.md, "Too
  /// many ideals") and says so, instead of running out of time or memory.
  int64_t idealLimit = 200000;
  /// Past this the DP stops and answers with the PipeDream-style split
  /// (not proven optimal, and saying why); none by default.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

/// The optimal contiguous split (Tarnawski et al. 2020, Section 4): a
/// dynamic program over the ideals of the forward graph, after contracting
/// color classes (and the cycles that creates).
Solution solveIdealDP(const Problem &problem, const DPOptions &options = {});

/// PipeDream-style: a topological order of the contracted graph becomes a
/// chain of layers; an exact DP over its prefixes.
Solution solvePipeDream(const Problem &problem);

/// Greedy topological packing: fills devices in order up to an even share
/// of the total work.
Solution solveGreedy(const Problem &problem);

/// Everything on one accelerator, the best kind (or one CPU core if none
/// fits).
Solution solveSingleDevice(const Problem &problem);

/// Local search over non-contiguous placements (the paper's local-search
/// baseline), from `start` (a feasible assignment without replication):
/// descent passes move every colour class in turn to the device that
/// lowers the loads the most, loads compared sorted from the largest (so
/// that lowering one of two devices tied at the maximum counts), until a
/// pass moves nothing; then `restarts` times, from the best placement so
/// far, two classes moved at random (a fixed seed) and descent again. Stops
/// early at `deadline`. The same input gives the same answer unless the
/// deadline cuts it short. Never worse than `start`.
Solution improveByLocalSearch(const Problem &problem, const Assignment &start,
                              int restarts = 200,
                              std::chrono::steady_clock::time_point deadline =
                                  std::chrono::steady_clock::time_point::max());

} // namespace placer::solver

#endif // PLACER_SOLVER_SOLVERS_H
