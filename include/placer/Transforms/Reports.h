//===- Reports.h - What passes report besides the IR they leave -*- C++ -*-===//
//
// The placement and the simulator produce a JSON report (loads, bounds,
// transfers; latency, bubbles, events) beside the IR they rewrite. A tool
// writes it to the file its `report=` option names; a library caller gets it
// in memory instead: passes that report derive from `ReportingPass`, and a
// `ReportCollector` instrumentation attached to a pass manager keeps every
// report they make while it runs, whatever the pipeline text was.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_TRANSFORMS_REPORTS_H
#define PLACER_TRANSFORMS_REPORTS_H

#include "mlir/IR/Location.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir

namespace placer {

/// A pass that makes a report on each run (the latest run's is kept).
class ReportingPass {
public:
  virtual ~ReportingPass();
  /// The report of the latest successful run, handed over once.
  std::optional<llvm::json::Value> takeReport() {
    std::optional<llvm::json::Value> out = std::move(lastReport);
    lastReport.reset();
    return out;
  }

protected:
  void setReport(llvm::json::Value value) { lastReport = std::move(value); }

private:
  std::optional<llvm::json::Value> lastReport;
};

/// One pass's report: the pass's argument (`placer-place-devices`,
/// `placer-simulate`) and its JSON.
struct PassReport {
  std::string pass;
  llvm::json::Value value;
};

/// Keeps the report of every reporting pass that runs under the pass
/// manager it is attached to.
class ReportCollector : public mlir::PassInstrumentation {
public:
  explicit ReportCollector(std::vector<PassReport> &reports)
      : reports(reports) {}
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override;

private:
  std::vector<PassReport> &reports;
};

/// Attaches a collector that appends to `reports` (which must outlive the
/// pass manager's runs).
void collectReports(mlir::PassManager &pm, std::vector<PassReport> &reports);

/// Where a pass reports a remark on the whole module (what it placed, what
/// it simulated): the module's file with no line, so that a diagnostic
/// handler prints the remark as one line, not the module's first source
/// line and a caret under it. The module's own location where it has no
/// file.
mlir::Location getModuleRemarkLoc(mlir::Operation *module);

/// The last report of pass `pass` in `reports`, or null.
const llvm::json::Value *findReport(const std::vector<PassReport> &reports,
                                    llvm::StringRef pass);

} // namespace placer

#endif // PLACER_TRANSFORMS_REPORTS_H
