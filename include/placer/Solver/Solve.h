//===- Solve.h - The solver library's one entry point ----------*- C++ -*-===//
//
// Takes a placement problem and options, chooses the algorithm, warm-starts
// the integer programs, and when nothing fits finds the smallest memory
// that would. Plain C++: the placement pass adapts IR to this, and the
// benchmarks call it directly.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_SOLVER_SOLVE_H
#define PLACER_SOLVER_SOLVE_H

#include "placer/Solver/IntegerProgram.h"
#include "placer/Solver/Solvers.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace placer::solver {

enum class Algorithm {
  /// The exact method of the objective: DP for throughput, IP for latency.
  Auto,
  DP,
  IP,
  PipeDream,
  Greedy,
  /// The DP's split improved by moving colour classes (not contiguous).
  LocalSearch,
  Single,
  /// Score a given split (SolveOptions::splitFile).
  SplitFile,
};

std::optional<Algorithm> parseAlgorithm(llvm::StringRef name);
llvm::StringRef getName(Algorithm algorithm);
/// "auto, dp, ip, ..." for messages.
std::string listAlgorithms();

struct SolveOptions {
  Objective objective = Objective::Throughput;
  Algorithm algorithm = Algorithm::Auto;
  /// DP: past this many ideals, refine the linearized split (and say so).
  int64_t idealLimit = 200000;
  /// Integer programs (algorithm=ip) and the latency calls per accelerator.
  /// `warmStart` is set by solve() itself.
  IPOptions ip;
  /// Algorithm::SplitFile: the split to score, in the paper's format.
  std::string splitFile;
  /// When no placement fits, bisect for the smallest memory per
  /// accelerator that would.
  bool findSmallestMemory = true;

  /// The algorithm `Auto` stands for under this objective.
  Algorithm getChosenAlgorithm() const;
};

/// Why options are unusable ("calls=0: ..."), or empty when they are fine.
std::string checkOptions(const SolveOptions &options);

struct SolveResult {
  /// Set when the input was unusable (a split file that does not parse or
  /// does not fit); nothing else is then meaningful.
  std::string error;
  Solution solution;
  /// What CBC said, when an integer program ran (or was exported).
  std::optional<IPResult> ip;
  /// When no placement fits: the smallest memory per accelerator with
  /// which one would (infinity: none at any size).
  double smallestFittingMemory = kInfinity;

  bool exported() const { return ip && ip->status == "exported"; }
  /// CBC proved that nothing fits.
  bool provedInfeasible() const { return ip && ip->status == "infeasible"; }
  bool feasible() const { return error.empty() && solution.feasible(); }
};

/// Solves `problem` as `options` say. Latency results carry `latency` and
/// `calls`; throughput ones scored for latency do too.
SolveResult solve(const Problem &problem, const SolveOptions &options);

} // namespace placer::solver

#endif // PLACER_SOLVER_SOLVE_H
