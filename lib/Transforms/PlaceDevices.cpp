//===- PlaceDevices.cpp - The placement pass and the default pipeline -----===//
//
// Adapts the module to the MLIR-free solver: one solver node per placeable
// op, with the times, memory and transfer cost `placer.cost` gives, edges
// from SSA uses, then writes the solver's answer back as `placer.device`.
//
//===----------------------------------------------------------------------===//

#include "placer/Analysis/Cluster.h"
#include "placer/Analysis/CostModel.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Solver/IntegerProgram.h"
#include "placer/Solver/Latency.h"
#include "placer/Solver/Solvers.h"
#include "placer/Solver/Workload.h"
#include "placer/Support/JsonReader.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

namespace placer {
#define GEN_PASS_DEF_PLACEDEVICES
#define GEN_PASS_DEF_PARTITIONDEVICES
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;
using llvm::json::Array;
using llvm::json::Object;

namespace {

constexpr llvm::StringLiteral kDeviceAttr = dist::kDeviceAttrName;
constexpr llvm::StringLiteral kPlacementAttr = "placer.placement";

/// Results small enough to be compile-time constants everywhere they are
/// used (shape arithmetic): replicating them costs nothing worth modeling.
constexpr int64_t kFoldableBytes = 64 * 1024;

/// The placement problem built from a module, and how to map back.
struct ModuleProblem {
  solver::Problem problem;
  /// The op behind each solver node.
  std::vector<Operation *> ops;
  /// Ops kept out of the search (constants, compile-time shape values),
  /// each with the op whose device it follows.
  std::vector<std::pair<Operation *, Operation *>> followers;
  bool isWorkload = false;
};

/// Whether `op`'s results are known at compile time: constants, Shape/Size
/// of statically shaped values, and small ops over such values.
bool isCompileTimeValue(Operation *op,
                        const llvm::DenseSet<Operation *> &known) {
  if (isa<graph::ConstantOp, graph::NoneOp>(op))
    return true;
  auto node = dyn_cast<graph::NodeOp>(op);
  if (!node || node->getNumRegions() != 0 ||
      !(node.getDomain().empty() || node.getDomain() == "ai.onnx"))
    return false;
  int64_t bytes = 0;
  for (Value result : node.getOutputs()) {
    std::optional<int64_t> b = getTypeBytes(result.getType());
    if (!b)
      return false;
    bytes += *b;
  }
  if (bytes > kFoldableBytes)
    return false;
  if (node.getOpType() == "Shape" || node.getOpType() == "Size")
    return llvm::all_of(node.getInputs(), [](Value v) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      return type && type.hasStaticShape();
    });
  return !node.getInputs().empty() &&
         llvm::all_of(node.getInputs(), [&](Value v) {
           Operation *def = v.getDefiningOp();
           return def && known.contains(def);
         });
}

double getTime(DictionaryAttr cost, StringRef kind) {
  auto times = cost.getAs<DictionaryAttr>("time");
  auto time = times ? times.getAs<FloatAttr>(kind) : FloatAttr();
  return time ? time.getValueAsDouble() : solver::kInfinity;
}

int64_t getIntAttr(DictionaryAttr dict, StringRef name, int64_t fallback) {
  if (!dict)
    return fallback;
  auto attr = dict.getAs<IntegerAttr>(name);
  return attr ? attr.getInt() : fallback;
}

FailureOr<ModuleProblem> buildProblem(ModuleOp module,
                                      const DeviceKind *accelerator,
                                      const DeviceKind *cpu) {
  ModuleProblem result;
  llvm::DenseMap<Operation *, int> nodeOf;
  llvm::DenseSet<Operation *> compileTime;
  for (auto func : module.getOps<func::FuncOp>()) {
    for (Operation &op : func.getBody().getOps()) {
      if (op.hasTrait<OpTrait::IsTerminator>())
        continue;
      if (isCompileTimeValue(&op, compileTime)) {
        compileTime.insert(&op);
        continue;
      }
      auto cost = op.getAttrOfType<DictionaryAttr>(costattrs::kCost);
      if (!cost)
        return op.emitError("has no placer.cost: run --placer-estimate-costs "
                            "first (or --partition-devices)");
      solver::Node node;
      auto graphNode = dyn_cast<graph::NodeOp>(op);
      node.name = graphNode ? graphNode.getDisplayName().str()
                            : op.getName().getStringRef().str();
      DictionaryAttr attrs = graphNode ? graphNode.getAttrs() : DictionaryAttr();
      node.id = getIntAttr(attrs, "id", result.problem.size());
      result.isWorkload |= graphNode && graphNode.getDomain() == "placer.workload";
      node.acceleratorTime = accelerator ? getTime(cost, accelerator->name) : 0;
      node.cpuTime = cpu ? getTime(cost, cpu->name) : solver::kInfinity;
      int64_t params = getIntAttr(cost, "training_param_bytes",
                                  getIntAttr(cost, "param_bytes", 0));
      node.memory = static_cast<double>(params);
      auto transfer = cost.getAs<FloatAttr>("transfer_time");
      node.transferCost = transfer ? transfer.getValueAsDouble() : 0.0;
      node.supported = getIntAttr(attrs, "supported", 1) != 0 &&
                       node.acceleratorTime < solver::kInfinity;
      node.backward = getIntAttr(attrs, "backward", 0) != 0;
      node.colorClass = getIntAttr(attrs, "color_class", -1);
      nodeOf[&op] = result.problem.size();
      result.problem.nodes.push_back(node);
      result.problem.successors.emplace_back();
      result.ops.push_back(&op);
    }
  }
  // Edges: SSA uses, a use inside a region counting for the op that holds
  // it. Compile-time values follow their first consumer.
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
  llvm::DenseMap<Operation *, Operation *> leader;
  for (auto [index, op] : llvm::enumerate(result.ops))
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (compileTime.contains(def))
            leader.try_emplace(def, op);
    });
  // Constants feeding only other compile-time values follow their leader.
  for (auto func : module.getOps<func::FuncOp>())
    for (Operation &op : llvm::reverse(func.getBody().front())) {
      if (!compileTime.contains(&op))
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
    devices.push_back(Object{
        {"device", clusterDevice[d]},
        {"kind",
         cluster.getKinds()[cluster.getKindOfDevice(clusterDevice[d])].name},
        {"compute", r.compute},
        {"communication_in", r.communicationIn},
        {"communication_out", r.communicationOut},
        {"load", r.load},
        {"memory", r.memory},
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
    if (auto device = op->getAttrOfType<IntegerAttr>(kDeviceAttr))
      assignment[*name] = device.getInt();
  }
  double gap = solution.maxLoad > 0
                   ? (solution.maxLoad - solution.lowerBound) / solution.maxLoad
                   : 0.0;
  return Object{{"objective", "throughput"},
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
                {"devices", std::move(devices)},
                {"assignment", std::move(assignment)}};
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

LogicalResult writeJson(Location loc, StringRef path, llvm::json::Value value,
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
    : public placer::impl::PlaceDevicesBase<PlaceDevicesPass> {
  using PlaceDevicesBase::PlaceDevicesBase;

  /// What CBC said, for the report (algorithm=ip).
  std::optional<solver::IPResult> lastIP;

  bool isLatency() const { return objective == "latency"; }

  /// `auto`: the exact method of each objective.
  std::string chosenAlgorithm() const {
    if (algorithm != "auto")
      return algorithm;
    return isLatency() ? "ip" : "dp";
  }

  int callsPerAccelerator() const {
    return static_cast<int>(std::min<int64_t>(calls, 1 << 20));
  }

  solver::IPOptions ipOptions() const {
    solver::IPOptions options;
    options.contiguous = contiguous;
    options.timeLimitSeconds = timeLimit;
    options.relativeGap = gap;
    options.threads = static_cast<int>(std::min<int64_t>(threads, 1024));
    options.exportPath = exportLp;
    options.callsPerAccelerator = callsPerAccelerator();
    options.progressSeconds = progress;
    return options;
  }

  solver::Solution solve(const solver::Problem &problem,
                         const ModuleProblem &mp, std::string &error) {
    if (!isLatency())
      return solveThroughput(problem, chosenAlgorithm(), error);
    std::string chosen = chosenAlgorithm();
    solver::LatencyOptions latencyOptions;
    latencyOptions.callsPerAccelerator = callsPerAccelerator();
    if (chosen == "greedy")
      return solver::solveLatencyGreedy(problem, latencyOptions);
    if (chosen == "ip") {
      // The heuristic's placement is CBC's first incumbent and fixes the
      // model's time horizon.
      solver::Solution start =
          solver::solveLatencyGreedy(problem, latencyOptions);
      solver::IPOptions options = ipOptions();
      if (start.latency < solver::kInfinity) {
        options.warmStart = &start.assignment;
        options.warmStartCalls = &start.calls;
      }
      solver::IPResult result = solver::solveLatencyIP(problem, options);
      lastIP = result;
      return result.solution;
    }
    // Throughput placements (the DP's, a split file's) scored for latency.
    solver::Solution solution = solveThroughput(problem, chosen, error);
    solver::scoreLatency(problem, solution);
    solution.lowerBound = solver::latencyLowerBound(problem);
    return solution;
  }

  solver::Solution solveThroughput(const solver::Problem &problem,
                                   const std::string &algorithm,
                                   std::string &error) {
    if (algorithm == "dp") {
      solver::DPOptions options;
      options.idealLimit = idealLimit;
      return solver::solveIdealDP(problem, options);
    }
    if (algorithm == "ip") {
      // The DP's split (contiguous, so feasible for both variants) starts
      // CBC off with a good incumbent.
      solver::DPOptions dpOptions;
      dpOptions.idealLimit = idealLimit;
      solver::Solution start = solver::solveIdealDP(problem, dpOptions);
      solver::IPOptions options = ipOptions();
      if (start.feasible())
        options.warmStart = &start.assignment;
      solver::IPResult result = solver::solveThroughputIP(problem, options);
      lastIP = result;
      return result.solution;
    }
    if (algorithm == "pipedream")
      return solver::solvePipeDream(problem);
    if (algorithm == "greedy")
      return solver::solveGreedy(problem);
    if (algorithm == "single")
      return solver::solveSingleDevice(problem);
    if (algorithm == "split-file") {
      solver::Solution solution;
      solution.algorithm = "split-file";
      solution.lowerBound = solver::lowerBound(problem);
      if (splitIn.empty()) {
        error = "algorithm=split-file needs split-in=FILE";
        return solution;
      }
      llvm::Expected<solver::Assignment> read =
          solver::readSplitFile(problem, splitIn);
      if (!read) {
        error = llvm::toString(read.takeError());
        return solution;
      }
      solver::Evaluation evaluation = solver::evaluate(problem, *read);
      if (!evaluation.feasible()) {
        error = splitIn + ": the split is infeasible: " + evaluation.violation;
        return solution;
      }
      solution.assignment = *read;
      solution.maxLoad = evaluation.maxLoad;
      return solution;
    }
    error = "unknown algorithm '" + algorithm +
            "' (auto, dp, ip, pipedream, greedy, single, split-file)";
    return {};
  }

  /// The smallest memory per accelerator for which `algorithm` finds a
  /// split, to 0.1%; infinity when none exists at any size. For latency,
  /// the DP's: a pipeline stage is a convex call, so where the DP fits, a
  /// latency placement does too.
  double smallestFittingMemory(solver::Problem problem,
                               const ModuleProblem &mp) {
    double total = 0;
    for (const solver::Node &node : problem.nodes)
      total += node.memory;
    std::string ignored;
    auto fits = [&] {
      return isLatency() ? solveThroughput(problem, "dp", ignored).feasible()
                         : solve(problem, mp, ignored).feasible();
    };
    problem.memoryLimit = total;
    if (!fits())
      return solver::kInfinity;
    double low = 0, high = total;
    while (high - low > 1e-3 * high) {
      problem.memoryLimit = (low + high) / 2;
      (fits() ? high : low) = problem.memoryLimit;
    }
    return high;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Location loc = module.getLoc();
    auto clusterText = module->getAttrOfType<StringAttr>(costattrs::kCluster);
    if (!clusterText) {
      emitError(loc, "--placer-place-devices: the module has no "
                     "placer.cluster: run --placer-estimate-costs first (or "
                     "--partition-devices)");
      return signalPassFailure();
    }
    llvm::Expected<Cluster> cluster =
        Cluster::parse(clusterText.getValue(), "placer.cluster");
    if (!cluster) {
      emitError(loc, "--placer-place-devices: ")
          << llvm::toString(cluster.takeError());
      return signalPassFailure();
    }
    const DeviceKind *accelerator = nullptr, *cpu = nullptr;
    int64_t firstAccelerator = 0, firstCpu = 0, offset = 0;
    for (const DeviceKind &kind : cluster->getKinds()) {
      if (kind.isAccelerator && !accelerator)
        accelerator = &kind, firstAccelerator = offset;
      if (!kind.isAccelerator && !cpu)
        cpu = &kind, firstCpu = offset;
      offset += kind.count;
    }

    FailureOr<ModuleProblem> built =
        buildProblem(module, accelerator, cpu);
    if (failed(built))
      return signalPassFailure();
    ModuleProblem &mp = *built;
    solver::Problem &problem = mp.problem;

    int64_t k = devices > 0 ? devices : (accelerator ? accelerator->count : 0);
    int64_t l = cpus >= 0 ? cpus : (mp.isWorkload && cpu ? cpu->count : 0);
    if (devices < 0 || (k > 0 && (!accelerator || k > accelerator->count))) {
      emitError(loc, "--placer-place-devices: devices=")
          << static_cast<int64_t>(devices) << ": the cluster has "
          << (accelerator ? accelerator->count : 0) << " accelerators";
      return signalPassFailure();
    }
    if (l > 0 && (!cpu || l > cpu->count)) {
      emitError(loc, "--placer-place-devices: cpus=")
          << l << ": the cluster has " << (cpu ? cpu->count : 0)
          << " CPU cores";
      return signalPassFailure();
    }
    if (k + l == 0) {
      emitError(loc, "--placer-place-devices: no device to place on");
      return signalPassFailure();
    }
    if (memory < 0) {
      emitError(loc, "--placer-place-devices: memory must not be negative");
      return signalPassFailure();
    }
    problem.numAccelerators = static_cast<int>(k);
    problem.numCpus = static_cast<int>(l);
    problem.memoryLimit = memory > 0 ? memory
                          : accelerator && accelerator->memoryCapacity > 0
                              ? accelerator->memoryCapacity
                              : solver::kInfinity;

    if (objective != "throughput" && objective != "latency") {
      emitError(loc, "--placer-place-devices: unknown objective '")
          << objective << "' (throughput, latency)";
      return signalPassFailure();
    }
    if (calls < 1) {
      emitError(loc, "--placer-place-devices: calls=")
          << static_cast<int64_t>(calls) << ": an accelerator makes at least "
          << "one call";
      return signalPassFailure();
    }
    if (timeLimit <= 0 || gap < 0 || threads < 1 || progress < 0) {
      emitError(loc, "--placer-place-devices: time-limit must be positive, "
                     "gap and progress not negative, threads at least 1");
      return signalPassFailure();
    }
    if (!exportLp.empty() && chosenAlgorithm() != "ip") {
      emitError(loc, "--placer-place-devices: export-lp needs algorithm=ip");
      return signalPassFailure();
    }
    std::string error;
    solver::Solution solution = solve(problem, mp, error);
    if (!error.empty()) {
      emitError(loc, "--placer-place-devices: ") << error;
      return signalPassFailure();
    }
    if (lastIP && lastIP->status == "exported") {
      emitRemark(loc) << "wrote the "
                      << (isLatency()  ? "latency"
                          : contiguous ? "contiguous throughput"
                                       : "throughput")
                      << " model (" << lastIP->variables
                      << " variables, " << lastIP->constraints
                      << " constraints) to " << exportLp
                      << " without solving it";
      return;
    }
    if (lastIP && lastIP->status == "infeasible") {
      emitError(loc, "--placer-place-devices: CBC proved the model "
                     "infeasible: no placement on ")
          << k << " accelerators and " << l << " CPU cores fits in "
          << llvm::formatv("{0:F0}", problem.memoryLimit)
          << " bytes per accelerator";
      return signalPassFailure();
    }
    if (!solution.feasible()) {
      double fits = smallestFittingMemory(problem, mp);
      auto diag = emitError(loc, "--placer-place-devices: no split on ")
                  << k << " accelerators and " << l << " CPU cores fits in "
                  << llvm::formatv("{0:F0}", problem.memoryLimit)
                  << " bytes per accelerator";
      if (fits < solver::kInfinity)
        diag << "; the smallest memory per accelerator that fits is "
             << llvm::formatv("{0:F0}", std::ceil(fits)) << " bytes";
      else
        diag << " at any memory size (ops that cannot run on an "
                "accelerator need a CPU core: cpus=N)";
      return signalPassFailure();
    }

    // Solver devices -> the cluster's device list.
    std::vector<int64_t> clusterDevice(problem.numDevices());
    for (int d = 0; d < problem.numDevices(); ++d)
      clusterDevice[d] = problem.isAccelerator(d)
                             ? firstAccelerator + d
                             : firstCpu + (d - problem.numAccelerators);
    Builder b(module.getContext());
    for (auto [index, op] : llvm::enumerate(mp.ops))
      op->setAttr(kDeviceAttr, b.getI64IntegerAttr(
                                   clusterDevice[solution.assignment[index]]));
    for (auto [op, follow] : mp.followers) {
      IntegerAttr device =
          follow ? follow->getAttrOfType<IntegerAttr>(kDeviceAttr)
                 : b.getI64IntegerAttr(clusterDevice[0]);
      op->setAttr(kDeviceAttr, device);
    }
    solver::Evaluation evaluation = solver::evaluate(problem, solution.assignment);
    SmallVector<NamedAttribute> summary = {
        b.getNamedAttr("objective", b.getStringAttr(objective)),
        b.getNamedAttr("algorithm", b.getStringAttr(solution.algorithm)),
        b.getNamedAttr("max_load", b.getF64FloatAttr(solution.maxLoad)),
        b.getNamedAttr("lower_bound", b.getF64FloatAttr(solution.lowerBound)),
        b.getNamedAttr("optimal", b.getBoolAttr(solution.optimal)),
        b.getNamedAttr("accelerators", b.getI64IntegerAttr(k)),
        b.getNamedAttr("cpus", b.getI64IntegerAttr(l))};
    if (isLatency())
      summary.push_back(
          b.getNamedAttr("latency", b.getF64FloatAttr(solution.latency)));
    module->setAttr(kPlacementAttr, b.getDictionaryAttr(summary));
    auto remark = emitRemark(loc) << "placed " << problem.size() << " ops on "
                                  << k << " accelerators and " << l
                                  << " CPU cores with " << solution.algorithm
                                  << ": ";
    if (isLatency())
      remark << "latency " << formatNumber(solution.latency) << " (lower bound "
             << formatNumber(solution.lowerBound) << "), max load "
             << formatNumber(solution.maxLoad);
    else
      remark << "max load " << formatNumber(solution.maxLoad)
             << " (lower bound " << formatNumber(solution.lowerBound) << ")";
    if (solution.numIdeals)
      remark << ", " << solution.numIdeals << " ideals";
    if (!solution.note.empty())
      remark << "; " << solution.note;
    if (lastIP)
      remark << " (best bound " << formatNumber(lastIP->bestBound) << ", gap "
             << formatNumber(lastIP->gap) << ", " << formatNumber(solution.seconds)
             << " s)";

    if (!report.empty()) {
      llvm::json::Value json =
          makeReport(mp, solution, evaluation, clusterDevice, *cluster);
      if (isLatency())
        addLatencyReport(*json.getAsObject(), problem, solution, clusterDevice);
      if (lastIP) {
        llvm::json::Object &object = *json.getAsObject();
        object["solver_status"] = lastIP->status;
        object["best_bound"] = lastIP->bestBound;
        object["gap"] = lastIP->gap;
        object["variables"] = lastIP->variables;
        object["constraints"] = lastIP->constraints;
        if (!isLatency())
          object["contiguous"] = static_cast<bool>(contiguous);
      }
      if (failed(writeJson(loc, report, std::move(json),
                           "--placer-place-devices: report")))
        return signalPassFailure();
    }
    if (!exportSplit.empty()) {
      llvm::json::Value split = solver::splitToJson(
          problem, solution.assignment, solution.maxLoad);
      if (isLatency())
        (*split.getAsObject())["totalLatency"] = solution.latency;
      if (failed(writeJson(loc, exportSplit, std::move(split),
                           "--placer-place-devices: export-split")))
        return signalPassFailure();
    }
  }
};

struct PartitionDevicesPass
    : public placer::impl::PartitionDevicesBase<PartitionDevicesPass> {
  using PartitionDevicesBase::PartitionDevicesBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<dist::DistDialect>();
  }

  /// `--partition-devices=4` means devices=4.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    StringRef trimmed = options.trim();
    StringRef first = trimmed.take_until([](char c) { return c == ' '; });
    std::string rewritten;
    if (!first.empty() && llvm::all_of(first, llvm::isDigit))
      rewritten = ("devices=" + trimmed).str();
    return PartitionDevicesBase::initializeOptions(
        rewritten.empty() ? options : StringRef(rewritten), errorHandler);
  }

  void runOnOperation() override {
    OpPassManager pipeline(ModuleOp::getOperationName());
    EstimateCostsOptions costs;
    costs.cluster = cluster;
    costs.training = training;
    pipeline.addPass(createEstimateCosts(costs));
    PlaceDevicesOptions place;
    place.devices = devices;
    place.cpus = cpus;
    place.memory = memory;
    place.algorithm = algorithm;
    place.idealLimit = idealLimit;
    place.splitIn = splitIn;
    place.report = report;
    place.exportSplit = exportSplit;
    place.contiguous = contiguous;
    place.timeLimit = timeLimit;
    place.gap = gap;
    place.threads = threads;
    place.exportLp = exportLp;
    place.objective = objective;
    place.calls = calls;
    place.progress = progress;
    pipeline.addPass(createPlaceDevices(place));
    if (split && exportLp.empty())
      pipeline.addPass(createSplitDevices());
    if (failed(runPipeline(pipeline, getOperation())))
      signalPassFailure();
  }
};

} // namespace
