//===- Problem.cpp - The throughput model, evaluated from its definition --===//
#include "placer/Solver/Problem.h"

#include "placer/Solver/Memory.h"
#include "placer/Support/Format.h"
#include "placer/Support/Graph.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <queue>

using namespace placer::solver;

bool Problem::addEdge(int u, int v) {
  if (u == v)
    return false;
  std::vector<int> &out = successors[u];
  if (std::find(out.begin(), out.end(), v) != out.end())
    return false;
  out.push_back(v);
  return true;
}

std::vector<std::vector<int>> Problem::predecessors() const {
  std::vector<std::vector<int>> preds(nodes.size());
  for (int u = 0; u < size(); ++u)
    for (int v : successors[u])
      preds[v].push_back(u);
  return preds;
}

/// 1F1B gives each accelerator its warm-up depth by its index: the
/// forward pass must reach the accelerators in index order.
static std::string checkPipelineOrder(const Problem &problem,
                                      const Assignment &assignment) {
  int devices = problem.numDevices();
  std::vector<std::vector<char>> reaches(devices,
                                         std::vector<char>(devices, 0));
  for (int u = 0; u < problem.size(); ++u)
    for (int v : problem.successors[u])
      if (!problem.nodes[u].backward && !problem.nodes[v].backward)
        reaches[assignment[u]][assignment[v]] = 1;
  for (int via = 0; via < devices; ++via) // transitive closure
    for (int from = 0; from < devices; ++from)
      if (reaches[from][via])
        for (int to = 0; to < devices; ++to)
          reaches[from][to] |= reaches[via][to];
  for (int from = 0; from < problem.numAccelerators; ++from)
    for (int to = 0; to < from; ++to)
      if (reaches[from][to])
        return "under 1F1B the forward pass visits accelerators in index "
               "order, but accelerator " +
               std::to_string(from) + " feeds accelerator " +
               std::to_string(to);
  return "";
}

/// Bytes a recomputing stage keeps per microbatch: the activations it
/// receives (each producer on another device once).
static double getInputBytes(const Problem &problem,
                            const Assignment &assignment, int device) {
  double bytes = 0;
  for (int u = 0; u < problem.size(); ++u) {
    if (assignment[u] == device)
      continue;
    for (int v : problem.successors[u])
      if (assignment[v] == device) {
        bytes += problem.nodes[u].outputBytes;
        break;
      }
  }
  return bytes;
}

Evaluation placer::solver::evaluate(const Problem &problem,
                                    const Assignment &assignment,
                                    const Replication &replication) {
  Evaluation result;
  result.devices.resize(problem.numDevices());
  auto fail = [&](std::string why) {
    if (result.violation.empty())
      result.violation = std::move(why);
  };
  if (static_cast<int>(assignment.size()) != problem.size()) {
    fail("the assignment has " + std::to_string(assignment.size()) +
         " entries for " + std::to_string(problem.size()) + " nodes");
    result.maxLoad = kInfinity;
    return result;
  }
  // Devices list their nodes in the order they run them (which only
  // activations care about); a graph with a cycle lists them by index.
  bool activations = hasActivations(problem);
  bool liveness = activations && !problem.isTraining();
  std::vector<int> order;
  if (liveness)
    order = topologicalOrder(problem);
  if (static_cast<int>(order.size()) != problem.size()) {
    order.resize(problem.size());
    std::iota(order.begin(), order.end(), 0);
  }
  std::map<int64_t, int> deviceOfClass;
  for (int u : order) {
    int d = assignment[u];
    const Node &node = problem.nodes[u];
    if (d < 0 || d >= problem.numDevices()) {
      fail("node " + node.name + " is on device " + std::to_string(d) +
           ", which does not exist");
      continue;
    }
    DeviceReport &device = result.devices[d];
    device.nodes.push_back(u);
    if (problem.isAccelerator(d)) {
      double time = problem.getTime(u, problem.getKind(d));
      device.compute += time;
      if (!node.supported || time == kInfinity)
        fail("node " + node.name + " cannot run on accelerator " +
             std::to_string(d));
    } else {
      device.compute += node.cpuTime;
    }
    if (node.colorClass >= 0) {
      auto [it, inserted] = deviceOfClass.emplace(node.colorClass, d);
      if (!inserted && it->second != d)
        fail("color class " + std::to_string(node.colorClass) +
             " is split across devices");
    }
  }
  // Replicated stages: r - 1 empty accelerators right after the device.
  if (!replication.empty()) {
    if (!problem.replication ||
        static_cast<int>(replication.size()) != problem.numAccelerators)
      fail("replication is not enabled, or not given per accelerator");
    for (int d = 0; d < static_cast<int>(replication.size()) &&
                    result.violation.empty();
         ++d) {
      int r = replication[d];
      if (r < 1 || d + r > problem.numAccelerators ||
          (r > 1 && result.devices[d].nodes.empty())) {
        fail("accelerator " + std::to_string(d) + " cannot run a stage on " +
             std::to_string(r) + " devices");
        break;
      }
      result.devices[d].replicas = r;
      for (int copy = d + 1; copy < d + r; ++copy) {
        if (problem.getKind(copy) != problem.getKind(d))
          fail("accelerator " + std::to_string(copy) +
               " cannot copy accelerator " + std::to_string(d) +
               "'s stage: replicas are of one kind");
        if (!result.devices[copy].nodes.empty() || replication[copy] != 1 ||
            result.devices[copy].replicaOf >= 0)
          fail("accelerator " + std::to_string(copy) +
               " cannot both hold nodes or a stage and copy accelerator " +
               std::to_string(d) + "'s");
        result.devices[copy].replicaOf = d;
      }
    }
  }
  if (!result.violation.empty()) {
    result.maxLoad = kInfinity;
    return result;
  }
  // Communication: c(u) once per accelerator that u's output leaves or
  // enters, however many edges cross, scaled by the link it takes (the
  // sender by its slowest one).
  std::vector<int> receivers;
  for (int u = 0; u < problem.size(); ++u) {
    int from = assignment[u];
    receivers.clear();
    for (int v : problem.successors[u])
      if (assignment[v] != from)
        receivers.push_back(assignment[v]);
    if (receivers.empty())
      continue;
    std::sort(receivers.begin(), receivers.end());
    receivers.erase(std::unique(receivers.begin(), receivers.end()),
                    receivers.end());
    double c = problem.nodes[u].transferCost;
    double slowest = 0;
    for (int to : receivers) {
      double factor = problem.getLinkFactor(from, to);
      slowest = std::max(slowest, factor);
      if (problem.isAccelerator(to))
        result.devices[to].communicationIn += c * factor;
    }
    if (problem.isAccelerator(from))
      result.devices[from].communicationOut += c * slowest;
  }
  if (stashFollowsOrder(problem.schedule))
    if (std::string why = checkPipelineOrder(problem, assignment);
        !why.empty())
      fail(why);
  // Weights alone need no liveness (the heuristics evaluate often).
  std::optional<MemoryGraph> memory;
  std::optional<PeakMemory> peak;
  if (liveness) {
    memory = memoryGraph(problem);
    peak.emplace(*memory);
  }
  // Accelerators in use from here to the last: stages and their copies
  // (a replicated stage counts as its devices, which bounds its in-flight
  // microbatches from above).
  auto inUse = [&](int d) {
    return !result.devices[d].nodes.empty() || result.devices[d].replicaOf >= 0;
  };
  int stagesFromEnd = 0;
  for (int d = 0; d < problem.numAccelerators; ++d)
    stagesFromEnd += inUse(d) ? 1 : 0;
  const int stages = stagesFromEnd;
  for (int d = 0; d < problem.numDevices(); ++d) {
    DeviceReport &device = result.devices[d];
    device.load = device.compute;
    if (problem.isAccelerator(d)) {
      int position = inUse(d) ? stagesFromEnd-- : 0;
      if (peak) {
        MemoryUsage usage = (*peak)(device.nodes);
        device.weights = usage.weights;
        device.activations = usage.activations;
      } else {
        double stash = 0;
        for (int u : device.nodes) {
          device.weights += problem.nodes[u].memory;
          stash += problem.nodes[u].outputBytes;
        }
        if (problem.isTraining() && !device.nodes.empty()) {
          device.inFlight = problem.inFlight(position, stages);
          device.activations =
              getStageActivations(stash, 0, device.inFlight, false);
          if (problem.recomputation &&
              !problem.fitsOn(device.weights + device.activations, d)) {
            // Recompute only when the stash does not fit: it costs time.
            double kept = getStageActivations(
                stash, getInputBytes(problem, assignment, d), device.inFlight,
                /*recompute=*/true);
            if (problem.fitsOn(device.weights + kept, d)) {
              device.recompute = true;
              device.activations = kept;
              for (int u : device.nodes) {
                device.compute += problem.nodes[u].recomputeTime;
                device.load += problem.nodes[u].recomputeTime;
              }
            }
          }
        }
      }
      device.memory = device.weights + device.activations;
      for (int u : device.nodes)
        device.cache += problem.nodes[u].cacheBytes;
      device.load += device.communicationIn + device.communicationOut;
      if (device.replicas > 1) {
        // Each copy takes every r-th microbatch; the gradients meet once
        // per iteration.
        double gradients = 0;
        for (int u : device.nodes)
          gradients += problem.nodes[u].gradientBytes;
        device.load =
            device.load * problem.getReplicaShare(device.replicas) +
            problem.allReduceTime(gradients, device.replicas,
                                  problem.getRingFactor(d, device.replicas));
      }
      if (!problem.fitsOn(device.memory, d))
        fail("accelerator " + std::to_string(d) + " needs " +
             std::to_string(device.memory) + " bytes, over the limit of " +
             std::to_string(problem.getMemoryLimit(d)));
    }
    result.maxLoad = std::max(result.maxLoad, device.load);
  }
  // Copies report their stage's load and memory.
  for (int d = 0; d < problem.numAccelerators; ++d) {
    DeviceReport &device = result.devices[d];
    if (device.replicaOf < 0)
      continue;
    const DeviceReport &stage = result.devices[device.replicaOf];
    device.load = stage.load;
    device.weights = stage.weights;
    device.activations = stage.activations;
    device.memory = stage.memory;
    device.inFlight = stage.inFlight;
  }
  if (!result.violation.empty())
    result.maxLoad = kInfinity;
  return result;
}

namespace {
/// Node u's fastest accelerator time and core time (infinity where it
/// cannot run or there is no such device).
std::pair<double, double> deviceTimes(const Problem &problem, int u) {
  const Node &node = problem.nodes[u];
  double accelerator = problem.numAccelerators > 0 && node.supported
                           ? problem.getFastestTime(u)
                           : kInfinity;
  return {accelerator, problem.numCpus > 0 ? node.cpuTime : kInfinity};
}

/// The graph's total work under `measure`.
double totalWork(const Problem &problem, const WorkMeasure &measure) {
  double total = 0;
  for (int u = 0; u < problem.size(); ++u) {
    auto [accelerator, cpu] = deviceTimes(problem, u);
    total += measure.work(accelerator, cpu);
  }
  return total;
}
} // namespace

WorkMeasure placer::solver::bestWorkMeasure(const Problem &problem) {
  WorkMeasure unit, slow;
  slow.slowdown = kInfinity;
  for (int u = 0; u < problem.size(); ++u) {
    auto [accelerator, cpu] = deviceTimes(problem, u);
    if (accelerator > 0 && accelerator < kInfinity && cpu < kInfinity)
      slow.slowdown = std::min(slow.slowdown, cpu / accelerator);
  }
  if (!(slow.slowdown > 0 && slow.slowdown < kInfinity) ||
      problem.numDevices() == 0)
    return unit;
  int k = problem.numAccelerators, l = problem.numCpus;
  return totalWork(problem, slow) / slow.capacity(k, l) >
                 totalWork(problem, unit) / unit.capacity(k, l)
             ? slow
             : unit;
}

double placer::solver::lowerBound(const Problem &problem) {
  double largest = 0;
  // (Replicas divide a node's time: only the total work bounds the load.)
  for (int u = 0; u < problem.size(); ++u) {
    auto [accelerator, cpu] = deviceTimes(problem, u);
    double best = std::min(accelerator, cpu);
    if (best == kInfinity)
      return kInfinity;
    if (!problem.replication)
      largest = std::max(largest, best);
  }
  if (problem.size() == 0)
    return 0;
  // (Here some device exists: every node found one.)
  WorkMeasure measure = bestWorkMeasure(problem);
  return std::max(
      largest, totalWork(problem, measure) /
                   measure.capacity(problem.numAccelerators, problem.numCpus));
}

std::vector<std::vector<int>>
placer::solver::colorClassMembers(const Problem &problem) {
  std::map<int64_t, std::vector<int>> byClass;
  for (int v = 0; v < problem.size(); ++v)
    if (problem.nodes[v].colorClass >= 0)
      byClass[problem.nodes[v].colorClass].push_back(v);
  std::vector<std::vector<int>> classes;
  for (auto &[colorClass, members] : byClass)
    classes.push_back(std::move(members));
  return classes;
}

std::vector<int> placer::solver::topologicalOrder(const Problem &problem) {
  return placer::topologicalOrder(problem.successors);
}

Problem::RingCost Problem::getRingCost(int replicas) const {
  if (!isTraining() || replicas <= 1)
    return {};
  // Ring: 2 (r - 1) steps, each moving bytes / r; once per iteration.
  double steps = 2.0 * (replicas - 1);
  return {steps / replicas / allReduceBandwidth / microbatches,
          steps * allReduceLatency / microbatches};
}

double Problem::getReplicaShare(int replicas) const {
  if (!isTraining())
    return 1.0 / replicas;
  // An iteration's M microbatches dealt round robin: the busiest copy
  // runs ceil(M / r) of them.
  return static_cast<double>((microbatches + replicas - 1) / replicas) /
         microbatches;
}

double Problem::getRingFactor(int first, int replicas) const {
  double slowest = 1;
  for (int i = 0; i < replicas; ++i)
    slowest =
        std::max(slowest, getLinkFactor(first + i, first + (i + 1) % replicas));
  return slowest;
}

double Problem::getFastestTime(int u) const {
  const Node &node = nodes[u];
  if (node.kindTimes.empty() || acceleratorKinds.empty())
    return node.acceleratorTime;
  double fastest = kInfinity;
  for (int kind : acceleratorKinds)
    fastest = std::min(fastest, node.kindTimes[kind]);
  return fastest;
}

bool Problem::isUniform() const {
  bool oneKind =
      std::all_of(acceleratorKinds.begin(), acceleratorKinds.end(),
                  [&](int kind) { return kind == acceleratorKinds.front(); });
  // (Links all alike but not as priced scale c(u): not the paper's model.)
  bool asPriced = true;
  for (int a = 0; a < numAccelerators && !linkFactors.empty(); ++a)
    for (int b = 0; b < numAccelerators; ++b)
      asPriced &= a == b || getLinkFactor(a, b) == 1;
  return oneKind && asPriced;
}

std::string Problem::checkDevices() const {
  if (!acceleratorKinds.empty()) {
    if (static_cast<int>(acceleratorKinds.size()) != numAccelerators)
      return "acceleratorKinds has " + std::to_string(acceleratorKinds.size()) +
             " entries for " + std::to_string(numAccelerators) +
             " accelerators";
    for (int kind : acceleratorKinds)
      if (kind < 0 || kind >= numKinds())
        return "accelerator kind " + std::to_string(kind) + " is not one of " +
               std::to_string(numKinds());
    for (const Node &node : nodes)
      if (!node.kindTimes.empty() &&
          static_cast<int>(node.kindTimes.size()) != numKinds())
        return "node " + node.name + " has times for " +
               std::to_string(node.kindTimes.size()) + " of " +
               std::to_string(numKinds()) + " kinds";
  }
  if (!linkFactors.empty()) {
    if (linkFactors.size() != static_cast<size_t>(numAccelerators) *
                                  static_cast<size_t>(numAccelerators))
      return "linkFactors is not one factor per pair of accelerators";
    for (double factor : linkFactors)
      if (!(factor >= 0) || factor == kInfinity)
        return "a link factor is negative or not finite";
  }
  return "";
}

std::string Problem::checkCapacity() const {
  if (numCpus > 0 || numAccelerators <= 0)
    return "";
  double largest = 0, total = 0;
  for (int a = 0; a < numAccelerators; ++a) {
    largest = std::max(largest, getMemoryLimit(a));
    total += getMemoryLimit(a);
  }
  if (largest == kInfinity)
    return "";
  double weights = 0, caches = 0;
  const Node *biggest = nullptr;
  for (const Node &node : nodes) {
    weights += node.memory;
    caches += node.cacheBytes;
    if (!biggest || node.memory > biggest->memory)
      biggest = &node;
  }
  // Training keeps each weight's gradient and optimizer state beside it; a
  // decode step its KV caches.
  std::string kept =
      isTraining() ? " of weights and their training state" : " of weights";
  if (caches > 0)
    kept += " and KV cache";
  if (biggest && !fits(biggest->memory))
    return "node '" + biggest->name + "' alone keeps " +
           formatBytes(biggest->memory) + kept +
           ", more than any accelerator holds (" + formatBytes(largest) +
           "): no number of devices holds it whole (tensor-degrees= shards ops "
           "that have a sharding rule)";
  if (weights <= total * (1 + 1e-12))
    return "";
  // The fewest accelerators of the largest kind whose memory adds up.
  auto needed = static_cast<int64_t>(std::ceil(weights / largest));
  return std::string("the model's weights") +
         (isTraining() ? " and their training state" : "") +
         (caches > 0 ? " and KV caches" : "") + " need " +
         formatBytes(weights) +
         (caches > 0 ? " (KV caches " + formatBytes(caches) + ")" : "") +
         " and the " + std::to_string(numAccelerators) +
         (numAccelerators > 1 ? " accelerators hold " : " accelerator holds ") +
         formatBytes(total) + " in all: at least " + std::to_string(needed) +
         " accelerators of " + formatBytes(largest) + " are needed (" +
         (caches > 0 ? "weights and caches" : "weights") +
         " only; activations add to it)";
}

int Problem::inFlight(int stagesFromEnd, int stages) const {
  switch (schedule) {
  case Schedule::Inference:
  case Schedule::Sequential: // one microbatch through the step at a time
    return 1;
  case Schedule::GPipe:
    return microbatches;
  case Schedule::OneFOneB:
    return std::min(stagesFromEnd, microbatches);
  case Schedule::ZeroBubbleH1:
    // Every stage holds what 1F1B's first one does (docs/Schedules.md).
    return std::min(stages > 0 ? stages : numAccelerators, microbatches);
  case Schedule::Interleaved:
  case Schedule::ZeroBubbleV:
    // Per chunk, not per stage (PipelineRun::peakPerChunk): a bound here.
    return microbatches;
  }
  return microbatches;
}

bool placer::solver::hasActivations(const Problem &problem) {
  return std::any_of(problem.nodes.begin(), problem.nodes.end(),
                     [](const Node &node) { return node.outputBytes > 0; });
}

bool placer::solver::activationsBind(const Problem &problem) {
  if (problem.memoryLimit == kInfinity || !hasActivations(problem))
    return false;
  // When the whole graph fits one accelerator by the additive bound (the
  // most any model charges), no memory row or check can decide anything.
  double most = 0;
  for (int u = 0; u < problem.size(); ++u) {
    const Node &node = problem.nodes[u];
    double copies = problem.isTraining()
                        ? problem.inFlight(problem.numAccelerators)
                        : 1.0 + problem.successors[u].size();
    most += node.memory + node.outputBytes * copies;
  }
  for (int d = 0; d < problem.numAccelerators; ++d)
    if (!problem.fitsOn(most, d))
      return true;
  return !problem.fits(most);
}

MemoryGraph placer::solver::memoryGraph(const Problem &problem) {
  MemoryGraph graph;
  for (const Node &node : problem.nodes) {
    graph.paramBytes.push_back(node.memory);
    graph.outputBytes.push_back(node.outputBytes);
  }
  graph.successors = problem.successors;
  return graph;
}
