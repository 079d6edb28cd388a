//===- PlaceDevices.cpp - The placement pass and the default pipeline -----===//
//
// Adapts the module to the MLIR-free solver: one solver node per placeable
// op, with the times, memory and transfer cost `placer.cost` gives, edges
// from SSA uses, then writes the solver's answer back as `placer.device`.
//
//===----------------------------------------------------------------------===//

#include "placer/Analysis/Cluster.h"
#include "placer/Analysis/CostModel.h"
#include "placer/Analysis/KVCache.h"
#include "placer/Analysis/OpNames.h"
#include "placer/Analysis/OpRoles.h"
#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Solver/Latency.h"
#include "placer/Solver/PipelineSchedule.h"
#include "placer/Solver/Solve.h"
#include "placer/Solver/Workload.h"
#include "placer/Support/Format.h"
#include "placer/Transforms/Gradients.h"
#include "placer/Transforms/Passes.h"
#include "placer/Transforms/Reports.h"

#include "PlaceParallel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

#include <set>

namespace placer {
#define GEN_PASS_DEF_PARTITIONDEVICES
#define GEN_PASS_DEF_PLACEDEVICES
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;
using llvm::json::Array;
using llvm::json::Object;

namespace {

/// The placement problem built from a module, and how to map back.
struct ModuleProblem {
  solver::Problem problem;
  /// The op behind each solver node.
  std::vector<Operation *> ops;
  /// Ops kept out of the search (OpRoles: replicated or folded), each with
  /// the op whose device it takes (null: the first device).
  std::vector<std::pair<Operation *, Operation *>> followers;
  bool isWorkload = false;
  /// Backward ops or backward times: a training step is placed.
  bool training = false;
  /// Backward ops written out: the paper's workloads give no gradient
  /// sizes, unlike backward times from the cost model and the training
  /// steps --placer-build-training makes (`trainedWeights`: they name the
  /// weights they update).
  bool backwardOps = false;
  bool trainedWeights = false;
};

int64_t getIntAttr(DictionaryAttr dict, StringRef name, int64_t fallback) {
  if (!dict)
    return fallback;
  auto attr = dict.getAs<IntegerAttr>(name);
  return attr ? attr.getInt() : fallback;
}

/// The cluster's devices the solver places on: every accelerator, of
/// every kind, in device order, and the cores of the first CPU kind.
struct ClusterDevices {
  const Cluster &cluster;
  std::vector<int64_t> accelerators, cpus;
  /// Accelerator kinds in device order: the solver's kind indices.
  std::vector<const DeviceKind *> acceleratorKinds;
  const DeviceKind *cpu = nullptr;

  explicit ClusterDevices(const Cluster &cluster) : cluster(cluster) {
    int64_t device = 0;
    for (const DeviceKind &kind : cluster.getKinds()) {
      if (kind.isAccelerator)
        acceleratorKinds.push_back(&kind);
      else if (!cpu)
        cpu = &kind;
      for (int64_t i = 0; i < kind.count; ++i, ++device)
        if (kind.isAccelerator)
          accelerators.push_back(device);
        else if (&kind == cpu)
          cpus.push_back(device);
    }
  }
  /// The first accelerator kind (whose times solvers of one kind read).
  const DeviceKind *getAccelerator() const {
    return acceleratorKinds.empty() ? nullptr : acceleratorKinds.front();
  }
  /// The solver's kind index of accelerator `device` of the cluster.
  int getKindIndex(int64_t device) const {
    const DeviceKind *kind =
        &cluster.getKinds()[cluster.getKindOfDevice(device)];
    return static_cast<int>(llvm::find(acceleratorKinds, kind) -
                            acceleratorKinds.begin());
  }
};

/// Seconds per sample of `op` on `kind`: forward, plus backward when the
/// cost model priced a training step.
double getStepTime(CostAttr cost, const DeviceKind *kind) {
  if (!kind)
    return solver::kInfinity;
  std::optional<double> forward = cost.getTimeOn(kind->name);
  if (!forward)
    return solver::kInfinity;
  return *forward + cost.getBackwardTimeOn(kind->name).value_or(0.0);
}

/// Decode steps: each KV cache resident on the device of the Concat that
/// extends it, for `settings`' batch and context (KVCache.h), in place of
/// the Concat's output among the activations.
LogicalResult addKVCaches(ModuleOp module, ModuleProblem &result,
                          const llvm::DenseMap<Operation *, int> &nodeOf,
                          const PlacementSettings &settings) {
  for (auto func : module.getOps<func::FuncOp>())
    for (const KVCache &cache : findKVCaches(func)) {
      auto node = nodeOf.find(cache.append);
      if (node == nodeOf.end())
        continue;
      llvm::Expected<int64_t> bytes =
          getKVCacheBytes(cache, settings.kvBatch, settings.context);
      if (!bytes)
        return emitError(cache.append->getLoc(), "--placer-place-devices: ")
               << llvm::toString(bytes.takeError());
      // What the Concat returns is the cache itself, extended in place by a
      // server: resident, not an activation besides it.
      solver::Node &appending = result.problem.nodes[node->second];
      appending.cacheBytes += static_cast<double>(*bytes);
      appending.memory += static_cast<double>(*bytes);
      appending.outputBytes = 0;
    }
  return success();
}

FailureOr<ModuleProblem> buildProblem(ModuleOp module,
                                      const ClusterDevices &devices,
                                      const PlacementSettings &settings) {
  bool activations = settings.activations;
  const DeviceKind *accelerator = devices.getAccelerator();
  const DeviceKind *cpu = devices.cpu;
  ModuleProblem result;
  llvm::DenseMap<Operation *, int> nodeOf;
  SmallVector<std::pair<func::FuncOp, OpRoles>> functions;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    OpRoles roles(func.getBody().front());
    llvm::StringSet<> updated = getUpdatedState(func);
    result.trainedWeights |= !updated.empty();
    for (Operation &op : func.getBody().getOps()) {
      if (op.hasTrait<OpTrait::IsTerminator>() || !roles.isPlaced(&op))
        continue;
      CostAttr cost = getCost(&op);
      if (!cost)
        return op.emitError("has no placer.cost: run --placer-estimate-costs "
                            "first (or --partition-devices)");
      solver::Node node;
      auto graphNode = dyn_cast<graph::NodeOp>(op);
      node.name = getOpDisplayName(&op);
      DictionaryAttr attrs = graphNode ? graphNode.getAttrs() : DictionaryAttr();
      node.id = getIntAttr(attrs, "id", result.problem.size());
      result.isWorkload |= cost.getSource() == CostSource::Workload;
      node.acceleratorTime = accelerator ? getStepTime(cost, accelerator) : 0;
      if (devices.acceleratorKinds.size() > 1)
        for (const DeviceKind *kind : devices.acceleratorKinds)
          node.kindTimes.push_back(getStepTime(cost, kind));
      // A stage that recomputes runs the forward pass once more; replicas
      // all-reduce the weights' gradients.
      bool priced =
          accelerator && cost.getBackwardTimeOn(accelerator->name).has_value();
      if (priced) {
        node.recomputeTime = cost.getTimeOn(accelerator->name).value_or(0);
        node.gradientBytes = static_cast<double>(cost.getParamBytes());
      } else if (!updated.empty()) {
        node.gradientBytes =
            static_cast<double>(getTrainedWeightBytes(&op, updated));
      }
      node.cpuTime = getStepTime(cost, cpu);
      node.memory = static_cast<double>(cost.getResidentBytes());
      node.transferCost = cost.getTransferTime();
      // (Where kinds differ, per kind: Problem::getTime.)
      bool runsSomewhere = node.acceleratorTime < solver::kInfinity ||
                           llvm::any_of(node.kindTimes, [](double t) {
                             return t < solver::kInfinity;
                           });
      node.supported = getIntAttr(attrs, "supported", 1) != 0 && runsSomewhere;
      node.backward = isBackwardOp(&op);
      // A workload's class, or a training step's (a node and its backward
      // twin, --placer-build-training).
      node.colorClass = getIntAttr(attrs, "color_class", -1);
      if (auto colorClass = op.getAttrOfType<IntegerAttr>(kColorClassAttrName))
        node.colorClass = colorClass.getInt();
      result.backwardOps |= node.backward;
      result.training |= node.backward || priced;
      nodeOf[&op] = result.problem.size();
      result.problem.nodes.push_back(node);
      result.problem.successors.emplace_back();
      result.ops.push_back(&op);
    }
    functions.emplace_back(func, std::move(roles));
  }
  // Inference: what an op produces lives until its last reader. Training
  // (backward times from the cost model): it is stashed for the backward
  // pass, per microbatch in flight. The paper's workloads give the memory
  // their published optima assume: weights only.
  if (activations && !result.isWorkload)
    for (auto [node, op] : llvm::zip(result.problem.nodes, result.ops))
      for (Value value : op->getResults())
        node.outputBytes += getActivationBytes(value);
  if (failed(addKVCaches(module, result, nodeOf, settings)))
    return failure();
  // Edges: SSA uses, a use inside a region counting for the op that holds
  // it.
  for (auto [index, op] : llvm::enumerate(result.ops)) {
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def)
          continue;
        auto it = nodeOf.find(def);
        if (it != nodeOf.end() && it->second != static_cast<int>(index))
          result.problem.addEdge(it->second, index);
      }
    });
  }
  // Replicated and folded ops take the device of their first placed
  // consumer (directly, or through other such ops), where a per-device
  // export keeps the ONNX node itself.
  llvm::DenseMap<Operation *, Operation *> leader;
  for (Operation *op : result.ops)
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (!nodeOf.count(def))
            leader.try_emplace(def, op);
    });
  for (auto &[func, roles] : functions)
    for (Operation &op : llvm::reverse(func.getBody().front())) {
      if (op.hasTrait<OpTrait::IsTerminator>() || roles.isPlaced(&op))
        continue;
      Operation *follow = nullptr;
      if (auto it = leader.find(&op); it != leader.end())
        follow = it->second;
      for (Operation *user : op.getUsers())
        if (!follow)
          if (auto it = leader.find(user); it != leader.end())
            follow = it->second;
      if (follow)
        leader[&op] = follow;
      result.followers.emplace_back(&op, follow);
    }
  return result;
}

/// Tensors that cross devices under the placement written on the ops: one
/// per value and receiving device, as the split sends them.
int64_t countTransfers(const ModuleProblem &mp) {
  llvm::DenseSet<Operation *> placed(mp.ops.begin(), mp.ops.end());
  int64_t transfers = 0;
  for (Operation *op : mp.ops)
    for (Value result : op->getResults()) {
      std::set<int64_t> receivers;
      for (Operation *user : result.getUsers()) {
        Operation *top = user;
        while (top && !placed.contains(top))
          top = top->getParentOp();
        if (top && getDevice(top) != getDevice(op))
          receivers.insert(*getDevice(top));
      }
      transfers += receivers.size();
    }
  return transfers;
}

/// The bubble a training placement expects (idle over busy device time):
/// its schedule run on its stages' loads per microbatch in device order,
/// each load split evenly into forward, input-gradient and weight-gradient
/// work (PipelineTimes::fromLoads); none for replicated stages, whose
/// copies take turns.
std::optional<double> getExpectedBubble(const solver::Problem &p,
                                        const solver::Solution &solution,
                                        const solver::Evaluation &evaluation) {
  std::vector<double> loads;
  if (!solution.chunks.empty()) {
    // Chunks: each chunk's work, the transfers left out.
    llvm::Expected<solver::PipelineSchedule> layout =
        solver::getChunkLayout(p);
    if (!layout) {
      llvm::consumeError(layout.takeError());
      return std::nullopt;
    }
    loads.assign(layout->chunks(), 0);
    for (int u = 0; u < p.size(); ++u)
      loads[solution.chunks[u]] += p.nodes[u].acceleratorTime;
    llvm::Expected<solver::PipelineRun> run = solver::runPipelineSchedule(
        *layout, solver::PipelineTimes::fromLoads(loads));
    if (!run) {
      llvm::consumeError(run.takeError());
      return std::nullopt;
    }
    return run->bubbleRatio();
  }
  for (int d = 0; d < p.numDevices(); ++d) {
    const solver::DeviceReport &r = evaluation.devices[d];
    if (r.replicas > 1 || r.replicaOf >= 0)
      return std::nullopt;
    if (!r.nodes.empty())
      loads.push_back(r.load);
  }
  llvm::Expected<solver::PipelineSchedule> schedule =
      solver::buildPipelineSchedule(solver::getPipelineKind(p.schedule),
                                    static_cast<int>(loads.size()),
                                    p.microbatches);
  if (!schedule) {
    llvm::consumeError(schedule.takeError());
    return std::nullopt;
  }
  llvm::Expected<solver::PipelineRun> run = solver::runPipelineSchedule(
      *schedule, solver::PipelineTimes::fromLoads(loads));
  if (!run) {
    llvm::consumeError(run.takeError());
    return std::nullopt;
  }
  return run->bubbleRatio();
}

/// The placement's JSON report (schema in docs/Placement.md).
llvm::json::Value makeReport(const ModuleProblem &mp,
                             const solver::Solution &solution,
                             const solver::Evaluation &evaluation,
                             const std::vector<int64_t> &clusterDevice,
                             const Cluster &cluster) {
  const solver::Problem &p = mp.problem;
  Array devices;
  for (int d = 0; d < p.numDevices(); ++d) {
    const solver::DeviceReport &r = evaluation.devices[d];
    Object device{
        {"device", clusterDevice[d]},
        {"kind",
         cluster.getKinds()[cluster.getKindOfDevice(clusterDevice[d])].name},
        {"compute", r.compute},
        {"communication_in", r.communicationIn},
        {"communication_out", r.communicationOut},
        {"load", r.load},
        {"weights", r.weights - r.cache},
        {"kv_cache", r.cache},
        {"activations", r.activations},
        {"memory", r.memory},
        {"nodes", static_cast<int64_t>(r.nodes.size())}};
    if (p.isTraining() && p.isAccelerator(d)) {
      device["in_flight"] = r.inFlight;
      device["recompute"] = r.recompute;
    }
    if (p.replication && p.isAccelerator(d)) {
      device["replicas"] = r.replicas;
      if (r.replicaOf >= 0)
        device["replica_of"] = clusterDevice[r.replicaOf];
    }
    devices.push_back(std::move(device));
  }
  // Stages in device order (the pipeline's where devices differ), each with
  // its kind and every device that runs it.
  std::vector<Array> copies(p.numDevices());
  for (int d = 0; d < p.numDevices(); ++d)
    if (int leader = evaluation.devices[d].replicaOf; leader >= 0)
      copies[leader].push_back(clusterDevice[d]);
  Array stages;
  for (int d = 0; d < p.numDevices(); ++d) {
    const solver::DeviceReport &r = evaluation.devices[d];
    if (r.nodes.empty())
      continue;
    Array members{clusterDevice[d]};
    for (llvm::json::Value &copy : copies[d])
      members.push_back(std::move(copy));
    stages.push_back(Object{
        {"devices", std::move(members)},
        {"kind",
         cluster.getKinds()[cluster.getKindOfDevice(clusterDevice[d])].name},
        {"replicas", r.replicas},
        {"load", r.load},
        {"nodes", static_cast<int64_t>(r.nodes.size())}});
  }
  Object assignment;
  for (int u = 0; u < p.size(); ++u) {
    std::string key = mp.isWorkload ? std::to_string(p.nodes[u].id)
                                    : p.nodes[u].name;
    assignment[key] = clusterDevice[solution.assignment[u]];
  }
  // ONNX nodes kept out of the search (Constant nodes, shape arithmetic)
  // are nodes of the model too: they sit with the op they follow.
  for (auto [op, follow] : mp.followers) {
    auto node = dyn_cast<graph::NodeOp>(op);
    auto constant = dyn_cast<graph::ConstantOp>(op);
    std::optional<StringRef> name;
    if (node)
      name = node.getDisplayName();
    else if (constant && constant.getNode())
      name = *constant.getNode();
    if (!name || name->empty())
      continue;
    if (std::optional<int64_t> device = getDevice(op))
      assignment[*name] = *device;
  }
  // Chunked schedules minimize the time per microbatch with the
  // schedule's fill and drain; the bound and the gap are that objective's.
  bool chunked = solution.pipelineTime < solver::kInfinity;
  double objective = chunked ? solution.pipelineTime : solution.maxLoad;
  double gap =
      objective > 0 ? (objective - solution.lowerBound) / objective : 0.0;
  Object report{{"objective", "throughput"},
                {"algorithm", solution.algorithm},
                {"max_load", solution.maxLoad},
                {"lower_bound", solution.lowerBound},
                {"gap", gap},
                {"optimal", solution.optimal},
                {"coarsened", solution.coarsened},
                {"note", solution.note},
                {"num_ideals", solution.numIdeals},
                {"solver_seconds", solution.seconds},
                {"accelerators", p.numAccelerators},
                {"cpus", p.numCpus},
                {"memory_limit", p.memoryLimit},
                {"transfers", countTransfers(mp)},
                {"devices", std::move(devices)},
                {"stages", std::move(stages)},
                {"assignment", std::move(assignment)}};
  if (p.isTraining()) {
    report["schedule"] = solver::getName(p.schedule);
    report["microbatches"] = p.microbatches;
    if (solver::usesChunks(p.schedule))
      report["chunks"] = p.chunksPerDevice;
    if (chunked)
      report["pipeline_time"] = solution.pipelineTime;
    if (std::optional<double> bubble =
            getExpectedBubble(p, solution, evaluation))
      report["bubble"] = *bubble;
  }
  return report;
}

/// objective=latency: the latency, its gap, and every accelerator call.
void addLatencyReport(Object &report, const solver::Problem &problem,
                      const solver::Solution &solution,
                      const std::vector<int64_t> &clusterDevice) {
  solver::LatencyEvaluation evaluation =
      solver::evaluateLatency(problem, solution.assignment, solution.calls);
  Array calls;
  for (const solver::CallReport &call : evaluation.calls)
    calls.push_back(Object{{"device", clusterDevice[call.device]},
                           {"call", call.index},
                           {"start", call.start},
                           {"transfer_in", call.transferIn},
                           {"compute", call.compute},
                           {"transfer_out", call.transferOut},
                           {"finish", call.finish},
                           {"nodes", static_cast<int64_t>(call.nodes.size())}});
  report["objective"] = "latency";
  report["latency"] = evaluation.latency;
  report["gap"] = evaluation.latency > 0
                      ? (evaluation.latency - solution.lowerBound) /
                            evaluation.latency
                      : 0.0;
  report["max_calls_per_accelerator"] =
      static_cast<int64_t>(evaluation.maxCallsPerAccelerator);
  report["calls"] = std::move(calls);
}

LogicalResult writeJson(Location loc, StringRef path,
                        const llvm::json::Value &value,
                        StringRef what) {
  std::string error;
  auto file = openOutputFile(path, &error);
  if (!file)
    return emitError(loc) << what << ": " << error;
  file->os() << llvm::formatv("{0:2}", value) << "\n";
  file->keep();
  return success();
}

struct PlaceDevicesPass
    : public placer::impl::PlaceDevicesBase<PlaceDevicesPass>,
      public ReportingPass {
  PlaceDevicesPass() = default;
  explicit PlaceDevicesPass(PlaceDevicesOptions options)
      : PlaceDevicesBase(std::move(options)) {}
  PlaceDevicesPass(const PlaceDevicesPass &other)
      : PlaceDevicesBase(other), preset(other.preset) {}
  explicit PlaceDevicesPass(PlacementSettings settings)
      : preset(std::move(settings)) {}

  template <typename Options>
  friend llvm::Expected<PlacementSettings>
  placer::readPlacementSettings(const Options &);
  /// Settings given in C++ win over the textual options.
  std::optional<PlacementSettings> preset;

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<PlacerDialect>();
  }

  /// Sizes the problem's devices and memory from the settings and the
  /// cluster, or says why it cannot.
  LogicalResult sizeProblem(Location loc, const PlacementSettings &settings,
                            const ClusterDevices &devices,
                            const TrainingSetup &setup, bool isWorkload,
                            bool training, solver::Problem &problem) {
    int64_t available = devices.accelerators.size();
    int64_t cores = devices.cpus.size();
    int64_t k = settings.devices > 0 ? settings.devices : available;
    int64_t l = settings.cpus >= 0 ? settings.cpus : (isWorkload ? cores : 0);
    if (settings.devices < 0 || k > available)
      return emitError(loc, "--placer-place-devices: devices=")
             << settings.devices << ": the cluster has " << available
             << " accelerators";
    if (l > cores)
      return emitError(loc, "--placer-place-devices: cpus=")
             << l << ": the cluster has " << cores << " CPU cores";
    if (k + l == 0)
      return emitError(loc, "--placer-place-devices: no device to place on");
    if (settings.memory < 0)
      return emitError(loc,
                       "--placer-place-devices: memory must not be negative");
    problem.numAccelerators = static_cast<int>(k);
    problem.numCpus = static_cast<int>(l);
    sizeAccelerators(settings, devices, problem);
    if (training) {
      problem.schedule = settings.schedule.value_or(setup.schedule);
      int64_t m = settings.microbatches > 0 ? settings.microbatches
                                            : setup.microbatches;
      problem.microbatches = static_cast<int>(std::min<int64_t>(m, 1 << 20));
      problem.recomputation = settings.recompute;
      problem.chunksPerDevice = static_cast<int>(settings.chunks);
    }
    problem.replication = settings.replication;
    return success();
  }

  /// Memory per kind, and the links between the accelerators placed on
  /// (`links=flat` drops them when solving, not when scoring).
  static void sizeAccelerators(const PlacementSettings &settings,
                               const ClusterDevices &devices,
                               solver::Problem &problem) {
    int k = problem.numAccelerators;
    auto capacity = [&](const DeviceKind *kind) {
      return settings.memory > 0                ? settings.memory
             : kind && kind->memoryCapacity > 0 ? kind->memoryCapacity
                                                : solver::kInfinity;
    };
    problem.memoryLimit = capacity(devices.getAccelerator());
    bool severalKinds = false;
    for (int d = 1; d < k; ++d)
      severalKinds |= devices.getKindIndex(devices.accelerators[d]) !=
                      devices.getKindIndex(devices.accelerators[0]);
    if (!severalKinds) // devices of the first kind only
      for (solver::Node &node : problem.nodes)
        node.kindTimes.clear();
    if (severalKinds) {
      for (const DeviceKind *kind : devices.acceleratorKinds)
        problem.kindMemoryLimits.push_back(capacity(kind));
      for (int d = 0; d < k; ++d)
        problem.acceleratorKinds.push_back(
            devices.getKindIndex(devices.accelerators[d]));
      problem.memoryLimit = 0;
      for (int d = 0; d < k; ++d)
        problem.memoryLimit =
            std::max(problem.memoryLimit, problem.getMemoryLimit(d));
    }
    // c(u) is priced on one link; another costs its bandwidth's inverse
    // as much again (latency aside: microseconds beside megabytes).
    const Cluster &cluster = devices.cluster;
    auto [from, to] = cluster.getPricingPair();
    Link priced = cluster.getLink(from, to);
    std::vector<double> factors;
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b)
        factors.push_back(a == b ? 1.0
                                 : priced.bandwidth /
                                       cluster
                                           .getLink(devices.accelerators[a],
                                                    devices.accelerators[b])
                                           .bandwidth);
    // Links all alike cost c(u) as priced (the paper's model).
    bool alike = true;
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b)
        alike &= a == b || factors[a * k + b] == factors[k > 1 ? 1 : 0];
    if (!alike) {
      problem.linkFactors = std::move(factors);
      problem.allReduceBandwidth = priced.bandwidth;
      problem.allReduceLatency = priced.latency;
    } else if (k > 1) {
      Link link =
          cluster.getLink(devices.accelerators[0], devices.accelerators[1]);
      problem.allReduceBandwidth = link.bandwidth;
      problem.allReduceLatency = link.latency;
    }
  }

  /// The error for a result with no placement.
  void reportNoPlacement(Location loc, const solver::SolveResult &result,
                         const solver::Problem &problem) {
    auto diag = emitError(loc, "--placer-place-devices: ");
    if (result.provedInfeasible()) {
      diag << "CBC proved the model infeasible: no placement on "
           << problem.numAccelerators << " accelerators and "
           << problem.numCpus << " CPU cores fits in "
           << llvm::formatv("{0:F0}", problem.memoryLimit)
           << " bytes per accelerator";
      return;
    }
    diag << "no split on " << problem.numAccelerators << " accelerators and "
         << problem.numCpus << " CPU cores fits in "
         << llvm::formatv("{0:F0}", problem.memoryLimit)
         << " bytes per accelerator";
    if (!problem.kindMemoryLimits.empty())
      diag << " (the largest kind's; the others in proportion)";
    if (result.smallestFittingMemory < solver::kInfinity)
      diag << "; the smallest memory per accelerator that fits is "
           << llvm::formatv("{0:F0}", std::ceil(result.smallestFittingMemory))
           << " bytes";
    else
      diag << " at any memory size (ops that cannot run on an "
              "accelerator need a CPU core: cpus=N)";
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Location loc = module.getLoc();
    PlacementSettings settings;
    if (preset) {
      settings = *preset;
    } else {
      llvm::Expected<PlacementSettings> parsed = readPlacementSettings(*this);
      if (!parsed) {
        emitError(loc, "--placer-place-devices: ")
            << llvm::toString(parsed.takeError());
        return signalPassFailure();
      }
      settings = std::move(*parsed);
    }
    const solver::SolveOptions &solveOptions = settings.solve;
    bool latency = solveOptions.objective == solver::Objective::Latency;

    FailureOr<Cluster> cluster =
        requireCluster(module, "--placer-place-devices");
    if (failed(cluster))
      return signalPassFailure();
    // Degrees beyond 1: configurations from the costs, then the
    // three-dimensional planner.
    if (settings.tensorDegrees != std::vector<int64_t>{1} &&
        !hasTensorConfigs(module) &&
        failed(deriveTensorConfigs(module, settings.tensorDegrees, *cluster,
                                   settings.recompute, settings.kvBatch,
                                   settings.context)))
      return signalPassFailure();
    if (hasTensorConfigs(module)) {
      FailureOr<llvm::json::Value> report =
          placeParallel(module, settings, *cluster);
      if (failed(report) ||
          (!settings.report.empty() &&
           failed(writeJson(loc, settings.report, *report,
                            "--placer-place-devices: report"))))
        return signalPassFailure();
      setReport(std::move(*report));
      return;
    }
    ClusterDevices devices(*cluster);
    FailureOr<ModuleProblem> built = buildProblem(module, devices, settings);
    if (failed(built))
      return signalPassFailure();
    ModuleProblem &mp = *built;
    solver::Problem &problem = mp.problem;
    if (failed(sizeProblem(loc, settings, devices, cluster->getTraining(),
                           mp.isWorkload, mp.training, problem)))
      return signalPassFailure();
    // Without gradient sizes an all-reduce would look free.
    bool hasWeights = llvm::any_of(
        problem.nodes, [](const solver::Node &n) { return n.memory > 0; });
    if (settings.replication && mp.backwardOps && !mp.trainedWeights &&
        hasWeights) {
      emitError(loc, "--placer-place-devices: replication=true on a training "
                     "graph with its backward ops written out: it gives no "
                     "gradient sizes for the all-reduce of replicated stages "
                     "(price the forward graph with --placer-estimate-costs "
                     "training=true, or build the step with "
                     "--placer-build-training, instead)");
      return signalPassFailure();
    }
    // links=flat: solved blind to the links, scored on them.
    std::optional<solver::Problem> blind;
    if (settings.flatLinks) {
      blind = problem;
      blind->linkFactors.clear();
    }
    solver::SolveResult result =
        solver::solve(blind ? *blind : problem, solveOptions);
    if (!result.error.empty()) {
      emitError(loc, "--placer-place-devices: ") << result.error;
      return signalPassFailure();
    }
    const std::optional<solver::IPResult> &ip = result.ip;
    if (result.exported()) {
      emitRemark(getModuleRemarkLoc(module))
          << "wrote the "
          << (latency                      ? "latency"
              : solveOptions.ip.contiguous ? "contiguous throughput"
                                           : "throughput")
          << " model (" << ip->variables << " variables, " << ip->constraints
          << " constraints) to " << solveOptions.ip.exportPath
          << " without solving it";
      return;
    }
    solver::Solution &solution = result.solution;
    if (!solution.feasible()) {
      reportNoPlacement(loc, result, problem);
      return signalPassFailure();
    }
    // Several chunks per accelerator: scored as the chunked MILP models
    // them (one stage per device's memory and order do not apply).
    std::optional<solver::PipelineSchedule> layout;
    if (!solution.chunks.empty()) {
      llvm::Expected<solver::PipelineSchedule> chunks =
          solver::getChunkLayout(problem);
      if (!chunks) {
        emitError(loc, "--placer-place-devices: ")
            << llvm::toString(chunks.takeError());
        return signalPassFailure();
      }
      layout = std::move(*chunks);
    }
    solver::Evaluation evaluation =
        layout ? solver::evaluateChunks(problem, *layout, solution.chunks)
               : solver::evaluate(problem, solution.assignment,
                                  solution.replication);
    if (blind && !problem.linkFactors.empty()) {
      solution.maxLoad = evaluation.maxLoad;
      solution.optimal = false;
      solution.lowerBound = solver::lowerBound(problem);
      solution.note = "links=flat: solved as if every link were the one "
                      "transfers are priced on; loads are on the cluster's "
                      "links";
    }

    // Solver devices -> the cluster's device list.
    std::vector<int64_t> clusterDevice(problem.numDevices());
    for (int d = 0; d < problem.numDevices(); ++d)
      clusterDevice[d] = problem.isAccelerator(d)
                             ? devices.accelerators[d]
                             : devices.cpus[d - problem.numAccelerators];
    for (auto [index, op] : llvm::enumerate(mp.ops)) {
      setDevice(op, clusterDevice[solution.assignment[index]]);
      if (!solution.chunks.empty())
        op->setAttr(kChunkAttrName,
                    Builder(op).getI64IntegerAttr(solution.chunks[index]));
    }
    for (auto [op, follow] : mp.followers) {
      setDevice(op, follow ? *getDevice(follow) : clusterDevice[0]);
      // A follower runs in its leader's chunk (the first without one).
      if (!solution.chunks.empty() && isa<graph::NodeOp>(op))
        op->setAttr(kChunkAttrName,
                    follow ? follow->getAttr(kChunkAttrName)
                           : Builder(op).getI64IntegerAttr(0));
    }
    MLIRContext *context = module.getContext();
    SmallVector<int64_t> recomputing;
    for (int d = 0; d < problem.numDevices(); ++d)
      if (evaluation.devices[d].recompute)
        recomputing.push_back(clusterDevice[d]);
    // Per cluster device: the device whose stage it copies, or -1.
    SmallVector<int64_t> replicaOf;
    for (int d = 0; d < problem.numDevices(); ++d)
      if (int leader = evaluation.devices[d].replicaOf; leader >= 0) {
        replicaOf.resize(cluster->getNumDevices(), -1);
        replicaOf[clusterDevice[d]] = clusterDevice[leader];
      }
    setPlacement(
        module,
        PlacementAttr::get(
            context, solveOptions.objective, solution.algorithm,
            solution.maxLoad, solution.lowerBound, solution.optimal,
            problem.numAccelerators, problem.numCpus,
            latency ? std::optional<F64>(solution.latency) : std::nullopt,
            problem.isTraining() ? problem.schedule
                                 : solver::Schedule::Inference,
            problem.isTraining() ? problem.microbatches : 0,
            layout ? layout->chunksPerDevice : 1,
            recomputing.empty() ? DenseI64ArrayAttr()
                                : DenseI64ArrayAttr::get(context, recomputing),
            replicaOf.empty() ? DenseI64ArrayAttr()
                              : DenseI64ArrayAttr::get(context, replicaOf),
            /*stages=*/ArrayAttr()));

    auto remark = emitRemark(getModuleRemarkLoc(module))
                  << "placed " << problem.size() << " ops on "
                  << problem.numAccelerators << " accelerators and "
                  << problem.numCpus << " CPU cores with " << solution.algorithm
                  << ": ";
    if (latency)
      remark << "latency " << formatNumber(solution.latency) << " (lower bound "
             << formatNumber(solution.lowerBound) << "), max load "
             << formatNumber(solution.maxLoad);
    else if (solution.pipelineTime < solver::kInfinity)
      remark << "max load " << formatNumber(solution.maxLoad)
             << ", time per microbatch with the pipeline's fill and drain "
             << formatNumber(solution.pipelineTime) << " (lower bound "
             << formatNumber(solution.lowerBound) << ")";
    else
      remark << "max load " << formatNumber(solution.maxLoad)
             << " (lower bound " << formatNumber(solution.lowerBound) << ")";
    if (solution.numIdeals)
      remark << ", " << solution.numIdeals << " ideals";
    if (!solution.note.empty())
      remark << "; " << solution.note;
    if (ip)
      remark << " (best bound " << formatNumber(ip->bestBound) << ", gap "
             << formatNumber(ip->gap) << ", " << formatNumber(solution.seconds)
             << " s)";

    // Always made: a library caller collects it (ReportCollector), a tool
    // writes it to `report=`.
    llvm::json::Value json =
        makeReport(mp, solution, evaluation, clusterDevice, *cluster);
    llvm::json::Object &object = *json.getAsObject();
    if (latency)
      addLatencyReport(object, problem, solution, clusterDevice);
    if (ip) {
      object["solver_status"] = ip->status;
      object["best_bound"] = ip->bestBound;
      object["gap"] = ip->gap;
      object["variables"] = ip->variables;
      object["constraints"] = ip->constraints;
      if (!latency)
        object["contiguous"] = solveOptions.ip.contiguous;
    }
    if (!settings.report.empty() &&
        failed(writeJson(loc, settings.report, json,
                         "--placer-place-devices: report")))
      return signalPassFailure();
    setReport(std::move(json));
    if (!settings.exportSplit.empty()) {
      llvm::json::Value split = solver::splitToJson(
          problem, solution.assignment, solution.maxLoad);
      if (latency)
        (*split.getAsObject())["totalLatency"] = solution.latency;
      if (failed(writeJson(loc, settings.exportSplit, std::move(split),
                           "--placer-place-devices: export-split")))
        return signalPassFailure();
    }
  }
};

} // namespace

std::unique_ptr<Pass> placer::createPlaceDevices(PlacementSettings settings) {
  return std::make_unique<PlaceDevicesPass>(std::move(settings));
}

namespace {
/// `--partition-devices=4` means devices=4.
std::string expandDevicesShorthand(StringRef options) {
  StringRef trimmed = options.trim();
  StringRef first = trimmed.take_until([](char c) { return c == ' '; });
  if (!first.empty() && llvm::all_of(first, llvm::isDigit))
    return ("devices=" + trimmed).str();
  return options.str();
}
/// The `key=value` items of a pass's option text: split at spaces outside
/// braces and quotes, as MLIR's option parser splits them.
SmallVector<StringRef> splitOptionItems(StringRef text) {
  SmallVector<StringRef> items;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ' ';
    if (quote) {
      quote = c == quote ? 0 : quote;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      --depth;
    } else if (c == ' ' && depth == 0) {
      if (i > start)
        items.push_back(text.slice(start, i));
      start = i + 1;
    }
  }
  return items;
}

struct PartitionDevicesPass
    : public placer::impl::PartitionDevicesBase<PartitionDevicesPass> {
  using Base::Base;

  template <typename Options>
  friend CostSettings placer::readCostSettings(const Options &);
  template <typename Options>
  friend llvm::Expected<PlacementSettings>
  placer::readPlacementSettings(const Options &);

  /// Takes the device-count shorthand, and checks the values when they are
  /// parsed, so that a pipeline with an unknown algorithm fails to parse
  /// (nothing runs) with the reason in its one error.
  LogicalResult initializeOptions(
      StringRef text,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    std::string expanded = expandDevicesShorthand(text);
    if (failed(Pass::initializeOptions(expanded, [&](const Twine &problem) {
          return errorHandler("--partition-devices: " +
                              describeOptionError(expanded, problem.str()));
        })))
      return failure();
    if (llvm::Expected<PlacementSettings> place = readPlacementSettings(*this);
        !place)
      return errorHandler("--partition-devices: " +
                          llvm::toString(place.takeError()));
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::Expected<PlacementSettings> place = readPlacementSettings(*this);
    if (!place) {
      mlir::emitError(module.getLoc(), "--partition-devices: ")
          << llvm::toString(place.takeError());
      return signalPassFailure();
    }
    bool exportOnly = !place->solve.ip.exportPath.empty();
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createEstimateCosts(readCostSettings(*this)));
    pm.addPass(createPlaceDevices(std::move(*place)));
    if (split && !exportOnly)
      pm.addPass(createSplitDevices());
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }

private:
  /// What is wrong with the option text, in words: llvm::cl says which key
  /// is unknown (the valid ones are listed then), but prints a value that
  /// does not parse to stderr only, so the item at fault is found by
  /// parsing the items one by one.
  static std::string describeOptionError(StringRef text, StringRef problem) {
    std::string said = problem.trim().str();
    if (StringRef(said).contains("no such option")) {
      // The printed pass is "partition-devices{key=value ...}".
      std::string printed;
      llvm::raw_string_ostream os(printed);
      PartitionDevicesPass().printAsTextualPipeline(os);
      StringRef body = StringRef(printed).split('{').second.rtrim("} ");
      SmallVector<std::string> keys;
      for (StringRef pair : splitOptionItems(body))
        if (StringRef key = pair.split('=').first; !key.empty())
          keys.push_back(key.str());
      llvm::sort(keys);
      if (size_t at = said.find("<Pass-Options-Parser>: ");
          at != std::string::npos)
        said.erase(at, strlen("<Pass-Options-Parser>: "));
      return said + " (options: " + llvm::join(keys, ", ") + ")";
    }
    for (StringRef item : splitOptionItems(text)) {
      PartitionDevicesPass alone;
      if (failed(alone.Pass::initializeOptions(
              item, [](const Twine &) { return failure(); }))) {
        auto [key, value] = item.split('=');
        return ("option '" + key + "': '" + value +
                "' is not a value of its type (see docs/Placement.md)")
            .str();
      }
    }
    return said.empty() ? "cannot parse its options" : said;
  }
};
} // namespace
