//===- IntegerProgram.h - Placement MILPs solved with COIN-OR CBC -*- C++ -*-===//
//
// The max-load problem of Problem.h and the latency problem of Latency.h
// as mixed-integer programs (docs/IntegerPrograms.md has the
// formulations), solved with Debian's CBC. Plain C++: no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_SOLVER_INTEGERPROGRAM_H
#define PLACER_SOLVER_INTEGERPROGRAM_H

#include "placer/Solver/PipelineSchedule.h"
#include "placer/Solver/Solvers.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace placer::solver {

struct IPOptions {
  /// Add the pipeline constraints: the split must be contiguous in the
  /// sense of isContiguous(), like the DP's.
  bool contiguous = false;
  /// Wall time for the whole solve: solve() starts the clock before the
  /// warm start's heuristic or DP, so that it, the model's construction and
  /// CBC share it (see `deadline`).
  double timeLimitSeconds = 600;
  /// When the solve must end; unset: timeLimitSeconds after the IP starts.
  /// CBC gets what is left; with nothing left it does not run and the warm
  /// start is the answer (status "time limit").
  std::optional<std::chrono::steady_clock::time_point> deadline;

  /// `deadline`, or timeLimitSeconds (at most 10^9 s) after `start`.
  std::chrono::steady_clock::time_point
  getDeadline(std::chrono::steady_clock::time_point start) const {
    std::chrono::duration<double> limit(std::min(timeLimitSeconds, 1e9));
    return deadline.value_or(
        start +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(limit));
  }
  /// The problem's memory is withAdditiveMemory's sound tightening of the
  /// real one (solve() sets this): CBC's bound and optimality then hold for
  /// the model, not for the problem, and are not reported as its.
  bool memoryTightened = false;
  /// Stop when (incumbent - bound) / incumbent is at most this.
  double relativeGap = 0;
  /// Stop after this many branch-and-bound nodes (0: no limit): a limit
  /// that, unlike time, gives the same answer on every machine.
  int64_t maxNodes = 0;
  int threads = 1;
  /// Write the model (LP format, or MPS when the name ends in .mps) and do
  /// not solve.
  std::string exportPath;
  /// A feasible assignment to start from (e.g. the DP's split).
  const Assignment *warmStart = nullptr;
  /// Latency: the calls of the warm start (empty: the fewest calls).
  const std::vector<int> *warmStartCalls = nullptr;
  /// Latency: calls per accelerator (q).
  int callsPerAccelerator = 1;
  /// Latency: latencyLowerBound(problem, callsPerAccelerator) where the
  /// caller has it already (the heuristic computes it for its warm start).
  std::optional<double> latencyBound;
  /// A progress line this often while CBC runs; 0: none.
  double progressSeconds = 10;
  /// Where progress lines go (without the newline); unset: stderr.
  std::function<void(const std::string &)> onProgress;
};

struct IPResult {
  Solution solution;
  /// "optimal", "feasible" (stopped at the time limit or gap), "infeasible",
  /// "no solution" (stopped before finding one), "time limit" (the limit
  /// was spent before CBC could start, or CBC, in its child process, was
  /// ended past it before it reported), or "exported".
  std::string status;
  double bestBound = 0;
  double gap = 0;
  int64_t variables = 0, constraints = 0;
};

IPResult solveThroughputIP(const Problem &problem, const IPOptions &options);

/// The throughput MILP for a schedule that runs several chunks of the
/// model on each accelerator (interleaved 1F1B: chunk c on accelerator c
/// mod k; ZB-V: a V), exactly (docs/IntegerPrograms.md, "Chunks"): the
/// forward graph cut into `layout.chunks()` contiguous chunks in pipeline
/// order (every edge from a chunk to the same or a later one; a chunk may
/// be empty), chunk c on accelerator `layout.deviceOfChunk[c]`. An
/// accelerator's load is its chunks' work plus c(u) for every tensor that
/// leaves or enters it (a tensor between two of its own chunks stays); its
/// memory its chunks' weights plus each chunk's stash times the most of
/// that chunk's microbatches the schedule holds at once at uniform times
/// (`PipelineRun::peakPerChunk`: a bound from above on the device's peak).
/// Accelerators only, of one kind (CPU cores and kinds are refused).
/// `chunkOf` gets each node's chunk; the solution's assignment each node's
/// accelerator.
IPResult solveChunkedThroughputIP(const Problem &problem,
                                  const PipelineSchedule &layout,
                                  const IPOptions &options,
                                  std::vector<int> &chunkOf);

/// The chunks of `problem`'s schedule (usesChunks) on its accelerators for
/// its microbatches, or the error that says why none exist.
llvm::Expected<PipelineSchedule> getChunkLayout(const Problem &problem);

/// A split into `layout`'s chunks scored as solveChunkedThroughputIP
/// models it: per accelerator its load, weights, activations (each chunk's
/// stash per microbatch it holds) and memory, `inFlight` the most
/// microbatches one of its chunks holds; a violation where memory does not
/// fit or an edge goes back to an earlier chunk.
Evaluation evaluateChunks(const Problem &problem,
                          const PipelineSchedule &layout,
                          const std::vector<int> &chunkOf);

/// Minimises the single-sample latency (Latency.h) over placements with up
/// to `callsPerAccelerator` convex calls per accelerator. The result's
/// `latency` and `calls` are re-evaluated with evaluateLatency().
IPResult solveLatencyIP(const Problem &problem, const IPOptions &options);

} // namespace placer::solver

#endif // PLACER_SOLVER_INTEGERPROGRAM_H
