//===- PlaceParallel.cpp - Three-dimensional plans in the placement -------===//
//
// Adapts IR to solver::planParallel and back: the layers are the function's
// graph.nodes, the edges their operands (sizes in placer.edge_bytes), the
// configurations placer.tensor_configs; sync_out entries follow the node's
// uses by nodes in program order, which is the order the edges get here.
//
//===----------------------------------------------------------------------===//

#include "PlaceParallel.h"

#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Solver/ParallelPlan.h"
#include "placer/Solver/Solve.h"
#include "placer/Transforms/Reports.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace mlir;
using namespace placer;

void placer::dropTensorPlanInputs(graph::NodeOp node) {
  node->removeAttr(PlacerDialect::TensorConfigsAttrHelper::getNameStr());
  node->removeAttr(PlacerDialect::TensorConfigAttrHelper::getNameStr());
  node->removeAttr(PlacerDialect::EdgeBytesAttrHelper::getNameStr());
}

/// Configuration `index` of `node`'s placer.tensor_configs at degree `t`
/// (the planner's layer lists them in the attribute's order).
static TensorConfigAttr getConfigAttr(Operation *node, int64_t t,
                                      size_t index) {
  auto degrees = node->getAttrOfType<ArrayAttr>(
      PlacerDialect::TensorConfigsAttrHelper::getNameStr());
  for (auto degree : degrees.getAsRange<TensorDegreeAttr>())
    if (degree.getDegree() == t)
      return cast<TensorConfigAttr>(degree.getConfigs()[index]);
  llvm_unreachable("the plan chose a degree the node has no configuration of");
}

bool placer::hasTensorConfigs(ModuleOp module) {
  bool found = false;
  module.walk([&](graph::NodeOp node) {
    found |=
        node->hasAttr(PlacerDialect::TensorConfigsAttrHelper::getNameStr());
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

FailureOr<func::FuncOp> placer::getSoleFunction(ModuleOp module,
                                                StringRef what) {
  auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
  if (funcs.size() != 1)
    return mlir::emitError(module.getLoc())
           << what << ": the module needs exactly one function, not "
           << funcs.size();
  return funcs.front();
}

namespace {

/// The cluster's accelerator kinds in device order (CPU cores have no
/// place in a three-dimensional plan); the problem numbers their devices
/// from 0 in that order.
SmallVector<const DeviceKind *> getAcceleratorKinds(const Cluster &cluster) {
  SmallVector<const DeviceKind *> kinds;
  for (const DeviceKind &kind : cluster.getKinds())
    if (kind.isAccelerator)
      kinds.push_back(&kind);
  return kinds;
}

/// The cluster device of the problem's device `p`.
int64_t getClusterDevice(const Cluster &cluster, int64_t p) {
  int64_t device = 0;
  for (const DeviceKind &kind : cluster.getKinds()) {
    if (kind.isAccelerator) {
      if (p < kind.count)
        return device + p;
      p -= kind.count;
    }
    device += kind.count;
  }
  // Past the accelerators: a cluster of one kind grown to devices=.
  return device + p;
}

/// The problem's device of cluster device `device`, when an accelerator.
std::optional<int64_t> getProblemDevice(const Cluster &cluster,
                                        int64_t device) {
  int64_t p = 0;
  for (const DeviceKind &kind : cluster.getKinds()) {
    if (device < kind.count)
      return kind.isAccelerator ? std::optional<int64_t>(p + device)
                                : std::nullopt;
    device -= kind.count;
    if (kind.isAccelerator)
      p += kind.count;
  }
  return p + device; // a grown cluster, as above
}

/// The problem of the module's one function, or an error on the module.
/// With several accelerator kinds (`kindNames`), each configuration's time
/// on each kind comes from its `times`.
FailureOr<solver::ParallelProblem>
buildParallelProblem(ModuleOp module, SmallVectorImpl<graph::NodeOp> &nodes,
                     ArrayRef<StringRef> kindNames) {
  FailureOr<func::FuncOp> sole =
      getSoleFunction(module, "--placer-place-devices: tensor-parallel "
                              "configurations");
  if (failed(sole))
    return failure();
  func::FuncOp func = *sole;
  llvm::DenseMap<Operation *, int> index;
  solver::ParallelProblem problem;
  for (auto node : func.getOps<graph::NodeOp>()) {
    auto degrees = node->getAttrOfType<ArrayAttr>(
        PlacerDialect::TensorConfigsAttrHelper::getNameStr());
    if (!degrees)
      return node.emitError("--placer-place-devices: node '")
             << node.getDisplayName()
             << "' has no placer.tensor_configs while others do";
    index[node] = static_cast<int>(nodes.size());
    nodes.push_back(node);
    solver::ParallelLayer layer;
    // The input's id where the import kept one (Piper's), else the
    // node's position.
    auto id = node.getAttrs().getAs<IntegerAttr>("id");
    layer.id = id ? id.getInt() : static_cast<int64_t>(nodes.size()) - 1;
    layer.name = node.getDisplayName().str();
    for (auto degree : degrees.getAsRange<TensorDegreeAttr>()) {
      std::vector<solver::TensorConfig> &configs =
          layer.configs[static_cast<int>(degree.getDegree())];
      for (auto attr : degree.getConfigs().getAsRange<TensorConfigAttr>()) {
        solver::TensorConfig config;
        config.id = attr.getId().str();
        config.timePerSample = attr.getTime();
        config.parameterBytes = attr.getParamBytes();
        config.stashBytes = attr.getStashBytes();
        config.fixedBytes = attr.getFixedBytes();
        config.cacheBytes = attr.getCacheBytes();
        config.syncIn.assign(attr.getSyncIn().asArrayRef().begin(),
                             attr.getSyncIn().asArrayRef().end());
        config.syncOut.assign(attr.getSyncOut().asArrayRef().begin(),
                              attr.getSyncOut().asArrayRef().end());
        if (kindNames.size() > 1)
          for (StringRef kind : kindNames) {
            std::optional<double> time = attr.getTimeOn(kind);
            if (!time || !attr.getTimes())
              return node.emitError("--placer-place-devices: node '")
                     << node.getDisplayName() << "', configuration '"
                     << attr.getId() << "' at t = " << degree.getDegree()
                     << " has no time on '" << kind
                     << "': a cluster of several accelerator kinds needs "
                        "`times` for each (--placer-derive-tensor-configs "
                        "gives them)";
            config.kindTimes.push_back(*time);
          }
        configs.push_back(std::move(config));
      }
    }
    problem.layers.push_back(std::move(layer));
  }
  // Edges consumer by consumer, operand by operand: each layer's incoming
  // edges in operand order and its outgoing ones in the order of its uses.
  // Operands from no node (graph inputs, weights, omitted inputs) are no
  // edges: every device of a stage reads them where it is.
  SmallVector<SmallVector<unsigned>> edgeOperands(nodes.size());
  for (auto [v, node] : llvm::enumerate(nodes)) {
    auto bytes = node->getAttrOfType<DenseF64ArrayAttr>(
        PlacerDialect::EdgeBytesAttrHelper::getNameStr());
    for (auto [i, operand] : llvm::enumerate(node->getOperands())) {
      auto it = index.find(operand.getDefiningOp());
      if (it == index.end())
        continue;
      edgeOperands[v].push_back(static_cast<unsigned>(i));
      problem.edges.push_back(
          {it->second, index[node], bytes ? bytes.asArrayRef()[i] : 0.0});
    }
  }
  // sync_in has an entry per operand: keep those of the edges.
  for (auto [v, layer] : llvm::enumerate(problem.layers))
    for (auto &[degree, configs] : layer.configs)
      for (solver::TensorConfig &config : configs) {
        std::vector<double> syncIn;
        for (unsigned i : edgeOperands[v])
          syncIn.push_back(i < config.syncIn.size() ? config.syncIn[i] : 0.0);
        config.syncIn = std::move(syncIn);
      }
  problem.indexEdges();
  return problem;
}

/// Two levels: nodes of a power-of-two size (the planner checks); else the
/// link between the first two accelerators for every transfer.
void setLinks(solver::ParallelProblem &problem, const Cluster &cluster) {
  if (const std::optional<Cluster::Hierarchy> &nodes = cluster.getHierarchy()) {
    problem.devicesPerNode = static_cast<int>(nodes->devicesPerNode);
    problem.intraNodeBandwidth = nodes->intraNode.bandwidth;
    problem.bandwidth = nodes->interNode.bandwidth;
  } else {
    problem.bandwidth =
        cluster
            .getLink(getClusterDevice(cluster, 0),
                     getClusterDevice(cluster, problem.maxDevices > 1 ? 1 : 0))
            .bandwidth;
  }
}

/// With several accelerator kinds, the problem's `kinds`: the cluster's in
/// device order, cut to the first `devices` accelerators, each holding
/// `memory` bytes (when positive) or its own capacity.
void setKinds(solver::ParallelProblem &problem,
              ArrayRef<const DeviceKind *> kinds, int64_t devices,
              double memory) {
  if (kinds.size() < 2)
    return;
  for (const DeviceKind *kind : kinds) {
    int64_t count = std::min(kind->count, devices);
    devices -= count;
    double capacity = memory > 0 ? memory : kind->memoryCapacity;
    problem.kinds.push_back(
        {kind->name, static_cast<int>(count),
         capacity > 0 ? capacity : std::numeric_limits<double>::infinity()});
  }
  // (A kind left without devices by devices= takes no stage.)
}

/// The names of `kinds`.
SmallVector<StringRef> getKindNames(ArrayRef<const DeviceKind *> kinds) {
  return llvm::map_to_vector(
      kinds, [](const DeviceKind *kind) { return StringRef(kind->name); });
}

} // namespace

FailureOr<PlacedParallelPlan> placer::readParallelPlan(ModuleOp module) {
  Location loc = module.getLoc();
  PlacementAttr placement = getPlacement(module);
  ClusterAttr cluster = getCluster(module);
  if (!placement || !placement.getStages() || !cluster)
    return mlir::emitError(loc, "no three-dimensional plan: run "
                                "--placer-place-devices on a module with "
                                "tensor-parallel configurations first");
  PlacedParallelPlan placed;
  const Cluster &machine = cluster.getCluster();
  SmallVector<const DeviceKind *> kinds = getAcceleratorKinds(machine);
  FailureOr<solver::ParallelProblem> built =
      buildParallelProblem(module, placed.nodes, getKindNames(kinds));
  if (failed(built))
    return failure();
  placed.problem = std::move(*built);
  placed.plan.objective = placement.getObjective();
  solver::ParallelProblem &problem = placed.problem;
  problem.maxDevices = static_cast<int>(placement.getAccelerators());
  // Placements made before the plan recorded N: the cluster's.
  problem.microbatches = static_cast<int>(
      placement.getMicrobatches() > 0
          ? placement.getMicrobatches()
          : cluster.getCluster().getTraining().microbatches);
  // Memory was checked when planning (against limits the options may have
  // overridden); the stages record what each needs.
  problem.memoryPerDevice = std::numeric_limits<double>::infinity();
  setLinks(problem, machine);
  setKinds(problem, kinds, problem.maxDevices, problem.memoryPerDevice);

  llvm::DenseMap<int64_t, size_t> stageAt; // first device -> stage
  for (auto stage : placement.getStages().getAsRange<ParallelStageAttr>()) {
    solver::ParallelStage planned;
    std::optional<int64_t> first = getProblemDevice(machine, stage.getFirst());
    if (!first)
      return mlir::emitError(loc, "the module's three-dimensional plan: a ")
             << "stage starts at device " << stage.getFirst()
             << ", not an accelerator";
    planned.firstDevice = stage.getFirst(); // the cluster's, as placed
    // Its kind: the one whose devices hold its first.
    for (int64_t end = 0; planned.kind < static_cast<int>(problem.kinds.size());
         ++planned.kind) {
      end += problem.kinds[planned.kind].count;
      if (*first < end)
        break;
    }
    planned.tensorDegree = static_cast<int>(stage.getTensor());
    planned.dataDegree = static_cast<int>(stage.getData());
    stageAt[stage.getFirst()] = placed.plan.stages.size();
    placed.plan.stages.push_back(std::move(planned));
  }
  for (auto [v, node] : llvm::enumerate(placed.nodes)) {
    std::optional<int64_t> device = getDevice(node);
    auto chosen = node->getAttrOfType<StringAttr>(
        PlacerDialect::TensorConfigAttrHelper::getNameStr());
    auto stage = device ? stageAt.find(*device) : stageAt.end();
    if (!chosen || stage == stageAt.end())
      return node.emitError("node '")
             << node.getDisplayName()
             << "' has no placer.tensor_config or no device that starts a "
                "stage of the plan";
    solver::ParallelStage &planned = placed.plan.stages[stage->second];
    // The chosen id among the layer's configurations at the stage's degree.
    std::optional<int> config;
    auto found = problem.layers[v].configs.find(planned.tensorDegree);
    if (found != problem.layers[v].configs.end())
      for (auto [index, candidate] : llvm::enumerate(found->second))
        if (candidate.id == chosen.getValue() && !config)
          config = static_cast<int>(index);
    if (!config)
      return node.emitError("node '")
             << node.getDisplayName() << "' has no configuration '"
             << chosen.getValue() << "' at tensor degree "
             << planned.tensorDegree;
    planned.layers.push_back(static_cast<int>(v));
    planned.configs.push_back(*config);
  }
  llvm::Expected<double> score =
      solver::scoreParallelPlan(problem, placed.plan);
  if (!score)
    return mlir::emitError(loc, "the module's three-dimensional plan: ")
           << llvm::toString(score.takeError());
  placed.plan.timePerSample = *score;
  for (const solver::ParallelStage &stage : placed.plan.stages)
    placed.plan.devicesUsed += static_cast<int>(
        problem.footprint(stage.tensorDegree, stage.dataDegree));
  return placed;
}

FailureOr<llvm::json::Value>
placer::placeParallel(ModuleOp module, const PlacementSettings &settings,
                      const Cluster &cluster) {
  MLIRContext *context = module.getContext();
  Location loc = module.getLoc();
  if (settings.solve.algorithm != solver::Algorithm::Auto)
    return mlir::emitError(loc, "--placer-place-devices: a module with "
                                "tensor-parallel configurations is planned "
                                "by the three-dimensional planner (for "
                                "throughput or one sample's latency); leave "
                                "algorithm at its default");
  solver::Objective objective = settings.solve.objective;
  bool latency = objective == solver::Objective::Latency;
  solver::ParallelPlanOptions planOptions;
  planOptions.objective = objective;
  // time-limit= bounds the planner as it bounds the other searches (and is
  // checked as theirs is).
  if (std::string error = solver::checkOptions(settings.solve); !error.empty())
    return mlir::emitError(loc, "--placer-place-devices: ") << error;
  planOptions.deadline =
      settings.solve.ip.getDeadline(std::chrono::steady_clock::now());
  SmallVector<graph::NodeOp> nodes;
  SmallVector<const DeviceKind *> kinds = getAcceleratorKinds(cluster);
  FailureOr<solver::ParallelProblem> built =
      buildParallelProblem(module, nodes, getKindNames(kinds));
  if (failed(built))
    return failure();
  solver::ParallelProblem &problem = *built;
  // tensor-degrees= other than the default keeps only those degrees (one
  // forces it on every stage).
  if (settings.tensorDegrees != std::vector<int64_t>{1}) {
    for (auto [layer, node] : llvm::zip(problem.layers, nodes)) {
      for (auto it = layer.configs.begin(); it != layer.configs.end();)
        it = llvm::is_contained(settings.tensorDegrees, it->first)
                 ? std::next(it)
                 : layer.configs.erase(it);
      if (layer.configs.empty())
        return node.emitError("--placer-place-devices: node '")
               << node.getDisplayName()
               << "' has no configuration at the tensor-degrees asked for";
    }
  }
  int64_t accelerators = 0;
  double capacity = 0;
  for (const DeviceKind *kind : kinds) {
    accelerators += kind->count;
    if (capacity == 0 ||
        (kind->memoryCapacity > 0 && kind->memoryCapacity < capacity))
      capacity = kind->memoryCapacity;
  }
  // Piper's inputs fix no machine (its experiments vary maxDevices): a
  // cluster of one kind with one link for all grows to devices= of it.
  bool uniform = cluster.getKinds().size() == 1 &&
                 cluster.getKinds().front().isAccelerator &&
                 !cluster.getHierarchy() && cluster.getKindPairs().empty() &&
                 cluster.getDevicePairs().empty();
  if (accelerators == 0 || settings.devices < 0 ||
      (settings.devices > accelerators && !uniform))
    return mlir::emitError(loc, "--placer-place-devices: devices=")
           << settings.devices << ": the cluster has " << accelerators
           << " accelerators (only a cluster of one kind and one link grows "
              "to more)";
  if (settings.devices > kMaxDevicesPerKind)
    return mlir::emitError(loc, "--placer-place-devices: devices=")
           << settings.devices << ": a cluster holds at most "
           << kMaxDevicesPerKind << " devices of a kind";
  problem.maxDevices =
      static_cast<int>(settings.devices > 0 ? settings.devices : accelerators);
  problem.memoryPerDevice = settings.memory > 0 ? settings.memory : capacity;
  problem.microbatches = static_cast<int>(
      settings.microbatches > 0 ? settings.microbatches
                                : cluster.getTraining().microbatches);
  setLinks(problem, cluster);
  setKinds(problem, kinds, problem.maxDevices, settings.memory);
  if (settings.memory < 0)
    return mlir::emitError(
        loc, "--placer-place-devices: memory must not be negative");
  if (!(problem.memoryPerDevice > 0) || !(problem.bandwidth > 0))
    return mlir::emitError(loc, "--placer-place-devices: a three-dimensional "
                                "plan needs a memory limit (memory= or the "
                                "cluster's) and a link bandwidth");
  llvm::Expected<solver::ParallelPlan> plan =
      solver::planParallel(problem, planOptions);
  if (!plan)
    return mlir::emitError(loc, "--placer-place-devices: ")
           << llvm::toString(plan.takeError());

  // Only once there is a plan: errors leave the module as it was.
  if (settings.devices > accelerators) {
    std::vector<DeviceKind> kinds = cluster.getKinds();
    kinds.front().count = settings.devices;
    setCluster(module,
               ClusterAttr::get(context,
                                Cluster(cluster.getName(), std::move(kinds),
                                        cluster.getDefaultLink(), std::nullopt,
                                        {}, {}, cluster.getTraining())));
  }
  OpBuilder b(context);
  SmallVector<Attribute> stages;
  // From here on devices are the cluster's (the planner numbers its
  // accelerators only).
  for (solver::ParallelStage &stage : plan->stages)
    stage.firstDevice = getClusterDevice(cluster, stage.firstDevice);
  for (const solver::ParallelStage &stage : plan->stages) {
    int64_t first = stage.firstDevice;
    stages.push_back(ParallelStageAttr::get(context, first, stage.tensorDegree,
                                            stage.dataDegree, stage.time,
                                            stage.memory));
    for (auto [k, v] : llvm::enumerate(stage.layers)) {
      Operation *op = nodes[v];
      setDevice(op, first);
      op->setAttr(
          PlacerDialect::TensorConfigAttrHelper::getNameStr(),
          b.getStringAttr(problem.layers[v]
                              .configs.at(stage.tensorDegree)[stage.configs[k]]
                              .id));
      // A configuration that recomputes: the training step built on the
      // placed graph computes the node again in its backward pass.
      if (getConfigAttr(op, stage.tensorDegree, stage.configs[k])
              .getRecompute())
        op->setAttr(kRecomputeAttrName, b.getUnitAttr());
      else
        op->removeAttr(kRecomputeAttrName);
    }
  }
  // Without tensor parallelism a stage's data-parallel copies are the
  // replicated stages --placer-split-devices already builds: each copy
  // points at the stage's first device.
  bool usesTensor = llvm::any_of(
      plan->stages, [](const auto &stage) { return stage.tensorDegree > 1; });
  SmallVector<int64_t> replicaOf;
  bool copies = llvm::any_of(
      plan->stages, [](const auto &stage) { return stage.dataDegree > 1; });
  if (!usesTensor && copies) {
    replicaOf.assign(getCluster(module).getCluster().getNumDevices(), -1);
    for (const solver::ParallelStage &stage : plan->stages)
      for (int64_t copy = 1; copy < stage.dataDegree; ++copy)
        replicaOf[stage.firstDevice + copy] = stage.firstDevice;
  }
  setPlacement(
      module,
      PlacementAttr::get(
          context, objective, "parallel", plan->timePerSample,
          plan->timePerSample,
          /*optimal=*/true, problem.maxDevices, /*cpus=*/0,
          latency ? std::optional<F64>(plan->timePerSample) : std::nullopt,
          // Piper's memory model keeps y microbatches in
          // flight per stage, as 1F1B does.
          solver::Schedule::OneFOneB, problem.microbatches, /*chunks=*/1,
          DenseI64ArrayAttr(),
          replicaOf.empty() ? DenseI64ArrayAttr()
                            : DenseI64ArrayAttr::get(context, replicaOf),
          b.getArrayAttr(stages)));
  // Why tensor parallelism: the best plan without it, where the plan uses
  // it and every layer could run whole.
  std::optional<std::string> withoutTensor;
  llvm::json::Object withoutTensorJson;
  bool canRunWhole = llvm::all_of(problem.layers, [](const auto &layer) {
    return layer.configs.count(1) && !layer.configs.at(1).empty();
  });
  if (usesTensor && canRunWhole) {
    solver::ParallelProblem whole = problem;
    for (solver::ParallelLayer &layer : whole.layers)
      layer.configs = {{1, layer.configs.at(1)}};
    llvm::Expected<solver::ParallelPlan> alone =
        solver::planParallel(whole, planOptions);
    if (alone) {
      withoutTensor = llvm::formatv(
          latency ? "{0} s latency" : "{0} s per sample", alone->timePerSample);
      withoutTensorJson[latency ? "latency" : "time_per_sample"] =
          alone->timePerSample;
    } else {
      std::string why = llvm::toString(alone.takeError());
      withoutTensor = why;
      withoutTensorJson["error"] = why;
    }
  }
  {
    InFlightDiagnostic remark = emitRemark(getModuleRemarkLoc(module));
    remark << "planned " << problem.size() << " layers as "
           << plan->stages.size() << " stages on " << plan->devicesUsed
           << " of " << problem.maxDevices
           << " devices (tensor x data x pipeline): " << plan->timePerSample
           << (latency ? " s latency (one sample)" : " s per sample");
    if (plan->segments > 0)
      remark << "; over " << plan->segments
             << " segments (cut only where one node's outputs alone cross)";
    if (withoutTensor)
      remark << "; without tensor parallelism: " << *withoutTensor;
  }
  llvm::json::Value report = solver::parallelPlanToJson(problem, *plan);
  llvm::json::Object &object = *report.getAsObject();
  if (withoutTensor)
    object["without_tensor_parallelism"] = std::move(withoutTensorJson);
  object["algorithm"] = "parallel";
  if (!latency)
    object["max_load"] = plan->timePerSample;
  object["memory_limit"] = problem.memoryPerDevice;
  if (!problem.kinds.empty()) {
    llvm::json::Array list;
    for (const solver::ParallelDeviceKind &kind : problem.kinds)
      list.push_back(llvm::json::Object{{"name", kind.name},
                                        {"count", kind.count},
                                        {"memory", kind.memoryPerDevice}});
    object["kinds"] = std::move(list);
  }
  object["bandwidth"] = problem.bandwidth;
  if (problem.devicesPerNode > 0) {
    object["devices_per_node"] = problem.devicesPerNode;
    object["intra_node_bandwidth"] = problem.intraNodeBandwidth;
  }
  // Layer names beside the ids the JSON gives.
  if (llvm::json::Array *list = object.getArray("stages"))
    for (auto [i, stage] : llvm::enumerate(plan->stages)) {
      llvm::json::Array names;
      for (int v : stage.layers)
        names.push_back(problem.layers[v].name);
      (*(*list)[i].getAsObject())["names"] = std::move(names);
    }
  return report;
}
