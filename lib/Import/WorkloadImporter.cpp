//===- WorkloadImporter.cpp - The NeurIPS 2020 workload format ------------===//
#include "placer/Import/WorkloadImporter.h"

#include "placer/Analysis/Cluster.h"
#include "placer/Analysis/CostModel.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Solver/Workload.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace placer;

namespace {

/// The paper's machine: k accelerators with the memory limit and l CPU
/// cores. Op times come from the workload, so the compute and bandwidth
/// figures are placeholders (1).
Cluster workloadCluster(const solver::Problem &problem, StringRef name) {
  std::vector<DeviceKind> kinds;
  auto addKind = [&](const char *kindName, bool isAccelerator, int count,
                     double capacity) {
    DeviceKind kind;
    kind.name = kindName;
    kind.isAccelerator = isAccelerator;
    kind.count = count;
    kind.peakFlops = {{"default", 1.0}};
    kind.memoryBandwidth = 1.0;
    kind.memoryCapacity = capacity;
    kinds.push_back(std::move(kind));
  };
  if (problem.numAccelerators > 0)
    addKind("accelerator", true, problem.numAccelerators, problem.memoryLimit);
  if (problem.numCpus > 0)
    addKind("cpu", false, problem.numCpus, 0.0);
  return Cluster(name.str(), std::move(kinds), Link{1.0, 0.0});
}

} // namespace

OwningOpRef<ModuleOp> placer::importWorkloadFile(StringRef path,
                                                 MLIRContext *context) {
  context->loadDialect<graph::GraphDialect, func::FuncDialect,
                       PlacerDialect>();
  auto fileLoc = FileLineColLoc::get(context, path, 0, 0);
  // The messages name the file and the field themselves.
  auto unknownLoc = UnknownLoc::get(context);
  llvm::Expected<solver::Workload> workload = solver::readWorkloadFile(path);
  if (!workload) {
    emitError(unknownLoc) << llvm::toString(workload.takeError());
    return {};
  }
  const solver::Problem &problem = workload->problem;

  OpBuilder b(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  setCluster(*module,
             ClusterAttr::get(context, workloadCluster(problem, path)));
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
        b.getNamedAttr(kBackwardAttrName, b.getI64IntegerAttr(node.backward))};
    if (node.colorClass >= 0)
      attrs.push_back(
          b.getNamedAttr("color_class", b.getI64IntegerAttr(node.colorClass)));
    SmallVector<NamedAttribute> times;
    if (problem.numAccelerators > 0)
      times.push_back(b.getNamedAttr("accelerator",
                                     b.getF64FloatAttr(node.acceleratorTime)));
    if (problem.numCpus > 0)
      times.push_back(b.getNamedAttr("cpu", b.getF64FloatAttr(node.cpuTime)));
    auto cost = CostAttr::get(
        context, /*flops=*/0, /*bytesRead=*/0, /*bytesWritten=*/0,
        /*paramBytes=*/std::llround(node.memory),
        /*outputBytes=*/std::llround(workload->outputBytes[index]),
        b.getDictionaryAttr(times), node.transferCost, CostSource::Workload,
        /*backwardTime=*/DictionaryAttr(),
        /*trainingParamBytes=*/std::nullopt);
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
    Operation *op = b.create(state);
    setCost(op, cost);
    values[index] = op->getResult(0);
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
