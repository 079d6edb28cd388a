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
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace placer::solver::detail {

/// Rows and columns with readable names, collected here and handed to CBC
/// in one Cbc_loadProblem: CBC 2.10's Cbc_addRow/Cbc_addCol resize the
/// whole matrix on each call (quadratic: 6 s for the 29k rows of a
/// 600-node latency model, against milliseconds in one load).
class ModelBuilder {
public:
  ModelBuilder();
  ~ModelBuilder();
  ModelBuilder(const ModelBuilder &) = delete;
  ModelBuilder &operator=(const ModelBuilder &) = delete;

  int column(const std::string &name, double lb, double ub, double objective,
             bool integer);
  void setColumnUpper(int column, double ub);
  void row(const std::string &name, const std::vector<int> &cols,
           const std::vector<double> &coefs, char sense, double rhs);

  /// Writes the model: MPS when the path ends in .mps, LP otherwise.
  void write(const std::string &path);

  /// Records the model's size in `result` and, when the options name an
  /// export file, writes the model there instead of solving: true then.
  bool exportInstead(const IPOptions &options, IPResult &result);

  /// Solves with the options' gap and threads until `deadline`, starting
  /// from `start` (column, value pairs; may be empty); does not start CBC
  /// when the deadline has passed. `what` names the model in progress
  /// lines, `incumbent` is the start's objective (infinity without one).
  void solve(const IPOptions &options,
             std::chrono::steady_clock::time_point deadline,
             const std::vector<int> &startColumns,
             const std::vector<double> &startValues, const std::string &what,
             double incumbent);

  /// Instead of solve(): a start already meets a proven lower bound
  /// `bound`, so it is optimal and CBC need not run (it would, for the
  /// root LP of a large model, take longer than a short limit).
  void provenByBound(double bound) { outcome = Outcome{"optimal", bound, {}}; }

  /// After solve(): "optimal", "feasible", "infeasible", "no solution" or
  /// "time limit" (CBC never ran), and the column values when there is a
  /// solution (else null).
  std::string status() const;
  const double *solution() const;
  double bestBound() const;

  /// After solve() and reading the solution: CBC's bound, the gap of
  /// `objective` (the solution's max load or latency; infinity when there
  /// is none), the fields that follow from the status, and the wall time
  /// since `start`.
  void finish(IPResult &result, double objective,
              std::chrono::steady_clock::time_point start) const;

  int columns = 0, rows = 0;

private:
  /// Hands the collected model to CBC (once); names only when asked (an
  /// export), since CBC stores them one call at a time.
  void load(bool withNames);

  /// What CBC ended with (unset: it never ran, or was stopped at the
  /// deadline without reporting).
  struct Outcome {
    std::string status;
    double bestBound;
    std::vector<double> values; ///< empty without a solution
  };
  Outcome readOutcome() const;
  /// Runs CBC in a child process and waits for its outcome until
  /// `hardDeadline`; false when no child could be started.
  bool solveInChild(std::chrono::steady_clock::time_point hardDeadline,
                    const std::function<void(const std::string &)> &onLine);

  Cbc_Model *model;
  bool loaded = false;
  std::optional<Outcome> outcome;
  /// CBC's bound and optimality are the problem's (not a tightened model's).
  bool boundHolds = true;
  std::vector<std::string> columnNames, rowNames;
  std::vector<double> columnLower, columnUpper, objective;
  std::vector<int> integers;
  std::vector<double> rowLower, rowUpper;
  /// The rows' entries, row by row (rowStart[r] .. rowStart[r + 1]).
  std::vector<int> rowStart = {0}, entryColumn;
  std::vector<double> entryValue;
};

} // namespace placer::solver::detail

#endif // PLACER_LIB_SOLVER_CBCMODEL_H
