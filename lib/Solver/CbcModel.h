//===- CbcModel.h - Building and running a CBC model -----------*- C++ -*-===//
//
// Internal to the solver library: what the throughput and the latency
// programs share (named rows and columns, export, warm start, limits,
// progress lines, the result's status).
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_SOLVER_CBCMODEL_H
#define PLACER_LIB_SOLVER_CBCMODEL_H

#include "placer/Solver/IntegerProgram.h"

#include <coin/Cbc_C_Interface.h>

#include <chrono>
#include <string>
#include <vector>

namespace placer::solver::detail {

/// Rows and columns as CBC's C API wants them, with readable names.
class ModelBuilder {
public:
  ModelBuilder();
  ~ModelBuilder();
  ModelBuilder(const ModelBuilder &) = delete;
  ModelBuilder &operator=(const ModelBuilder &) = delete;

  int column(const std::string &name, double lb, double ub, double objective,
             bool integer);
  void row(const std::string &name, const std::vector<int> &cols,
           const std::vector<double> &coefs, char sense, double rhs);

  /// Writes the model: MPS when the path ends in .mps, LP otherwise.
  void write(const std::string &path);

  /// Records the model's size in `result` and, when the options name an
  /// export file, writes the model there instead of solving: true then.
  bool exportInstead(const IPOptions &options, IPResult &result);

  /// Solves with the options' limits, starting from `start` (column,
  /// value pairs; may be empty). `what` names the model in progress lines,
  /// `incumbent` is the start's objective (infinity without one).
  void solve(const IPOptions &options, const std::vector<int> &startColumns,
             const std::vector<double> &startValues, const std::string &what,
             double incumbent);

  /// After solve(): "optimal", "feasible", "infeasible" or "no solution",
  /// and the column values when there is a solution (else null).
  std::string status() const;
  const double *solution() const;
  double bestBound() const;

  /// After solve() and reading the solution: CBC's bound, the gap of
  /// `objective` (the solution's max load or latency; infinity when there
  /// is none), the fields that follow from the status, and the wall time
  /// since `start`.
  void finish(IPResult &result, double objective,
              std::chrono::steady_clock::time_point start) const;

  Cbc_Model *model;
  int columns = 0, rows = 0;
};

} // namespace placer::solver::detail

#endif // PLACER_LIB_SOLVER_CBCMODEL_H
