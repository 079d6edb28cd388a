//===- TensorParallel.cpp - Per-device programs of a tensor-parallel group ===//
//
// Each member of the group gets a copy of the stage in which every value
// that planSharding splits is this device's slice: a sharded node takes its
// slices (a weight cut at compile time, another whole value by Slice
// nodes), yields its result's slice, and is followed by the all-reduce that
// its partial sums need; an input split another way than the node takes it
// is all-gathered first. Shape inputs that describe a split dim (a
// Reshape's target, a Split's sizes) are rewritten to the slice's sizes.
//
//===----------------------------------------------------------------------===//

#include "placer/Transforms/TensorParallel.h"

#include "placer/Analysis/CostModel.h"
#include "placer/Analysis/Sharding.h"
#include "placer/Conversion/OnnxOps.h"
#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Transforms/Gradients.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace mlir;
using namespace placer;

namespace {

/// `type` with `split`'s axis cut in `degree` slices (of each block).
RankedTensorType sliceType(RankedTensorType type, ShardSplit split,
                           int64_t degree) {
  SmallVector<int64_t> shape(type.getShape());
  shape[split.axis] /= degree;
  return type.clone(shape);
}

/// The row-major bytes of a constant's values when the module holds them
/// (dense or a blob; a splat or bit-packed i1 is not such bytes).
std::optional<ArrayRef<char>> getRawValues(Attribute value) {
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat() || dense.getElementType().isInteger(1))
      return std::nullopt;
    return dense.getRawData();
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
  return std::nullopt;
}

/// Whether a constant's values can be cut at compile time: a splat, or
/// bytes the module holds.
bool isSliceable(graph::ConstantOp constant) {
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return (dense && dense.isSplat()) ||
         getRawValues(constant.getValue()).has_value();
}

/// The training state a group keeps as slices from step to step: the
/// state constants and the step's results that are their next values.
struct HeldState {
  llvm::DenseMap<Value, ShardSplit> constants;
  llvm::DenseMap<unsigned, ShardSplit> results;
};

/// How the forward pass reads a state constant, in a plan.
enum class ForwardRead { None, CutAlike, Otherwise };

/// Whether the forward pass reads `constant` cut as `split` wherever it
/// reads it (a weight the forward products cut), reads it another way (a
/// layer norm's scale that it reads whole, but whose update comes out
/// split with its gradient: held split, it would split the forward pass's
/// residual stream), or not at all (an optimizer's state).
ForwardRead getForwardRead(
    graph::ConstantOp constant, ShardSplit split,
    const llvm::DenseMap<Operation *, const NodeSharding *> &shardings) {
  ForwardRead read = ForwardRead::None;
  for (OpOperand &use : constant.getResult().getUses()) {
    Operation *user = use.getOwner();
    if (isBackwardOp(user))
      continue;
    const NodeSharding *sharding = shardings.lookup(user);
    unsigned i = use.getOperandNumber();
    if (!sharding || !sharding->cutInputs[i] ||
        *sharding->inputSplits[i] != split)
      return ForwardRead::Otherwise;
    read = ForwardRead::CutAlike;
  }
  return read;
}

/// Each state constant whose next value (a result marked placer.updates,
/// not one more device's copy) comes out split in `plan`, and which the
/// forward pass reads cut alike, is held as that split from the start:
/// every member reads its slice and returns its next slice, and nothing is
/// gathered for it in the step. State the forward pass does not read (an
/// optimizer's) only with `optimizerState`: its split follows the
/// gradients, which follow the weights only once those are held. Where
/// the module does not hold the constant's values, the state stays whole.
HeldState getHeldState(func::FuncOp stage, const ShardingPlan &plan,
                       bool optimizerState) {
  HeldState state;
  if (stage.getBody().empty())
    return state;
  llvm::StringMap<graph::ConstantOp> constants;
  stage.walk([&](graph::ConstantOp constant) {
    constants[constant.getName()] = constant;
  });
  llvm::DenseMap<Operation *, const NodeSharding *> shardings;
  for (const NodeSharding &sharding : plan.nodes)
    shardings[sharding.node] = &sharding;
  auto ret = cast<func::ReturnOp>(stage.getBody().front().getTerminator());
  for (unsigned i = 0; i < stage.getNumResults(); ++i) {
    auto name = stage.getResultAttrOfType<StringAttr>(i, kUpdatesAttrName);
    if (!name || stage.getResultAttr(i, kReplicaAttrName))
      continue;
    auto split = plan.splits.find(ret.getOperand(i));
    graph::ConstantOp constant = constants.lookup(name.getValue());
    if (split == plan.splits.end() || !constant ||
        constant.getType() != ret.getOperand(i).getType() ||
        !isSliceable(constant))
      continue;
    ForwardRead read = getForwardRead(constant, split->second, shardings);
    if (read == ForwardRead::Otherwise ||
        (read == ForwardRead::None && !optimizerState))
      continue;
    state.constants[constant.getResult()] = split->second;
    state.results[i] = split->second;
  }
  return state;
}

class MemberBuilder {
public:
  MemberBuilder(func::FuncOp stage, const ShardingPlan &plan,
                const HeldState &held, ArrayRef<int64_t> group, int64_t index,
                ReceiveChannelFn receiveOn)
      : stage(stage), plan(plan), held(held), group(group), index(index),
        degree(static_cast<int64_t>(group.size())), receiveOn(receiveOn),
        updatedState(getUpdatedState(stage)) {
    for (const NodeSharding &sharding : plan.nodes)
      shardings[sharding.node] = &sharding;
  }

  FailureOr<func::FuncOp> build(OpBuilder &top, StringRef name);

private:
  std::optional<ShardSplit> splitOf(Value value) const {
    auto it = plan.splits.find(value);
    return it == plan.splits.end() ? std::nullopt
                                   : std::optional<ShardSplit>(it->second);
  }
  DenseI64ArrayAttr groupAttr(OpBuilder &b) const {
    return b.getDenseI64ArrayAttr(group);
  }
  Value cut(OpBuilder &b, Location loc, Value whole, ShardSplit split);
  /// This member's slice of a constant's values as a constant named
  /// `name`, or null when the module does not hold its values.
  Value sliceConstant(OpBuilder &b, Location loc, graph::ConstantOp constant,
                      ShardSplit split, StringRef name);
  /// The whole value of `slice` (gathered once, then reused).
  Value gather(OpBuilder &b, Location loc, Value slice, ShardSplit split,
               RankedTensorType wholeType);
  Value gatherOnce(OpBuilder &b, Location loc, Value slice, ShardSplit split,
                   RankedTensorType wholeType);
  Value sliceAlong(OpBuilder &b, Location loc, Value value, int64_t axis,
                   int64_t start, int64_t length);
  Value concat(OpBuilder &b, Location loc, ArrayRef<Value> parts,
               int64_t axis, RankedTensorType type);
  Value constantI64(OpBuilder &b, Location loc, ArrayRef<int64_t> values);
  Value scalar(OpBuilder &b, Location loc, Type elementType, int64_t value);
  Value lookupRows(OpBuilder &b, Location loc, graph::NodeOp node,
                   Value table, Value ids);
  Value helperNode(OpBuilder &b, Location loc, StringRef opType,
                   ValueRange inputs, Type result, NamedAttrList attrs = {});
  LogicalResult checkRewritable(graph::NodeOp node,
                                const NodeSharding &sharding);
  LogicalResult rewriteNode(OpBuilder &b, graph::NodeOp node,
                            const NodeSharding &sharding);

  func::FuncOp stage;
  const ShardingPlan &plan;
  const HeldState &held;
  ArrayRef<int64_t> group;
  int64_t index, degree;
  ReceiveChannelFn receiveOn;
  /// The training state the stage updates (weights, optimizer state).
  llvm::StringSet<> updatedState;
  /// Stage value -> this member's: its slice where the plan splits it.
  IRMapping values;
  DenseMap<Operation *, const NodeSharding *> shardings;
  /// This member's slices -> the whole values gathered from them.
  DenseMap<Value, Value> gathers;
  /// (whole value, axis, blocks) -> this member's cut of it.
  std::map<std::tuple<const void *, int64_t, int64_t>, Value> cuts;
  /// Names the helper nodes and constants the rewrite adds: the node they
  /// serve, a slash, their op and a number.
  std::string helperPrefix;
  int64_t helpers = 0;
};

Value MemberBuilder::constantI64(OpBuilder &b, Location loc,
                                 ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getI64Type());
  std::string name = (helperPrefix + "/shape" + Twine(helpers++)).str();
  return graph::ConstantOp::create(b, loc, type, b.getStringAttr(name),
                                   DenseIntElementsAttr::get(type, values),
                                   StringAttr());
}

/// A rank-0 constant of `elementType` (an integer or float type).
Value MemberBuilder::scalar(OpBuilder &b, Location loc, Type elementType,
                            int64_t value) {
  auto type = RankedTensorType::get({}, elementType);
  std::string name = (helperPrefix + "/c" + Twine(helpers++)).str();
  Attribute element =
      isa<FloatType>(elementType)
          ? Attribute(b.getFloatAttr(elementType, static_cast<double>(value)))
          : Attribute(b.getIntegerAttr(elementType, value));
  return graph::ConstantOp::create(b, loc, type, b.getStringAttr(name),
                                   DenseElementsAttr::get(type, element),
                                   StringAttr());
}

/// A Gather on this device's rows of a table cut along axis 0: ids of other
/// devices' rows look up row 0 and are zeroed, so the all-reduce after it
/// sums each id's one real row (negative ids count from the end, as ONNX
/// says).
Value MemberBuilder::lookupRows(OpBuilder &b, Location loc, graph::NodeOp node,
                                Value table, Value ids) {
  auto idsType = cast<RankedTensorType>(ids.getType());
  auto resultType = cast<RankedTensorType>(node->getResult(0).getType());
  auto bools = idsType.clone(b.getI1Type());
  Type idType = idsType.getElementType();
  int64_t rows = cast<RankedTensorType>(table.getType()).getDimSize(0);
  int64_t total = rows * degree;
  Value negative =
      helperNode(b, loc, "Less", {ids, scalar(b, loc, idType, 0)}, bools);
  Value wrapped = helperNode(
      b, loc, "Where",
      {negative,
       helperNode(b, loc, "Add", {ids, scalar(b, loc, idType, total)}, idsType),
       ids},
      idsType);
  Value local = helperNode(
      b, loc, "Sub", {wrapped, scalar(b, loc, idType, index * rows)}, idsType);
  Value valid = helperNode(
      b, loc, "And",
      {helperNode(b, loc, "GreaterOrEqual", {local, scalar(b, loc, idType, 0)},
                  bools),
       helperNode(b, loc, "Less", {local, scalar(b, loc, idType, rows)},
                  bools)},
      bools);
  Value safe = helperNode(b, loc, "Where",
                          {valid, local, scalar(b, loc, idType, 0)}, idsType);
  NamedAttrList attrs;
  attrs.set("axis", b.getI64IntegerAttr(0));
  Value found = helperNode(b, loc, "Gather", {table, safe}, resultType, attrs);
  // The mask over the looked-up rows' trailing dims.
  SmallVector<int64_t> axes, maskShape(idsType.getShape());
  for (int64_t d = idsType.getRank(); d < resultType.getRank(); ++d) {
    axes.push_back(d);
    maskShape.push_back(1);
  }
  Value mask = valid;
  if (!axes.empty())
    mask = helperNode(b, loc, "Unsqueeze", {valid, constantI64(b, loc, axes)},
                      RankedTensorType::get(maskShape, b.getI1Type()));
  return helperNode(
      b, loc, "Where",
      {mask, found, scalar(b, loc, resultType.getElementType(), 0)},
      resultType);
}

Value MemberBuilder::helperNode(OpBuilder &b, Location loc, StringRef opType,
                                ValueRange inputs, Type result,
                                NamedAttrList attrs) {
  std::string name = (helperPrefix + "/" + opType + Twine(helpers++)).str();
  OperationState state(loc, graph::NodeOp::getOperationName());
  state.addOperands(inputs);
  state.addTypes(result);
  state.addAttribute("op_type", b.getStringAttr(opType));
  state.addAttribute("version", b.getI64IntegerAttr(13));
  state.addAttribute("name", b.getStringAttr(name));
  state.addAttribute("output_names", b.getStrArrayAttr({name}));
  state.addAttribute("attrs", attrs.getDictionary(b.getContext()));
  return b.create(state)->getResult(0);
}

Value MemberBuilder::sliceAlong(OpBuilder &b, Location loc, Value value,
                                int64_t axis, int64_t start, int64_t length) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = length;
  return helperNode(b, loc, "Slice",
                    {value, constantI64(b, loc, {start}),
                     constantI64(b, loc, {start + length}),
                     constantI64(b, loc, {axis})},
                    type.clone(shape));
}

Value MemberBuilder::concat(OpBuilder &b, Location loc, ArrayRef<Value> parts,
                            int64_t axis, RankedTensorType type) {
  if (parts.size() == 1)
    return parts.front();
  NamedAttrList attrs;
  attrs.set("axis", b.getI64IntegerAttr(axis));
  return helperNode(b, loc, "Concat", parts, type, attrs);
}

/// This device's slice of a whole value: of each of `split.blocks` blocks
/// along the axis, the index-th of `degree` equal pieces.
Value MemberBuilder::cut(OpBuilder &b, Location loc, Value whole,
                         ShardSplit split) {
  auto key = std::make_tuple(whole.getAsOpaquePointer(), split.axis,
                             split.blocks);
  if (auto it = cuts.find(key); it != cuts.end())
    return it->second;
  auto type = cast<RankedTensorType>(whole.getType());
  RankedTensorType result = sliceType(type, split, degree);
  int64_t dim = type.getDimSize(split.axis);
  int64_t blockSize = dim / split.blocks, piece = blockSize / degree;
  Value sliced;
  // A weight the module holds is cut now: the device's program holds only
  // its slice. Not the state a training step updates that is not held as
  // slices: each step's new value comes in whole under the state's name,
  // and is cut as it is read.
  auto constant = whole.getDefiningOp<graph::ConstantOp>();
  if (constant && !updatedState.contains(constant.getName()))
    sliced = sliceConstant(b, loc, constant, split,
                           (constant.getName() + ".tp" + Twine(index)).str());
  if (!sliced) {
    SmallVector<Value> pieces;
    for (int64_t block = 0; block < split.blocks; ++block)
      pieces.push_back(sliceAlong(b, loc, whole, split.axis,
                                  block * blockSize + index * piece, piece));
    sliced = concat(b, loc, pieces, split.axis, result);
  }
  cuts[key] = sliced;
  return sliced;
}

Value MemberBuilder::sliceConstant(OpBuilder &b, Location loc,
                                   graph::ConstantOp constant, ShardSplit split,
                                   StringRef name) {
  auto type = cast<RankedTensorType>(constant.getType());
  RankedTensorType result = sliceType(type, split, degree);
  int64_t dim = type.getDimSize(split.axis);
  int64_t blockSize = dim / split.blocks, piece = blockSize / degree;
  Attribute value = constant.getValue();
  Attribute slicedValue;
  if (auto dense = dyn_cast<DenseElementsAttr>(value); dense && dense.isSplat())
    slicedValue =
        DenseElementsAttr::get(result, dense.getSplatValue<Attribute>());
  else if (std::optional<ArrayRef<char>> raw = getRawValues(value)) {
    int64_t bytes = graph::getElementByteSize(type.getElementType());
    // Rows before the axis, bytes of one index of the axis after it.
    int64_t outer = 1, inner = bytes;
    for (int64_t d = 0; d < split.axis; ++d)
      outer *= type.getDimSize(d);
    for (int64_t d = split.axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
    std::vector<char> out;
    out.reserve(static_cast<size_t>(result.getNumElements() * bytes));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t block = 0; block < split.blocks; ++block) {
        int64_t start = (o * dim + block * blockSize + index * piece) * inner;
        out.insert(out.end(), raw->begin() + start,
                   raw->begin() + start + piece * inner);
      }
    slicedValue = DenseElementsAttr::getFromRawBuffer(result, out);
  }
  if (!slicedValue)
    return Value();
  return graph::ConstantOp::create(b, loc, result, b.getStringAttr(name),
                                   slicedValue, StringAttr());
}

/// The whole value from every device's slice. A blocked split gathers
/// device by device ([device][block][piece] along the axis) and is put
/// back in block order ([block][device][piece]).
Value MemberBuilder::gather(OpBuilder &b, Location loc, Value slice,
                            ShardSplit split, RankedTensorType wholeType) {
  Value &whole = gathers[slice];
  if (!whole)
    whole = gatherOnce(b, loc, slice, split, wholeType);
  return whole;
}

Value MemberBuilder::gatherOnce(OpBuilder &b, Location loc, Value slice,
                                ShardSplit split, RankedTensorType wholeType) {
  Value gathered = dist::AllGatherOp::create(
      b, loc, wholeType, slice, groupAttr(b),
      b.getI64IntegerAttr(split.axis), Value()).getResult();
  if (split.blocks == 1)
    return gathered;
  int64_t piece =
      cast<RankedTensorType>(slice.getType()).getDimSize(split.axis) /
      split.blocks;
  SmallVector<Value> parts;
  for (int64_t block = 0; block < split.blocks; ++block)
    for (int64_t device = 0; device < degree; ++device)
      parts.push_back(sliceAlong(b, loc, gathered, split.axis,
                                 (device * split.blocks + block) * piece,
                                 piece));
  return concat(b, loc, parts, split.axis, wholeType);
}

LogicalResult MemberBuilder::checkRewritable(graph::NodeOp node,
                                             const NodeSharding &sharding) {
  auto refuse = [&](const Twine &why) {
    return mlir::emitError(node.getLoc(),
                           "--placer-split-devices: cannot split node '")
           << node.getDisplayName() << "' (" << node.getOpType()
           << ") over its tensor-parallel group: " << why;
  };
  if (!sharding.isSharded()) {
    // Whole on every device; a subgraph must not read a slice.
    bool readsSlice = false;
    node->walk([&](Operation *inner) {
      if (inner != node.getOperation())
        for (Value operand : inner->getOperands())
          readsSlice |= splitOf(operand).has_value();
    });
    return readsSlice ? refuse("its subgraph reads a split value")
                      : success();
  }
  StringRef opType = node.getOpType();
  if (node->getNumRegions())
    return refuse("it has subgraphs");
  if (opType == "Conv")
    if (auto groups = node.getAttrs().getAs<IntegerAttr>("group");
        groups && groups.getInt() != 1)
      return refuse("a grouped convolution's groups would split too");
  if (opType == "BatchNormalization" &&
      (node->getNumResults() != 1 || node->getNumOperands() != 5))
    return refuse("only inference's form (one output) splits: training's "
                  "running statistics would be partial");
  // The analysis cuts only ops with a sharding rule in the registry; each
  // runs on its slices as it is, but for the shape inputs and statistics
  // rewriteNode adapts (Reshape, Split, BatchNormalization) and the
  // vocabulary lookup it builds.
  const OpEntry *entry = getOnnxOps().find(node);
  if (!entry || !entry->sharding.isSharded())
    return refuse("it has no sharding rule in the op registry");
  return success();
}

LogicalResult MemberBuilder::rewriteNode(OpBuilder &b, graph::NodeOp node,
                                         const NodeSharding &sharding) {
  if (failed(checkRewritable(node, sharding)))
    return failure();
  Location loc = node.getLoc();
  helperPrefix = node.getDisplayName().str();
  SmallVector<Value> operands;
  for (auto [i, input] : llvm::enumerate(node.getInputs())) {
    Value value = values.lookup(input);
    std::optional<ShardSplit> held = splitOf(input);
    bool gathered = llvm::any_of(sharding.collectives, [&](auto &c) {
      return c.kind == Collective::AllGather &&
             c.operand == static_cast<int>(i);
    });
    if (held && gathered) {
      value = gather(b, loc, value, *held,
                     cast<RankedTensorType>(input.getType()));
      held.reset();
    }
    if (sharding.cutInputs[i]) {
      ShardSplit wanted = *sharding.inputSplits[i];
      if (!held)
        value = cut(b, loc, value, wanted);
      else if (!(*held == wanted))
        return mlir::emitError(node.getLoc(), "--placer-split-devices: node '")
               << node.getDisplayName() << "' reads input #" << i
               << " cut along axis " << wanted.axis << ", given a cut along "
               << held->axis;
    } else if (held) {
      return mlir::emitError(node.getLoc(), "--placer-split-devices: node '")
             << node.getDisplayName() << "' reads input #" << i
             << " whole, given a slice";
    }
    operands.push_back(value);
  }
  // BatchNormalization cut along its channels: each device normalizes its
  // channels with their scale, bias, mean and variance.
  if (node.getOpType() == "BatchNormalization" && sharding.results[0] &&
      sharding.results[0]->axis == 1)
    for (unsigned i = 1; i < operands.size(); ++i)
      operands[i] = cut(b, loc, operands[i],
                        ShardSplit{0, sharding.results[0]->blocks});
  SmallVector<Type> types;
  for (auto [r, result] : llvm::enumerate(node.getOutputs())) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    types.push_back(type && sharding.results[r]
                        ? Type(sliceType(type, *sharding.results[r], degree))
                        : result.getType());
  }
  // Shape inputs that name sizes of a split dim take the slice's sizes.
  DictionaryAttr attrs = node.getAttrs();
  StringRef opType = node.getOpType();
  bool rankedResults = llvm::all_of(
      types, [](Type type) { return isa<RankedTensorType>(type); });
  if (sharding.isSharded() && opType == "Reshape" && operands.size() > 1 &&
      rankedResults)
    operands[1] =
        constantI64(b, loc, cast<RankedTensorType>(types[0]).getShape());
  if (sharding.isSharded() && opType == "Split" && rankedResults) {
    int64_t rank = cast<RankedTensorType>(types[0]).getRank();
    int64_t axis = 0;
    if (auto attr = attrs.getAs<IntegerAttr>("axis"))
      axis = attr.getInt() < 0 ? attr.getInt() + rank : attr.getInt();
    if (axis < 0 || axis >= rank)
      return mlir::emitError(loc, "--placer-split-devices: node '")
             << node.getDisplayName() << "' splits along axis " << axis
             << ", which its results of rank " << rank << " do not have";
    SmallVector<int64_t> sizes;
    for (Type type : types)
      sizes.push_back(cast<RankedTensorType>(type).getDimSize(axis));
    if (operands.size() > 1 && !isa<NoneType>(operands[1].getType()))
      operands[1] = constantI64(b, loc, sizes);
    if (attrs.get("split")) {
      NamedAttrList list(attrs);
      list.set("split", b.getDenseI64ArrayAttr(sizes));
      attrs = list.getDictionary(b.getContext());
    }
  }
  SmallVector<Value> produced;
  if (sharding.strategy == "vocabulary") {
    produced.push_back(lookupRows(b, loc, node, operands[0], operands[1]));
  } else {
    // The node on its operands: its direct ones mapped for the clone alone.
    SmallVector<std::pair<Value, Value>> saved;
    for (auto [input, operand] : llvm::zip(node.getInputs(), operands)) {
      saved.emplace_back(input, values.lookupOrNull(input));
      values.map(input, operand);
    }
    Operation *clone = b.clone(*node.getOperation(), values);
    for (auto [input, previous] : llvm::reverse(saved))
      values.map(input, previous);
    for (auto [r, type] : llvm::enumerate(types))
      clone->getResult(r).setType(type);
    clone->setAttr("attrs", attrs);
    produced.assign(clone->result_begin(), clone->result_end());
  }
  for (auto [r, result] : llvm::enumerate(node.getOutputs())) {
    Value value = produced[r];
    bool reduced = llvm::any_of(sharding.collectives, [&](auto &c) {
      return c.kind == Collective::AllReduce &&
             c.result == static_cast<int>(r);
    });
    if (reduced)
      value = dist::AllReduceOp::create(b, loc, value.getType(), value,
                                        groupAttr(b), Value())
                  .getResult();
    values.map(result, value);
  }
  return success();
}

FailureOr<func::FuncOp> MemberBuilder::build(OpBuilder &top, StringRef name) {
  MLIRContext *context = stage.getContext();
  // The first member returns every result; the others the next values of
  // the training state they hold: their slice of the state held as slices
  // (placer.shard), or their own copy of a whole weight (a replica: every
  // member steps its weights alike).
  SmallVector<unsigned> returnedResults;
  for (unsigned i = 0; i < stage.getNumResults(); ++i)
    if (index == 0 || stage.getResultAttr(i, kUpdatesAttrName))
      returnedResults.push_back(i);
  SmallVector<Type> results;
  for (unsigned i : returnedResults) {
    Type type = stage.getResultTypes()[i];
    if (auto it = held.results.find(i); it != held.results.end())
      type = sliceType(cast<RankedTensorType>(type), it->second, degree);
    results.push_back(type);
  }
  auto member = func::FuncOp::create(
      top, stage.getLoc(), name,
      FunctionType::get(context, stage.getArgumentTypes(), results));
  for (NamedAttribute attr : stage->getDiscardableAttrs())
    member->setAttr(attr.getName(), attr.getValue());
  for (unsigned i = 0; i < stage.getNumArguments(); ++i)
    member.setArgAttrs(i, stage.getArgAttrDict(i));
  for (auto [k, i] : llvm::enumerate(returnedResults)) {
    member.setResultAttrs(k, stage.getResultAttrDict(i));
    if (auto it = held.results.find(i); it != held.results.end())
      member.setResultAttr(k, kShardAttrName,
                           ShardAttr::get(context, it->second.axis,
                                          it->second.blocks, index, group));
    else if (index > 0)
      member.setResultAttr(k, kReplicaAttrName, UnitAttr::get(context));
  }
  Block *body = member.addEntryBlock();
  for (auto [from, to] :
       llvm::zip(stage.getArguments(), body->getArguments()))
    values.map(from, to);
  OpBuilder b = OpBuilder::atBlockEnd(body);
  for (Operation &op : stage.getBody().front()) {
    if (auto node = dyn_cast<graph::NodeOp>(&op)) {
      if (failed(rewriteNode(b, node, *shardings.lookup(node)))) {
        member->erase();
        return failure();
      }
    } else if (auto ret = dyn_cast<func::ReturnOp>(&op)) {
      // Results that come out split are gathered on every member (all
      // take part); the first returns them (the others their state).
      helperPrefix = "outputs";
      SmallVector<Value> returned;
      for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
        Value mine = values.lookup(value);
        std::optional<ShardSplit> split = splitOf(value);
        auto kept = held.results.find(static_cast<unsigned>(i));
        // Held state returns this member's slice, cut as it is held.
        bool sliced =
            kept != held.results.end() && split && *split == kept->second;
        if (split && !sliced)
          mine = gather(b, ret.getLoc(), mine, *split,
                        cast<RankedTensorType>(value.getType()));
        if (kept != held.results.end() && !sliced)
          mine = cut(b, ret.getLoc(), mine, kept->second);
        returned.push_back(mine);
      }
      SmallVector<Value> kept;
      for (unsigned i : returnedResults)
        kept.push_back(returned[i]);
      func::ReturnOp::create(b, ret.getLoc(), kept);
    } else if (auto send = dyn_cast<dist::SendOp>(op)) {
      // Sent whole, once: every member gathers a split value, the first
      // sends it.
      Value mine = values.lookup(send.getValue());
      if (std::optional<ShardSplit> split = splitOf(send.getValue()))
        mine = gather(b, send.getLoc(), mine, *split,
                      cast<RankedTensorType>(send.getValue().getType()));
      if (index == 0)
        dist::SendOp::create(b, send.getLoc(), mine, send.getChannel(),
                             send.getPeer());
    } else if (auto constant = dyn_cast<graph::ConstantOp>(op);
               constant && held.constants.count(constant.getResult())) {
      // Held state: this member's slice under the state's own name, which
      // the runtime steps with the slice the member returns.
      Value slice = sliceConstant(b, constant.getLoc(), constant,
                                  held.constants.lookup(constant.getResult()),
                                  constant.getName());
      values.map(constant.getResult(), slice);
    } else if (auto recv = dyn_cast<dist::RecvOp>(op)) {
      // Every member receives the value whole, each on its own channel.
      int64_t channel = static_cast<int64_t>(recv.getChannel());
      if (index > 0) {
        FailureOr<int64_t> own = receiveOn(recv, index);
        if (failed(own)) {
          member->erase();
          return failure();
        }
        channel = *own;
      }
      auto copy = cast<dist::RecvOp>(b.clone(op, values));
      copy.setChannel(channel);
    } else {
      b.clone(op, values);
    }
  }
  // The member's nodes run on its device.
  body->walk([&](graph::NodeOp node) {
    if (getDevice(node))
      setDevice(node, group[index]);
  });
  // Whole weights only cut ones read are not loaded at all.
  bool erased = true;
  while (erased) {
    erased = false;
    for (Operation &op : llvm::make_early_inc_range(*body))
      if (isa<graph::ConstantOp, graph::NoneOp>(op) && op.use_empty()) {
        op.erase();
        erased = true;
      }
  }
  return member;
}

} // namespace

FailureOr<SmallVector<func::FuncOp>>
placer::buildGroupPrograms(func::FuncOp stage, ArrayRef<int64_t> group,
                           ReceiveChannelFn receiveOn) {
  if (group.size() < 2)
    return stage.emitError("a tensor-parallel group needs two or more "
                           "devices, got ")
           << group.size();
  // A workload's layers (Piper's, the paper's) are costs, not ops.
  graph::NodeOp opaque;
  stage.walk([&](graph::NodeOp node) {
    for (Value value :
         llvm::concat<Value>(node->getOperands(), node->getResults()))
      if (!opaque && !isa<RankedTensorType, NoneType>(value.getType()))
        opaque = node;
  });
  if (opaque)
    return mlir::emitError(opaque.getLoc(),
                           "--placer-split-devices: node '")
           << opaque.getDisplayName()
           << "' of a tensor-parallel stage has values that are not "
              "tensors (a workload's layer): there is nothing to split into "
              "per-device programs; place with split=false";
  int64_t degree = static_cast<int64_t>(group.size());
  FailureOr<ShardingPlan> plan = planSharding(stage, degree);
  if (failed(plan))
    return failure();
  // A training step's state that comes out split is held split: planned
  // again from that start, its reads take their slices as they come. That
  // plan may bring more state out split as the forward pass cuts it (a
  // language model's head held split makes its input gradient whole, and
  // then the weight gradients below come out cut as their weights), and
  // the optimizer's state with them: again, until the held state settles
  // (a few rounds; the last one's is kept).
  HeldState held;
  for (int round = 0; round < 4; ++round) {
    HeldState next = getHeldState(stage, *plan, /*optimizerState=*/round > 0);
    if (next.results == held.results)
      break;
    held = std::move(next);
    plan = planSharding(stage, degree, held.constants);
    if (failed(plan))
      return failure();
  }
  OpBuilder top(stage->getContext());
  top.setInsertionPointAfter(stage);
  SmallVector<func::FuncOp> members;
  std::string base = stage.getName().str();
  for (size_t i = 0; i < group.size(); ++i) {
    std::string name = base + "_t" + std::to_string(i);
    FailureOr<func::FuncOp> member =
        MemberBuilder(stage, *plan, held, group, static_cast<int64_t>(i),
                      receiveOn)
            .build(top, name);
    if (failed(member)) {
      for (func::FuncOp built : members)
        built->erase();
      return failure();
    }
    members.push_back(*member);
    top.setInsertionPointAfter(*member);
  }
  // The first member takes the stage's place (and name).
  stage->erase();
  members.front().setName(base);
  return members;
}
