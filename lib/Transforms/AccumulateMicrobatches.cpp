//===- AccumulateMicrobatches.cpp - Gradient accumulation in a step -------===//
//
// --placer-accumulate-microbatches turns a training step over one
// microbatch into a step over M of them: the inputs grow M times along
// their first axis, the forward and backward nodes run once per slice, and
// the optimizer's nodes read the mean of the slices' gradients. Since every
// loss --placer-build-training makes is a mean over equal slices, the mean
// of the slices' gradients is the whole batch's gradient, whatever the
// optimizer does with it (Adam squares it: averaging the updates instead
// would be wrong). On a placement with replicated stages, copy c of a
// stage's r replicas runs the microbatches m with m mod r = c: each copy
// sums its own microbatches' gradients, and the stage's first device adds
// the copies' sums (all-reduce's reduction; the split sends the mean back
// to each copy, which updates its own weights). docs/Training.md.
//
//===----------------------------------------------------------------------===//

#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Solver/PipelineSchedule.h"
#include "placer/Transforms/Gradients.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallSet.h"

#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <utility>

namespace placer {
#define GEN_PASS_DEF_ACCUMULATEMICROBATCHES
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;
using graph::NodeOp;

namespace {

constexpr llvm::StringLiteral kPass = "placer-accumulate-microbatches";

bool isOptimizerNode(Operation *op) {
  return isa<NodeOp>(op) && op->hasAttr(kOptimizerNodeAttrName);
}

/// Ops every microbatch shares: weights, constants, absent operands.
bool isShared(Operation *op) {
  return isa<graph::ConstantOp, graph::NoneOp>(op);
}

/// `name` of microbatch `m`: node and output names stay unique.
std::string microbatchName(StringRef name, int64_t m) {
  return (name + "/mb" + Twine(m)).str();
}

/// Names a copy for microbatch `m` (and `suffix`: a recomputation).
void renameForMicrobatch(NodeOp node, int64_t m, StringRef suffix = "") {
  appendToNodeNames(node, microbatchName("", m) + suffix.str());
}

/// The step's graph function: the module's one function with a body.
FailureOr<func::FuncOp> getStepFunction(ModuleOp module) {
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      funcs.push_back(func);
  if (funcs.size() != 1)
    return mlir::emitError(module->getLoc())
           << kPass << ": the module must hold one graph function, not "
           << funcs.size();
  return funcs.front();
}

/// An input's graph name, else "input<N>".
std::string inputName(func::FuncOp func, unsigned index) {
  if (auto name = func.getArgAttrOfType<StringAttr>(index, "graph.name"))
    return name.getValue().str();
  return "input" + std::to_string(index);
}

using solver::WorkKind;

/// One microbatch's forward, backward or weight-gradient work on one
/// stage (a device; a chunk where the schedule runs several per device):
/// the unit a schedule orders.
struct Item {
  int64_t microbatch;
  WorkKind kind;
  int64_t stage;
  bool operator<(const Item &other) const {
    return std::tie(microbatch, kind, stage) <
           std::tie(other.microbatch, other.kind, other.stage);
  }
};

/// The order in which the stage at `position` of `stages` runs its work
/// for `microbatches` under `schedule`, as (microbatch, kind) pairs: the
/// pipeline schedule's order (solver::getStageOrder, which the simulator
/// runs too), `position` stages after the first and the rest before the
/// loss; sequential is 1F1B with no forward ahead, F0 B0 F1 B1 ...
SmallVector<std::pair<int64_t, WorkKind>>
getStageOrder(solver::Schedule schedule, int64_t position, int64_t stages,
              int64_t microbatches) {
  int64_t warmup =
      schedule == solver::Schedule::Sequential ? 0 : stages - 1 - position;
  SmallVector<std::pair<int64_t, WorkKind>> order;
  for (const solver::PipelineWork &work : solver::getStageOrder(
           solver::getPipelineKind(schedule), static_cast<int>(warmup),
           static_cast<int>(microbatches), /*chunk=*/0,
           static_cast<int>(position)))
    order.emplace_back(work.microbatch, work.kind);
  return order;
}

/// Rewrites one step function (see the pass's description).
class Accumulator {
public:
  /// `layout`: the chunks of a schedule that runs several per device (the
  /// ops' placer.chunk say which), else null.
  Accumulator(func::FuncOp func, int64_t opset, int64_t microbatches,
              solver::Schedule schedule, ArrayRef<int64_t> recomputing,
              ArrayRef<int64_t> replicaOf,
              const solver::PipelineSchedule *layout)
      : func(func), opset(opset), microbatches(microbatches),
        schedule(schedule), layout(layout),
        recomputing(recomputing.begin(), recomputing.end()) {
    for (auto [device, leader] : llvm::enumerate(replicaOf))
      if (leader >= 0) {
        SmallVector<int64_t> &group = replicas[leader];
        if (group.empty())
          group.push_back(leader);
        group.push_back(static_cast<int64_t>(device));
      }
  }

  LogicalResult run();

private:
  LogicalResult classify();
  void assignDevices();
  LogicalResult emitSchedule(OpBuilder &b);
  void emitItem(OpBuilder &b, const Item &item);
  GradientBuilder &getMeanBuilder(OpBuilder &b, Value value);
  static SmallVector<Operation *> getRecomputed(ArrayRef<Operation *> backward,
                                                ArrayRef<Operation *> forward);
  void addToSum(OpBuilder &b, Value value, int64_t microbatch, Value copy);
  Value getSlice(OpBuilder &b, BlockArgument arg, int64_t m, Operation *reader);
  bool isReady(const Item &item) const;
  WorkKind getKind(Operation *op) const;
  int64_t getReplicaCount(int64_t device) const;
  int64_t getRunningDevice(int64_t device, int64_t microbatch) const;

  func::FuncOp func;
  int64_t opset, microbatches;
  solver::Schedule schedule;
  const solver::PipelineSchedule *layout;
  /// Devices whose backward work recomputes their forward work's values
  /// instead of keeping them (the placement's `recompute`).
  llvm::SmallDenseSet<int64_t> recomputing;
  /// Per replicated stage's device: it and the devices that run copies of
  /// it (the placement's `replica_of`), in device order.
  std::map<int64_t, SmallVector<int64_t>> replicas;
  Location loc = func.getLoc();
  /// Forward and backward ops, in program order; the optimizer's.
  SmallVector<Operation *> replicated, optimizer;
  llvm::DenseSet<Operation *> isReplicated;
  /// Per replicated op: its device (0 when the module is not placed) and
  /// stage (its device, or its chunk under a chunked schedule); each
  /// stage's device.
  llvm::DenseMap<Operation *, int64_t> deviceOf, stageOf;
  std::map<int64_t, int64_t> deviceOfStage;
  bool placed = false;
  /// Stages in the order of their first op: the pipeline's.
  SmallVector<int64_t> stages;
  /// The ops of each item, in program order; the items emitted so far.
  std::map<std::pair<WorkKind, int64_t>, SmallVector<Operation *>> opsOf;
  std::set<Item> emitted;
  SmallVector<IRMapping> copies;
  /// Per (stage, microbatch) whose backward work recomputed forward
  /// values: each value and its recomputed copy, which the weight work
  /// reads when the schedule runs it apart (the first copies died).
  std::map<std::pair<int64_t, int64_t>, SmallVector<std::pair<Value, Value>>>
      recomputedFor;
  /// Values of one microbatch that the rest of the step reads (gradients,
  /// the loss), the sum of their copies so far on each replica of their
  /// stage, and the builder of each one's sum and mean.
  llvm::SetVector<Value> crossing;
  llvm::DenseMap<std::pair<Value, int64_t>, Value> runningSums;
  /// Per crossing value, each microbatch's copy until it is summed; per
  /// crossing value and replica, how many of its microbatches are.
  llvm::DenseMap<Value, SmallVector<Value>> unsummed;
  llvm::DenseMap<std::pair<Value, int64_t>, int64_t> summed;
  std::map<Operation *, std::unique_ptr<GradientBuilder>> meanBuilders;
  std::map<std::pair<unsigned, int64_t>, Value> slices;
};

LogicalResult Accumulator::classify() {
  Block &body = func.getBody().front();
  for (Operation &op : body.without_terminator()) {
    if (isShared(&op))
      continue;
    (isOptimizerNode(&op) ? optimizer : replicated).push_back(&op);
    placed |= getDevice(&op).has_value();
  }
  if (optimizer.empty())
    return func.emitError()
           << kPass << ": not a training step: no node is marked '"
           << kOptimizerNodeAttrName << "' (run --placer-build-training first)";
  isReplicated.insert(replicated.begin(), replicated.end());
  if (solver::splitsBackward(schedule) &&
      llvm::none_of(replicated, [](Operation *op) {
        return op->hasAttr(kWeightGradientAttrName);
      }))
    return func.emitError()
           << kPass << ": the " << solver::getName(schedule)
           << " schedule runs weight gradients apart from the backward pass, "
              "but no backward node is marked '"
           << kWeightGradientAttrName
           << "' (a step built by --placer-build-training marks them)";
  for (Operation *op : replicated)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp(); def && isOptimizerNode(def))
        return op->emitError()
               << kPass << ": reads the optimizer's result "
               << cast<NodeOp>(def).getDisplayName()
               << ": the update must come after the backward pass";
  return success();
}

/// An op the placement left without a device (computed from constants
/// only) runs where its first reader does, in its chunk.
void Accumulator::assignDevices() {
  for (Operation *op : llvm::reverse(replicated)) {
    std::optional<int64_t> device = placed ? getDevice(op) : 0;
    std::optional<int64_t> chunk;
    if (auto attr = op->getAttrOfType<IntegerAttr>(kChunkAttrName))
      chunk = attr.getInt();
    for (Operation *user : op->getUsers())
      if (auto it = deviceOf.find(user); it != deviceOf.end()) {
        device = device.value_or(it->second);
        chunk = chunk.value_or(stageOf.at(user));
        break;
      }
    deviceOf[op] = device.value_or(0);
    stageOf[op] = layout ? chunk.value_or(0) : deviceOf[op];
  }
  for (Operation *op : replicated) {
    int64_t stage = stageOf.at(op);
    if (!llvm::is_contained(stages, stage))
      stages.push_back(stage);
    deviceOfStage.try_emplace(stage, deviceOf.at(op));
    opsOf[{getKind(op), stage}].push_back(op);
  }
}

/// An op's work: forward, backward, or where the schedule runs it apart
/// the weight-gradient part of the backward pass (placer.weight_gradient:
/// no input gradient reads it, so nothing upstream waits for it).
WorkKind Accumulator::getKind(Operation *op) const {
  if (!op->hasAttr(kBackwardNodeAttrName))
    return WorkKind::Forward;
  return solver::splitsBackward(schedule) &&
                 op->hasAttr(kWeightGradientAttrName)
             ? WorkKind::Weight
             : WorkKind::Backward;
}

/// Whether every op of `item` reads only shared values, inputs and work
/// emitted before it or in it.
bool Accumulator::isReady(const Item &item) const {
  auto it = opsOf.find({item.kind, item.stage});
  if (it == opsOf.end())
    return true;
  for (Operation *op : it->second)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || !isReplicated.contains(def))
        continue;
      Item from{item.microbatch, getKind(def), stageOf.at(def)};
      if (from.kind != item.kind || from.stage != item.stage)
        if (!emitted.count(from))
          return false;
    }
  return true;
}

Value Accumulator::getSlice(OpBuilder &b, BlockArgument arg, int64_t m,
                            Operation *reader) {
  Value &slice = slices[{arg.getArgNumber(), m}];
  if (slice)
    return slice;
  auto type = cast<RankedTensorType>(arg.getType());
  int64_t rows = type.getDimSize(0);
  GradientBuilder slicer(b, loc, opset,
                         microbatchName(inputName(func, arg.getArgNumber()), m),
                         IntegerAttr(), StepPhase::Forward);
  slice = slicer.node("Slice",
                      {arg, slicer.int64s({m * rows}),
                       slicer.int64s({(m + 1) * rows}), slicer.int64s({0})},
                      type);
  if (placed)
    setDevice(slice.getDefiningOp(), getRunningDevice(deviceOf.at(reader), m));
  return slice;
}

int64_t Accumulator::getReplicaCount(int64_t device) const {
  auto it = replicas.find(device);
  return it == replicas.end() ? 1 : static_cast<int64_t>(it->second.size());
}

/// The device that runs microbatch `microbatch` of the work placed on
/// `device`: copy m mod r of its r replicas.
int64_t Accumulator::getRunningDevice(int64_t device,
                                      int64_t microbatch) const {
  auto it = replicas.find(device);
  if (it == replicas.end())
    return device;
  return it->second[microbatch % it->second.size()];
}

void Accumulator::emitItem(OpBuilder &b, const Item &item) {
  emitted.insert(item);
  auto it = opsOf.find({item.kind, item.stage});
  if (it == opsOf.end())
    return;
  int64_t m = item.microbatch;
  auto cloneAll = [&](ArrayRef<Operation *> ops, IRMapping &mapping,
                      StringRef suffix) {
    for (Operation *op : ops) {
      for (Value operand : op->getOperands())
        if (auto arg = dyn_cast<BlockArgument>(operand);
            arg && arg.getOwner() == &func.getBody().front())
          mapping.map(arg, getSlice(b, arg, m, op));
      Operation *copy = b.clone(*op, mapping);
      if (auto node = dyn_cast<NodeOp>(copy))
        renameForMicrobatch(node, m, suffix);
      if (placed)
        setDevice(copy, getRunningDevice(deviceOf.at(op), m));
    }
  };
  IRMapping &mapping = copies[m];
  // What the backward work computes again: all of the device's forward
  // work where the placement's `recompute` lists it, else the nodes whose
  // chosen configuration recomputes (placer.recompute). Weight work run
  // apart reads what its backward work recomputed.
  SmallVector<Operation *> again;
  if (auto forward = opsOf.find({WorkKind::Forward, item.stage});
      item.kind == WorkKind::Backward && forward != opsOf.end()) {
    bool all = recomputing.contains(deviceOfStage.at(item.stage));
    SmallVector<Operation *> marked;
    for (Operation *op : forward->second)
      if (all || op->hasAttr(kRecomputeAttrName))
        marked.push_back(op);
    SmallVector<Operation *> readers(it->second);
    if (auto weight = opsOf.find({WorkKind::Weight, item.stage});
        weight != opsOf.end())
      readers.append(weight->second);
    if (!marked.empty())
      again = getRecomputed(readers, marked);
  }
  auto keep = [&](IRMapping &from) {
    for (Operation *op : it->second)
      for (Value result : op->getResults())
        mapping.map(result, from.lookup(result));
  };
  if (item.kind == WorkKind::Weight) {
    IRMapping recomputed = mapping;
    for (auto [value, copy] : recomputedFor[{item.stage, m}])
      recomputed.map(value, copy);
    recomputedFor.erase({item.stage, m});
    cloneAll(it->second, recomputed, "");
    keep(recomputed);
  } else if (item.kind == WorkKind::Forward || again.empty()) {
    cloneAll(it->second, mapping, "");
  } else {
    // That forward work again, just before the backward work reads it:
    // what the forward pass computed then dies at once, and only what
    // arrived from other devices or is kept waits for the backward pass.
    IRMapping recomputed = mapping;
    cloneAll(again, recomputed, "/recompute");
    cloneAll(it->second, recomputed, "");
    keep(recomputed);
    for (Operation *op : again)
      for (Value result : op->getResults())
        recomputedFor[{item.stage, m}].emplace_back(result,
                                                     recomputed.lookup(result));
  }
  // Sums as the microbatches finish, not at the end: one running sum of
  // each gradient lives, not one gradient per microbatch.
  for (Operation *op : it->second)
    for (Value result : op->getResults())
      if (crossing.contains(result))
        addToSum(b, result, item.microbatch, mapping.lookup(result));
}

/// The ops of `forward` that `backward` reads, directly or through each
/// other, in program order: what a recomputing device runs again.
SmallVector<Operation *>
Accumulator::getRecomputed(ArrayRef<Operation *> backward,
                           ArrayRef<Operation *> forward) {
  llvm::DenseSet<Operation *> candidates(forward.begin(), forward.end()),
      needed;
  SmallVector<Operation *> worklist(backward.begin(), backward.end());
  while (!worklist.empty())
    for (Value operand : worklist.pop_back_val()->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && candidates.contains(def) && needed.insert(def).second)
        worklist.push_back(def);
  SmallVector<Operation *> ops;
  for (Operation *op : forward)
    if (needed.contains(op))
      ops.push_back(op);
  return ops;
}

/// The builder of `value`'s sum and mean: its producer's phase, colour
/// class and (in addToSum and run) device.
GradientBuilder &Accumulator::getMeanBuilder(OpBuilder &b, Value value) {
  Operation *def = value.getDefiningOp();
  std::unique_ptr<GradientBuilder> &builder = meanBuilders[def];
  if (!builder) {
    StepPhase phase = def->hasAttr(kBackwardNodeAttrName) ? StepPhase::Backward
                                                          : StepPhase::Forward;
    std::string name = isa<NodeOp>(def)
                           ? cast<NodeOp>(def).getDisplayName().str()
                           : def->getName().getStringRef().str();
    builder = std::make_unique<GradientBuilder>(
        b, def->getLoc(), opset, name + "/mean",
        def->getAttrOfType<IntegerAttr>(kColorClassAttrName), phase);
  }
  return *builder;
}

/// Sums the copies in microbatch order, whatever the schedule, so that
/// every schedule (and one process) adds the same numbers in the same
/// order: a copy is added as soon as those of the microbatches before it
/// are (at once under 1F1B and sequentially; under GPipe, whose backward
/// work runs in reverse, once the first microbatch's is done). Each
/// replica of a replicated stage sums its own microbatches, in order.
void Accumulator::addToSum(OpBuilder &b, Value value, int64_t microbatch,
                           Value copy) {
  SmallVector<Value> &waiting = unsummed[value];
  waiting.resize(microbatches);
  waiting[microbatch] = copy;
  int64_t device = deviceOf.at(value.getDefiningOp());
  int64_t r = getReplicaCount(device), replica = microbatch % r;
  int64_t &count = summed[{value, replica}];
  Value &sum = runningSums[{value, replica}];
  for (int64_t next = replica + count * r; next < microbatches && waiting[next];
       next += r, ++count) {
    Value part = std::exchange(waiting[next], Value());
    if (!sum) {
      sum = part;
      continue;
    }
    sum = getMeanBuilder(b, value).node("Add", {sum, part}, value.getType());
    if (placed)
      setDevice(sum.getDefiningOp(), getRunningDevice(device, replica));
  }
}

/// Each device's items in its schedule's order, interleaved as their
/// inputs allow (round robin over the devices): the order a pipeline runs
/// them in, which each device's function keeps once split. One chunk per
/// device: each stage's order from getStageOrder, by its position; several
/// (a layout): each device's list over its chunks, as the schedule library
/// builds it.
LogicalResult Accumulator::emitSchedule(OpBuilder &b) {
  SmallVector<SmallVector<Item>> lanes;
  if (layout) {
    for (const std::vector<solver::PipelineWork> &order : layout->order) {
      SmallVector<Item> &lane = lanes.emplace_back();
      for (const solver::PipelineWork &work : order)
        lane.push_back(Item{work.microbatch, work.kind, work.chunk});
    }
  } else {
    for (auto [position, stage] : llvm::enumerate(stages)) {
      SmallVector<Item> &lane = lanes.emplace_back();
      for (auto [m, kind] :
           getStageOrder(schedule, position, stages.size(), microbatches))
        lane.push_back(Item{m, kind, stage});
    }
  }
  SmallVector<size_t> next(lanes.size(), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (auto [lane, items] : llvm::enumerate(lanes))
      while (next[lane] < items.size() && isReady(items[next[lane]])) {
        emitItem(b, items[next[lane]++]);
        progress = true;
      }
  }
  for (auto [lane, items] : llvm::enumerate(lanes))
    if (next[lane] < items.size()) {
      int64_t stage = items[next[lane]].stage;
      auto device = deviceOfStage.find(stage);
      return func.emitError()
             << kPass << ": the " << solver::getName(schedule)
             << " schedule cannot run on this placement: device "
             << (device != deviceOfStage.end() ? device->second
                                               : static_cast<int64_t>(lane))
             << " waits for work that waits for it";
    }
  return success();
}

LogicalResult Accumulator::run() {
  Block &body = func.getBody().front();
  Operation *ret = body.getTerminator();

  // Each input must split into M equal slices along its first axis.
  SmallVector<Type> argTypes;
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() == 0 ||
        ShapedType::isDynamic(type.getDimSize(0)))
      return func.emitError()
             << kPass << ": input '" << inputName(func, arg.getArgNumber())
             << "' has no static first axis to split into microbatches ("
             << arg.getType() << ")";
    SmallVector<int64_t> shape(type.getShape());
    shape[0] *= microbatches;
    argTypes.push_back(type.clone(shape));
  }
  if (failed(classify()))
    return failure();
  for (const auto &[device, group] : replicas)
    if (static_cast<int64_t>(group.size()) > microbatches)
      return func.emitError()
             << kPass << ": the stage of device " << device << " runs on "
             << group.size() << " devices (replica_of) but the step has "
             << microbatches << " microbatches: each copy needs one at least";
  assignDevices();

  // Values of one microbatch that the rest of the step reads: gradients
  // (the optimizer) and the loss (the results).
  auto collect = [&](Operation *reader) {
    for (Value operand : reader->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && isReplicated.contains(def))
        crossing.insert(operand);
  };
  for (Operation *op : optimizer)
    collect(op);
  collect(ret);
  for (Value value : crossing) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      return value.getDefiningOp()->emitError()
             << kPass << ": averages floating-point gradients and losses, not "
             << value.getType();
  }

  // Constants first, so that the copies, placed before the optimizer, see
  // every one they read.
  Operation *firstUnshared =
      &*llvm::find_if(body, [](Operation &op) { return !isShared(&op); });
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
    if (isShared(&op) && firstUnshared->isBeforeInBlock(&op))
      op.moveBefore(firstUnshared);

  OpBuilder b(optimizer.front());
  copies.resize(microbatches);
  if (failed(emitSchedule(b)))
    return failure();

  // Each crossing value's mean over the microbatches replaces it outside
  // the copies: its replicas' sums added in replica order on the stage's
  // own device, then scaled.
  for (Value value : crossing) {
    Type type = value.getType();
    GradientBuilder &mean = getMeanBuilder(b, value);
    int64_t device = deviceOf.at(value.getDefiningOp());
    Value total = runningSums.at({value, 0});
    for (int64_t replica = 1;
         replica < std::min(getReplicaCount(device), microbatches); ++replica) {
      total = mean.node("Add", {total, runningSums.at({value, replica})}, type);
      setDevice(total.getDefiningOp(), device);
    }
    Value average =
        mean.node("Mul", {total, mean.scalar(1.0 / microbatches, type)}, type);
    if (placed)
      setDevice(average.getDefiningOp(), device);
    value.replaceUsesWithIf(average, [&](OpOperand &use) {
      return !isReplicated.contains(use.getOwner());
    });
  }
  for (Operation *op : llvm::reverse(replicated))
    op->erase();

  for (auto [arg, type] : llvm::zip(body.getArguments(), argTypes))
    arg.setType(type);
  func.setType(
      FunctionType::get(func.getContext(), argTypes, func.getResultTypes()));
  Builder attrs(func.getContext());
  func->setAttr(kMicrobatchesAttrName, attrs.getI64IntegerAttr(microbatches));
  func->setAttr(kScheduleAttrName,
                attrs.getStringAttr(solver::getName(schedule)));
  return success();
}

struct AccumulateMicrobatchesPass
    : placer::impl::AccumulateMicrobatchesBase<AccumulateMicrobatchesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(accumulateMicrobatches(getOperation(), microbatches, schedule)))
      signalPassFailure();
  }
};

} // namespace

LogicalResult placer::accumulateMicrobatches(ModuleOp module,
                                             int64_t microbatches,
                                             StringRef schedule) {
  // Unset: what the placement sized the pipeline for, if it placed one.
  PlacementAttr placement = getPlacement(module);
  bool placedTraining =
      placement && placement.getSchedule() != solver::Schedule::Inference;
  if (microbatches == 0 && placedTraining)
    microbatches = placement.getMicrobatches();
  // Unset: the placement's pipeline, else one microbatch after another.
  std::optional<solver::Schedule> order =
      !schedule.empty() ? solver::parseStepSchedule(schedule)
      : placedTraining  ? placement.getSchedule()
                        : solver::Schedule::Sequential;
  if (microbatches < 1)
    return mlir::emitError(module->getLoc())
           << kPass << ": microbatches must be at least 1"
           << (microbatches == 0 ? " (the module was placed for no "
                                   "training schedule: give microbatches)"
                                 : ", not " + std::to_string(microbatches));
  if (!order)
    return mlir::emitError(module->getLoc())
           << kPass << ": schedule must be sequential, "
           << solver::getTrainingScheduleNames() << ", not '" << schedule
           << "'";
  // Several chunks per device: the chunks the placement chose, run in the
  // schedule's order for its accelerators.
  std::optional<solver::PipelineSchedule> layout;
  if (solver::usesChunks(*order)) {
    if (!placedTraining || placement.getSchedule() != *order)
      return mlir::emitError(module->getLoc())
             << kPass << ": the " << solver::getName(*order)
             << " schedule runs the chunks a placement for it chose "
                "(--placer-place-devices schedule="
             << solver::getName(*order) << ")";
    llvm::Expected<solver::PipelineSchedule> chunks =
        solver::buildPipelineSchedule(
            solver::getPipelineKind(*order),
            static_cast<int>(placement.getAccelerators()),
            static_cast<int>(microbatches),
            static_cast<int>(placement.getChunks()));
    if (!chunks)
      return mlir::emitError(module->getLoc())
             << kPass << ": " << llvm::toString(chunks.takeError());
    layout = std::move(*chunks);
  }
  ArrayRef<int64_t> recomputing, replicaOf;
  if (placedTraining && placement.getRecompute())
    recomputing = placement.getRecompute().asArrayRef();
  if (placement && placement.getReplicaOf())
    replicaOf = placement.getReplicaOf().asArrayRef();
  FailureOr<func::FuncOp> func = getStepFunction(module);
  if (failed(func))
    return failure();
  if ((*func)->hasAttr(kMicrobatchesAttrName))
    return func->emitError()
           << kPass << ": the step averages microbatches already";
  bool copies = llvm::any_of(replicaOf, [](int64_t to) { return to >= 0; });
  if (microbatches == 1 && !copies)
    return success();
  FailureOr<int64_t> opset = getTrainingOpset(module, kPass);
  if (failed(opset))
    return failure();
  return Accumulator(*func, *opset, microbatches, *order, recomputing,
                     replicaOf, layout ? &*layout : nullptr)
      .run();
}
