//===- PiperWorkload.cpp - Piper's JSON input -----------------------------===//
//
// The layout is Piper's (msr-fiddle/piper, algo.cpp's from_json): every
// field is required, as there. What algo.cpp checks with asserts or not at
// all (a sync entry naming no edge, a degree key that is no number, a
// cycle) is an error here naming the field.
//
//===----------------------------------------------------------------------===//

#include "placer/Solver/ParallelPlan.h"

#include "placer/Support/Graph.h"
#include "placer/Support/Json.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <map>
#include <set>

using namespace placer;
using namespace placer::solver;

namespace placer::solver {
namespace {

struct PiperConfig {
  std::string id;
  NonNegative timePerSample, parameterSize, memoryUsageA, memoryUsageB;
  std::map<std::string, NonNegative> syncTimeFw, syncTimeBw;
};

struct PiperNode {
  int64_t id = 0;
  std::optional<std::string> name;
  std::map<std::string, std::vector<PiperConfig>> configs;
};

struct PiperEdge {
  int64_t sourceId = 0, destId = 0;
  NonNegative communicationCost;
};

struct PiperFile {
  Positive maxMemoryPerDevice, bandwidth;
  AtLeastOne maxDevices, mbsInBatch;
  std::vector<PiperNode> nodes;
  std::vector<PiperEdge> edges;
};

bool fromJSON(const llvm::json::Value &value, PiperConfig &config,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("id", config.id) &&
         o.map("timePerSample", config.timePerSample) &&
         o.map("parameterSize", config.parameterSize) &&
         o.map("memoryUsageA", config.memoryUsageA) &&
         o.map("memoryUsageB", config.memoryUsageB) &&
         o.map("syncTimeFw", config.syncTimeFw) &&
         o.map("syncTimeBw", config.syncTimeBw);
}

bool fromJSON(const llvm::json::Value &value, PiperNode &node,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("id", node.id) && o.mapOptional("name", node.name) &&
         o.map("TMPCs", node.configs);
}

bool fromJSON(const llvm::json::Value &value, PiperEdge &edge,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("sourceId", edge.sourceId) &&
         o.map("destId", edge.destId) &&
         o.map("communicationCost", edge.communicationCost);
}

bool fromJSON(const llvm::json::Value &value, PiperFile &file,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("maxMemoryPerDevice", file.maxMemoryPerDevice) &&
         o.map("maxDevices", file.maxDevices) &&
         o.map("bandwidth", file.bandwidth) &&
         o.map("mbsInBatch", file.mbsInBatch) && o.map("nodes", file.nodes) &&
         o.map("edges", file.edges);
}

/// Devices and microbatches beyond these are no input anyone plans.
constexpr int64_t kMaxDevices = 1 << 20;
constexpr int64_t kMaxMicrobatches = 1 << 24;

} // namespace
} // namespace placer::solver

void ParallelProblem::indexEdges() {
  inEdges.assign(layers.size(), {});
  outEdges.assign(layers.size(), {});
  tensorsAt.assign(layers.size(), {});
  for (size_t e = 0; e < edges.size(); ++e) {
    outEdges[edges[e].from].push_back(static_cast<int>(e));
    inEdges[edges[e].to].push_back(static_cast<int>(e));
  }
  for (auto [i, tensor] : llvm::enumerate(tensors)) {
    tensorsAt[tensor.producer].push_back(static_cast<int>(i));
    for (int consumer : tensor.consumers)
      if (tensorsAt[consumer].empty() ||
          tensorsAt[consumer].back() != static_cast<int>(i))
        tensorsAt[consumer].push_back(static_cast<int>(i));
  }
}

int64_t ParallelProblem::footprint(int t, int d) const {
  int64_t devices = int64_t(t) * d;
  if (devicesPerNode <= 0)
    return devices;
  if (t > devicesPerNode || devicesPerNode % t != 0)
    return 0;
  if (devices > devicesPerNode)
    return (devices + devicesPerNode - 1) / devicesPerNode * devicesPerNode;
  int64_t block = 1;
  while (block < devices)
    block *= 2;
  return block;
}

std::vector<ParallelDeviceKind> ParallelProblem::deviceKinds() const {
  if (!kinds.empty())
    return kinds;
  return {{"", maxDevices, memoryPerDevice}};
}

llvm::Error ParallelProblem::checkKinds() const {
  if (kinds.empty())
    return llvm::Error::success();
  int64_t total = 0;
  for (const ParallelDeviceKind &kind : kinds) {
    // (A kind of no devices takes no stage: devices= may cut a cluster.)
    if (kind.count < 0 || !(kind.memoryPerDevice > 0))
      return llvm::createStringError("device kind '" + kind.name +
                                     "' needs memory and no negative count");
    // Blocks of a stage never straddle nodes only if every kind starts
    // and ends on a node boundary.
    if (devicesPerNode > 0 && kind.count % devicesPerNode != 0)
      return llvm::createStringError(
          "device kind '" + kind.name + "' has " + std::to_string(kind.count) +
          " devices, not whole nodes of " + std::to_string(devicesPerNode));
    total += kind.count;
  }
  if (total != maxDevices)
    return llvm::createStringError("the device kinds hold " +
                                   std::to_string(total) + " devices, not " +
                                   std::to_string(maxDevices));
  for (const ParallelLayer &layer : layers)
    for (const auto &[t, configs] : layer.configs)
      for (const TensorConfig &config : configs)
        if ((!config.kindTimes.empty() &&
             config.kindTimes.size() != kinds.size()) ||
            llvm::any_of(config.kindTimes, [](double time) {
              return !(time >= 0) || !std::isfinite(time);
            }))
          return llvm::createStringError(
              "layer " + layer.name + ", configuration '" + config.id +
              "' at t = " + std::to_string(t) + " needs a time (finite, " +
              "not negative) for each of the " + std::to_string(kinds.size()) +
              " device kinds");
  return llvm::Error::success();
}

double ParallelProblem::resyncBandwidth(int t, int d) const {
  return devicesPerNode > 0 && int64_t(t) * d <= devicesPerNode
             ? intraNodeBandwidth
             : bandwidth;
}

std::vector<int> ParallelProblem::topologicalOrder() const {
  // The smallest index first among those ready: Support/Graph.h's order.
  std::vector<std::vector<int>> successors(size());
  for (const ParallelEdge &edge : edges)
    successors[edge.from].push_back(edge.to);
  return placer::topologicalOrder(successors);
}

bool placer::solver::isPiperWorkload(const llvm::json::Value &json) {
  const llvm::json::Object *object = json.getAsObject();
  return object && object->get("mbsInBatch") && !object->get("maxFPGAs");
}

/// Fills `out` (one entry per edge of `edges`, in order) from a sync map
/// keyed by the node ids at the edges' other ends.
static llvm::Error mapSyncTimes(const std::map<std::string, NonNegative> &times,
                                const std::vector<int> &edges,
                                const ParallelProblem &problem, bool incoming,
                                std::vector<double> &out,
                                llvm::StringRef source,
                                const std::string &path) {
  std::map<int64_t, int> position; // other end's id -> index in `edges`
  for (auto [i, e] : llvm::enumerate(edges)) {
    const ParallelEdge &edge = problem.edges[e];
    position[problem.layers[incoming ? edge.from : edge.to].id] =
        static_cast<int>(i);
  }
  out.assign(edges.size(), 0);
  std::vector<bool> seen(edges.size(), false);
  for (const auto &[key, value] : times) {
    int64_t id = 0;
    if (!llvm::to_integer(key, id, 10))
      return jsonError(source, jsonField(path, key), "is no node id");
    auto it = position.find(id);
    if (it == position.end())
      return jsonError(source, jsonField(path, key),
                       llvm::Twine("no edge ") +
                           (incoming ? "from node " : "to node ") +
                           llvm::Twine(id));
    out[it->second] = value.value;
    seen[it->second] = true;
  }
  for (auto [i, e] : llvm::enumerate(edges))
    if (!seen[i]) {
      const ParallelEdge &edge = problem.edges[e];
      return jsonError(
          source, path,
          llvm::Twine("misses the edge ") +
              (incoming ? "from node " : "to node ") +
              llvm::Twine(problem.layers[incoming ? edge.from : edge.to].id));
    }
  return llvm::Error::success();
}

llvm::Expected<ParallelProblem>
placer::solver::parsePiperWorkload(const llvm::json::Value &json,
                                   llvm::StringRef source) {
  PiperFile file;
  if (llvm::Error error = mapJson(json, file, source))
    return std::move(error);
  if (file.maxDevices.value > kMaxDevices)
    return jsonError(source, "maxDevices",
                     "at most " + llvm::Twine(kMaxDevices));
  if (file.mbsInBatch.value > kMaxMicrobatches)
    return jsonError(source, "mbsInBatch",
                     "at most " + llvm::Twine(kMaxMicrobatches));
  if (file.nodes.empty())
    return jsonError(source, "nodes", "no nodes");
  ParallelProblem problem;
  problem.memoryPerDevice = file.maxMemoryPerDevice.value;
  problem.maxDevices = static_cast<int>(file.maxDevices.value);
  problem.bandwidth = file.bandwidth.value;
  problem.microbatches = static_cast<int>(file.mbsInBatch.value);

  std::map<int64_t, int> indexOfId;
  for (auto [i, node] : llvm::enumerate(file.nodes)) {
    if (!indexOfId.emplace(node.id, static_cast<int>(i)).second)
      return jsonError(source, jsonIndex("nodes", i) + ".id",
                       "duplicate node id " + llvm::Twine(node.id));
    ParallelLayer layer;
    layer.id = node.id;
    layer.name = node.name.value_or("node" + std::to_string(node.id));
    problem.layers.push_back(std::move(layer));
  }
  std::set<std::pair<int, int>> pairs;
  for (auto [e, edge] : llvm::enumerate(file.edges)) {
    std::string path = jsonIndex("edges", e);
    auto from = indexOfId.find(edge.sourceId), to = indexOfId.find(edge.destId);
    if (from == indexOfId.end())
      return jsonError(source, path + ".sourceId",
                       "no node has id " + llvm::Twine(edge.sourceId));
    if (to == indexOfId.end())
      return jsonError(source, path + ".destId",
                       "no node has id " + llvm::Twine(edge.destId));
    if (from->second == to->second)
      return jsonError(source, path, "an edge from a node to itself");
    if (!pairs.emplace(from->second, to->second).second)
      return jsonError(source, path, "a second edge between the same nodes");
    problem.edges.push_back(
        {from->second, to->second, edge.communicationCost.value});
  }
  problem.indexEdges();

  // The planner's ideals need a DAG.
  if (static_cast<int>(problem.topologicalOrder().size()) != problem.size())
    return jsonError(source, "edges", "the graph has a cycle");

  for (auto [i, node] : llvm::enumerate(file.nodes)) {
    std::string nodePath = jsonIndex("nodes", i) + ".TMPCs";
    ParallelLayer &layer = problem.layers[i];
    for (const auto &[key, configs] : node.configs) {
      int64_t degree = 0;
      std::string degreePath = jsonField(nodePath, key);
      if (!llvm::to_integer(key, degree, 10) || degree < 1 ||
          degree > problem.maxDevices)
        return jsonError(source, degreePath,
                         "a tensor-parallel degree is a number from 1 to "
                         "maxDevices");
      std::vector<TensorConfig> &out = layer.configs[static_cast<int>(degree)];
      std::set<std::string> ids;
      for (auto [c, config] : llvm::enumerate(configs)) {
        std::string path = jsonIndex(degreePath, c);
        if (config.id.empty())
          return jsonError(source, path + ".id", "empty");
        if (!ids.insert(config.id).second)
          return jsonError(source, path + ".id",
                           "a second configuration '" + config.id +
                               "' for this degree");
        TensorConfig tensor;
        tensor.id = config.id;
        tensor.timePerSample = config.timePerSample.value;
        tensor.parameterBytes = config.parameterSize.value;
        tensor.stashBytes = config.memoryUsageA.value;
        tensor.fixedBytes = config.memoryUsageB.value;
        if (llvm::Error error =
                mapSyncTimes(config.syncTimeFw, problem.inEdges[i], problem,
                             true, tensor.syncIn, source, path + ".syncTimeFw"))
          return std::move(error);
        if (llvm::Error error = mapSyncTimes(
                config.syncTimeBw, problem.outEdges[i], problem, false,
                tensor.syncOut, source, path + ".syncTimeBw"))
          return std::move(error);
        out.push_back(std::move(tensor));
      }
    }
    if (layer.configs.empty() ||
        llvm::all_of(layer.configs,
                     [](const auto &entry) { return entry.second.empty(); }))
      return jsonError(source, nodePath, "no configuration for any degree");
  }
  return problem;
}

llvm::Expected<ParallelProblem>
placer::solver::readPiperWorkloadFile(llvm::StringRef path) {
  llvm::Expected<llvm::json::Value> json = readJsonFile(path);
  if (!json)
    return json.takeError();
  return parsePiperWorkload(*json, path);
}

llvm::Error placer::solver::repeatLayer(ParallelProblem &problem,
                                        llvm::StringRef name) {
  auto named = [&](int v) { return problem.layers[v].name == name; };
  // A layer of that name between two others of it: the first such, in
  // input order, so the result is deterministic.
  int layer = -1, next = -1, nextEdge = -1, prevEdge = -1;
  for (int v = 0; v < problem.size() && layer < 0; ++v) {
    if (!named(v))
      continue;
    int in = -1, out = -1;
    for (int e : problem.inEdges[v])
      if (named(problem.edges[e].from))
        in = e;
    for (int e : problem.outEdges[v])
      if (named(problem.edges[e].to))
        out = e;
    if (in >= 0 && out >= 0)
      layer = v, next = problem.edges[out].to, nextEdge = out, prevEdge = in;
  }
  if (layer < 0)
    return llvm::createStringError("no layer named '" + name.str() +
                                   "' between two others of that name");
  // layer -> copy -> next, the copy with layer's configurations: its one
  // input is layer (synced as layer syncs with its own predecessor of the
  // name), its one output next (as layer's to next).
  int copy = problem.size();
  ParallelLayer added = problem.layers[layer];
  int64_t maxId = 0;
  for (const ParallelLayer &l : problem.layers)
    maxId = std::max(maxId, l.id);
  added.id = maxId + 1;
  int inPos = static_cast<int>(llvm::find(problem.inEdges[layer], prevEdge) -
                               problem.inEdges[layer].begin());
  int outPos = static_cast<int>(llvm::find(problem.outEdges[layer], nextEdge) -
                                problem.outEdges[layer].begin());
  for (auto &[degree, configs] : added.configs)
    for (TensorConfig &config : configs) {
      config.syncIn = {config.syncIn[inPos]};
      config.syncOut = {config.syncOut[outPos]};
    }
  problem.layers.push_back(std::move(added));
  // The edge layer -> next becomes layer -> copy; copy -> next is new. The
  // sync entries of layer and next keep their positions, since the edge
  // keeps its index in their lists.
  double bytes = problem.edges[nextEdge].bytes;
  problem.edges[nextEdge].to = copy;
  problem.edges.push_back({copy, next, bytes});
  int newEdge = static_cast<int>(problem.edges.size()) - 1;
  // next's incoming list: the edge from layer is now the one from copy.
  std::vector<int> &nextIn = problem.inEdges[next];
  *llvm::find(nextIn, nextEdge) = newEdge;
  problem.inEdges.push_back({nextEdge});
  problem.outEdges.push_back({newEdge});
  return llvm::Error::success();
}
