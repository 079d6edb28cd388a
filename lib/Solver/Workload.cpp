//===- Workload.cpp - The paper's JSON workload and split formats ---------===//
#include "placer/Solver/Workload.h"

#include "placer/Support/Format.h"
#include "placer/Support/Json.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>

using namespace placer;
using namespace placer::solver;
using llvm::json::Array;
using llvm::json::Object;

// The files' layouts; ids and edges are checked after mapping. The fromJSON
// overloads sit beside their types so that ObjectMapper finds them by
// argument-dependent lookup.
namespace placer::solver {
namespace {

struct WorkloadNode {
  int64_t id = 0;
  std::optional<std::string> name;
  NonNegative acceleratorTime, cpuTime, memory;
  Flag supported, backward;
  std::optional<int64_t> colorClass;
};

struct WorkloadEdge {
  int64_t sourceId = 0, destId = 0;
  NonNegative cost, size;
};

struct WorkloadFile {
  int64_t numAccelerators = 0, numCpus = 0;
  Positive memoryLimit;
  std::vector<WorkloadNode> nodes;
  std::vector<WorkloadEdge> edges;
};

struct SplitDevice {
  std::vector<int64_t> nodes;
};

struct SplitFile {
  std::vector<SplitDevice> accelerators, cpus;
};

bool fromJSON(const llvm::json::Value &value, WorkloadNode &node,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("id", node.id) && o.map("name", node.name) &&
         o.map("fpgaLatency", node.acceleratorTime) &&
         o.map("cpuLatency", node.cpuTime) && o.map("size", node.memory) &&
         o.map("supportedOnFpga", node.supported) &&
         o.map("isBackwardNode", node.backward) &&
         o.map("colorClass", node.colorClass);
}

bool fromJSON(const llvm::json::Value &value, WorkloadEdge &edge,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("sourceId", edge.sourceId) &&
         o.map("destId", edge.destId) && o.map("cost", edge.cost) &&
         o.mapOptional("size", edge.size);
}

bool fromJSON(const llvm::json::Value &value, WorkloadFile &file,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  if (!o || !o.map("maxFPGAs", file.numAccelerators) ||
      !o.map("maxCPUs", file.numCpus))
    return false;
  int64_t k = file.numAccelerators, l = file.numCpus;
  if (k < 0 || l < 0 || k + l == 0 || k > 1024 || l > 1024) {
    path.field(k < 0 || k > 1024 ? "maxFPGAs" : "maxCPUs")
        .report("needs k >= 0, l >= 0 and at least one device");
    return false;
  }
  return o.map("maxSizePerFPGA", file.memoryLimit) &&
         o.map("nodes", file.nodes) && o.map("edges", file.edges);
}

bool fromJSON(const llvm::json::Value &value, SplitDevice &device,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("nodes", device.nodes);
}

bool fromJSON(const llvm::json::Value &value, SplitFile &file,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.mapOptional("fpgas", file.accelerators) &&
         o.mapOptional("cpus", file.cpus);
}

} // namespace
} // namespace placer::solver

llvm::Expected<Workload> placer::solver::parseWorkload(
    const llvm::json::Value &json, llvm::StringRef source) {
  WorkloadFile file;
  if (llvm::Error error = mapJson(json, file, source))
    return std::move(error);
  Workload workload;
  Problem &problem = workload.problem;
  problem.numAccelerators = static_cast<int>(file.numAccelerators);
  problem.numCpus = static_cast<int>(file.numCpus);
  problem.memoryLimit = file.memoryLimit.value;

  std::map<int64_t, int> indexOfId;
  for (size_t i = 0; i < file.nodes.size(); ++i) {
    const WorkloadNode &entry = file.nodes[i];
    if (!indexOfId.emplace(entry.id, problem.size()).second)
      return jsonError(source, jsonIndex("nodes", i) + ".id",
                       "duplicate node id " + llvm::Twine(entry.id));
    Node node;
    node.id = entry.id;
    node.name = entry.name.value_or("node" + std::to_string(entry.id));
    node.acceleratorTime = entry.acceleratorTime.value;
    node.cpuTime = entry.cpuTime.value;
    node.memory = entry.memory.value;
    node.supported = entry.supported.value;
    node.backward = entry.backward.value;
    node.colorClass = entry.colorClass.value_or(-1);
    problem.nodes.push_back(std::move(node));
  }
  problem.successors.assign(problem.size(), {});
  workload.outputBytes.assign(problem.size(), 0);

  std::vector<std::optional<size_t>> costEdge(problem.size());
  for (size_t e = 0; e < file.edges.size(); ++e) {
    const WorkloadEdge &edge = file.edges[e];
    std::string path = jsonIndex("edges", e);
    auto from = indexOfId.find(edge.sourceId), to = indexOfId.find(edge.destId);
    if (from == indexOfId.end())
      return jsonError(source, path + ".sourceId",
                       "no node has id " + llvm::Twine(edge.sourceId));
    if (to == indexOfId.end())
      return jsonError(source, path + ".destId",
                       "no node has id " + llvm::Twine(edge.destId));
    int u = from->second;
    Node &producer = problem.nodes[u];
    double cost = edge.cost.value;
    // The model charges c(u) per node: every out-edge must carry it.
    if (costEdge[u] && std::fabs(producer.transferCost - cost) >
                           1e-9 * std::max(1.0, std::fabs(cost)))
      return jsonError(source, path + ".cost",
                       llvm::formatv("node {0} ({1}) has out-edges of "
                                     "different costs: {2} here, {3} in "
                                     "edges[{4}]",
                                     producer.id, producer.name,
                                     formatNumber(cost),
                                     formatNumber(producer.transferCost),
                                     *costEdge[u]));
    producer.transferCost = cost;
    costEdge[u] = e;
    workload.outputBytes[u] = std::max(workload.outputBytes[u], edge.size.value);
    problem.addEdge(u, to->second);
  }

  std::vector<int> order = topologicalOrder(problem);
  if (static_cast<int>(order.size()) != problem.size()) {
    std::vector<char> placed(problem.size(), 0);
    for (int u : order)
      placed[u] = 1;
    int stuck = 0;
    while (placed[stuck])
      ++stuck;
    return jsonError(source, "edges",
                     llvm::formatv("the graph has a cycle through node {0} "
                                   "({1})",
                                   problem.nodes[stuck].id,
                                   problem.nodes[stuck].name));
  }
  return workload;
}

llvm::Expected<Workload> placer::solver::readWorkloadFile(llvm::StringRef path) {
  llvm::Expected<llvm::json::Value> json = readJsonFile(path);
  if (!json)
    return json.takeError();
  return parseWorkload(*json, path);
}

llvm::Expected<Assignment>
placer::solver::readSplitFile(const Problem &problem, llvm::StringRef path) {
  llvm::Expected<llvm::json::Value> json = readJsonFile(path);
  if (!json)
    return json.takeError();
  return parseSplit(problem, *json, path);
}

llvm::Expected<Assignment>
placer::solver::parseSplit(const Problem &problem, const llvm::json::Value &json,
                           llvm::StringRef path) {
  SplitFile file;
  if (llvm::Error error = mapJson(json, file, path))
    return std::move(error);
  std::map<int64_t, int> indexOfId;
  for (int u = 0; u < problem.size(); ++u)
    indexOfId[problem.nodes[u].id] = u;
  Assignment assignment(problem.size(), -1);
  auto assign = [&](const char *key, const std::vector<SplitDevice> &devices,
                    int firstDevice, int count) -> llvm::Error {
    if (static_cast<int>(devices.size()) > count)
      return jsonError(path, key,
                       llvm::formatv("lists {0} devices but the problem has "
                                     "{1}",
                                     devices.size(), count));
    for (size_t d = 0; d < devices.size(); ++d) {
      for (size_t i = 0; i < devices[d].nodes.size(); ++i) {
        int64_t id = devices[d].nodes[i];
        std::string idPath = jsonIndex(jsonIndex(key, d) + ".nodes", i);
        auto it = indexOfId.find(id);
        if (it == indexOfId.end())
          return jsonError(path, idPath, "no node has this id");
        if (assignment[it->second] != -1)
          return jsonError(path, idPath,
                           "node " + llvm::Twine(id) + " is placed twice");
        assignment[it->second] = firstDevice + static_cast<int>(d);
      }
    }
    return llvm::Error::success();
  };
  if (llvm::Error error =
          assign("fpgas", file.accelerators, 0, problem.numAccelerators))
    return std::move(error);
  if (llvm::Error error = assign("cpus", file.cpus, problem.numAccelerators,
                                 problem.numCpus))
    return std::move(error);
  // Unlisted nodes follow their color class.
  std::map<int64_t, int> deviceOfClass;
  for (int u = 0; u < problem.size(); ++u)
    if (assignment[u] >= 0 && problem.nodes[u].colorClass >= 0)
      deviceOfClass.emplace(problem.nodes[u].colorClass, assignment[u]);
  for (int u = 0; u < problem.size(); ++u) {
    if (assignment[u] >= 0)
      continue;
    auto it = deviceOfClass.find(problem.nodes[u].colorClass);
    if (problem.nodes[u].colorClass < 0 || it == deviceOfClass.end())
      return jsonError(path, "",
                       "node " + llvm::Twine(problem.nodes[u].id) + " (" +
                           problem.nodes[u].name +
                           ") is on no device and has no placed color class");
    assignment[u] = it->second;
  }
  return assignment;
}

llvm::json::Value placer::solver::splitToJson(const Problem &problem,
                                              const Assignment &assignment,
                                              double maxLoad) {
  std::vector<Array> devices(problem.numDevices());
  for (int u = 0; u < problem.size(); ++u)
    devices[assignment[u]].push_back(problem.nodes[u].id);
  Array fpgas, cpus;
  for (int d = 0; d < problem.numDevices(); ++d)
    (problem.isAccelerator(d) ? fpgas : cpus)
        .push_back(Object{{"nodes", std::move(devices[d])}});
  return Object{{"fpgas", std::move(fpgas)},
                {"cpus", std::move(cpus)},
                {"maxLoad", maxLoad}};
}
