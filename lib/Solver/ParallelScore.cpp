//===- ParallelScore.cpp - Scoring a three-dimensional plan ---------------===//
//
// Written from ParallelProblem's definition alone (the formulas in
// ParallelPlan.h, which are Piper's getTPSForResult), sharing no code with
// the planner, so that a test re-scoring the planner's plans checks it.
//
//===----------------------------------------------------------------------===//

#include "placer/Solver/ParallelPlan.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <string>

using namespace placer::solver;

namespace {

llvm::Error invalidPlan(const std::string &what) {
  return llvm::createStringError("invalid plan: " + what);
}

/// The configuration `stage` gives its k-th layer, or the error naming it.
llvm::Expected<const TensorConfig *>
chosenConfig(const ParallelProblem &problem, const ParallelStage &stage,
             size_t k) {
  int v = stage.layers[k], t = stage.tensorDegree;
  auto found = problem.layers[v].configs.find(t);
  if (found == problem.layers[v].configs.end() || stage.configs[k] < 0 ||
      stage.configs[k] >= static_cast<int>(found->second.size()))
    return invalidPlan("layer " + problem.layers[v].name + " has no " +
                       "configuration " + std::to_string(stage.configs[k]) +
                       " for t = " + std::to_string(t));
  return &found->second[stage.configs[k]];
}

/// What layer `v` of stage `i` moves over its cut edges, both ways: into
/// it each edge's bytes and its sync, out of it its sync and, with
/// `outgoingBytes`, the edge's bytes (the throughput model charges an edge
/// on both its stages; one sample's way only where it arrives).
double cutTraffic(const ParallelProblem &problem, int v,
                  const TensorConfig &config, const std::vector<int> &stageOf,
                  int i, bool outgoingBytes) {
  double bytes = 0;
  for (size_t j = 0; j < problem.inEdges[v].size(); ++j) {
    const ParallelEdge &edge = problem.edges[problem.inEdges[v][j]];
    if (stageOf[edge.from] != i)
      bytes += 2 * (edge.bytes + config.syncIn[j]);
  }
  for (size_t j = 0; j < problem.outEdges[v].size(); ++j) {
    const ParallelEdge &edge = problem.edges[problem.outEdges[v][j]];
    if (stageOf[edge.to] != i)
      bytes += 2 * ((outgoingBytes ? edge.bytes : 0) + config.syncOut[j]);
  }
  return bytes;
}

/// One sample through `plan`, whose stages are checked but for their
/// configurations (ParallelProblem, "One sample's latency").
llvm::Expected<double> scoreLatency(const ParallelProblem &problem,
                                    ParallelPlan &plan,
                                    const std::vector<int> &stageOf) {
  std::vector<double> tensorSeconds(plan.stages.size(), 0);
  for (const ParallelTensor &tensor : problem.tensors) {
    std::vector<int> readers;
    for (int consumer : tensor.consumers)
      if (stageOf[consumer] != stageOf[tensor.producer])
        readers.push_back(stageOf[consumer]);
    llvm::sort(readers);
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
    for (int stage : readers)
      tensorSeconds[stage] += tensor.time;
  }
  double total = 0;
  for (auto [i, stage] : llvm::enumerate(plan.stages)) {
    if (stage.dataDegree != 1)
      return invalidPlan("stage " + std::to_string(i) +
                     " has d = " + std::to_string(stage.dataDegree) +
                     "; one sample's latency takes d = 1");
    double compute = 0, traffic = 0, memory = 0, cache = 0;
    for (auto [k, v] : llvm::enumerate(stage.layers)) {
      llvm::Expected<const TensorConfig *> config =
          chosenConfig(problem, stage, k);
      if (!config)
        return config.takeError();
      compute += (*config)->timeOn(stage.kind);
      memory += (*config)->bytesAt(1, 1);
      cache += (*config)->cacheBytes;
      traffic += cutTraffic(problem, v, **config, stageOf,
                            static_cast<int>(i), /*outgoingBytes=*/false);
    }
    double limit = problem.deviceKinds()[stage.kind].memoryPerDevice;
    if (memory > limit)
      return invalidPlan("stage " + std::to_string(i) + " needs " +
                         std::to_string(memory) + " bytes per device, over " +
                         std::to_string(limit));
    stage.time = compute + traffic / problem.bandwidth + tensorSeconds[i];
    stage.memory = memory;
    stage.cache = cache;
    total += stage.time;
  }
  return total;
}

} // namespace

llvm::Expected<double>
placer::solver::scoreParallelPlan(const ParallelProblem &problem,
                                  ParallelPlan &plan) {
  if (llvm::Error error = problem.checkKinds())
    return std::move(error);
  std::vector<ParallelDeviceKind> kinds = problem.deviceKinds();
  std::vector<int64_t> kindDevices(kinds.size(), 0);
  int n = problem.size();
  std::vector<int> stageOf(n, -1);
  int64_t devices = 0, degreeSum = 0;
  for (auto [i, stage] : llvm::enumerate(plan.stages)) {
    std::string name = "stage " + std::to_string(i);
    if (stage.dataDegree < 1 || stage.tensorDegree < 1)
      return invalidPlan(name + " has a degree below 1");
    if (stage.kind < 0 || stage.kind >= static_cast<int>(kinds.size()))
      return invalidPlan(name + " is on device kind " +
                         std::to_string(stage.kind) + " of " +
                         std::to_string(kinds.size()));
    // Kinds follow each other along the devices, the pipeline's direction.
    if (i > 0 && stage.kind < plan.stages[i - 1].kind)
      return invalidPlan(name + " runs on " + kinds[stage.kind].name +
                         ", which comes before the previous stage's " +
                         kinds[plan.stages[i - 1].kind].name +
                         " in device order");
    if (problem.maxDataDegree > 0 && stage.dataDegree > problem.maxDataDegree)
      return invalidPlan(name + ": d = " + std::to_string(stage.dataDegree) +
                     " is above the largest data-parallel degree, " +
                     std::to_string(problem.maxDataDegree));
    if (problem.microbatches % stage.dataDegree != 0)
      return invalidPlan(name + ": d = " + std::to_string(stage.dataDegree) +
                     " does not divide " +
                     std::to_string(problem.microbatches) + " microbatches");
    if (stage.configs.size() != stage.layers.size())
      return invalidPlan(name + " gives " + std::to_string(stage.configs.size()) +
                     " configurations for " +
                     std::to_string(stage.layers.size()) + " layers");
    for (int v : stage.layers) {
      if (v < 0 || v >= n)
        return invalidPlan(name + " names layer " + std::to_string(v));
      if (stageOf[v] >= 0)
        return invalidPlan("layer " + problem.layers[v].name + " is in stages " +
                       std::to_string(stageOf[v]) + " and " +
                       std::to_string(i));
      stageOf[v] = static_cast<int>(i);
    }
    int64_t footprint = problem.footprint(stage.tensorDegree, stage.dataDegree);
    if (footprint == 0)
      return invalidPlan(name + ": t = " + std::to_string(stage.tensorDegree) +
                     " does not divide a node of " +
                     std::to_string(problem.devicesPerNode) + " devices");
    devices += footprint;
    kindDevices[stage.kind] += footprint;
    degreeSum += stage.dataDegree;
  }
  for (auto [kind, used] : llvm::zip(kinds, kindDevices))
    if (used > kind.count)
      return invalidPlan(std::to_string(used) + " devices of kind " +
                         kind.name + ", " + std::to_string(kind.count) +
                         " available");
  for (int v = 0; v < n; ++v)
    if (stageOf[v] < 0)
      return invalidPlan("layer " + problem.layers[v].name + " (id " +
                     std::to_string(problem.layers[v].id) + ") is in no stage");
  for (const ParallelEdge &edge : problem.edges)
    if (stageOf[edge.from] > stageOf[edge.to])
      return invalidPlan("the edge from " + problem.layers[edge.from].name +
                     " goes back from stage " +
                     std::to_string(stageOf[edge.from]) + " to " +
                     std::to_string(stageOf[edge.to]));
  if (devices > problem.maxDevices)
    return invalidPlan(std::to_string(devices) + " devices, " +
                   std::to_string(problem.maxDevices) + " available");
  // One sample runs through any number of stages; a pipelined batch needs
  // a microbatch for each copy of each.
  if (plan.objective == Objective::Latency)
    return scoreLatency(problem, plan, stageOf);
  if (degreeSum > problem.microbatches)
    return invalidPlan("data-parallel degrees sum to " + std::to_string(degreeSum) +
                   ", over " + std::to_string(problem.microbatches) +
                   " microbatches");

  // Seed-model tensors: each stage that holds the producer or a reader
  // pays once if the tensor crosses between stages at all.
  std::vector<double> tensorSeconds(plan.stages.size(), 0);
  for (const ParallelTensor &tensor : problem.tensors) {
    std::vector<int> stages = {stageOf[tensor.producer]};
    for (int consumer : tensor.consumers)
      stages.push_back(stageOf[consumer]);
    llvm::sort(stages);
    stages.erase(std::unique(stages.begin(), stages.end()), stages.end());
    if (stages.size() > 1)
      for (int stage : stages)
        tensorSeconds[stage] += tensor.time;
  }

  double worst = 0;
  int64_t later = degreeSum; // this stage's d and every later one's
  for (auto [i, stage] : llvm::enumerate(plan.stages)) {
    int d = stage.dataDegree, t = stage.tensorDegree;
    int64_t y = (later + d - 1) / d;
    later -= d;
    double compute = 0, edgeBytes = 0, resync = 0, memory = 0, cache = 0;
    for (auto [k, v] : llvm::enumerate(stage.layers)) {
      llvm::Expected<const TensorConfig *> found =
          chosenConfig(problem, stage, k);
      if (!found)
        return found.takeError();
      const TensorConfig &config = **found;
      compute += config.timeOn(stage.kind);
      edgeBytes += cutTraffic(problem, v, config, stageOf,
                              static_cast<int>(i), /*outgoingBytes=*/true);
      resync +=
          4.0 * (d - 1) * config.parameterBytes / d / problem.microbatches;
      memory += config.bytesAt(static_cast<int>(y), d);
      cache += config.cacheBytes / d;
    }
    double limit = kinds[stage.kind].memoryPerDevice;
    if (memory > limit)
      return invalidPlan("stage " + std::to_string(i) + " needs " +
                         std::to_string(memory) + " bytes per device, over " +
                         std::to_string(limit));
    // Piper's expression where one bandwidth carries both.
    double resyncBandwidth = problem.resyncBandwidth(t, d);
    double time =
        resyncBandwidth == problem.bandwidth
            ? (edgeBytes / d + resync) / problem.bandwidth + compute / d
            : edgeBytes / d / problem.bandwidth + resync / resyncBandwidth +
                  compute / d;
    time += tensorSeconds[i] / d;
    stage.time = time;
    stage.memory = memory;
    stage.cache = cache;
    worst = std::max(worst, time);
  }
  return worst;
}

llvm::json::Value
placer::solver::parallelPlanToJson(const ParallelProblem &problem,
                                   const ParallelPlan &plan) {
  llvm::json::Array stages;
  for (const ParallelStage &stage : plan.stages) {
    llvm::json::Array layers, configs;
    for (auto [k, v] : llvm::enumerate(stage.layers)) {
      layers.push_back(problem.layers[v].id);
      configs.push_back(problem.layers[v]
                            .configs.at(stage.tensorDegree)[stage.configs[k]]
                            .id);
    }
    llvm::json::Object entry{{"layers", std::move(layers)},
                             {"first_device", stage.firstDevice},
                             {"tensor_degree", stage.tensorDegree},
                             {"data_degree", stage.dataDegree},
                             {"configs", std::move(configs)},
                             {"time", stage.time},
                             {"memory", stage.memory}};
    if (stage.cache > 0)
      entry["kv_cache"] = stage.cache;
    if (!problem.kinds.empty())
      entry["kind"] = problem.kinds[stage.kind].name;
    stages.push_back(std::move(entry));
  }
  bool latency = plan.objective == Objective::Latency;
  llvm::json::Object json{
      {"objective", getName(plan.objective)},
      {latency ? "latency" : "time_per_sample", plan.timePerSample},
      {"devices_used", plan.devicesUsed},
      {"devices", problem.maxDevices},
      {"microbatches", problem.microbatches},
      {"stages", std::move(stages)},
      {"ideals", plan.ideals},
      {"pairs", plan.pairs},
      {"candidates", plan.candidates},
      {"passes", plan.passes},
      {"largest_frontier", plan.largestFrontier},
      {"seconds", plan.seconds}};
  if (plan.segments > 0)
    json["segments"] = plan.segments;
  return json;
}
