//===- Simulate.cpp - Event-driven execution of a split program -----------===//
//
// Every device runs its stage function once per microbatch (under a
// chunked schedule, each of its chunks' ops in the schedule's order), op by
// op, in order. The simulation always advances the device whose next op can
// start earliest among those whose inputs are known, so events are produced in
// time order per device and per link. docs/Simulator.md states the model.
//
//===----------------------------------------------------------------------===//

#include "PlaceParallel.h"
#include "placer/Analysis/Cluster.h"
#include "placer/Analysis/CostModel.h"
#include "placer/Analysis/OpNames.h"
#include "placer/Analysis/OpRoles.h"
#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Solver/Memory.h"
#include "placer/Solver/PipelineSchedule.h"
#include "placer/Support/Format.h"
#include "placer/Support/Graph.h"
#include "placer/Transforms/Gradients.h"
#include "placer/Transforms/Passes.h"
#include "placer/Transforms/Reports.h"
#include "placer/Transforms/Simulation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

#include "llvm/ADT/DenseSet.h"

#include <map>
#include <set>
#include <tuple>

namespace placer {
#define GEN_PASS_DEF_SIMULATE
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;

namespace {

/// The parts of a training step, as the pipeline schedules name them
/// (solver::WorkKind): forward, backward and, where the schedule runs it
/// apart, the backward pass's weight-gradient part. Inference programs only
/// run forward.
using Phase = solver::WorkKind;

StringRef getPhaseName(Phase phase) {
  switch (phase) {
  case Phase::Forward:
    return "forward";
  case Phase::Backward:
    break;
  case Phase::Weight:
    return "weight";
  }
  return "backward";
}

struct Event {
  int64_t device;       ///< device index (transfers: the sender)
  int64_t microbatch;
  double start, end;
  std::string name;
  bool transfer;
  Phase phase;
  int64_t peer = -1;    ///< transfers: the receiver
  int64_t chunk = -1;   ///< the sender's or runner's chunk, if chunked
};

/// One thing a device does per microbatch: run an op, start a transfer,
/// or take one in.
struct Step {
  enum class Kind { Compute, Send, Recv };
  Kind kind;
  /// Compute: the op's seconds. Send and Recv: the transfer's seconds (a
  /// serialized receiver is busy that long).
  double time = 0;
  /// Send and Recv: the channel, which a gradient flowing back reuses
  /// against its direction (`gradient`).
  int64_t channel = -1;
  bool gradient = false;
  /// Send: the receiver's stage (its first device); Recv: the sender's.
  /// A replicated stage's copy takes the microbatch (Simulator::route).
  int64_t peer = -1;
  /// Send and Recv: bytes that cross, for links other than the stage
  /// devices' own; -1 when unknown (workloads: `time` is c(u)).
  double bytes = -1;
  /// Send: the step whose value it sends (a value leaves once per device,
  /// however many receive it).
  int value = -1;
  /// Steps of the same task whose results it needs.
  SmallVector<int, 4> inputs;
  std::string name;
};

/// What one device runs of the program: its stage function, or under a
/// chunked schedule (interleaved, ZB-V) the ops of one of its chunks.
struct Stage {
  int64_t device;
  std::string kind;
  bool accelerator;
  /// A replicated stage: the device of its first copy (its own for that
  /// one), which copy this is and how many there are; copy i takes the
  /// microbatches m with m mod replicas = i.
  int64_t leader = -1;
  int64_t replica = 0, replicas = 1;
  SmallVector<Operation *> ops; ///< top-level ops, terminator excluded
  OpRoles roles;
  /// The forward, backward and weight-gradient task (the last two empty in
  /// inference; the last empty unless the schedule splits the backward).
  std::vector<Step> tasks[3];
  /// Stages after it on the longest path to the loss (1F1B: forward tasks
  /// run before the first backward one), and before it (ZB-H1: how many
  /// microbatches its weight tasks wait).
  int64_t warmup = 0, delay = 0;
  /// The placement chose recomputation: the backward task first runs the
  /// forward ops again, and only the stage's inputs are stashed.
  bool recompute = false;
  /// Bytes of the activations the forward task receives.
  int64_t inputBytes = 0;
  /// Training: bytes its forward task's outputs stash per microbatch.
  int64_t stashBytes = 0;
  /// The model chunk its ops belong to (placer.chunk); -1 when the
  /// schedule runs one stage per device.
  int64_t chunk = -1;
};

/// One piece of a device's work: a task of one of its stages for one
/// microbatch.
struct Work {
  size_t stage;
  Phase phase;
  int64_t microbatch;
};

/// A device and its work in the order it runs it. One stage per device
/// unless the schedule runs chunks: then a lane's stages are its chunks,
/// which share its clock.
struct Lane {
  int64_t device;
  SmallVector<size_t, 2> stages;
  std::vector<Work> order;
};

/// Which task a device runs next: (phase, microbatch).
using TaskOrder = std::vector<std::pair<Phase, int64_t>>;

/// The order of a stage's tasks under `schedule` (docs/Simulator.md):
/// inference every forward; training the pipeline schedule's order
/// (solver::getStageOrder, which --placer-accumulate-microbatches orders
/// the step by too) for a stage `warmup` stages from the loss and `delay`
/// from the first; sequential is 1F1B with no forward ahead.
TaskOrder getTaskOrder(solver::Schedule schedule, int64_t microbatches,
                       int64_t warmup, int64_t delay) {
  TaskOrder order;
  if (schedule == solver::Schedule::Inference) {
    for (int64_t m = 0; m < microbatches; ++m)
      order.emplace_back(Phase::Forward, m);
    return order;
  }
  if (schedule == solver::Schedule::Sequential)
    warmup = 0;
  for (const solver::PipelineWork &work : solver::getStageOrder(
           solver::getPipelineKind(schedule), static_cast<int>(warmup),
           static_cast<int>(microbatches), /*chunk=*/0,
           static_cast<int>(delay)))
    order.emplace_back(work.kind, work.microbatch);
  return order;
}

class Simulator {
public:
  Simulator(const Cluster &cluster, bool overlap)
      : cluster(cluster), overlap(overlap) {}

  LogicalResult run(std::vector<Stage> &stages, const std::vector<Lane> &lanes,
                    solver::Schedule schedule, int64_t microbatches);

  std::vector<Event> events;
  std::vector<double> busy;            ///< per stage
  std::vector<double> sampleFinish;    ///< per microbatch: last step's end
  std::vector<double> busyUntil;       ///< per stage: its device's last end
  /// Per stage: the most microbatches between the start of their forward
  /// task and the end of their last backward or weight task at once
  /// (training).
  std::vector<int64_t> inFlight;
  /// Per lane (training): the most microbatches its stages held at once,
  /// summed over them, and the most activation bytes they stashed at once.
  std::vector<int64_t> laneInFlight;
  std::vector<double> laneActivations;
  double makespan = 0;

private:
  /// The device that runs microbatch m of the stage whose first device is
  /// `device` (itself unless the stage is replicated).
  int64_t route(int64_t device, int64_t m) const {
    auto it = copiesOf.find(device);
    if (it == copiesOf.end())
      return device;
    return it->second[m % static_cast<int64_t>(it->second.size())];
  }
  /// A transfer of `step` from device `from` to device `to`.
  double getTime(const Step &step, int64_t from, int64_t to) const {
    return step.bytes >= 0 ? cluster.transferTime(step.bytes, from, to)
                           : step.time;
  }
  /// Training: the replicas of each replicated stage all-reduce its
  /// gradients once their last backward task ends.
  void allReduce(std::vector<Stage> &stages);

  const Cluster &cluster;
  bool overlap;
  /// Per replicated stage (by its first device): every device, in copy
  /// order.
  std::map<int64_t, SmallVector<int64_t>> copiesOf;
};

/// Each device's work in order (docs/Simulator.md): one stage per device,
/// its tasks in the order getTaskOrder gives; under a chunked schedule
/// (`layout`) each device's list over its chunks as the schedule library
/// builds it, the list --placer-accumulate-microbatches runs. Tasks with
/// nothing to do are skipped; a copy of a replicated stage takes its
/// share of the microbatches, in the stage's order.
std::vector<Lane> buildLanes(const std::vector<Stage> &stages,
                             solver::Schedule schedule, int64_t microbatches,
                             const solver::PipelineSchedule *layout) {
  std::vector<Lane> lanes;
  auto hasWork = [&](size_t s, Phase phase, int64_t m) {
    const Stage &stage = stages[s];
    return !stage.tasks[static_cast<int>(phase)].empty() &&
           m % stage.replicas == stage.replica;
  };
  if (!layout) {
    for (auto [s, stage] : llvm::enumerate(stages)) {
      Lane &lane = lanes.emplace_back();
      lane.device = stage.device;
      lane.stages.push_back(s);
      for (auto [phase, m] :
           getTaskOrder(schedule, microbatches, stage.warmup, stage.delay))
        if (hasWork(s, phase, m))
          lane.order.push_back(Work{s, phase, m});
    }
    return lanes;
  }
  std::map<int64_t, size_t> stageOfChunk;
  for (auto [s, stage] : llvm::enumerate(stages))
    stageOfChunk[stage.chunk] = s;
  for (const std::vector<solver::PipelineWork> &order : layout->order) {
    Lane lane;
    for (const solver::PipelineWork &work : order) {
      auto it = stageOfChunk.find(work.chunk);
      if (it == stageOfChunk.end())
        continue; // a chunk the placement left empty
      size_t s = it->second;
      if (!llvm::is_contained(lane.stages, s))
        lane.stages.push_back(s);
      lane.device = stages[s].device;
      if (hasWork(s, work.kind, work.microbatch))
        lane.order.push_back(Work{s, work.kind, work.microbatch});
    }
    if (!lane.stages.empty())
      lanes.push_back(std::move(lane));
  }
  return lanes;
}

LogicalResult Simulator::run(std::vector<Stage> &stages,
                             const std::vector<Lane> &lanes,
                             solver::Schedule schedule, int64_t microbatches) {
  size_t n = stages.size(), l = lanes.size();
  for (const Stage &stage : stages)
    if (stage.replicas > 1)
      copiesOf[stage.leader].push_back(stage.device);
  // Per lane: when its device is free, its current task and the next step
  // in it, the time it took the task up (nothing of it is ready earlier),
  // each step's end, and the values it has already paid to send in it.
  std::vector<double> deviceFree(l, 0.0), taskStart(l, 0.0);
  std::vector<size_t> task(l, 0), pc(l, 0);
  std::vector<std::vector<double>> stepEnd(l);
  std::vector<llvm::DenseSet<int>> sentFrom(l);
  // Per stage: its microbatches in flight.
  std::vector<int64_t> open(n, 0);
  std::vector<size_t> laneOf(n, 0);
  for (auto [i, lane] : llvm::enumerate(lanes))
    for (size_t s : lane.stages)
      laneOf[s] = i;
  // The task whose end frees a microbatch's activations: the weight task
  // where the stage runs one, else the backward task.
  auto releasing = [&](size_t s) {
    return stages[s].tasks[static_cast<int>(Phase::Weight)].empty()
               ? Phase::Backward
               : Phase::Weight;
  };
  std::map<std::pair<int64_t, int64_t>, double> linkFree;
  // Arrival of (channel, microbatch) at its receiver, once sent.
  std::map<std::tuple<int64_t, bool, int64_t>, double> arrival;
  busy.assign(n, 0.0);
  inFlight.assign(n, 0);
  laneInFlight.assign(l, 0);
  laneActivations.assign(l, 0.0);
  sampleFinish.assign(microbatches, 0.0);

  auto work = [&](size_t i) -> const Work & { return lanes[i].order[task[i]]; };
  auto current = [&](size_t i) -> const std::vector<Step> & {
    return stages[work(i).stage].tasks[static_cast<int>(work(i).phase)];
  };
  // A lane's microbatches and activations in flight, summed over its
  // stages (each may peak at another time).
  auto recordInFlight = [&](size_t i) {
    int64_t microbatchesHeld = 0;
    double bytes = 0;
    for (size_t s : lanes[i].stages) {
      const Stage &stage = stages[s];
      microbatchesHeld += open[s];
      bytes += solver::getStageActivations(
          static_cast<double>(stage.stashBytes),
          static_cast<double>(stage.inputBytes), static_cast<int>(open[s]),
          stage.recompute);
    }
    laneInFlight[i] = std::max(laneInFlight[i], microbatchesHeld);
    laneActivations[i] = std::max(laneActivations[i], bytes);
  };
  auto enterTask = [&](size_t i) {
    if (task[i] == lanes[i].order.size())
      return;
    stepEnd[i].assign(current(i).size(), 0.0);
    sentFrom[i].clear();
    taskStart[i] = deviceFree[i];
    size_t s = work(i).stage;
    if (work(i).phase == Phase::Forward &&
        !stages[s].tasks[static_cast<int>(Phase::Backward)].empty()) {
      inFlight[s] = std::max(inFlight[s], ++open[s]);
      recordInFlight(i);
    }
  };
  auto readyAt = [&](size_t i, const Step &step, double &when) {
    if (step.kind == Step::Kind::Recv) {
      auto it = arrival.find({step.channel, step.gradient, work(i).microbatch});
      if (it == arrival.end())
        return false;
      when = it->second;
      return true;
    }
    when = taskStart[i];
    for (int input : step.inputs)
      when = std::max(when, stepEnd[i][input]);
    return true;
  };

  size_t remaining = 0;
  for (size_t i = 0; i < l; ++i) {
    for (const Work &w : lanes[i].order)
      remaining += stages[w.stage].tasks[static_cast<int>(w.phase)].size();
    enterTask(i);
  }
  while (remaining > 0) {
    // The device whose next step can start earliest.
    int best = -1;
    double bestStart = 0, bestWhen = 0;
    for (size_t i = 0; i < l; ++i) {
      if (task[i] == lanes[i].order.size())
        continue;
      double when;
      if (!readyAt(i, current(i)[pc[i]], when))
        continue;
      double start = std::max(deviceFree[i], when);
      if (best < 0 || start < bestStart)
        best = i, bestStart = start, bestWhen = when;
    }
    if (best < 0)
      return failure(); // the verifier rules this out: a deadlock
    size_t i = best;
    auto [s, phase, m] = work(i);
    Stage &stage = stages[s];
    const Step &step = current(i)[pc[i]];
    double when = bestWhen, start = bestStart, end = start;
    switch (step.kind) {
    case Step::Kind::Send: {
      int64_t to = route(step.peer, m);
      double time = getTime(step, stage.device, to);
      double &link = linkFree[{stage.device, to}];
      // Overlapped: the link moves it while the device computes on.
      // Serialized (the model): an accelerator is busy while its output
      // leaves, once per value however many devices receive it; CPU cores
      // pay nothing.
      bool charged = !overlap && stage.accelerator &&
                     sentFrom[i].insert(step.value).second;
      double begin = charged ? std::max(start, link) : std::max(when, link);
      end = begin + time;
      link = end;
      arrival[{step.channel, step.gradient, m}] = end;
      if (charged) {
        deviceFree[i] = end;
        busy[s] += time;
      }
      events.push_back(Event{stage.device, m, begin, end, step.name, true,
                             phase, to, stage.chunk});
      break;
    }
    case Step::Kind::Recv:
      // Serialized: receiving occupies the receiver as long as sending did
      // the sender.
      if (!overlap && stage.accelerator) {
        double time = step.peer >= 0
                          ? getTime(step, route(step.peer, m), stage.device)
                          : step.time;
        end = start + time;
        busy[s] += time;
        deviceFree[i] = end;
      }
      break;
    case Step::Kind::Compute:
      end = start + step.time;
      deviceFree[i] = end;
      busy[s] += step.time;
      if (step.time > 0)
        events.push_back(Event{stage.device, m, start, end, step.name, false,
                               phase, -1, stage.chunk});
      break;
    }
    stepEnd[i][pc[i]] = end;
    sampleFinish[m] = std::max(sampleFinish[m], deviceFree[i]);
    makespan = std::max(makespan, deviceFree[i]);
    --remaining;
    if (++pc[i] == current(i).size()) {
      if (phase == releasing(s))
        --open[s];
      pc[i] = 0;
      ++task[i];
      enterTask(i);
    }
  }
  busyUntil.assign(n, 0.0);
  for (size_t s = 0; s < n; ++s)
    busyUntil[s] = deviceFree[laneOf[s]];
  if (schedule != solver::Schedule::Inference)
    allReduce(stages);
  return success();
}

void Simulator::allReduce(std::vector<Stage> &stages) {
  for (auto &[leader, devices] : copiesOf) {
    SmallVector<size_t> group;
    double gradients = 0, start = 0;
    for (auto [i, stage] : llvm::enumerate(stages)) {
      if (stage.leader != leader)
        continue;
      group.push_back(i);
      start = std::max(start, busyUntil[i]);
      if (stage.replica == 0) {
        // A step with its backward pass written out names its trained
        // weights; a forward graph priced for training counts its own.
        auto func = stage.ops.empty()
                        ? func::FuncOp()
                        : stage.ops.front()->getParentOfType<func::FuncOp>();
        llvm::StringSet<> updated =
            func ? getUpdatedState(func) : llvm::StringSet<>();
        for (Operation *op : stage.ops)
          if (CostAttr cost = getCost(op); cost && stage.roles.isPlaced(op))
            gradients += static_cast<double>(
                updated.empty() ? cost.getParamBytes()
                                : getTrainedWeightBytes(op, updated));
      }
    }
    // Ring: 2 (r - 1) steps, each moving a 1/r share over every link at
    // once, as fast as the slowest.
    int64_t r = devices.size();
    double step = 0;
    for (int64_t i = 0; i < r; ++i)
      step = std::max(step, cluster.transferTime(gradients / r, devices[i],
                                                 devices[(i + 1) % r]));
    double time = 2.0 * (r - 1) * step;
    for (size_t i : group) {
      events.push_back(Event{stages[i].device, /*microbatch=*/-1, start,
                             start + time, "all-reduce", false,
                             Phase::Backward});
      busy[i] += time;
    }
    makespan = std::max(makespan, start + time);
  }
}

/// Bytes a send moves, or -1 where its type has no size.
double getTransferBytes(dist::SendOp send) {
  std::optional<int64_t> bytes = getTypeBytes(send.getValue().getType());
  return bytes ? static_cast<double>(*bytes) : -1.0;
}

double getTransferTime(const Cluster &cluster, dist::SendOp send,
                       int64_t from, int64_t to) {
  if (std::optional<int64_t> bytes = getTypeBytes(send.getValue().getType()))
    return cluster.transferTime(static_cast<double>(*bytes), from, to);
  // Workload tensors have no size: the model's c(u) of the producer.
  Operation *producer = send.getValue().getDefiningOp();
  CostAttr cost = producer ? getCost(producer) : CostAttr();
  return cost ? cost.getTransferTime() : 0.0;
}

/// Builds every stage's forward and backward task from its ops.
///
/// Explicit training graphs (the paper's workloads) mark their backward
/// ops; an op fed by the backward pass belongs to it too, across devices.
/// Training graphs priced by the cost model carry each op's backward time
/// instead: the backward task then runs the stage's ops in reverse at their
/// backward times, each received tensor's gradient flows back to its
/// sender and each sent tensor's gradient comes back, the same bytes over
/// the reverse link.
class TaskBuilder {
public:
  /// `splitBackward`: the schedule runs weight-gradient work apart.
  TaskBuilder(const Cluster &cluster, std::vector<Stage> &stages,
              bool splitBackward)
      : cluster(cluster), stages(stages), splitBackward(splitBackward) {}

  /// Returns whether the program trains (it has a backward pass).
  bool build();

private:
  llvm::DenseSet<Operation *>
  spread(llvm::function_ref<bool(Operation *)> isMarked,
         llvm::function_ref<bool(Operation *)> isCandidate) const;
  /// Seconds of `op` on the stage's kind: its own time, or the backward
  /// time the cost model gave it (`gradient`).
  double getOpTime(Operation *op, const Stage &stage, bool gradient) const;
  void addOps(Stage &stage);
  void addGradients(Stage &stage);
  void prependRecomputation(Stage &stage);

  const Cluster &cluster;
  std::vector<Stage> &stages;
  bool splitBackward;
  llvm::DenseSet<Operation *> backwardOps, weightOps;
  /// Every channel's send and its sender.
  std::map<int64_t, std::pair<dist::SendOp, int64_t>> sendOf;
};

/// The ops `isMarked` names among `candidates`, and every candidate that
/// reads one of them, here or through a channel (a recv whose send is one:
/// the sweep repeats until nothing changes).
llvm::DenseSet<Operation *>
TaskBuilder::spread(llvm::function_ref<bool(Operation *)> isMarked,
                    llvm::function_ref<bool(Operation *)> isCandidate) const {
  llvm::DenseSet<Operation *> found;
  std::set<int64_t> channels;
  for (bool changed = true; changed;) {
    changed = false;
    for (const Stage &stage : stages)
      for (Operation *op : stage.ops) {
        if (found.contains(op) || !isCandidate(op))
          continue;
        bool marked = isMarked(op);
        if (auto recv = dyn_cast<dist::RecvOp>(op))
          marked = channels.count(recv.getChannel());
        for (Value operand : op->getOperands())
          if (Operation *def = operand.getDefiningOp())
            marked |= found.contains(def);
        if (!marked)
          continue;
        found.insert(op);
        if (auto send = dyn_cast<dist::SendOp>(op))
          channels.insert(send.getChannel());
        changed = true;
      }
  }
  return found;
}

double TaskBuilder::getOpTime(Operation *op, const Stage &stage,
                              bool gradient) const {
  CostAttr cost = getCost(op);
  if (!cost || !stage.roles.isPlaced(op))
    return 0.0; // copies of compile-time values: no kernel
  std::optional<double> time = gradient ? cost.getBackwardTimeOn(stage.kind)
                                        : cost.getTimeOn(stage.kind);
  return time.value_or(0.0);
}

void TaskBuilder::addOps(Stage &stage) {
  // Where each value is made: its task and step.
  llvm::DenseMap<Value, std::pair<Phase, int>> madeAt;
  for (Operation *op : stage.ops) {
    Phase phase = weightOps.contains(op)     ? Phase::Weight
                  : backwardOps.contains(op) ? Phase::Backward
                                             : Phase::Forward;
    std::vector<Step> &steps = stage.tasks[static_cast<int>(phase)];
    Step step;
    auto inputs = [&](ValueRange values) {
      for (Value value : values) {
        auto it = madeAt.find(value);
        // What another task made is there already: a device runs a
        // microbatch's forward task before its backward one, and that
        // before its weight task.
        if (it != madeAt.end() && it->second.first == phase &&
            !llvm::is_contained(step.inputs, it->second.second))
          step.inputs.push_back(it->second.second);
      }
    };
    if (auto send = dyn_cast<dist::SendOp>(op)) {
      step.kind = Step::Kind::Send;
      step.channel = send.getChannel();
      step.peer = send.getPeer();
      step.time = getTransferTime(cluster, send, stage.device, step.peer);
      step.bytes = getTransferBytes(send);
      inputs(send.getValue());
      step.value = step.inputs.empty() ? -1 : step.inputs.front();
      step.name = "send " + std::to_string(step.channel);
    } else if (auto recv = dyn_cast<dist::RecvOp>(op)) {
      step.kind = Step::Kind::Recv;
      step.channel = recv.getChannel();
      if (phase == Phase::Forward)
        stage.inputBytes += getActivationBytes(recv.getResult());
      auto it = sendOf.find(step.channel);
      if (it != sendOf.end()) {
        step.time = getTransferTime(cluster, it->second.first,
                                    it->second.second, stage.device);
        step.bytes = getTransferBytes(it->second.first);
        step.peer = it->second.second;
      }
    } else {
      step.kind = Step::Kind::Compute;
      step.time = getOpTime(op, stage, /*gradient=*/false);
      inputs(op->getOperands());
      step.name = getOpDisplayName(op);
    }
    for (Value result : op->getResults())
      madeAt[result] = {phase, static_cast<int>(steps.size())};
    steps.push_back(std::move(step));
  }
}

void TaskBuilder::addGradients(Stage &stage) {
  const std::vector<Step> &forward = stage.tasks[0];
  std::vector<Step> &backward = stage.tasks[1];
  // Per forward step: the gradients of its output that come back.
  std::vector<SmallVector<int, 2>> returning(forward.size());
  int lastCompute = -1;
  for (int i = static_cast<int>(forward.size()) - 1; i >= 0; --i) {
    const Step &step = forward[i];
    Step gradient;
    gradient.channel = step.channel;
    gradient.gradient = true;
    switch (step.kind) {
    case Step::Kind::Compute: {
      gradient.kind = Step::Kind::Compute;
      gradient.time = getOpTime(stage.ops[i], stage, /*gradient=*/true);
      gradient.name = step.name;
      // Its local users' backward ran before it on this device.
      gradient.inputs.assign(returning[i].begin(), returning[i].end());
      lastCompute = backward.size();
      // A schedule that runs weight gradients apart: an op with weights
      // computes its input's and its weights' gradients, each about its
      // forward's work (the cost model's backward factor 2), so half its
      // backward time moves to the weight task, which nothing waits for.
      CostAttr cost = getCost(stage.ops[i]);
      if (splitBackward && cost && cost.getParamBytes() > 0 &&
          gradient.time > 0) {
        gradient.time /= 2;
        Step weight = gradient;
        weight.inputs.clear();
        stage.tasks[static_cast<int>(Phase::Weight)].push_back(
            std::move(weight));
      }
      break;
    }
    case Step::Kind::Send: // its gradient comes back
      gradient.kind = Step::Kind::Recv;
      gradient.time = step.time;
      gradient.bytes = step.bytes;
      gradient.peer = step.peer;
      if (step.value >= 0)
        returning[step.value].push_back(backward.size());
      break;
    case Step::Kind::Recv: { // the gradient of what it received goes back
      // The dist.program verifier pairs every recv with a send.
      auto [send, from] = sendOf.find(step.channel)->second;
      gradient.kind = Step::Kind::Send;
      gradient.peer = from;
      gradient.time = getTransferTime(cluster, send, stage.device, from);
      gradient.bytes = getTransferBytes(send);
      if (lastCompute >= 0)
        gradient.inputs.push_back(lastCompute);
      gradient.value = backward.size();
      gradient.name =
          "send " + std::to_string(step.channel) + " gradient";
      break;
    }
    }
    backward.push_back(std::move(gradient));
  }
}

void TaskBuilder::prependRecomputation(Stage &stage) {
  std::vector<Step> prefix;
  for (const Step &step : stage.tasks[0])
    if (step.kind == Step::Kind::Compute && step.time > 0) {
      Step again = step;
      again.inputs.clear(); // what it reads was stashed or is rebuilt first
      again.name += " (recompute)";
      prefix.push_back(std::move(again));
    }
  std::vector<Step> &backward = stage.tasks[1];
  int offset = static_cast<int>(prefix.size());
  for (Step &step : backward) {
    for (int &input : step.inputs)
      input += offset;
    if (step.value >= 0)
      step.value += offset;
  }
  backward.insert(backward.begin(), prefix.begin(), prefix.end());
}

bool TaskBuilder::build() {
  // (Copies of a replicated stage send as its first device.)
  for (Stage &stage : stages)
    for (Operation *op : stage.ops)
      if (auto send = dyn_cast<dist::SendOp>(op))
        sendOf.try_emplace(send.getChannel(), send, stage.device);
  // The backward task: marked backward ops and what reads them. The
  // weight task, where the schedule runs it apart: nodes marked
  // placer.weight_gradient and what reads them among those (the gradients'
  // sums and collectives); no input gradient reads any of them (the mark's
  // definition), so the backward task never waits for the weight task.
  backwardOps = spread(isBackwardOp, [](Operation *) { return true; });
  if (splitBackward)
    weightOps = spread(
        [](Operation *op) { return op->hasAttr(kWeightGradientAttrName); },
        [&](Operation *op) { return backwardOps.contains(op); });
  bool implicit = false;
  if (backwardOps.empty())
    implicit = llvm::any_of(stages, [](const Stage &stage) {
      return llvm::any_of(stage.ops, [&](Operation *op) {
        CostAttr cost = getCost(op);
        return cost && cost.getBackwardTime() && stage.roles.isPlaced(op);
      });
    });
  for (Stage &stage : stages) {
    addOps(stage);
    if (implicit)
      addGradients(stage);
    if (stage.recompute && !stage.tasks[1].empty())
      prependRecomputation(stage);
  }
  return implicit || !backwardOps.empty();
}

/// 1F1B warm-up: a stage runs as many forwards ahead as there are stages
/// after it on the longest forward path to the pipeline's end, so that a
/// stage never waits for a forward its successor has not asked for; ZB-H1
/// delays its weight work by the stages before it on the longest path from
/// the pipeline's start. Stages whose forward transfers form a cycle warm
/// up alike.
void assignWarmup(std::vector<Stage> &stages) {
  std::map<int64_t, int> stageOf;
  for (auto [i, stage] : llvm::enumerate(stages))
    stageOf[stage.device] = i;
  SuccessorLists successors(stages.size());
  for (auto [i, stage] : llvm::enumerate(stages))
    for (const Step &step : stage.tasks[0])
      if (step.kind == Step::Kind::Send) {
        auto it = stageOf.find(step.peer);
        if (it != stageOf.end() &&
            !llvm::is_contained(successors[i], it->second))
          successors[i].push_back(it->second);
      }
  std::vector<int> component = stronglyConnectedComponents(successors);
  int components = 0;
  for (int c : component)
    components = std::max(components, c + 1);
  // Components are numbered successors first.
  std::vector<std::vector<int>> members(components);
  for (auto [i, c] : llvm::enumerate(component))
    members[c].push_back(i);
  std::vector<int64_t> depth(components, 0), height(components, 0);
  for (int c = 0; c < components; ++c)
    for (int i : members[c])
      for (int next : successors[i])
        if (component[next] != c)
          depth[c] = std::max(depth[c], depth[component[next]] + 1);
  for (int c = components - 1; c >= 0; --c)
    for (int i : members[c])
      for (int next : successors[i])
        if (int to = component[next]; to != c)
          height[to] = std::max(height[to], height[c] + 1);
  for (auto [i, stage] : llvm::enumerate(stages)) {
    stage.warmup = depth[component[i]];
    stage.delay = height[component[i]];
  }
}

/// A self-contained SVG: one row per device, compute bars coloured by
/// microbatch (forward light, backward dark and hatched), transfers as thin
/// bars under the sender's row.
std::string renderTimeline(const std::vector<Lane> &lanes,
                           const std::vector<Event> &events, double makespan,
                           int64_t microbatches, bool training) {
  const double width = 1000, rowHeight = 36, left = 90, top = 30;
  double scale = makespan > 0 ? width / makespan : 1.0;
  std::map<int64_t, size_t> row;
  for (auto [i, lane] : llvm::enumerate(lanes))
    row[lane.device] = i;
  std::string svg;
  llvm::raw_string_ostream os(svg);
  double height = top + rowHeight * lanes.size() + 30;
  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                      "height=\"{1}\" font-family=\"sans-serif\" "
                      "font-size=\"11\">\n",
                      left + width + 20, height);
  os << "<defs><pattern id=\"backward\" width=\"6\" height=\"6\" "
        "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
        "<rect width=\"3\" height=\"6\" fill=\"#000\" fill-opacity=\"0.25\"/>"
        "</pattern><pattern id=\"weight\" width=\"4\" height=\"4\" "
        "patternUnits=\"userSpaceOnUse\"><circle cx=\"2\" cy=\"2\" r=\"1\" "
        "fill=\"#000\" fill-opacity=\"0.35\"/></pattern></defs>\n";
  os << llvm::formatv("<text x=\"{0}\" y=\"18\">pipeline timeline: {1} "
                      "microbatch(es), {2} s{3}</text>\n",
                      left, microbatches, formatNumber(makespan),
                      training ? "; light bars forward, dark hatched "
                                 "backward, dotted weight gradients"
                               : "");
  for (auto [i, lane] : llvm::enumerate(lanes))
    os << llvm::formatv("<text x=\"4\" y=\"{0}\">device {1}</text>\n",
                        top + rowHeight * i + 16, lane.device);
  for (const Event &e : events) {
    double x = left + e.start * scale;
    double w = std::max(0.5, (e.end - e.start) * scale);
    double y = top + rowHeight * row[e.device] + (e.transfer ? 24 : 2);
    double h = e.transfer ? 6 : 20;
    int hue = static_cast<int>((e.microbatch * 67) % 360);
    bool forward = e.phase == Phase::Forward;
    int lightness = e.transfer ? 40 : forward ? 60 : 35;
    std::string title =
        e.transfer ? e.name + " to device " + std::to_string(e.peer) : e.name;
    title += training ? llvm::formatv(" ({0}, microbatch {1}",
                                      getPhaseName(e.phase), e.microbatch)
                            .str()
                      : llvm::formatv(" (microbatch {0}", e.microbatch).str();
    title += e.chunk >= 0 ? ", chunk " + std::to_string(e.chunk) + ")" : ")";
    os << llvm::formatv(
        "<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
        "fill=\"hsl({4},{5}%,{6}%)\" stroke=\"#333\" stroke-width=\"0.3\">"
        "<title>{7}: {8} - {9} s</title></rect>\n",
        x, y, w, h, hue, e.transfer ? 30 : 65, lightness, title,
        formatNumber(e.start), formatNumber(e.end));
    if (!forward && !e.transfer)
      os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" "
                          "height=\"{3}\" fill=\"url(#{4})\"/>\n",
                          x, y, w, h, getPhaseName(e.phase));
  }
  os << "</svg>\n";
  return svg;
}

/// A device's memory as the simulator saw it.
struct StageMemory {
  int64_t weights = 0;
  int64_t activations = 0;
  /// Training: activation bytes stashed per microbatch in flight.
  int64_t stash = 0;
};

/// Inference: weights and peak activation bytes of a stage for one
/// microbatch, by the memory analysis (Memory.h): its ops in order,
/// received tensors produced by their recv, sent and returned tensors kept
/// to the end. Compile-time copies hold no activation (their bytes are
/// weights of their consumers). In-order pipelining keeps one microbatch
/// per device, but tensors of the next one that arrive early wait in
/// buffers not counted here.
///
/// Training: weights with their gradients and optimizer state, and the
/// forward task's outputs stashed for each microbatch the schedule kept in
/// flight at once (the placement's model, docs/CostModel.md); a stage that
/// recomputes stashes its inputs per microbatch and rebuilds one
/// microbatch's outputs at a time.
StageMemory getStageMemory(const Stage &stage, bool training,
                           int64_t inFlight) {
  solver::MemoryGraph graph;
  llvm::DenseMap<Operation *, int> nodeOf;
  std::vector<int> order;
  StageMemory memory;
  for (Operation *op : stage.ops) {
    if (isa<dist::SendOp>(op))
      continue; // its operand leaves the device: see below
    int node = graph.size();
    nodeOf[op] = node;
    CostAttr cost = getCost(op);
    bool placed = stage.roles.isPlaced(op);
    graph.paramBytes.push_back(cost && placed ? cost.getResidentBytes() : 0);
    int64_t bytes = 0;
    if (placed)
      for (Value result : op->getResults())
        bytes += getActivationBytes(result);
    graph.outputBytes.push_back(bytes);
    graph.successors.emplace_back();
    if (placed)
      order.push_back(node);
    if (placed && !isa<dist::RecvOp>(op) && !isBackwardOp(op))
      memory.stash += bytes;
  }
  if (training) {
    for (double bytes : graph.paramBytes)
      memory.weights += std::llround(bytes);
    memory.activations = solver::getStageActivations(
        memory.stash, stage.inputBytes, inFlight, stage.recompute);
    return memory;
  }
  memory.stash = 0;
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
  memory.weights = std::llround(usage.weights);
  memory.activations = std::llround(usage.activations);
  return memory;
}

/// One Stage per device that runs a stage of `program` (copies of a
/// replicated stage included), with the placement's recomputing stages.
std::vector<Stage> collectStages(ModuleOp module, dist::ProgramOp program,
                                 const Cluster &cluster) {
  std::vector<Stage> stages;
  for (auto [index, ref] : llvm::enumerate(program.getStages())) {
    auto func = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        program, cast<SymbolRefAttr>(ref));
    SmallVector<int64_t> runners = program.getStageDevices(index);
    for (auto [replica, device] : llvm::enumerate(runners)) {
      const DeviceKind &kind =
          cluster.getKinds()[cluster.getKindOfDevice(device)];
      Stage stage{device,
                  kind.name,
                  kind.isAccelerator,
                  runners.front(),
                  static_cast<int64_t>(replica),
                  static_cast<int64_t>(runners.size()),
                  {},
                  OpRoles(func.getBody().front())};
      for (Operation &op : func.getBody().front().without_terminator())
        stage.ops.push_back(&op);
      stages.push_back(std::move(stage));
    }
  }
  if (PlacementAttr placement = getPlacement(module))
    if (DenseI64ArrayAttr recompute = placement.getRecompute())
      for (Stage &stage : stages)
        stage.recompute =
            llvm::is_contained(recompute.asArrayRef(), stage.device);
  return stages;
}

/// Under a chunked schedule: each device's stage cut into one Stage per
/// model chunk it runs. A node's chunk is its placer.chunk; a send runs in
/// its value's producer's chunk, a recv and an op the placement left
/// without one (a compile-time copy) in their first reader's, else their
/// producer's. Checks each chunk runs on the device the schedule gives it
/// (`layout`).
FailureOr<std::vector<Stage>>
splitIntoChunks(std::vector<Stage> stages,
                const solver::PipelineSchedule &layout,
                solver::Schedule schedule) {
  std::vector<Stage> chunks;
  for (Stage &stage : stages) {
    llvm::DenseMap<Operation *, int64_t> chunkOf;
    for (Operation *op : stage.ops)
      if (auto attr = op->getAttrOfType<IntegerAttr>(kChunkAttrName))
        chunkOf[op] = attr.getInt();
    auto known = [&](Operation *op) -> std::optional<int64_t> {
      auto it = op ? chunkOf.find(op) : chunkOf.end();
      if (it == chunkOf.end())
        return std::nullopt;
      return it->second;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation *op : stage.ops) {
        if (chunkOf.contains(op))
          continue;
        std::optional<int64_t> chunk;
        if (!isa<dist::SendOp>(op))
          for (Operation *user : op->getUsers())
            if ((chunk = known(user)))
              break;
        for (Value operand : op->getOperands())
          if (!chunk)
            chunk = known(operand.getDefiningOp());
        if (chunk) {
          chunkOf[op] = *chunk;
          changed = true;
        }
      }
    }
    for (Operation *op : stage.ops) {
      auto attr = op->getAttrOfType<IntegerAttr>(kChunkAttrName);
      if (!attr)
        continue;
      int64_t chunk = attr.getInt();
      if (chunk >= layout.chunks())
        return emitError(op->getLoc(), "--placer-simulate: chunk ")
               << chunk << " does not exist: the " << solver::getName(schedule)
               << " schedule runs " << layout.chunks() << " chunks";
      if (layout.deviceOfChunk[chunk] != stage.device)
        return emitError(op->getLoc(), "--placer-simulate: chunk ")
               << chunk << " runs on device " << stage.device << ", but the "
               << solver::getName(schedule) << " schedule runs it on device "
               << layout.deviceOfChunk[chunk];
    }
    std::map<int64_t, size_t> stageOfChunk;
    for (Operation *op : stage.ops) {
      std::optional<int64_t> chunk = known(op);
      if (!chunk)
        return emitError(op->getLoc(), "--placer-simulate: the ")
               << solver::getName(schedule)
               << " schedule runs chunks, and this op belongs to none (no '"
               << kChunkAttrName << "' on it or on what it reads or feeds)";
      auto [it, added] = stageOfChunk.try_emplace(*chunk, chunks.size());
      if (added) {
        Stage &part = chunks.emplace_back(Stage{stage.device,
                                                stage.kind,
                                                stage.accelerator,
                                                stage.leader,
                                                stage.replica,
                                                stage.replicas,
                                                {},
                                                stage.roles});
        part.recompute = stage.recompute;
        part.chunk = *chunk;
      }
      chunks[it->second].ops.push_back(op);
    }
  }
  return chunks;
}

/// The figures every report and summary gives.
struct Headline {
  int64_t samples;
  bool training, overlap;
  solver::Schedule pipeline;
  double latency, total, perSample, bubble;
};

/// "simulated 16 microbatch(es) on 4 devices (...): latency ..., bubble
/// fraction ...": the pass's remark.
std::string summarize(const Headline &h, size_t devices) {
  std::string text;
  llvm::raw_string_ostream summary(text);
  summary << "simulated ";
  if (h.training)
    summary << "one training iteration (" << solver::getName(h.pipeline)
            << ", " << h.samples << " microbatches)";
  else
    summary << h.samples << " microbatch(es)";
  summary << " on " << devices << " devices ("
          << (h.overlap ? "transfers overlap compute" : "transfers serialized")
          << "): latency " << formatNumber(h.latency) << ", total "
          << formatNumber(h.total)
          << (h.training ? ", time per sample "
                         : ", steady-state time per sample ")
          << formatNumber(h.perSample) << ", bubble fraction "
          << formatNumber(h.bubble);
  return text;
}

/// The JSON report (docs/Simulator.md): the headline, per device busy and
/// idle time and memory (under a chunked schedule summed over its chunks,
/// with each chunk's figures), every event.
llvm::json::Object makeReport(const Headline &h, std::vector<Stage> &stages,
                              const std::vector<Lane> &lanes,
                              const Simulator &simulator) {
  bool training = h.training;
  double total = h.total;
  llvm::json::Array devices, events;
  for (auto [l, lane] : llvm::enumerate(lanes)) {
    double busy = 0;
    StageMemory memory;
    llvm::json::Array chunks;
    for (size_t s : lane.stages) {
      const Stage &stage = stages[s];
      StageMemory part = getStageMemory(stage, training, simulator.inFlight[s]);
      busy += simulator.busy[s];
      memory.weights += part.weights;
      memory.activations += part.activations;
      memory.stash += part.stash;
      if (stage.chunk >= 0)
        chunks.push_back(
            llvm::json::Object{{"chunk", stage.chunk},
                               {"busy", simulator.busy[s]},
                               {"in_flight", simulator.inFlight[s]},
                               {"param_bytes", part.weights},
                               {"stash_bytes", part.stash}});
    }
    // Chunks may hold their microbatches at different times: the device's
    // peak is the simulator's, not the sum of theirs.
    if (training)
      memory.activations = std::llround(simulator.laneActivations[l]);
    const Stage &first = stages[lane.stages.front()];
    llvm::json::Object device{
        {"device", lane.device},
        {"busy", busy},
        {"idle", total - busy},
        {"bubble_fraction", total > 0 ? 1.0 - busy / total : 0.0},
        {"param_bytes", memory.weights},
        {"peak_activation_bytes", memory.activations},
        {"peak_bytes", memory.weights + memory.activations}};
    if (first.replicas > 1) {
      device["replicas"] = first.replicas;
      if (first.replica > 0)
        device["replica_of"] = first.leader;
    }
    if (training) {
      device["in_flight"] = simulator.laneInFlight[l];
      device["stash_bytes"] = memory.stash;
      device["recompute"] = first.recompute;
    }
    if (!chunks.empty())
      device["chunks"] = std::move(chunks);
    devices.push_back(std::move(device));
  }
  for (const Event &e : simulator.events) {
    llvm::json::Object event{{"device", e.device},
                             {"microbatch", e.microbatch},
                             {"name", e.name},
                             {"phase", getPhaseName(e.phase)},
                             {"transfer", e.transfer},
                             {"start", e.start},
                             {"end", e.end}};
    if (e.chunk >= 0)
      event["chunk"] = e.chunk;
    events.push_back(std::move(event));
  }
  llvm::json::Array sampleFinish;
  for (double t : simulator.sampleFinish)
    sampleFinish.push_back(t);
  llvm::json::Object report{{"microbatches", h.samples},
                            {"overlap", h.overlap},
                            {"latency", h.latency},
                            {"total", total},
                            {"time_per_sample", h.perSample},
                            {"bubble_fraction", h.bubble},
                            {"sample_finish", std::move(sampleFinish)},
                            {"devices", std::move(devices)},
                            {"events", std::move(events)}};
  if (training)
    report["schedule"] = solver::getName(h.pipeline);
  return report;
}

/// A three-dimensional plan (placer.placement with `stages`, not split):
/// one batch stage by stage (solver::simulateParallelPlan).
FailureOr<Simulation> simulateParallel(ModuleOp module,
                                       const SimulationSettings &settings) {
  Location loc = module.getLoc();
  if (!settings.schedule.empty())
    return emitError(loc, "--placer-simulate: schedule=")
           << settings.schedule
           << " does not apply to a three-dimensional plan: its layers give "
              "one time for forward and backward, so a microbatch is one "
              "task per stage";
  if (settings.timeline)
    return emitError(loc, "--placer-simulate: timeline= draws split "
                          "programs; a three-dimensional plan has a report");
  FailureOr<PlacedParallelPlan> placed = readParallelPlan(module);
  if (failed(placed))
    return failure();
  const solver::ParallelPlan &plan = placed->plan;
  solver::ParallelRun run = solver::simulateParallelPlan(
      placed->problem, plan, settings.microbatches, settings.overlap);
  int64_t microbatches = run.microbatches;
  llvm::json::Array stages;
  for (auto [stage, figures] : llvm::zip(plan.stages, run.stages))
    stages.push_back(llvm::json::Object{
        {"first_device", stage.firstDevice},
        {"tensor_degree", stage.tensorDegree},
        {"data_degree", stage.dataDegree},
        {"layers", static_cast<int64_t>(stage.layers.size())},
        {"model_time_per_sample", stage.time},
        {"receive", figures.receive},
        {"compute", figures.compute},
        {"send", figures.send},
        {"all_reduce", figures.allReduce},
        {"busy", figures.busy},
        {"finish", figures.finish}});
  Simulation result;
  result.report =
      llvm::json::Object{{"plan", "three-dimensional"},
                         {"microbatches", microbatches},
                         {"overlap", settings.overlap},
                         {"latency", run.firstMicrobatchSeconds},
                         {"total", run.batchSeconds},
                         {"time_per_sample", run.timePerSample},
                         {"model_time_per_sample", plan.timePerSample},
                         {"bubble_fraction", run.bubbleFraction},
                         {"devices_used", plan.devicesUsed},
                         {"stages", std::move(stages)}};
  llvm::raw_string_ostream summary(result.summary);
  summary << "simulated " << microbatches
          << " microbatch(es) of a three-dimensional plan ("
          << plan.stages.size() << " stages on " << plan.devicesUsed
          << " devices, "
          << (settings.overlap ? "transfers overlap compute"
                               : "transfers serialized")
          << "): latency " << formatNumber(run.firstMicrobatchSeconds)
          << ", total " << formatNumber(run.batchSeconds)
          << ", time per sample " << formatNumber(run.timePerSample)
          << " (model " << formatNumber(plan.timePerSample)
          << "), bubble fraction " << formatNumber(run.bubbleFraction);
  return result;
}

} // namespace

FailureOr<Simulation> placer::simulate(ModuleOp module,
                                       const SimulationSettings &settings) {
  Location loc = module.getLoc();
  int64_t microbatches = settings.microbatches;
  StringRef schedule = settings.schedule;
  bool overlap = settings.overlap;
  auto programs = llvm::to_vector(module.getOps<dist::ProgramOp>());
  // Every microbatch's events are kept: bound what one run may ask for.
  constexpr int64_t kMaxMicrobatches = 1000000;
  if (microbatches < 0 || microbatches > kMaxMicrobatches)
    return emitError(loc,
                     "--placer-simulate: microbatches must be between 0 and ")
           << kMaxMicrobatches << ", got " << microbatches;
  if (PlacementAttr plan = getPlacement(module);
      programs.empty() && plan && plan.getStages())
    return simulateParallel(module, settings);
  if (programs.size() != 1 || !getCluster(module))
    return emitError(loc, "--placer-simulate needs a placed and split module "
                          "(one dist.program and placer.cluster; run "
                          "--partition-devices first) or a "
                          "three-dimensional plan");
  // A tensor-parallel group's programs keep their nodes' whole costs, and
  // collectives have no model here: the plan is what simulates (before the
  // split, stage by stage from its configurations).
  Operation *collective = nullptr;
  module.walk([&](Operation *op) {
    if (!collective && isa<dist::AllReduceOp, dist::AllGatherOp>(op))
      collective = op;
  });
  if (collective)
    return emitError(collective->getLoc(),
                     "--placer-simulate: the program holds the per-device "
                     "parts of a tensor-parallel group, whose collectives the "
                     "simulator does not model; simulate the "
                     "three-dimensional plan before the split (split=false)");
  std::optional<solver::Schedule> forced;
  if (!schedule.empty()) {
    forced = solver::parseTrainingSchedule(schedule);
    if (!forced)
      return emitError(loc, "--placer-simulate: unknown schedule '")
             << schedule << "' (expected " << solver::getTrainingScheduleNames()
             << ")";
  }
  Cluster cluster = getCluster(module).getCluster();
  dist::ProgramOp program = programs.front();
  std::vector<Stage> stages = collectStages(module, program, cluster);
  // A training program's pipeline: the one asked for, else the one the
  // placement sized memory for, else the cluster's.
  PlacementAttr placement = getPlacement(module);
  bool placed =
      placement && placement.getSchedule() != solver::Schedule::Inference;
  TrainingSetup setup = cluster.getTraining();
  solver::Schedule pipeline = forced   ? *forced
                              : placed ? placement.getSchedule()
                                       : setup.schedule;
  // A chunked schedule runs the chunks its placement chose, each device
  // its list over them.
  bool chunked = solver::usesChunks(pipeline);
  if (chunked && (!placement || placement.getSchedule() != pipeline))
    return emitError(loc, "--placer-simulate: the ")
           << solver::getName(pipeline)
           << " schedule runs the chunks a placement for it chose "
              "(--placer-place-devices schedule="
           << solver::getName(pipeline) << ")";
  std::optional<solver::PipelineSchedule> layout;
  if (chunked) {
    int64_t samples = microbatches ? microbatches : placement.getMicrobatches();
    llvm::Expected<solver::PipelineSchedule> built =
        solver::buildPipelineSchedule(
            solver::getPipelineKind(pipeline),
            static_cast<int>(placement.getAccelerators()),
            static_cast<int>(samples), static_cast<int>(placement.getChunks()));
    if (!built)
      return emitError(loc, "--placer-simulate: ")
             << llvm::toString(built.takeError());
    layout = std::move(*built);
    FailureOr<std::vector<Stage>> chunks =
        splitIntoChunks(std::move(stages), *layout, pipeline);
    if (failed(chunks))
      return failure();
    stages = std::move(*chunks);
  }
  bool training =
      TaskBuilder(cluster, stages, solver::splitsBackward(pipeline)).build();
  if ((forced || chunked) && !training)
    return emitError(loc, "--placer-simulate: schedule=")
           << solver::getName(pipeline)
           << " needs a training program (backward ops or backward times); "
              "this one only runs forward";
  int64_t samples = microbatches;
  if (training) {
    if (samples == 0)
      samples = placed ? placement.getMicrobatches() : setup.microbatches;
    if (!chunked)
      assignWarmup(stages);
    for (Stage &stage : stages)
      stage.stashBytes = getStageMemory(stage, /*training=*/true, 0).stash;
  } else {
    pipeline = solver::Schedule::Inference;
  }
  if (samples == 0)
    samples = 1;

  std::vector<Lane> lanes =
      buildLanes(stages, pipeline, samples, layout ? &*layout : nullptr);
  Simulator simulator(cluster, overlap);
  if (failed(simulator.run(stages, lanes, pipeline, samples)))
    return emitError(loc, "--placer-simulate: the stages deadlock");
  double total = simulator.makespan;
  double latency = simulator.sampleFinish.front();
  // Inference streams: the steady state between the first and the last
  // sample (with replicated stages, between the first and the last round
  // of r, which finish together). Training: an iteration ends with its
  // last backward.
  int64_t round = 1;
  for (const Stage &stage : stages)
    round = std::max(round, stage.replicas);
  double perSample = training ? total / samples
                     : samples > round
                         ? (simulator.sampleFinish.back() -
                            simulator.sampleFinish[round - 1]) /
                               (samples - round)
                         : simulator.sampleFinish.back() / samples;
  double busyTotal = 0;
  for (double busy : simulator.busy)
    busyTotal += busy;
  double bubble = total > 0 ? 1.0 - busyTotal / (total * lanes.size()) : 0.0;

  Headline headline{samples, training, overlap, pipeline,
                    latency,  total,    perSample, bubble};
  Simulation result;
  result.summary = summarize(headline, lanes.size());
  result.report = makeReport(headline, stages, lanes, simulator);
  if (settings.timeline)
    result.timelineSvg =
        renderTimeline(lanes, simulator.events, total, samples, training);
  return result;
}

namespace {

struct SimulatePass : public placer::impl::SimulateBase<SimulatePass>,
                      public ReportingPass {
  using SimulateBase::SimulateBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SimulationSettings settings;
    settings.microbatches = microbatches;
    settings.schedule = schedule;
    settings.overlap = overlap;
    settings.timeline = !timeline.empty();
    FailureOr<Simulation> simulation = simulate(module, settings);
    if (failed(simulation))
      return signalPassFailure();
    emitRemark(getModuleRemarkLoc(module)) << simulation->summary;
    llvm::json::Value json(std::move(simulation->report));
    if (!report.empty() &&
        failed(write(report, llvm::formatv("{0:2}", json).str())))
      return signalPassFailure();
    if (!timeline.empty() && failed(write(timeline, simulation->timelineSvg)))
      return signalPassFailure();
    setReport(std::move(json));
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
