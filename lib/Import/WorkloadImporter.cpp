//===- WorkloadImporter.cpp - The NeurIPS 2020 workload format ------------===//
#include "placer/Import/WorkloadImporter.h"

#include "placer/Analysis/Cluster.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Support/JsonReader.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>
#include <queue>

using namespace mlir;
using namespace placer;
using llvm::json::Array;
using llvm::json::Object;

namespace {

struct WorkloadNode {
  int64_t id;
  std::string name;
  double acceleratorTime, cpuTime, size;
  bool supported, backward;
  std::optional<int64_t> colorClass;
  std::vector<size_t> predecessors; // indices into the node list
  std::vector<size_t> successors;
  std::optional<double> transferCost;
  std::optional<size_t> transferEdge; // the edge that set transferCost
  double outputBytes = 0;
};

struct Workload {
  int64_t accelerators, cpus;
  double memoryPerAccelerator;
  std::vector<WorkloadNode> nodes;
};

std::optional<double> getNonNegative(JsonReader &reader, const Object &object,
                                     llvm::StringRef key,
                                     const std::string &path,
                                     bool required = true) {
  std::optional<double> value = reader.getNumber(object, key, path, required);
  if (value && *value < 0) {
    reader.fail(JsonReader::join(path, key), "must not be negative");
    return std::nullopt;
  }
  return value;
}

std::optional<Workload> parseWorkload(const llvm::json::Value &json,
                                      JsonReader &reader) {
  const Object *root = reader.asObject(json, "");
  if (!root)
    return std::nullopt;
  Workload workload;
  std::optional<int64_t> k = reader.getInteger(*root, "maxFPGAs", "");
  std::optional<int64_t> l = reader.getInteger(*root, "maxCPUs", "");
  std::optional<double> memory = reader.getNumber(*root, "maxSizePerFPGA", "");
  if (reader.failed())
    return std::nullopt;
  if (*k < 0 || *l < 0 || *k + *l == 0) {
    reader.fail(*k < 0 ? "maxFPGAs" : "maxCPUs",
                "needs k >= 0, l >= 0 and at least one device");
    return std::nullopt;
  }
  if (*memory <= 0) {
    reader.fail("maxSizePerFPGA", "must be positive");
    return std::nullopt;
  }
  workload.accelerators = *k;
  workload.cpus = *l;
  workload.memoryPerAccelerator = *memory;

  const Array *nodes = reader.getArray(*root, "nodes", "");
  const Array *edges = reader.getArray(*root, "edges", "");
  if (!nodes || !edges)
    return std::nullopt;
  std::map<int64_t, size_t> indexOfId;
  for (size_t i = 0; i < nodes->size(); ++i) {
    std::string path = JsonReader::index("nodes", i);
    const Object *object = reader.asObject((*nodes)[i], path);
    if (!object)
      return std::nullopt;
    WorkloadNode node;
    std::optional<int64_t> id = reader.getInteger(*object, "id", path);
    node.acceleratorTime =
        getNonNegative(reader, *object, "fpgaLatency", path).value_or(0);
    node.cpuTime = getNonNegative(reader, *object, "cpuLatency", path).value_or(0);
    node.size = getNonNegative(reader, *object, "size", path).value_or(0);
    node.supported = reader.getBool(*object, "supportedOnFpga", path).value_or(true);
    node.backward = reader.getBool(*object, "isBackwardNode", path).value_or(false);
    node.colorClass = reader.getInteger(*object, "colorClass", path, false);
    if (reader.failed())
      return std::nullopt;
    node.id = *id;
    node.name = reader.getString(*object, "name", path, false)
                    .value_or("node" + std::to_string(*id));
    if (!indexOfId.emplace(node.id, workload.nodes.size()).second) {
      reader.fail(JsonReader::join(path, "id"),
                  "duplicate node id " + std::to_string(node.id));
      return std::nullopt;
    }
    workload.nodes.push_back(std::move(node));
  }

  for (size_t e = 0; e < edges->size(); ++e) {
    std::string path = JsonReader::index("edges", e);
    const Object *object = reader.asObject((*edges)[e], path);
    if (!object)
      return std::nullopt;
    std::optional<int64_t> source = reader.getInteger(*object, "sourceId", path);
    std::optional<int64_t> dest = reader.getInteger(*object, "destId", path);
    std::optional<double> cost = getNonNegative(reader, *object, "cost", path);
    std::optional<double> size =
        getNonNegative(reader, *object, "size", path, /*required=*/false);
    if (reader.failed())
      return std::nullopt;
    auto from = indexOfId.find(*source), to = indexOfId.find(*dest);
    if (from == indexOfId.end() || to == indexOfId.end()) {
      bool badSource = from == indexOfId.end();
      reader.fail(JsonReader::join(path, badSource ? "sourceId" : "destId"),
                  "no node has id " +
                      std::to_string(badSource ? *source : *dest));
      return std::nullopt;
    }
    WorkloadNode &producer = workload.nodes[from->second];
    // The model charges c(u) per node: every out-edge must carry it.
    if (producer.transferCost &&
        std::fabs(*producer.transferCost - *cost) >
            1e-9 * std::max(1.0, std::fabs(*cost))) {
      reader.fail(JsonReader::join(path, "cost"),
                  llvm::formatv("node {0} ({1}) has out-edges of different "
                                "costs: {2} here, {3} in edges[{4}]",
                                producer.id, producer.name,
                                formatNumber(*cost),
                                formatNumber(*producer.transferCost),
                                *producer.transferEdge)
                      .str());
      return std::nullopt;
    }
    producer.transferCost = *cost;
    producer.transferEdge = e;
    producer.outputBytes = std::max(producer.outputBytes, size.value_or(0));
    if (!llvm::is_contained(producer.successors, to->second)) {
      producer.successors.push_back(to->second);
      workload.nodes[to->second].predecessors.push_back(from->second);
    }
  }
  return workload;
}

/// Kahn's algorithm by smallest node index; a cycle is an error.
std::optional<std::vector<size_t>> sortWorkload(const Workload &workload,
                                                JsonReader &reader) {
  size_t n = workload.nodes.size();
  std::vector<size_t> pending(n);
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < n; ++i)
    if ((pending[i] = workload.nodes[i].predecessors.size()) == 0)
      ready.push(i);
  std::vector<size_t> order;
  while (!ready.empty()) {
    size_t next = ready.top();
    ready.pop();
    order.push_back(next);
    for (size_t user : workload.nodes[next].successors)
      if (--pending[user] == 0)
        ready.push(user);
  }
  if (order.size() != n) {
    size_t stuck = 0;
    while (pending[stuck] == 0)
      ++stuck;
    reader.fail("edges", llvm::formatv("the graph has a cycle through node "
                                       "{0} ({1})",
                                       workload.nodes[stuck].id,
                                       workload.nodes[stuck].name)
                             .str());
    return std::nullopt;
  }
  return order;
}

/// The paper's machine: k accelerators with the memory limit and l CPU
/// cores. Op times come from the workload, so the compute and bandwidth
/// figures are placeholders (1).
llvm::json::Value workloadCluster(const Workload &workload, StringRef name) {
  Array kinds;
  if (workload.accelerators > 0)
    kinds.push_back(Object{{"name", "accelerator"},
                           {"type", "accelerator"},
                           {"count", workload.accelerators},
                           {"peak_flops", Object{{"default", 1.0}}},
                           {"memory_bandwidth", 1.0},
                           {"memory_capacity", workload.memoryPerAccelerator}});
  if (workload.cpus > 0)
    kinds.push_back(Object{{"name", "cpu"},
                           {"type", "cpu"},
                           {"count", workload.cpus},
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
  llvm::Expected<llvm::json::Value> json = readJsonFile(path);
  if (!json) {
    emitError(unknownLoc) << llvm::toString(json.takeError());
    return {};
  }
  JsonReader reader(path.str());
  std::optional<Workload> workload = parseWorkload(*json, reader);
  std::optional<std::vector<size_t>> order;
  if (workload)
    order = sortWorkload(*workload, reader);
  if (reader.failed()) {
    emitError(unknownLoc) << reader.error();
    return {};
  }

  // Validate the recorded cluster with the same parser later passes use.
  llvm::json::Value clusterJson = workloadCluster(*workload, path);
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

  std::vector<Value> values(workload->nodes.size());
  SmallVector<Value> sinks;
  Type unknown = graph::UnknownType::get(context);
  for (size_t index : *order) {
    const WorkloadNode &node = workload->nodes[index];
    SmallVector<Value> inputs;
    for (size_t pred : node.predecessors)
      inputs.push_back(values[pred]);
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr("id", b.getI64IntegerAttr(node.id)),
        b.getNamedAttr("supported", b.getI64IntegerAttr(node.supported)),
        b.getNamedAttr("backward", b.getI64IntegerAttr(node.backward))};
    if (node.colorClass)
      attrs.push_back(
          b.getNamedAttr("color_class", b.getI64IntegerAttr(*node.colorClass)));
    SmallVector<NamedAttribute> times;
    if (workload->accelerators > 0)
      times.push_back(b.getNamedAttr("accelerator",
                                     b.getF64FloatAttr(node.acceleratorTime)));
    if (workload->cpus > 0)
      times.push_back(b.getNamedAttr("cpu", b.getF64FloatAttr(node.cpuTime)));
    auto cost = b.getDictionaryAttr({
        b.getNamedAttr("flops", b.getI64IntegerAttr(0)),
        b.getNamedAttr("bytes_read", b.getI64IntegerAttr(0)),
        b.getNamedAttr("bytes_written", b.getI64IntegerAttr(0)),
        b.getNamedAttr("param_bytes",
                       b.getI64IntegerAttr(std::llround(node.size))),
        b.getNamedAttr("output_bytes",
                       b.getI64IntegerAttr(std::llround(node.outputBytes))),
        b.getNamedAttr("time", b.getDictionaryAttr(times)),
        b.getNamedAttr("transfer_time",
                       b.getF64FloatAttr(node.transferCost.value_or(0))),
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
    if (node.successors.empty())
      sinks.push_back(values[index]);
  }
  func::ReturnOp::create(b, fileLoc, sinks);
  func.setFunctionType(
      b.getFunctionType({}, ValueRange(sinks).getTypes()));
  if (failed(verify(*module)))
    return {};
  return module;
}
