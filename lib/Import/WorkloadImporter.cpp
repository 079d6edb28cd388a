//===- WorkloadImporter.cpp - The NeurIPS 2020 workload format ------------===//
#include "placer/Import/WorkloadImporter.h"

#include "placer/Analysis/Cluster.h"
#include "placer/Analysis/CostModel.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Solver/ParallelPlan.h"
#include "placer/Solver/Workload.h"
#include "placer/Support/Json.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <numeric>

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

/// A workload node: `graph.node "Node"` in domain placer.workload, one
/// output `n<id>` of unknown type, at a location naming it.
Operation *createWorkloadNode(OpBuilder &b, StringRef name, int64_t id,
                              ValueRange inputs, DictionaryAttr attrs) {
  OperationState state(NameLoc::get(b.getStringAttr(name)),
                       graph::NodeOp::getOperationName());
  state.addOperands(inputs);
  state.addTypes(graph::UnknownType::get(b.getContext()));
  state.addAttribute("op_type", b.getStringAttr("Node"));
  state.addAttribute("domain", b.getStringAttr(kWorkloadDomain));
  state.addAttribute("version", b.getI64IntegerAttr(1));
  state.addAttribute("name", b.getStringAttr(name));
  state.addAttribute("output_names",
                     b.getStrArrayAttr({"n" + std::to_string(id)}));
  state.addAttribute("attrs", attrs);
  return b.create(state);
}

/// Piper's machine: maxDevices accelerators of maxMemoryPerDevice bytes
/// joined by links of its one bandwidth, training with mbsInBatch
/// microbatches per batch.
Cluster piperCluster(const solver::ParallelProblem &problem, StringRef name) {
  DeviceKind kind;
  kind.name = "accelerator";
  kind.isAccelerator = true;
  kind.count = problem.maxDevices;
  kind.peakFlops = {{"default", 1.0}};
  kind.memoryBandwidth = 1.0;
  kind.memoryCapacity = problem.memoryPerDevice;
  TrainingSetup training;
  training.microbatches = problem.microbatches;
  return Cluster(name.str(), {kind}, Link{problem.bandwidth, 0.0}, std::nullopt,
                 {}, {}, training);
}

/// Piper's input: one graph.node per layer, its operands its incoming edges
/// (in the input's edge order) with their bytes in `placer.edge_bytes`, its
/// configurations in `placer.tensor_configs` (sync_out in the order of the
/// node's uses: consumers in program order, then operand number).
OwningOpRef<ModuleOp> importPiper(const solver::ParallelProblem &problem,
                                  StringRef path, MLIRContext *context) {
  auto fileLoc = FileLineColLoc::get(context, path, 0, 0);
  OpBuilder b(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  setCluster(*module, ClusterAttr::get(context, piperCluster(problem, path)));
  b.setInsertionPointToEnd(module->getBody());
  auto func =
      func::FuncOp::create(b, fileLoc, "main_graph", b.getFunctionType({}, {}));
  b.setInsertionPointToStart(func.addEntryBlock());

  // Program order: a topological one, deterministic.
  int n = problem.size();
  std::vector<int> order = problem.topologicalOrder(), position(n, 0);
  for (auto [i, v] : llvm::enumerate(order))
    position[v] = static_cast<int>(i);
  // Each node's out-edges in the order of its uses.
  std::vector<std::vector<int>> usesOrder(n);
  for (int v = 0; v < n; ++v) {
    std::vector<int> positions(problem.outEdges[v].size());
    std::iota(positions.begin(), positions.end(), 0);
    auto key = [&](int k) {
      const solver::ParallelEdge &edge = problem.edges[problem.outEdges[v][k]];
      const std::vector<int> &in = problem.inEdges[edge.to];
      int operand =
          static_cast<int>(llvm::find(in, problem.outEdges[v][k]) - in.begin());
      return std::make_pair(position[edge.to], operand);
    };
    llvm::sort(positions, [&](int x, int y) { return key(x) < key(y); });
    usesOrder[v] = std::move(positions);
  }

  std::vector<Value> values(n);
  SmallVector<Value> sinks;
  for (int v : order) {
    const solver::ParallelLayer &layer = problem.layers[v];
    SmallVector<Value> inputs;
    SmallVector<double> edgeBytes;
    for (int e : problem.inEdges[v]) {
      inputs.push_back(values[problem.edges[e].from]);
      edgeBytes.push_back(problem.edges[e].bytes);
    }
    SmallVector<Attribute> degrees;
    for (const auto &[degree, configs] : layer.configs) {
      if (configs.empty())
        continue;
      SmallVector<Attribute> entries;
      for (const solver::TensorConfig &config : configs) {
        SmallVector<double> syncOut;
        for (int k : usesOrder[v])
          syncOut.push_back(config.syncOut[k]);
        entries.push_back(TensorConfigAttr::get(
            context, config.id, config.timePerSample, config.parameterBytes,
            config.stashBytes, config.fixedBytes,
            DenseF64ArrayAttr::get(context, config.syncIn),
            DenseF64ArrayAttr::get(context, syncOut)));
      }
      degrees.push_back(
          TensorDegreeAttr::get(context, degree, b.getArrayAttr(entries)));
    }
    Operation *op = createWorkloadNode(
        b, layer.name, layer.id, inputs,
        b.getDictionaryAttr(
            b.getNamedAttr("id", b.getI64IntegerAttr(layer.id))));
    // The degree-1 time as the node's workload cost, so that cost
    // estimation keeps it and per-op tools have a figure.
    const solver::TensorConfig &base = layer.configs.begin()->second.front();
    setCost(op, CostAttr::get(
                    context, 0, 0, 0, std::llround(base.parameterBytes), 0,
                    b.getDictionaryAttr(b.getNamedAttr(
                        "accelerator", b.getF64FloatAttr(base.timePerSample))),
                    0.0, CostSource::Workload, DictionaryAttr(), std::nullopt));
    op->setAttr(PlacerDialect::TensorConfigsAttrHelper::getNameStr(),
                b.getArrayAttr(degrees));
    op->setAttr(PlacerDialect::EdgeBytesAttrHelper::getNameStr(),
                DenseF64ArrayAttr::get(context, edgeBytes));
    values[v] = op->getResult(0);
    if (problem.outEdges[v].empty())
      sinks.push_back(values[v]);
  }
  func::ReturnOp::create(b, fileLoc, sinks);
  func.setFunctionType(b.getFunctionType({}, ValueRange(sinks).getTypes()));
  if (failed(verify(*module)))
    return {};
  return module;
}

} // namespace

OwningOpRef<ModuleOp> placer::importWorkloadFile(StringRef path,
                                                 MLIRContext *context) {
  context->loadDialect<graph::GraphDialect, func::FuncDialect,
                       PlacerDialect>();
  auto fileLoc = FileLineColLoc::get(context, path, 0, 0);
  // The messages name the file and the field themselves.
  auto unknownLoc = UnknownLoc::get(context);
  llvm::Expected<llvm::json::Value> json = readJsonFile(path);
  if (!json) {
    emitError(unknownLoc) << llvm::toString(json.takeError());
    return {};
  }
  if (solver::isPiperWorkload(*json)) {
    llvm::Expected<solver::ParallelProblem> problem =
        solver::parsePiperWorkload(*json, path);
    if (!problem) {
      emitError(unknownLoc) << llvm::toString(problem.takeError());
      return {};
    }
    return importPiper(*problem, path, context);
  }
  llvm::Expected<solver::Workload> workload =
      solver::parseWorkload(*json, path);
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
    Operation *op = createWorkloadNode(b, node.name, node.id, inputs,
                                       b.getDictionaryAttr(attrs));
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
