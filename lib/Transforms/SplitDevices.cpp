//===- SplitDevices.cpp - Per-device functions with send/recv, and back ---===//
#include "PlaceParallel.h"
#include "placer/Analysis/OpRoles.h"
#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Transforms/Gradients.h"
#include "placer/Transforms/Passes.h"
#include "placer/Transforms/TensorParallel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <set>

namespace placer {
#define GEN_PASS_DEF_SPLITDEVICES
#define GEN_PASS_DEF_MERGEDEVICES
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;

namespace {

constexpr llvm::StringLiteral kPosition = dist::kPositionAttrName;
constexpr llvm::StringLiteral kArg = dist::kArgAttrName;
constexpr llvm::StringLiteral kResult = dist::kResultAttrName;

bool isOptimizerNode(Operation *op) {
  return isa<graph::NodeOp>(op) && op->hasAttr(kOptimizerNodeAttrName);
}

/// Training state (a weight, an optimizer's state) that ops on several
/// devices read: a weight tied across stages, or one that the copies of a
/// replicated stage read (--placer-accumulate-microbatches places their
/// microbatches). Each such device gets its own copy of the optimizer's
/// nodes that update the state, reading the same gradient (which the split
/// sends from where it is summed), and returns the next value as a replica
/// (placer.replica): every holder steps its copy alike, bit for bit, and
/// no stage reads a stale weight. The gradient's sum on one device and its
/// sends to the others are the all-reduce (docs/Training.md, Rationale).
class StateMirror {
public:
  explicit StateMirror(func::FuncOp func)
      : func(func),
        ret(cast<func::ReturnOp>(func.getBody().front().getTerminator())) {
    func.walk([&](graph::ConstantOp constant) {
      constants[constant.getName()] = constant;
    });
  }

  void run() {
    // A copy of one state's update may read another state (Adam's update
    // of a weight reads its moments and the step count): repeat until
    // every device that reads a state updates it.
    for (bool changed = true; changed;) {
      changed = false;
      for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
        auto name = func.getResultAttrOfType<StringAttr>(i, kUpdatesAttrName);
        Operation *update = ret.getOperand(i).getDefiningOp();
        if (!name || func.getResultAttr(i, kReplicaAttrName) || !update ||
            !isOptimizerNode(update) || !getDevice(update))
          continue;
        for (int64_t device : getReaders(name.getValue()))
          if (device != *getDevice(update) &&
              mirrored.insert({name.getValue().str(), device}).second) {
            addReplicaResult(i, device, copyOn(update, device));
            changed = true;
          }
      }
    }
  }

private:
  /// The devices of the ops that read state `name`, ascending.
  std::set<int64_t> getReaders(StringRef name) const {
    std::set<int64_t> devices;
    auto it = constants.find(name);
    if (it == constants.end())
      return devices;
    for (Operation *user : it->second->getUsers())
      if (std::optional<int64_t> device = getDevice(user))
        devices.insert(*device);
    return devices;
  }

  /// `op`'s copy on `device`, after copies of the optimizer nodes it reads;
  /// other values it reads stay as they are (the split sends them).
  Value copyOn(Operation *op, int64_t device) {
    Operation *&copy = copies[{op, device}];
    if (!copy) {
      IRMapping mapping;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && isOptimizerNode(def))
          mapping.map(operand, copyOn(def, device));
      OpBuilder b(ret);
      copy = b.clone(*op, mapping);
      setDevice(copy, device);
      appendToNodeNames(cast<graph::NodeOp>(copy),
                        "/d" + std::to_string(device));
    }
    return copy->getResult(0);
  }

  /// Returns `value`, the next value of result `of`'s state on `device`.
  void addReplicaResult(unsigned of, int64_t device, Value value) {
    Builder b(func.getContext());
    SmallVector<NamedAttribute> attrs;
    for (NamedAttribute attr : func.getResultAttrs(of))
      if (attr.getName() == "graph.name")
        attrs.emplace_back(
            attr.getName(),
            b.getStringAttr(cast<StringAttr>(attr.getValue()).getValue() +
                            "/d" + std::to_string(device)));
      else
        attrs.push_back(attr);
    attrs.emplace_back(b.getStringAttr(kReplicaAttrName), b.getUnitAttr());
    unsigned index = func.getNumResults();
    (void)func.insertResult(index, value.getType(), b.getDictionaryAttr(attrs));
    ret.getOperandsMutable().append(value);
  }

  func::FuncOp func;
  func::ReturnOp ret;
  llvm::StringMap<graph::ConstantOp> constants;
  std::map<std::pair<Operation *, int64_t>, Operation *> copies;
  std::set<std::pair<std::string, int64_t>> mirrored;
};

/// One device's function while it is being built.
struct Stage {
  int64_t device;
  func::FuncOp func;
  OpBuilder builder;
  IRMapping mapping;
  SmallVector<unsigned> argIndices; ///< original index of each argument
  /// The last replicated or folded op copied to the top of the function.
  Operation *lastCopy = nullptr;
};

class Splitter {
public:
  /// `copies`: for a device whose stage is replicated, the devices that
  /// run copies of it (the placement's `replica_of`).
  Splitter(func::FuncOp func, std::map<int64_t, SmallVector<int64_t>> copies)
      : func(func), roles(func.getBody().front()), copies(std::move(copies)) {}

  LogicalResult run() {
    Block &body = func.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    ModuleOp module = func->getParentOfType<ModuleOp>();

    // Devices in order of their first op: the pipeline order.
    SmallVector<int64_t> order;
    for (Operation &op : body.without_terminator()) {
      if (!roles.isPlaced(&op))
        continue;
      std::optional<int64_t> device = getDevice(&op);
      if (!device)
        return op.emitError("has no placer.device: run --placer-place-devices "
                            "first");
      if (!llvm::is_contained(order, *device))
        order.push_back(*device);
    }
    if (order.empty())
      order.push_back(0);

    // Which devices read each value computed on another device.
    std::map<Operation *, int64_t> deviceOf;
    for (Operation &op : body.without_terminator())
      if (roles.isPlaced(&op))
        deviceOf[&op] = *getDevice(&op);
    llvm::DenseMap<Value, std::set<int64_t>> readers;
    for (Operation &op : body.without_terminator()) {
      if (!roles.isPlaced(&op))
        continue;
      for (Value v : getReadValues(&op))
        if (Operation *def = v.getDefiningOp())
          if (roles.isPlaced(def) && deviceOf.at(def) != deviceOf.at(&op))
            readers[v].insert(deviceOf.at(&op));
    }

    OpBuilder moduleBuilder(func);
    for (int64_t device : order) {
      std::string name =
          (func.getSymName() + "_d" + std::to_string(device)).str();
      auto stageFunc = func::FuncOp::create(
          moduleBuilder, func.getLoc(), name,
          moduleBuilder.getFunctionType({}, {}));
      Block *entry = stageFunc.addEntryBlock();
      stages.push_back(Stage{device, stageFunc, OpBuilder::atBlockEnd(entry),
                             IRMapping(), {}, nullptr});
    }
    for (auto [index, stage] : llvm::enumerate(stages))
      stageOf[stage.device] = index;

    int64_t position = 0;
    for (Operation &op : body.without_terminator()) {
      ++position;
      if (!roles.isPlaced(&op)) {
        positions[&op] = position;
        continue;
      }
      Stage &stage = stages[stageOf.at(deviceOf.at(&op))];
      for (Value v : getReadValues(&op))
        materialize(stage, v);
      Operation *clone = stage.builder.clone(op, stage.mapping);
      clone->setAttr(kPosition, stage.builder.getI64IntegerAttr(position));
      for (Value result : op.getResults()) {
        auto it = readers.find(result);
        if (it == readers.end())
          continue;
        for (int64_t to : it->second) {
          int64_t id = channels.size();
          dist::SendOp::create(stage.builder, op.getLoc(),
                               stage.mapping.lookup(result), id, to);
          channels.push_back(dist::ChannelAttr::get(
              func.getContext(), id, stage.device, to, result.getType()));
          pendingRecv[{result, to}] = id;
        }
      }
    }

    // Results: each graph output is returned by the device that computes
    // it (an input or a constant returned as is: by the first stage).
    std::vector<SmallVector<std::pair<unsigned, Value>>> returned(stages.size());
    for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
      Operation *def = value.getDefiningOp();
      size_t s = def && roles.isPlaced(def) ? stageOf.at(deviceOf.at(def)) : 0;
      materialize(stages[s], value);
      returned[s].emplace_back(index, stages[s].mapping.lookup(value));
    }
    for (auto [s, stage] : llvm::enumerate(stages)) {
      SmallVector<Value> values;
      for (auto &[index, value] : returned[s])
        values.push_back(value);
      func::ReturnOp::create(stage.builder, ret.getLoc(), values);
      Block &entry = stage.func.getBody().front();
      stage.func.setFunctionType(FunctionType::get(
          func.getContext(), entry.getArgumentTypes(),
          ValueRange(values).getTypes()));
      Builder b(func.getContext());
      for (auto [i, original] : llvm::enumerate(stage.argIndices)) {
        SmallVector<NamedAttribute> attrs;
        if (DictionaryAttr dict = func.getArgAttrDict(original))
          attrs.append(dict.begin(), dict.end());
        attrs.emplace_back(b.getStringAttr(kArg), b.getI64IntegerAttr(original));
        stage.func.setArgAttrs(i, b.getDictionaryAttr(attrs));
      }
      for (auto [i, pair] : llvm::enumerate(returned[s])) {
        SmallVector<NamedAttribute> attrs;
        if (DictionaryAttr dict = func.getResultAttrDict(pair.first))
          attrs.append(dict.begin(), dict.end());
        attrs.emplace_back(b.getStringAttr(kResult),
                           b.getI64IntegerAttr(pair.first));
        stage.func.setResultAttrs(i, b.getDictionaryAttr(attrs));
      }
    }

    if (failed(checkStateStaysHome()))
      return failure();

    SmallVector<Attribute> stageRefs;
    SmallVector<int64_t> devices, replicas, replicaDevices;
    for (Stage &stage : stages) {
      stageRefs.push_back(FlatSymbolRefAttr::get(stage.func.getSymNameAttr()));
      devices.push_back(stage.device);
      auto it = copies.find(stage.device);
      replicas.push_back(it == copies.end() ? 1 : 1 + it->second.size());
      if (it != copies.end())
        replicaDevices.append(it->second);
    }
    // The function's own attributes, less what defines a function.
    SmallVector<NamedAttribute> graphAttrs;
    for (NamedAttribute attr : func->getDiscardableAttrs())
      graphAttrs.push_back(attr);
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    dist::ProgramOp::create(
        builder, func.getLoc(), FlatSymbolRefAttr::get(func.getSymNameAttr()),
        builder.getArrayAttr(stageRefs), builder.getDenseI64ArrayAttr(devices),
        builder.getArrayAttr(channels),
        graphAttrs.empty() ? DictionaryAttr()
                           : builder.getDictionaryAttr(graphAttrs),
        copies.empty() ? DenseI64ArrayAttr()
                       : builder.getDenseI64ArrayAttr(replicas),
        copies.empty() ? DenseI64ArrayAttr()
                       : builder.getDenseI64ArrayAttr(replicaDevices));
    func.erase();
    return success();
  }

private:
  /// Every stage that reads a weight or optimizer state the training step
  /// updates updates its own copy (StateMirror): else it would keep
  /// reading the first value.
  LogicalResult checkStateStaysHome() {
    llvm::StringSet<> updated = getUpdatedState(func);
    for (Stage &stage : stages) {
      llvm::StringSet<> own = getUpdatedState(stage.func);
      WalkResult walk =
          stage.func.getBody().front().walk([&](graph::ConstantOp constant) {
            StringRef name = constant.getName();
            if (!updated.contains(name) || own.contains(name))
              return WalkResult::advance();
            func.emitError()
                << "--placer-split-devices: '" << name
                << "', which the training step updates, is read on "
                   "device "
                << stage.device
                << ", which does not update it (its update is no "
                   "optimizer node to copy there)";
            return WalkResult::interrupt();
          });
      if (walk.wasInterrupted())
        return failure();
    }
    return success();
  }

  /// Makes `v` available in `stage`: a new argument for a graph input, a
  /// copy of a replicated op, a constant for a folded one, or the recv of
  /// the channel that carries it.
  void materialize(Stage &stage, Value v) {
    if (stage.mapping.contains(v))
      return;
    Block &entry = stage.func.getBody().front();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      stage.mapping.map(v, entry.addArgument(arg.getType(), arg.getLoc()));
      stage.argIndices.push_back(arg.getArgNumber());
      return;
    }
    Operation *def = v.getDefiningOp();
    if (OpRole role = roles.getRole(def); role != OpRole::Placed) {
      copyToStage(stage, def, role);
      return;
    }
    int64_t id = pendingRecv.lookup({v, stage.device});
    auto recv = dist::RecvOp::create(
        stage.builder, v.getLoc(), v.getType(), id,
        cast<dist::ChannelAttr>(channels[id]).getFrom(), /*buffer=*/Value());
    stage.mapping.map(v, recv.getResult());
  }

  /// Copies a replicated op (after its operands) or the constant a folded
  /// one stands for to the top of `stage`. The copy keeps its placer.device:
  /// the device that owns it, where a per-stage export keeps an ONNX node a
  /// node.
  void copyToStage(Stage &stage, Operation *def, OpRole role) {
    if (role == OpRole::Replicated)
      for (Value operand : getReadValues(def))
        materialize(stage, operand);
    OpBuilder::InsertionGuard guard(stage.builder);
    Block &entry = stage.func.getBody().front();
    if (stage.lastCopy)
      stage.builder.setInsertionPointAfter(stage.lastCopy);
    else
      stage.builder.setInsertionPointToStart(&entry);
    Operation *copy;
    if (role == OpRole::Folded) {
      auto node = cast<graph::NodeOp>(def);
      auto name = cast<StringAttr>(node.getOutputNames()[0]);
      copy = graph::ConstantOp::create(
          stage.builder, def->getLoc(), def->getResult(0).getType(), name,
          getFoldedValue(def), stage.builder.getStringAttr(node.getName()));
      if (std::optional<int64_t> device = getDevice(def))
        setDevice(copy, *device);
      stage.mapping.map(def->getResult(0), copy->getResult(0));
    } else {
      copy = stage.builder.clone(*def, stage.mapping);
    }
    copy->setAttr(kPosition, stage.builder.getI64IntegerAttr(positions[def]));
    stage.lastCopy = copy;
  }

  func::FuncOp func;
  OpRoles roles;
  std::map<int64_t, SmallVector<int64_t>> copies;
  std::vector<Stage> stages;
  std::map<int64_t, size_t> stageOf;
  SmallVector<Attribute> channels;
  llvm::DenseMap<std::pair<Value, int64_t>, int64_t> pendingRecv;
  llvm::DenseMap<Operation *, int64_t> positions;
};

struct SplitDevicesPass
    : public placer::impl::SplitDevicesBase<SplitDevicesPass> {
  void runOnOperation() override {
    // Tensor-parallel stages (a three-dimensional plan's degree above 1)
    // split like any stage first, on their first device; then each becomes
    // one program per device of its group (buildGroupPrograms).
    SmallVector<ParallelStageAttr> tensorStages;
    if (PlacementAttr placement = getPlacement(getOperation());
        placement && placement.getStages())
      for (auto stage : placement.getStages().getAsRange<ParallelStageAttr>())
        if (stage.getTensor() > 1)
          tensorStages.push_back(stage);
    // What the three-dimensional planner read (configurations, edge sizes)
    // describes the graph it planned, not the per-device programs: their
    // nodes' uses become sends.
    if (PlacementAttr placement = getPlacement(getOperation());
        placement && placement.getStages())
      getOperation().walk(dropTensorPlanInputs);
    // Replicated stages (the placement's `replica_of`): one function, run
    // by the stage's device and its copies.
    std::map<int64_t, SmallVector<int64_t>> copies;
    if (PlacementAttr placement = getPlacement(getOperation()))
      if (DenseI64ArrayAttr replicaOf = placement.getReplicaOf())
        for (auto [device, leader] : llvm::enumerate(replicaOf.asArrayRef()))
          if (leader >= 0)
            copies[leader].push_back(static_cast<int64_t>(device));
    // A three-dimensional plan with tensor-parallel stages: the copies of
    // its stages of degree 1 are replicated stages as above; those of a
    // tensor-parallel stage are its members' (splitTensorStage).
    if (!tensorStages.empty())
      for (auto stage : getPlacement(getOperation())
                            .getStages()
                            .getAsRange<ParallelStageAttr>())
        if (stage.getTensor() == 1)
          for (int64_t copy = 1; copy < stage.getData(); ++copy)
            copies[stage.getFirst()].push_back(stage.getFirst() + copy);
    SmallVector<func::FuncOp> placed;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() &&
          llvm::any_of(func.getBody().getOps(), [](Operation &op) {
            return getDevice(&op).has_value();
          }))
        placed.push_back(func);
    for (func::FuncOp func : placed) {
      // An accumulated training step places its replicas' microbatches
      // itself: each copy is a stage of its own, holding its own weights.
      bool explicitCopies = func->hasAttr(kMicrobatchesAttrName);
      StateMirror(func).run();
      if (failed(Splitter(func, explicitCopies ? decltype(copies)() : copies)
                     .run()))
        return signalPassFailure();
    }
    for (ParallelStageAttr stage : tensorStages)
      if (failed(splitTensorStage(stage)))
        return signalPassFailure();
  }

  /// Replaces the function of `stage` (on its first device) in the split
  /// program by its group's per-device programs, side by side in the
  /// program's stages, so that the group's ranks are evenly spaced (each
  /// member's copies between).
  LogicalResult splitTensorStage(ParallelStageAttr stage) {
    ModuleOp module = getOperation();
    for (auto program : module.getOps<dist::ProgramOp>()) {
      ArrayRef<int64_t> devices = program.getDevices();
      auto it = llvm::find(devices, stage.getFirst());
      if (it == devices.end())
        continue;
      size_t position = it - devices.begin();
      auto name = cast<FlatSymbolRefAttr>(program.getStages()[position]);
      auto func = module.lookupSymbol<func::FuncOp>(name.getValue());
      SmallVector<int64_t> group;
      for (int64_t i = 0; i < stage.getTensor(); ++i)
        group.push_back(stage.getFirst() + i);
      // Member i receives on a channel of its own, fed by a second send of
      // the same value from the sender.
      SmallVector<Attribute> channels(program.getChannels().begin(),
                                      program.getChannels().end());
      int64_t nextChannel = 0;
      for (Attribute attr : channels)
        nextChannel = std::max(
            nextChannel, cast<dist::ChannelAttr>(attr).getId() + 1);
      // Each channel's send, looked up once (the program's sends only).
      llvm::DenseMap<int64_t, dist::SendOp> sendOn;
      for (Attribute stageRef : program.getStages())
        if (auto sender = module.lookupSymbol<func::FuncOp>(
                cast<FlatSymbolRefAttr>(stageRef).getValue()))
          sender.walk([&](dist::SendOp op) {
            sendOn[static_cast<int64_t>(op.getChannel())] = op;
          });
      auto receiveOn = [&](dist::RecvOp recv,
                           int64_t member) -> FailureOr<int64_t> {
        int64_t original = static_cast<int64_t>(recv.getChannel());
        dist::SendOp send = sendOn.lookup(original);
        if (!send)
          return mlir::emitError(recv.getLoc(),
                                 "--placer-split-devices: no send on channel ")
                 << original;
        int64_t id = nextChannel++;
        OpBuilder after(send);
        after.setInsertionPointAfter(send);
        dist::SendOp::create(after, send.getLoc(), send.getValue(), id,
                             group[member]);
        channels.push_back(dist::ChannelAttr::get(
            module.getContext(), id, static_cast<int64_t>(recv.getPeer()),
            group[member], recv.getTransferType()));
        return id;
      };
      FailureOr<SmallVector<func::FuncOp>> members =
          buildGroupPrograms(func, group, receiveOn);
      if (failed(members))
        return failure();
      program.setChannelsAttr(ArrayAttr::get(module.getContext(), channels));
      SmallVector<Attribute> stages(program.getStages().begin(),
                                    program.getStages().end());
      SmallVector<int64_t> newDevices(devices);
      for (size_t i = 1; i < members->size(); ++i) {
        stages.insert(stages.begin() + position + i,
                      FlatSymbolRefAttr::get((*members)[i].getNameAttr()));
        newDevices.insert(newDevices.begin() + position + i, group[i]);
      }
      OpBuilder b(program);
      // Data-parallel copies: copy c of the group runs on the t devices
      // after copy c - 1's, so member i's copies are its stage's replicas.
      int64_t data = stage.getData();
      if (data > 1 || program.getReplicas()) {
        SmallVector<int64_t> replicas, replicaDevices;
        ArrayRef<int64_t> oldReplicas =
            program.getReplicas().value_or(ArrayRef<int64_t>());
        ArrayRef<int64_t> oldCopies =
            program.getReplicaDevices().value_or(ArrayRef<int64_t>());
        size_t next = 0;
        for (size_t k = 0; k < newDevices.size(); ++k) {
          bool member = k >= position && k < position + members->size();
          if (member) {
            int64_t i = static_cast<int64_t>(k - position);
            replicas.push_back(data);
            for (int64_t copy = 1; copy < data; ++copy)
              replicaDevices.push_back(stage.getFirst() +
                                       copy * stage.getTensor() + i);
            continue;
          }
          // A stage already in the program keeps its copies (the first
          // member took the split stage's entry, which had none).
          size_t old = k < position ? k : k - (members->size() - 1);
          int64_t count = old < oldReplicas.size() ? oldReplicas[old] : 1;
          replicas.push_back(count);
          for (int64_t copy = 1; copy < count; ++copy)
            replicaDevices.push_back(oldCopies[next++]);
        }
        program.setReplicasAttr(b.getDenseI64ArrayAttr(replicas));
        program.setReplicaDevicesAttr(b.getDenseI64ArrayAttr(replicaDevices));
      }
      program.setStagesAttr(b.getArrayAttr(stages));
      program.setDevicesAttr(b.getDenseI64ArrayAttr(newDevices));
      return success();
    }
    return mlir::emitError(module.getLoc(), "--placer-split-devices: no "
                                            "split program has device ")
           << stage.getFirst() << " of a tensor-parallel stage";
  }
};

struct MergeDevicesPass
    : public placer::impl::MergeDevicesBase<MergeDevicesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto program :
         llvm::make_early_inc_range(module.getOps<dist::ProgramOp>()))
      if (failed(merge(module, program)))
        return signalPassFailure();
  }

  LogicalResult merge(ModuleOp module, dist::ProgramOp program) {
    SmallVector<func::FuncOp> stages;
    for (Attribute ref : program.getStages())
      stages.push_back(SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          program, cast<SymbolRefAttr>(ref)));
    if (llvm::is_contained(stages, func::FuncOp()))
      return program.emitError("names a stage that does not exist");
    // A tensor-parallel group's programs each compute a part: there is no
    // one function to put back together from them.
    for (func::FuncOp stage : stages) {
      Operation *collective = nullptr;
      stage.walk([&](Operation *op) {
        if (!collective && isa<dist::AllReduceOp, dist::AllGatherOp>(op))
          collective = op;
      });
      if (collective)
        return mlir::emitError(collective->getLoc(),
                               "--placer-merge-devices: stage '")
               << stage.getName()
               << "' is one device's part of a tensor-parallel group (it "
                  "has collectives): the program runs as one process per "
                  "device (mpirun -n "
               << program.getRankDevices().size()
               << "), not merged back into one";
    }

    // The original signature, from dist.arg / dist.result.
    std::map<int64_t, std::pair<Type, DictionaryAttr>> args, results;
    auto stripped = [&](DictionaryAttr attrs, StringRef drop) {
      SmallVector<NamedAttribute> kept;
      if (attrs)
        for (NamedAttribute attr : attrs)
        if (attr.getName() != drop)
          kept.push_back(attr);
      return DictionaryAttr::get(program.getContext(), kept);
    };
    for (func::FuncOp stage : stages) {
      for (unsigned i = 0; i < stage.getNumArguments(); ++i)
        if (auto index = stage.getArgAttrOfType<IntegerAttr>(i, kArg))
          args[index.getInt()] = {stage.getArgument(i).getType(),
                                  stripped(stage.getArgAttrDict(i), kArg)};
      for (unsigned i = 0; i < stage.getNumResults(); ++i)
        if (auto index = stage.getResultAttrOfType<IntegerAttr>(i, kResult))
          results[index.getInt()] = {
              stage.getResultTypes()[i],
              stripped(stage.getResultAttrDict(i), kResult)};
    }
    SmallVector<Type> argTypes, resultTypes;
    for (auto &[index, entry] : args)
      argTypes.push_back(entry.first);
    for (auto &[index, entry] : results)
      resultTypes.push_back(entry.first);

    OpBuilder builder(program);
    auto merged = func::FuncOp::create(
        builder, program.getLoc(), program.getGraph(),
        builder.getFunctionType(argTypes, resultTypes));
    Block *entry = merged.addEntryBlock();
    if (DictionaryAttr graphAttrs = program.getGraphAttrsAttr())
      for (NamedAttribute attr : graphAttrs)
        merged->setAttr(attr.getName(), attr.getValue());
    for (auto [i, entryAttrs] : llvm::enumerate(args))
      merged.setArgAttrs(i, entryAttrs.second.second);
    for (auto [i, entryAttrs] : llvm::enumerate(results))
      merged.setResultAttrs(i, entryAttrs.second.second);

    // Every stage value -> the merged value.
    IRMapping mapping;
    std::map<int64_t, Value> sent; // channel -> value sent (stage value)
    std::vector<std::pair<int64_t, Operation *>> ops;
    llvm::DenseSet<Operation *> copies; // replicated ops: one per stage
    for (func::FuncOp stage : stages) {
      OpRoles roles(stage.getBody().front());
      for (unsigned i = 0; i < stage.getNumArguments(); ++i)
        if (auto index = stage.getArgAttrOfType<IntegerAttr>(i, kArg))
          mapping.map(stage.getArgument(i),
                      entry->getArgument(std::distance(
                          args.begin(), args.find(index.getInt()))));
      for (Operation &op : stage.getBody().getOps()) {
        if (auto send = dyn_cast<dist::SendOp>(op))
          sent[send.getChannel()] = send.getValue();
        else if (auto position = op.getAttrOfType<IntegerAttr>(kPosition)) {
          ops.emplace_back(position.getInt(), &op);
          if (!roles.isPlaced(&op))
            copies.insert(&op);
        }
      }
    }
    std::stable_sort(ops.begin(), ops.end(),
                     [](auto &a, auto &b) { return a.first < b.first; });

    OpBuilder body = OpBuilder::atBlockEnd(entry);
    std::map<int64_t, Operation *> replicas; // position -> merged copy
    for (auto &[position, op] : ops) {
      for (Value v : getReadValues(op)) {
        if (mapping.contains(v))
          continue;
        auto recv = v.getDefiningOp<dist::RecvOp>();
        auto it = recv ? sent.find(recv.getChannel()) : sent.end();
        if (it == sent.end() || !mapping.contains(it->second))
          return op->emitError("uses a value that no earlier op provides");
        mapping.map(v, mapping.lookup(it->second));
      }
      if (copies.contains(op)) {
        auto [it, first] = replicas.try_emplace(position, nullptr);
        if (!first) {
          mapping.map(op->getResults(), it->second->getResults());
          continue;
        }
        it->second = body.clone(*op, mapping);
        it->second->removeAttr(kPosition);
        continue;
      }
      Operation *clone = body.clone(*op, mapping);
      clone->removeAttr(kPosition);
    }
    SmallVector<Value> returned(results.size());
    for (func::FuncOp stage : stages) {
      auto ret = cast<func::ReturnOp>(stage.getBody().front().getTerminator());
      for (unsigned i = 0; i < stage.getNumResults(); ++i)
        if (auto index = stage.getResultAttrOfType<IntegerAttr>(i, kResult)) {
          Value v = ret.getOperand(i);
          if (auto recv = v.getDefiningOp<dist::RecvOp>())
            v = sent.at(recv.getChannel());
          returned[std::distance(results.begin(),
                                 results.find(index.getInt()))] =
              mapping.lookup(v);
        }
    }
    func::ReturnOp::create(body, program.getLoc(), returned);
    for (func::FuncOp stage : stages)
      stage.erase();
    program.erase();
    return success();
  }
};

} // namespace
