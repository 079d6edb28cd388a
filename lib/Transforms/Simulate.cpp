//===- Simulate.cpp - Event-driven execution of a split program -----------===//
//
// Every device runs its stage function once per microbatch, op by op, in
// order. The simulation always advances the device whose next op can start
// earliest among those whose inputs are known, so events are produced in
// time order per device and per link. docs/Simulator.md states the model.
//
//===----------------------------------------------------------------------===//

#include "placer/Analysis/Cluster.h"
#include "placer/Analysis/CostModel.h"
#include "placer/Solver/Memory.h"
#include "placer/Analysis/OpRoles.h"
#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Support/Format.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

#include "llvm/ADT/DenseSet.h"

#include <map>

namespace placer {
#define GEN_PASS_DEF_SIMULATE
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;

namespace {

struct Event {
  int64_t device;       ///< device index (transfers: the sender)
  int64_t microbatch;
  double start, end;
  std::string name;
  bool transfer;
  int64_t peer = -1;    ///< transfers: the receiver
};

struct Stage {
  func::FuncOp func;
  int64_t device;
  std::string kind;
  bool accelerator;
  SmallVector<Operation *> ops; ///< top-level ops, terminator excluded
  OpRoles roles;
};

class Simulator {
public:
  Simulator(const Cluster &cluster, bool overlap)
      : cluster(cluster), overlap(overlap) {}

  LogicalResult run(std::vector<Stage> &stages, int64_t microbatches);

  std::vector<Event> events;
  std::vector<double> busy;            ///< per stage
  std::vector<double> sampleFinish;    ///< per microbatch: last op's end
  double makespan = 0;

private:
  double opTime(Operation *op, const Stage &stage);
  double transferTime(dist::SendOp send, int64_t from, int64_t to);

  const Cluster &cluster;
  bool overlap;
};

double Simulator::opTime(Operation *op, const Stage &stage) {
  CostAttr cost = getCost(op);
  if (!cost || !stage.roles.isPlaced(op))
    return 0.0; // copies of compile-time values: no kernel
  return cost.getTimeOn(stage.kind).value_or(0.0);
}

double Simulator::transferTime(dist::SendOp send, int64_t from, int64_t to) {
  if (std::optional<int64_t> bytes = getTypeBytes(send.getValue().getType()))
    return cluster.transferTime(static_cast<double>(*bytes), from, to);
  // Workload tensors have no size: the model's c(u) of the producer.
  Operation *producer = send.getValue().getDefiningOp();
  CostAttr cost = producer ? getCost(producer) : CostAttr();
  return cost ? cost.getTransferTime() : 0.0;
}

LogicalResult Simulator::run(std::vector<Stage> &stages, int64_t microbatches) {
  size_t n = stages.size();
  std::vector<double> deviceFree(n, 0.0);
  std::vector<size_t> pc(n, 0);       // next op index
  std::vector<int64_t> mb(n, 0);      // its microbatch
  std::map<std::pair<int64_t, int64_t>, double> linkFree;
  // Arrival of (channel, microbatch) at its receiver, once sent.
  std::map<std::pair<int64_t, int64_t>, double> arrival;
  // When each value of a stage is ready, per microbatch (local values).
  std::vector<llvm::DenseMap<Value, double>> ready(n);
  // Values a stage has already paid to send in this microbatch.
  std::vector<llvm::DenseSet<Value>> sentFrom(n);
  busy.assign(n, 0.0);
  sampleFinish.assign(microbatches, 0.0);
  // The send of each channel, found once: a serialized recv costs the
  // receiver as long as that send's transfer.
  std::map<int64_t, std::pair<dist::SendOp, int64_t>> sendOf;
  for (const Stage &stage : stages)
    for (Operation *op : stage.ops)
      if (auto send = dyn_cast<dist::SendOp>(op))
        sendOf[send.getChannel()] = {send, stage.device};

  auto inputsReady = [&](size_t s, Operation *op, double &when) {
    when = 0.0;
    if (auto recv = dyn_cast<dist::RecvOp>(op)) {
      auto it = arrival.find({recv.getChannel(), mb[s]});
      if (it == arrival.end())
        return false;
      when = it->second;
      return true;
    }
    for (Value v : op->getOperands()) {
      auto it = ready[s].find(v);
      if (it != ready[s].end())
        when = std::max(when, it->second);
    }
    return true;
  };

  size_t remaining = 0;
  for (const Stage &stage : stages)
    remaining += stage.ops.size() * microbatches;
  while (remaining > 0) {
    // The device whose next op can start earliest.
    int best = -1;
    double bestStart = 0, bestWhen = 0;
    for (size_t s = 0; s < n; ++s) {
      if (mb[s] >= microbatches)
        continue;
      double when;
      if (!inputsReady(s, stages[s].ops[pc[s]], when))
        continue;
      double start = std::max(deviceFree[s], when);
      if (best < 0 || start < bestStart)
        best = s, bestStart = start, bestWhen = when;
    }
    if (best < 0)
      return failure(); // the verifier rules this out: a deadlock
    size_t s = best;
    Stage &stage = stages[s];
    Operation *op = stage.ops[pc[s]];
    double when = bestWhen, start = bestStart;

    if (auto send = dyn_cast<dist::SendOp>(op)) {
      int64_t to = send.getPeer();
      double duration = transferTime(send, stage.device, to);
      double &link = linkFree[{stage.device, to}];
      // Overlapped: the link moves it while the device computes on.
      // Serialized (the model): an accelerator is busy while its output
      // leaves, once per value however many devices receive it; CPU cores
      // pay nothing.
      bool charged = !overlap && stage.accelerator &&
                     sentFrom[s].insert(send.getValue()).second;
      double begin = charged ? std::max(start, link) : std::max(when, link);
      double end = begin + duration;
      link = end;
      arrival[{send.getChannel(), mb[s]}] = end;
      if (charged) {
        deviceFree[s] = end;
        busy[s] += duration;
      }
      events.push_back(Event{stage.device, mb[s], begin, end,
                             "send " + std::to_string(send.getChannel()),
                             true, to});
    } else if (auto recv = dyn_cast<dist::RecvOp>(op)) {
      double end = start;
      if (!overlap && stage.accelerator) {
        // Serialized: receiving occupies the receiver as long as sending
        // did the sender.
        auto it = sendOf.find(recv.getChannel());
        double duration =
            it == sendOf.end()
                ? 0.0
                : transferTime(it->second.first, it->second.second,
                               stage.device);
        end = start + duration;
        busy[s] += duration;
        deviceFree[s] = end;
      }
      ready[s][recv.getResult()] = end;
    } else {
      double duration = opTime(op, stage);
      double end = start + duration;
      deviceFree[s] = end;
      busy[s] += duration;
      for (Value result : op->getResults())
        ready[s][result] = end;
      if (duration > 0) {
        auto node = dyn_cast<graph::NodeOp>(op);
        events.push_back(Event{stage.device, mb[s], start, end,
                               node ? node.getDisplayName().str()
                                    : op->getName().getStringRef().str(),
                               false});
      }
      sampleFinish[mb[s]] = std::max(sampleFinish[mb[s]], end);
      makespan = std::max(makespan, end);
    }
    sampleFinish[mb[s]] = std::max(sampleFinish[mb[s]], deviceFree[s]);
    makespan = std::max(makespan, deviceFree[s]);
    --remaining;
    if (++pc[s] == stage.ops.size()) {
      pc[s] = 0;
      ready[s].clear();
      sentFrom[s].clear();
      ++mb[s];
    }
  }
  return success();
}

/// A self-contained SVG: one row per device, compute bars coloured by
/// microbatch, transfers as thin bars under the sender's row.
std::string renderTimeline(const std::vector<Stage> &stages,
                           const std::vector<Event> &events, double makespan,
                           int64_t microbatches) {
  const double width = 1000, rowHeight = 36, left = 90, top = 30;
  double scale = makespan > 0 ? width / makespan : 1.0;
  std::map<int64_t, size_t> row;
  for (auto [i, stage] : llvm::enumerate(stages))
    row[stage.device] = i;
  std::string svg;
  llvm::raw_string_ostream os(svg);
  double height = top + rowHeight * stages.size() + 30;
  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                      "height=\"{1}\" font-family=\"sans-serif\" "
                      "font-size=\"11\">\n",
                      left + width + 20, height);
  os << llvm::formatv("<text x=\"{0}\" y=\"18\">pipeline timeline: {1} "
                      "microbatch(es), {2} s</text>\n",
                      left, microbatches, formatNumber(makespan));
  for (auto [i, stage] : llvm::enumerate(stages))
    os << llvm::formatv("<text x=\"4\" y=\"{0}\">device {1}</text>\n",
                        top + rowHeight * i + 16, stage.device);
  for (const Event &e : events) {
    double x = left + e.start * scale;
    double w = std::max(0.5, (e.end - e.start) * scale);
    double y = top + rowHeight * row[e.device] + (e.transfer ? 24 : 2);
    double h = e.transfer ? 6 : 20;
    int hue = static_cast<int>((e.microbatch * 67) % 360);
    os << llvm::formatv(
        "<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
        "fill=\"hsl({4},{5}%,{6}%)\" stroke=\"#333\" stroke-width=\"0.3\">"
        "<title>{7} (microbatch {8}): {9} - {10} s</title></rect>\n",
        x, y, w, h, hue, e.transfer ? 30 : 65, e.transfer ? 40 : 55,
        e.transfer ? e.name + " to device " + std::to_string(e.peer) : e.name,
        e.microbatch, formatNumber(e.start), formatNumber(e.end));
  }
  os << "</svg>\n";
  return svg;
}

/// Weights and peak activation bytes of a stage for one microbatch, by the
/// memory analysis (Memory.h): its ops in order, received tensors produced
/// by their recv, sent and returned tensors kept to the end. Compile-time
/// copies hold no activation (their bytes are weights of their consumers).
/// In-order pipelining keeps one microbatch per device, but tensors of the
/// next one that arrive early wait in buffers not counted here.
std::pair<int64_t, int64_t> peakMemory(const Stage &stage) {
  solver::MemoryGraph graph;
  llvm::DenseMap<Operation *, int> nodeOf;
  std::vector<int> order;
  for (Operation *op : stage.ops) {
    if (isa<dist::SendOp>(op))
      continue; // its operand leaves the device: see below
    int node = graph.size();
    nodeOf[op] = node;
    CostAttr cost = getCost(op);
    bool placed = stage.roles.isPlaced(op);
    graph.paramBytes.push_back(cost && placed ? cost.getParamBytes() : 0);
    int64_t bytes = 0;
    if (placed)
      for (Value result : op->getResults())
        bytes += getActivationBytes(result);
    graph.outputBytes.push_back(bytes);
    graph.successors.emplace_back();
    if (placed)
      order.push_back(node);
  }
  // Users off the device (sends, the return) are one node outside `order`.
  int away = graph.size();
  graph.paramBytes.push_back(0);
  graph.outputBytes.push_back(0);
  graph.successors.emplace_back();
  for (Operation *op : stage.ops) {
    auto self = nodeOf.find(op);
    if (self == nodeOf.end())
      continue; // a send
    int node = self->second;
    for (Operation *user : op->getUsers()) {
      auto it = nodeOf.find(user);
      int to = it == nodeOf.end() ? away : it->second;
      if (!llvm::is_contained(graph.successors[node], to))
        graph.successors[node].push_back(to);
    }
  }
  solver::MemoryUsage usage = solver::getPeakInferenceMemory(graph, order);
  return {std::llround(usage.weights), std::llround(usage.activations)};
}

struct SimulatePass : public placer::impl::SimulateBase<SimulatePass> {
  using SimulateBase::SimulateBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Location loc = module.getLoc();
    auto programs = llvm::to_vector(module.getOps<dist::ProgramOp>());
    if (programs.size() != 1 || !getCluster(module)) {
      emitError(loc, "--placer-simulate needs a placed and split module (one "
                     "dist.program and placer.cluster): run "
                     "--partition-devices first");
      return signalPassFailure();
    }
    if (microbatches < 1) {
      emitError(loc, "--placer-simulate: microbatches must be at least 1");
      return signalPassFailure();
    }
    Cluster cluster = getCluster(module).getCluster();
    dist::ProgramOp program = programs.front();
    std::vector<Stage> stages;
    for (auto [ref, device] :
         llvm::zip(program.getStages(), program.getDevices())) {
      auto func = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          program, cast<SymbolRefAttr>(ref));
      const DeviceKind &kind =
          cluster.getKinds()[cluster.getKindOfDevice(device)];
      Stage stage{func, device, kind.name, kind.isAccelerator, {},
                  OpRoles(func.getBody().front())};
      for (Operation &op : func.getBody().front().without_terminator())
        stage.ops.push_back(&op);
      stages.push_back(std::move(stage));
    }

    Simulator simulator(cluster, overlap);
    if (failed(simulator.run(stages, microbatches))) {
      emitError(loc, "--placer-simulate: the stages deadlock");
      return signalPassFailure();
    }
    double latency = simulator.sampleFinish.front();
    double perSample =
        microbatches > 1
            ? (simulator.sampleFinish.back() - simulator.sampleFinish.front()) /
                  (microbatches - 1)
            : latency;
    emitRemark(loc) << "simulated " << static_cast<int64_t>(microbatches)
                    << " microbatch(es) on "
                    << stages.size() << " devices ("
                    << (overlap ? "transfers overlap compute"
                                : "transfers serialized")
                    << "): latency " << formatNumber(latency)
                    << ", total " << formatNumber(simulator.makespan)
                    << ", steady-state time per sample "
                    << formatNumber(perSample);

    if (!report.empty()) {
      llvm::json::Array devices, events;
      for (auto [i, stage] : llvm::enumerate(stages)) {
        auto [params, activations] = peakMemory(stage);
        devices.push_back(llvm::json::Object{
            {"device", stage.device},
            {"busy", simulator.busy[i]},
            {"idle", simulator.makespan - simulator.busy[i]},
            {"param_bytes", params},
            {"peak_activation_bytes", activations},
            {"peak_bytes", params + activations}});
      }
      for (const Event &e : simulator.events)
        events.push_back(llvm::json::Object{{"device", e.device},
                                            {"microbatch", e.microbatch},
                                            {"name", e.name},
                                            {"transfer", e.transfer},
                                            {"start", e.start},
                                            {"end", e.end}});
      llvm::json::Array sampleFinish;
      for (double t : simulator.sampleFinish)
        sampleFinish.push_back(t);
      llvm::json::Object root{{"microbatches", static_cast<int64_t>(microbatches)},
                              {"overlap", static_cast<bool>(overlap)},
                              {"latency", latency},
                              {"total", simulator.makespan},
                              {"time_per_sample", perSample},
                              {"sample_finish", std::move(sampleFinish)},
                              {"devices", std::move(devices)},
                              {"events", std::move(events)}};
      if (failed(write(report, llvm::formatv("{0:2}",
                                             llvm::json::Value(std::move(root)))
                                   .str())))
        return signalPassFailure();
    }
    if (!timeline.empty() &&
        failed(write(timeline, renderTimeline(stages, simulator.events,
                                              simulator.makespan,
                                              microbatches))))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  LogicalResult write(StringRef path, StringRef text) {
    std::string error;
    auto file = openOutputFile(path, &error);
    if (!file)
      return emitError(getOperation().getLoc(), "--placer-simulate: ") << error;
    file->os() << text << "\n";
    file->keep();
    return success();
  }
};

} // namespace
