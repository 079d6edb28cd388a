//===- DistDialect.cpp - Per-device programs and their transfers ----------===//
#include "placer/Dialect/Dist/DistDialect.h"

#include "placer/Support/Graph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>
#include <map>

using namespace mlir;
using namespace placer::dist;

#include "placer/Dialect/Dist/DistDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "placer/Dialect/Dist/DistAttrs.cpp.inc"

//===----------------------------------------------------------------------===//
// dist.recv's type: a tensor result, or the buffer it receives into
//===----------------------------------------------------------------------===//

static ParseResult parseTransferType(OpAsmParser &parser, Type &bufferType,
                                     Type &resultType) {
  Type type;
  if (parser.parseType(type))
    return failure();
  (isa<MemRefType>(type) ? bufferType : resultType) = type;
  return success();
}

static void printTransferType(OpAsmPrinter &printer, Operation *,
                              Type bufferType, Type resultType) {
  printer << (bufferType ? bufferType : resultType);
}

#define GET_OP_CLASSES
#include "placer/Dialect/Dist/DistOps.cpp.inc"

void DistDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "placer/Dialect/Dist/DistAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "placer/Dialect/Dist/DistOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// dist.position, dist.arg, dist.result
//===----------------------------------------------------------------------===//

/// A non-negative i64, on a function that a dist.program lists as a stage.
static LogicalResult verifyStageIndex(Operation *anchor, func::FuncOp func,
                                      NamedAttribute attr) {
  auto index = dyn_cast<IntegerAttr>(attr.getValue());
  if (!index || !index.getType().isInteger(64) || index.getInt() < 0)
    return anchor->emitError() << "'" << attr.getName().getValue()
                               << "' must be a non-negative i64";
  if (!func)
    return anchor->emitError() << "'" << attr.getName().getValue()
                               << "' belongs in a stage function";
  return success();
}

/// `attr` must be the dist attribute `expected` (what: "", "argument ",
/// "result ") and a stage index.
static LogicalResult verifyNamedStageIndex(Operation *anchor, func::FuncOp func,
                                           NamedAttribute attr,
                                           StringRef expected, StringRef what) {
  if (attr.getName() != expected)
    return anchor->emitError() << "unknown " << what << "attribute '"
                               << attr.getName().getValue()
                               << "' of the dist dialect";
  return verifyStageIndex(anchor, func, attr);
}

/// dist.replicas: one group size per rank of dist.ranks, each group a run
/// of consecutive ranks of that size.
static LogicalResult verifyRankReplicas(Operation *op, NamedAttribute attr) {
  auto replicas = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  auto ranks = op->getAttrOfType<DenseI64ArrayAttr>(kRanksAttrName);
  if (!isa<func::FuncOp>(op) || !replicas || !ranks ||
      replicas.size() != ranks.size())
    return op->emitError() << "'" << kReplicasAttrName
                           << "' must be an i64 array on a function, one "
                              "entry per rank of its '"
                           << kRanksAttrName << "'";
  ArrayRef<int64_t> sizes = replicas.asArrayRef();
  for (size_t first = 0; first < sizes.size(); first += sizes[first]) {
    int64_t size = sizes[first];
    if (size < 1 || first + size > sizes.size() ||
        llvm::any_of(sizes.slice(first, size),
                     [&](int64_t s) { return s != size; }))
      return op->emitError()
             << "'" << kReplicasAttrName << "' at rank " << first
             << ": a stage on " << size
             << " ranks needs that many consecutive entries equal to it";
  }
  return success();
}

LogicalResult DistDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == kRanksAttrName) {
    auto ranks = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!isa<func::FuncOp>(op) || !ranks)
      return op->emitError() << "'" << kRanksAttrName
                             << "' must be an i64 array on a function";
    llvm::DenseSet<int64_t> seen;
    for (int64_t device : ranks.asArrayRef())
      if (device < 0 || !seen.insert(device).second)
        return op->emitError() << "'" << kRanksAttrName << "' lists device "
                               << device << " twice or negative";
    return success();
  }
  if (attr.getName() == kReplicasAttrName)
    return verifyRankReplicas(op, attr);
  return verifyNamedStageIndex(op, op->getParentOfType<func::FuncOp>(), attr,
                               kPositionAttrName, "");
}

LogicalResult DistDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned,
                                                    NamedAttribute attr) {
  return verifyNamedStageIndex(op, dyn_cast<func::FuncOp>(op), attr,
                               kArgAttrName, "argument ");
}

LogicalResult DistDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned, unsigned,
                                                       NamedAttribute attr) {
  return verifyNamedStageIndex(op, dyn_cast<func::FuncOp>(op), attr,
                               kResultAttrName, "result ");
}

//===----------------------------------------------------------------------===//
// dist.send, dist.recv
//===----------------------------------------------------------------------===//

namespace {
/// What transfers act on besides their buffers: their channels, so that no
/// transfer is dropped or moved across another.
struct ChannelResource
    : public SideEffects::Resource::Base<ChannelResource> {
  StringRef getName() final { return "dist.channel"; }
};
} // namespace

void SendOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (isa<MemRefType>(getValue().getType()))
    effects.emplace_back(MemoryEffects::Read::get(), &getValueMutable());
  effects.emplace_back(MemoryEffects::Write::get(), ChannelResource::get());
}

void RecvOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (getBuffer())
    effects.emplace_back(MemoryEffects::Write::get(),
                         &getBufferMutable()[0]);
  effects.emplace_back(MemoryEffects::Read::get(), ChannelResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), ChannelResource::get());
}

namespace {
/// The group's devices communicate through one resource: collectives are
/// ordered with each other and with sends and receives.
struct GroupResource : public SideEffects::Resource::Base<GroupResource> {
  StringRef getName() final { return "dist.group"; }
};

/// A tensor-parallel group: two or more devices, distinct, ascending.
LogicalResult verifyGroup(Operation *op, ArrayRef<int64_t> group) {
  if (group.size() < 2)
    return op->emitOpError("needs a group of at least two devices, got ")
           << group.size();
  for (size_t i = 0; i < group.size(); ++i)
    if (group[i] < 0 || (i > 0 && group[i] <= group[i - 1]))
      return op->emitOpError("group must list distinct device indices in "
                             "ascending order, got [")
             << group << "]";
  return success();
}

/// The group's communication, and once bufferized the buffer read and the
/// one written.
template <typename Op>
void addCollectiveEffects(
    Op op, SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
               &effects) {
  if (op.getBuffer()) {
    effects.emplace_back(MemoryEffects::Read::get(), &op.getValueMutable());
    effects.emplace_back(MemoryEffects::Write::get(),
                         &op.getBufferMutable()[0]);
  }
  effects.emplace_back(MemoryEffects::Read::get(), GroupResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), GroupResource::get());
  effects.emplace_back(MemoryEffects::Read::get(), ChannelResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), ChannelResource::get());
}
} // namespace

void AllReduceOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addCollectiveEffects(*this, effects);
}

/// What both collectives check: the group, and either form (a tensor in and
/// a tensor result, or once bufferized a buffer in and an `into` buffer).
/// On success, the type read and the type yielded or written.
template <typename Op>
static FailureOr<std::pair<ShapedType, ShapedType>> verifyCollective(Op op) {
  if (failed(verifyGroup(op, op.getGroup())))
    return failure();
  Value value = op.getValue(), buffer = op.getBuffer(), result = op.getResult();
  if (static_cast<bool>(buffer) == static_cast<bool>(result))
    return op.emitOpError("needs exactly one of a result and an 'into' "
                          "buffer");
  if (isa<MemRefType>(value.getType()) != static_cast<bool>(buffer))
    return op.emitOpError(buffer ? "reads a buffer once it writes one, got "
                                 : "takes a tensor when it yields one, got ")
           << value.getType();
  return std::make_pair(
      cast<ShapedType>(value.getType()),
      cast<ShapedType>(buffer ? buffer.getType() : result.getType()));
}

LogicalResult AllReduceOp::verify() {
  FailureOr<std::pair<ShapedType, ShapedType>> types = verifyCollective(*this);
  if (failed(types))
    return failure();
  auto [in, out] = *types;
  if (in.getShape() != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError("result ") << out << " must have the shape and element "
                                  << "type of " << in;
  return success();
}

void AllGatherOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addCollectiveEffects(*this, effects);
}

LogicalResult AllGatherOp::verify() {
  FailureOr<std::pair<ShapedType, ShapedType>> types = verifyCollective(*this);
  if (failed(types))
    return failure();
  auto [in, out] = *types;
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis >= in.getRank())
    return emitOpError("axis ") << axis << " is not an axis of " << in;
  if (in.getRank() != out.getRank() ||
      in.getElementType() != out.getElementType())
    return emitOpError("result ")
           << out << " must have the rank and element type of " << in;
  int64_t size = static_cast<int64_t>(getGroup().size());
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t expected = in.getDimSize(d);
    if (d == axis && !ShapedType::isDynamic(expected))
      expected *= size;
    if (out.getDimSize(d) != expected)
      return emitOpError("result ")
             << out << " must be " << in << " with axis " << axis << " "
             << size << " times as long";
  }
  return success();
}

LogicalResult RecvOp::verify() {
  if (static_cast<bool>(getBuffer()) == static_cast<bool>(getResult()))
    return emitOpError("needs exactly one of a result and an 'into' buffer");
  return success();
}

namespace {
/// Where a channel's ends were found.
struct Ends {
  SendOp send;
  RecvOp recv;
  int64_t sendDevice = -1, recvDevice = -1;
};
} // namespace

SmallVector<int64_t> ProgramOp::getStageDevices(size_t index) {
  SmallVector<int64_t> devices{getDevices()[index]};
  std::optional<ArrayRef<int64_t>> replicas = getReplicas();
  if (!replicas)
    return devices;
  // Copies are listed stage by stage.
  size_t offset = 0;
  for (size_t s = 0; s < index; ++s)
    offset += (*replicas)[s] - 1;
  ArrayRef<int64_t> copies = *getReplicaDevices();
  for (int64_t i = 1; i < (*replicas)[index]; ++i)
    devices.push_back(copies[offset + i - 1]);
  return devices;
}

SmallVector<int64_t> ProgramOp::getRankDevices() {
  SmallVector<int64_t> devices;
  for (size_t stage = 0, e = getStages().size(); stage < e; ++stage)
    llvm::append_range(devices, getStageDevices(stage));
  return devices;
}

SmallVector<int64_t> ProgramOp::getRankStages() {
  SmallVector<int64_t> stages;
  for (size_t stage = 0, e = getStages().size(); stage < e; ++stage)
    stages.append(getStageDevices(stage).size(), stage);
  return stages;
}

LogicalResult ProgramOp::verify() {
  if (getStages().size() != getDevices().size())
    return emitOpError("has ") << getStages().size() << " stages but "
                               << getDevices().size() << " devices";
  llvm::DenseSet<int64_t> seenDevices;
  for (int64_t device : getDevices())
    if (device < 0 || !seenDevices.insert(device).second)
      return emitOpError("lists device ") << device << " twice or negative";
  if (std::optional<ArrayRef<int64_t>> replicas = getReplicas()) {
    if (replicas->size() != getStages().size())
      return emitOpError("has ") << replicas->size() << " replica counts for "
                                 << getStages().size() << " stages";
    int64_t copies = 0;
    for (int64_t r : *replicas) {
      if (r < 1 || r > (1 << 20))
        return emitOpError("replicates a stage ") << r << " times";
      copies += r - 1;
    }
    ArrayRef<int64_t> copyDevices =
        getReplicaDevices().value_or(ArrayRef<int64_t>());
    if (static_cast<int64_t>(copyDevices.size()) != copies)
      return emitOpError("lists ")
             << copyDevices.size() << " replica devices for " << copies
             << " copies";
    for (int64_t device : copyDevices)
      if (device < 0 || !seenDevices.insert(device).second)
        return emitOpError("lists device ") << device << " twice or negative";
  } else if (getReplicaDevices()) {
    return emitOpError("lists replica devices but no replicas");
  }

  // Find every stage function and every send/recv in it.
  SmallVector<func::FuncOp> functions;
  std::map<int64_t, Ends> ends;
  for (auto [stage, device] : llvm::zip(getStages(), getDevices())) {
    auto func = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        *this, cast<SymbolRefAttr>(stage));
    if (!func)
      return emitOpError("stage ") << stage << " is not a function";
    functions.push_back(func);
    WalkResult walk = func.walk([&](Operation *op) {
      if (auto send = dyn_cast<SendOp>(op)) {
        Ends &e = ends[send.getChannel()];
        if (e.send) {
          emitOpError("channel ") << send.getChannel() << " has two sends";
          return WalkResult::interrupt();
        }
        e.send = send;
        e.sendDevice = device;
      } else if (auto recv = dyn_cast<RecvOp>(op)) {
        Ends &e = ends[recv.getChannel()];
        if (e.recv) {
          emitOpError("channel ") << recv.getChannel() << " has two recvs";
          return WalkResult::interrupt();
        }
        e.recv = recv;
        e.recvDevice = device;
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }

  // Every channel: one send on `from` to `to`, one recv on `to` from `from`,
  // both of the channel's type; no transfer outside the list.
  llvm::DenseSet<int64_t> listed;
  for (Attribute attr : getChannels()) {
    auto channel = cast<ChannelAttr>(attr);
    int64_t id = channel.getId();
    if (!listed.insert(id).second)
      return emitOpError("lists channel ") << id << " twice";
    Ends &e = ends[id];
    if (!e.send || !e.recv)
      return emitOpError("channel ")
             << id << " has no " << (e.send ? "recv" : "send");
    if (e.sendDevice != channel.getFrom() ||
        e.send.getPeer() != static_cast<uint64_t>(channel.getTo()))
      return e.send.emitOpError("does not match channel ")
             << id << " (" << channel.getFrom() << " -> " << channel.getTo()
             << ")";
    if (e.recvDevice != channel.getTo() ||
        e.recv.getPeer() != static_cast<uint64_t>(channel.getFrom()))
      return e.recv.emitOpError("does not match channel ")
             << id << " (" << channel.getFrom() << " -> " << channel.getTo()
             << ")";
    if (e.send.getTransferType() != channel.getType() ||
        e.recv.getTransferType() != channel.getType())
      return emitOpError("channel ")
             << id << " carries " << channel.getType() << " but sends "
             << e.send.getTransferType() << " and receives "
             << e.recv.getTransferType();
  }
  for (auto &[id, e] : ends)
    if (!listed.contains(id))
      return (e.send ? e.send.getOperation() : e.recv.getOperation())
                 ->emitOpError("uses channel ")
             << id << ", which the program does not list";

  // Deadlock freedom: program order in each function plus send -> recv
  // must be acyclic.
  llvm::DenseMap<Operation *, int> index;
  std::vector<Operation *> nodes;
  placer::SuccessorLists next;
  for (func::FuncOp func : functions) {
    int previous = -1;
    for (Operation &op : func.getBody().getOps()) {
      int id = nodes.size();
      index[&op] = id;
      nodes.push_back(&op);
      next.emplace_back();
      if (previous >= 0)
        next[previous].push_back(id);
      previous = id;
    }
  }
  for (auto &[id, e] : ends) {
    auto from = index.find(e.send), to = index.find(e.recv);
    if (from == index.end() || to == index.end())
      return emitOpError("channel ")
             << id << ": send and recv must be top-level ops of their stage";
    next[from->second].push_back(to->second);
  }
  std::vector<int> order = placer::topologicalOrder(next);
  if (order.size() != nodes.size()) {
    std::vector<char> ordered(nodes.size(), 0);
    for (int i : order)
      ordered[i] = 1;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (!ordered[i] && isa<RecvOp>(nodes[i]))
        return nodes[i]->emitOpError(
            "waits for a send that cannot happen first: the stages deadlock");
    return emitOpError("the stages deadlock");
  }
  return success();
}

FailureOr<int64_t> placer::dist::getRankOf(Operation *func, Operation *anchor,
                                           int64_t device, StringRef role) {
  auto ranks = func->getAttrOfType<DenseI64ArrayAttr>(kRanksAttrName);
  if (!ranks)
    return device;
  auto it = llvm::find(ranks.asArrayRef(), device);
  if (it == ranks.asArrayRef().end())
    return anchor->emitOpError()
           << role << " device " << device << " is not in the function's "
           << kRanksAttrName;
  return it - ranks.asArrayRef().begin();
}

FailureOr<GroupRanks> placer::dist::getGroupRanks(Operation *func,
                                                  Operation *anchor,
                                                  ArrayRef<int64_t> group) {
  SmallVector<int64_t> found;
  for (int64_t device : group) {
    FailureOr<int64_t> rank = getRankOf(func, anchor, device, "group");
    if (failed(rank))
      return failure();
    found.push_back(*rank);
  }
  if (found.size() < 2)
    return anchor->emitOpError("a group needs two or more devices");
  int64_t stride = found[1] - found[0];
  for (size_t i = 1; i < found.size(); ++i)
    if (stride < 1 || found[i] - found[i - 1] != stride)
      return anchor->emitOpError("group [")
             << group << "] runs on ranks that are not evenly spaced";
  if (found.back() > std::numeric_limits<int32_t>::max())
    return anchor->emitOpError("group rank does not fit an MPI rank (32 bits)");
  return GroupRanks{found.front(), int64_t(found.size()), stride};
}
