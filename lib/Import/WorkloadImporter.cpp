//===- WorkloadImporter.cpp - The NeurIPS 2020 workload format ------------===//
#include "placer/Import/WorkloadImporter.h"

#include "placer/Analysis/Cluster.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Solver/Workload.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace placer;
using llvm::json::Array;
using llvm::json::Object;

namespace {

/// The paper's machine: k accelerators with the memory limit and l CPU
/// cores. Op times come from the workload, so the compute and bandwidth
/// figures are placeholders (1).
llvm::json::Value workloadCluster(const solver::Problem &problem,
                                  StringRef name) {
  Array kinds;
  if (problem.numAccelerators > 0)
    kinds.push_back(Object{{"name", "accelerator"},
                           {"type", "accelerator"},
                           {"count", problem.numAccelerators},
                           {"peak_flops", Object{{"default", 1.0}}},
                           {"memory_bandwidth", 1.0},
                           {"memory_capacity", problem.memoryLimit}});
  if (problem.numCpus > 0)
    kinds.push_back(Object{{"name", "cpu"},
                           {"type", "cpu"},
                           {"count", problem.numCpus},
                           {"peak_flops", Object{{"default", 1.0}}},
                           {"memory_bandwidth", 1.0}});
  return Object{{"name", name},
                {"device_kinds", std::move(kinds)},
                {"links", Object{{"default", Object{{"bandwidth", 1.0},
                                                    {"latency", 0.0}}}}}};
}

} // namespace

OwningOpRef<ModuleOp> placer::importWorkloadFile(StringRef path,
                                                 MLIRContext *context) {
  context->loadDialect<graph::GraphDialect, func::FuncDialect>();
  auto fileLoc = FileLineColLoc::get(context, path, 0, 0);
  // The messages name the file and the field themselves.
  auto unknownLoc = UnknownLoc::get(context);
  llvm::Expected<solver::Workload> workload = solver::readWorkloadFile(path);
  if (!workload) {
    emitError(unknownLoc) << llvm::toString(workload.takeError());
    return {};
  }
  const solver::Problem &problem = workload->problem;

  // Validate the recorded cluster with the same parser later passes use.
  llvm::json::Value clusterJson = workloadCluster(problem, path);
  llvm::Expected<Cluster> cluster = Cluster::fromJson(clusterJson, path);
  if (!cluster) {
    emitError(unknownLoc) << llvm::toString(cluster.takeError());
    return {};
  }

  OpBuilder b(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  (*module)->setAttr(costattrs::kCluster,
                     b.getStringAttr(llvm::formatv("{0}", clusterJson).str()));
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, fileLoc, "main_graph",
                                   b.getFunctionType({}, {}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);

  std::vector<Value> values(problem.size());
  std::vector<std::vector<int>> predecessors = problem.predecessors();
  SmallVector<Value> sinks;
  Type unknown = graph::UnknownType::get(context);
  for (int index : solver::topologicalOrder(problem)) {
    const solver::Node &node = problem.nodes[index];
    SmallVector<Value> inputs;
    for (int pred : predecessors[index])
      inputs.push_back(values[pred]);
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr("id", b.getI64IntegerAttr(node.id)),
        b.getNamedAttr("supported", b.getI64IntegerAttr(node.supported)),
        b.getNamedAttr("backward", b.getI64IntegerAttr(node.backward))};
    if (node.colorClass >= 0)
      attrs.push_back(
          b.getNamedAttr("color_class", b.getI64IntegerAttr(node.colorClass)));
    SmallVector<NamedAttribute> times;
    if (problem.numAccelerators > 0)
      times.push_back(b.getNamedAttr("accelerator",
                                     b.getF64FloatAttr(node.acceleratorTime)));
    if (problem.numCpus > 0)
      times.push_back(b.getNamedAttr("cpu", b.getF64FloatAttr(node.cpuTime)));
    auto cost = b.getDictionaryAttr({
        b.getNamedAttr("flops", b.getI64IntegerAttr(0)),
        b.getNamedAttr("bytes_read", b.getI64IntegerAttr(0)),
        b.getNamedAttr("bytes_written", b.getI64IntegerAttr(0)),
        b.getNamedAttr("param_bytes",
                       b.getI64IntegerAttr(std::llround(node.memory))),
        b.getNamedAttr("output_bytes",
                       b.getI64IntegerAttr(
                           std::llround(workload->outputBytes[index]))),
        b.getNamedAttr("time", b.getDictionaryAttr(times)),
        b.getNamedAttr("transfer_time",
                       b.getF64FloatAttr(node.transferCost)),
        b.getNamedAttr("source", b.getStringAttr("workload"))});
    std::string output = "n" + std::to_string(node.id);
    OperationState state(NameLoc::get(b.getStringAttr(node.name)),
                         graph::NodeOp::getOperationName());
    state.addOperands(inputs);
    state.addTypes(unknown);
    state.addAttribute("op_type", b.getStringAttr("Node"));
    state.addAttribute("domain", b.getStringAttr(kWorkloadDomain));
    state.addAttribute("version", b.getI64IntegerAttr(1));
    state.addAttribute("name", b.getStringAttr(node.name));
    state.addAttribute("output_names", b.getStrArrayAttr({output}));
    state.addAttribute("attrs", b.getDictionaryAttr(attrs));
    state.addAttribute(costattrs::kCost, cost);
    values[index] = b.create(state)->getResult(0);
    if (problem.successors[index].empty())
      sinks.push_back(values[index]);
  }
  func::ReturnOp::create(b, fileLoc, sinks);
  func.setFunctionType(
      b.getFunctionType({}, ValueRange(sinks).getTypes()));
  if (failed(verify(*module)))
    return {};
  return module;
}
