//===- ReportSharding.cpp - How nodes run on a tensor-parallel group ------===//
//
// A view of placer::planSharding for people and tests: the plan as remarks
// and JSON. The passes that derive tensor-parallel configurations and split
// stages call the analysis directly.
//
//===----------------------------------------------------------------------===//

#include "PlaceParallel.h"
#include "placer/Analysis/Sharding.h"
#include "placer/Transforms/Passes.h"
#include "placer/Transforms/Reports.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

namespace placer {
#define GEN_PASS_DEF_REPORTSHARDING
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;

namespace {

std::string describeSplit(const std::optional<ShardSplit> &split) {
  if (!split)
    return "whole";
  std::string text = "split on axis " + std::to_string(split->axis);
  if (split->blocks > 1)
    text += " in " + std::to_string(split->blocks) + " blocks";
  return text;
}

std::string describeUse(const CollectiveUse &use) {
  std::string what = stringifyCollective(use.kind).str();
  std::string of = use.operand >= 0 ? "input " + std::to_string(use.operand)
                                    : "result " + std::to_string(use.result);
  return what + " of " + of + " (" + std::to_string(use.bytes) + " B)";
}

struct ReportShardingPass
    : public placer::impl::ReportShardingBase<ReportShardingPass>,
      public ReportingPass {
  using ReportShardingBase::ReportShardingBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> func =
        getSoleFunction(module, "--placer-report-sharding");
    if (failed(func))
      return signalPassFailure();
    FailureOr<ShardingPlan> plan = planSharding(*func, degree);
    if (failed(plan))
      return signalPassFailure();
    llvm::json::Array nodes;
    int64_t cut = 0, bytes = 0;
    for (const NodeSharding &node : plan->nodes) {
      graph::NodeOp op = node.node; // op accessors are not const
      cut += node.isSharded();
      llvm::json::Array results, collectives;
      for (const std::optional<ShardSplit> &split : node.results)
        results.push_back(describeSplit(split));
      std::string uses;
      for (const CollectiveUse &use : node.collectives) {
        collectives.push_back(describeUse(use));
        uses += (uses.empty() ? "; " : ", ") + describeUse(use);
        bytes += use.bytes;
      }
      if (node.isSharded() || !node.collectives.empty())
        emitRemark(op.getLoc())
            << "'" << op.getDisplayName() << "' (" << op.getOpType()
            << "): " << node.strategy << ", "
            << describeSplit(node.results.empty() ? std::nullopt
                                                  : node.results.front())
            << uses;
      nodes.push_back(
          llvm::json::Object{{"name", op.getDisplayName()},
                             {"op_type", op.getOpType()},
                             {"strategy", node.strategy},
                             {"results", std::move(results)},
                             {"collectives", std::move(collectives)}});
    }
    llvm::json::Array outputs;
    for (const CollectiveUse &use : plan->outputs) {
      outputs.push_back(describeUse(use));
      bytes += use.bytes;
    }
    emitRemark(getModuleRemarkLoc(module))
        << "tensor-parallel degree " << plan->degree << ": " << cut << " of "
        << plan->nodes.size() << " nodes cut, "
        << plan->countCollectives(Collective::AllReduce) << " all-reduce(s), "
        << plan->countCollectives(Collective::AllGather) << " all-gather(s), "
        << bytes << " B";
    llvm::json::Value json = llvm::json::Object{
        {"degree", plan->degree},
        {"nodes", std::move(nodes)},
        {"outputs", std::move(outputs)},
        {"all_reduces", plan->countCollectives(Collective::AllReduce)},
        {"all_gathers", plan->countCollectives(Collective::AllGather)}};
    if (!report.empty()) {
      std::string error;
      auto file = openOutputFile(report, &error);
      if (!file) {
        emitError(module.getLoc(), "--placer-report-sharding: ") << error;
        return signalPassFailure();
      }
      file->os() << llvm::formatv("{0:2}", json) << "\n";
      file->keep();
    }
    setReport(std::move(json));
    markAllAnalysesPreserved();
  }
};

} // namespace
