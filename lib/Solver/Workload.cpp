//===- Workload.cpp - The paper's JSON workload and split formats ---------===//
#include "placer/Solver/Workload.h"

#include "placer/Support/JsonReader.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>

using namespace placer;
using namespace placer::solver;
using llvm::json::Array;
using llvm::json::Object;

namespace {

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

} // namespace

llvm::Expected<Workload> placer::solver::parseWorkload(
    const llvm::json::Value &json, llvm::StringRef source) {
  JsonReader reader(source.str());
  Workload workload;
  Problem &problem = workload.problem;
  const Object *root = reader.asObject(json, "");
  if (!root)
    return reader.takeError();
  std::optional<int64_t> k = reader.getInteger(*root, "maxFPGAs", "");
  std::optional<int64_t> l = reader.getInteger(*root, "maxCPUs", "");
  std::optional<double> memory = reader.getNumber(*root, "maxSizePerFPGA", "");
  if (reader.failed())
    return reader.takeError();
  if (*k < 0 || *l < 0 || *k + *l == 0 || *k > 1024 || *l > 1024)
    reader.fail(*k < 0 || *k > 1024 ? "maxFPGAs" : "maxCPUs",
                "needs k >= 0, l >= 0 and at least one device");
  else if (*memory <= 0)
    reader.fail("maxSizePerFPGA", "must be positive");
  if (reader.failed())
    return reader.takeError();
  problem.numAccelerators = static_cast<int>(*k);
  problem.numCpus = static_cast<int>(*l);
  problem.memoryLimit = *memory;

  const Array *nodes = reader.getArray(*root, "nodes", "");
  const Array *edges = reader.getArray(*root, "edges", "");
  if (!nodes || !edges)
    return reader.takeError();
  std::map<int64_t, int> indexOfId;
  for (size_t i = 0; i < nodes->size(); ++i) {
    std::string path = JsonReader::index("nodes", i);
    const Object *object = reader.asObject((*nodes)[i], path);
    if (!object)
      return reader.takeError();
    Node node;
    std::optional<int64_t> id = reader.getInteger(*object, "id", path);
    node.acceleratorTime =
        getNonNegative(reader, *object, "fpgaLatency", path).value_or(0);
    node.cpuTime = getNonNegative(reader, *object, "cpuLatency", path).value_or(0);
    node.memory = getNonNegative(reader, *object, "size", path).value_or(0);
    node.supported =
        reader.getBool(*object, "supportedOnFpga", path).value_or(true);
    node.backward =
        reader.getBool(*object, "isBackwardNode", path).value_or(false);
    node.colorClass =
        reader.getInteger(*object, "colorClass", path, false).value_or(-1);
    if (reader.failed())
      return reader.takeError();
    node.id = *id;
    node.name = reader.getString(*object, "name", path, false)
                    .value_or("node" + std::to_string(*id));
    if (!indexOfId.emplace(node.id, problem.size()).second) {
      reader.fail(JsonReader::join(path, "id"),
                  "duplicate node id " + std::to_string(node.id));
      return reader.takeError();
    }
    problem.nodes.push_back(std::move(node));
  }
  problem.successors.assign(problem.size(), {});
  workload.outputBytes.assign(problem.size(), 0);

  std::vector<std::optional<size_t>> costEdge(problem.size());
  for (size_t e = 0; e < edges->size(); ++e) {
    std::string path = JsonReader::index("edges", e);
    const Object *object = reader.asObject((*edges)[e], path);
    if (!object)
      return reader.takeError();
    std::optional<int64_t> source = reader.getInteger(*object, "sourceId", path);
    std::optional<int64_t> dest = reader.getInteger(*object, "destId", path);
    std::optional<double> cost = getNonNegative(reader, *object, "cost", path);
    std::optional<double> size =
        getNonNegative(reader, *object, "size", path, /*required=*/false);
    if (reader.failed())
      return reader.takeError();
    auto from = indexOfId.find(*source), to = indexOfId.find(*dest);
    if (from == indexOfId.end() || to == indexOfId.end()) {
      bool badSource = from == indexOfId.end();
      reader.fail(JsonReader::join(path, badSource ? "sourceId" : "destId"),
                  "no node has id " +
                      std::to_string(badSource ? *source : *dest));
      return reader.takeError();
    }
    int u = from->second;
    Node &producer = problem.nodes[u];
    // The model charges c(u) per node: every out-edge must carry it.
    if (costEdge[u] && std::fabs(producer.transferCost - *cost) >
                           1e-9 * std::max(1.0, std::fabs(*cost))) {
      reader.fail(JsonReader::join(path, "cost"),
                  llvm::formatv("node {0} ({1}) has out-edges of different "
                                "costs: {2} here, {3} in edges[{4}]",
                                producer.id, producer.name,
                                formatNumber(*cost),
                                formatNumber(producer.transferCost),
                                *costEdge[u])
                      .str());
      return reader.takeError();
    }
    producer.transferCost = *cost;
    costEdge[u] = e;
    workload.outputBytes[u] =
        std::max(workload.outputBytes[u], size.value_or(0));
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
    reader.fail("edges", llvm::formatv("the graph has a cycle through node "
                                       "{0} ({1})",
                                       problem.nodes[stuck].id,
                                       problem.nodes[stuck].name)
                             .str());
    return reader.takeError();
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
  JsonReader reader(path.str());
  const Object *root = reader.asObject(*json, "");
  if (!root)
    return reader.takeError();
  std::map<int64_t, int> indexOfId;
  for (int u = 0; u < problem.size(); ++u)
    indexOfId[problem.nodes[u].id] = u;
  Assignment assignment(problem.size(), -1);
  auto readDevices = [&](const char *key, int firstDevice, int count) {
    const Array *devices = reader.getArray(*root, key, "", false);
    if (!devices)
      return;
    if (static_cast<int>(devices->size()) > count) {
      reader.fail(key, "lists " + std::to_string(devices->size()) +
                           " devices but the problem has " +
                           std::to_string(count));
      return;
    }
    for (size_t d = 0; d < devices->size() && !reader.failed(); ++d) {
      std::string path = JsonReader::index(key, d);
      const Object *device = reader.asObject((*devices)[d], path);
      if (!device)
        return;
      const Array *ids = reader.getArray(*device, "nodes", path);
      if (!ids)
        return;
      for (size_t i = 0; i < ids->size(); ++i) {
        std::string idPath = JsonReader::index(JsonReader::join(path, "nodes"), i);
        std::optional<int64_t> id = (*ids)[i].getAsInteger();
        auto it = id ? indexOfId.find(*id) : indexOfId.end();
        if (it == indexOfId.end()) {
          reader.fail(idPath, "no node has this id");
          return;
        }
        if (assignment[it->second] != -1) {
          reader.fail(idPath, "node " + std::to_string(*id) +
                                  " is placed twice");
          return;
        }
        assignment[it->second] = firstDevice + static_cast<int>(d);
      }
    }
  };
  readDevices("fpgas", 0, problem.numAccelerators);
  readDevices("cpus", problem.numAccelerators, problem.numCpus);
  if (reader.failed())
    return reader.takeError();
  // Unlisted nodes follow their color class.
  std::map<int64_t, int> deviceOfClass;
  for (int u = 0; u < problem.size(); ++u)
    if (assignment[u] >= 0 && problem.nodes[u].colorClass >= 0)
      deviceOfClass.emplace(problem.nodes[u].colorClass, assignment[u]);
  for (int u = 0; u < problem.size(); ++u) {
    if (assignment[u] >= 0)
      continue;
    auto it = deviceOfClass.find(problem.nodes[u].colorClass);
    if (problem.nodes[u].colorClass < 0 || it == deviceOfClass.end()) {
      reader.fail("", "node " + std::to_string(problem.nodes[u].id) + " (" +
                          problem.nodes[u].name +
                          ") is on no device and has no placed color class");
      return reader.takeError();
    }
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
