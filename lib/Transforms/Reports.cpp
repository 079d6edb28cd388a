//===- Reports.cpp - Collecting the reports of passes
//----------------------===//

#include "placer/Transforms/Reports.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

using namespace placer;

ReportingPass::~ReportingPass() = default;

void ReportCollector::runAfterPass(mlir::Pass *pass, mlir::Operation *) {
  // Passes are polymorphic and RTTI is on in LLVM's build: a pass that
  // reports says so by its base, whatever its own (anonymous) class is.
  auto *reporting = dynamic_cast<ReportingPass *>(pass);
  if (!reporting)
    return;
  if (std::optional<llvm::json::Value> report = reporting->takeReport())
    reports.push_back({pass->getArgument().str(), std::move(*report)});
}

void placer::collectReports(mlir::PassManager &pm,
                            std::vector<PassReport> &reports) {
  pm.addInstrumentation(std::make_unique<ReportCollector>(reports));
}

mlir::Location placer::getModuleRemarkLoc(mlir::Operation *module) {
  mlir::Location loc = module->getLoc();
  if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(loc))
    return mlir::FileLineColLoc::get(file.getFilename(), 0, 0);
  return loc;
}

const llvm::json::Value *
placer::findReport(const std::vector<PassReport> &reports,
                   llvm::StringRef pass) {
  for (auto it = reports.rbegin(); it != reports.rend(); ++it)
    if (it->pass == pass)
      return &it->value;
  return nullptr;
}
