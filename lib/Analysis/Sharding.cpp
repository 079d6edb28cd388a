//===- Sharding.cpp - Tensor-parallel layouts of a graph ------------------===//
//
// One pass over the function's nodes in program order: each value is split
// (ShardSplit) or whole on every device; a node reads its inputs' layouts,
// picks the rule of its registry entry that needs the least communication
// and records the layouts of its results and the collectives it needs.
//
//===----------------------------------------------------------------------===//

#include "placer/Analysis/Sharding.h"

#include "placer/Analysis/CostModel.h"
#include "placer/Conversion/OnnxOps.h"

#include "llvm/ADT/STLExtras.h"

#include <tuple>

using namespace mlir;
using namespace placer;

int64_t ShardingPlan::countCollectives(Collective kind) const {
  int64_t count = llvm::count_if(
      outputs, [&](const CollectiveUse &use) { return use.kind == kind; });
  for (const NodeSharding &node : nodes)
    count += llvm::count_if(node.collectives, [&](const CollectiveUse &use) {
      return use.kind == kind;
    });
  return count;
}

namespace {

/// `axis` (negative: from the end) of a rank-`rank` tensor from 0, or -1.
int64_t normalizeAxis(int64_t axis, int64_t rank) {
  int64_t positive = axis < 0 ? axis + rank : axis;
  return positive >= 0 && positive < rank ? positive : -1;
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

bool isTensor(Value value) { return isa<RankedTensorType>(value.getType()); }

class ShardingPlanner {
public:
  explicit ShardingPlanner(int64_t degree) { plan.degree = degree; }

  LogicalResult visit(graph::NodeOp node);
  void finish(func::ReturnOp ret);
  ShardingPlan plan;

private:
  std::optional<ShardSplit> splitOf(Value value) const {
    auto it = plan.splits.find(value);
    return it == plan.splits.end() ? std::nullopt
                                   : std::optional<ShardSplit>(it->second);
  }
  /// Whether `axis` of `value` cuts into `degree` slices of `blocks` blocks.
  bool cuts(Value value, int64_t axis, int64_t blocks = 1) const {
    return shapeOf(value)[axis] % (plan.degree * blocks) == 0;
  }
  static int64_t bytesOf(Value value) {
    return getValueBytes(value.getType()).value_or(0);
  }
  void gather(NodeSharding &sharding, unsigned operand) {
    Value value = sharding.node->getOperand(operand);
    sharding.collectives.push_back(
        {Collective::AllGather, static_cast<int>(operand), -1, bytesOf(value)});
  }
  /// Gathers every split input but those in `kept`.
  void gatherInputs(NodeSharding &sharding,
                    llvm::ArrayRef<unsigned> kept = {}) {
    for (auto [i, operand] : llvm::enumerate(sharding.node->getOperands()))
      if (splitOf(operand) && !llvm::is_contained(kept, i))
        gather(sharding, i);
  }
  /// The axis `strategy` cuts input `i` along (from 0), kUnsplit when it
  /// reads it whole, -1 when the input has no such axis.
  static int64_t getCutAxis(const ShardingStrategy &strategy, size_t i,
                            Value operand) {
    int64_t wanted =
        i < strategy.inputAxes.size() ? strategy.inputAxes[i] : kUnsplit;
    if (wanted == kUnsplit)
      return kUnsplit;
    return normalizeAxis(wanted, static_cast<int64_t>(shapeOf(operand).size()));
  }
  /// The blocks `strategy` cuts in, and the size of the blocked axes: those
  /// of the first input split along the axis the strategy cuts it (the
  /// axes a strategy cuts pair up, so a blocked gradient of a fused
  /// projection reaches its product's transposed weight cut in the same
  /// blocks); (1, 0) otherwise.
  std::pair<int64_t, int64_t>
  getBlocks(graph::NodeOp node, const ShardingStrategy &strategy) const {
    for (auto [i, operand] : llvm::enumerate(node->getOperands())) {
      if (!isTensor(operand))
        continue;
      std::optional<ShardSplit> current = splitOf(operand);
      int64_t axis = getCutAxis(strategy, i, operand);
      if (current && current->axis == axis)
        return {current->blocks, shapeOf(operand)[axis]};
    }
    return {1, 0};
  }
  bool tryStrategies(NodeSharding &sharding,
                     llvm::ArrayRef<ShardingStrategy> strategies);
  void follow(NodeSharding &sharding);
  void carry(NodeSharding &sharding, ShardCarryFn fn);
  void join(NodeSharding &sharding, ShardJoinFn fn);
  int64_t blocksFor(graph::NodeOp node, int64_t axis) const;
  bool gathersInput(OpOperand &use, ShardSplit split, int depth = 0) const;
};

/// Whether the user of `use` would gather its operand if it came split as
/// `split`: it has no sharding rule, or carries input 0 and cannot carry
/// this split, or is elementwise of the same shape and every user of its
/// result gathers (a bias add before a Split; a few ops deep at most).
/// Ops with strategies may take it, and the function's results do.
bool ShardingPlanner::gathersInput(OpOperand &use, ShardSplit split,
                                   int depth) const {
  auto user = dyn_cast<graph::NodeOp>(use.getOwner());
  // A function result is gathered once, at the end, and only for the
  // device that returns it: the others would not compute a whole result at
  // all (nothing reads it there), so cutting it splits the work, as for a
  // language model's head, at the price of one gather.
  if (isa<func::ReturnOp>(use.getOwner()))
    return false;
  if (!user)
    return true;
  const OpEntry *entry = getOnnxOps().find(user);
  if (!entry || !entry->sharding.isSharded())
    return true;
  const ShardingRule &rule = entry->sharding;
  if (rule.followsInput) {
    if (depth >= 4 || user->getNumResults() != 1 ||
        user->getResult(0).getType() != use.get().getType() ||
        user->getResult(0).use_empty())
      return false;
    return llvm::all_of(user->getResult(0).getUses(), [&](OpOperand &next) {
      return gathersInput(next, split, depth + 1);
    });
  }
  if (rule.strategiesFor || !rule.strategies.empty() || rule.join)
    return false;
  if (use.getOperandNumber() != 0)
    return true; // carried ops keep only input 0's split
  return !rule.carry(user, 0, split, plan.degree).carries();
}

/// A product whose result goes (alone, maybe through elementwise ops of
/// its shape: a bias) to a Split along `axis` into k equal pieces comes out
/// blocked by k (each device's slice of each piece: its heads of q, k and
/// v), so the Split hands every piece on split; otherwise 1.
int64_t ShardingPlanner::blocksFor(graph::NodeOp node, int64_t axis) const {
  Value result = node->getResult(0);
  graph::NodeOp user;
  for (Value value = result; value.hasOneUse();) {
    user = dyn_cast<graph::NodeOp>(*value.user_begin());
    const OpEntry *entry = user ? getOnnxOps().find(user) : nullptr;
    if (!entry || !entry->sharding.followsInput || user->getNumResults() != 1 ||
        user->getResult(0).getType() != result.getType())
      break;
    value = user->getResult(0);
    user = nullptr;
  }
  if (!user || user.getOpType() != "Split" || user->getNumResults() < 2)
    return 1;
  int64_t rank = static_cast<int64_t>(shapeOf(result).size());
  int64_t splitAxis = 0;
  if (auto attr = user.getAttrs().getAs<IntegerAttr>("axis"))
    splitAxis = attr.getInt();
  int64_t pieces = user->getNumResults();
  if (normalizeAxis(splitAxis, rank) != axis || !cuts(result, axis, pieces))
    return 1;
  for (Value piece : user->getResults())
    if (shapeOf(piece)[axis] * pieces != shapeOf(result)[axis])
      return 1;
  return pieces;
}

bool ShardingPlanner::tryStrategies(
    NodeSharding &sharding, llvm::ArrayRef<ShardingStrategy> strategies) {
  graph::NodeOp node = sharding.node;
  // (gathers, collectives after, splits not consumed, order): least first.
  using Score = std::tuple<int, int, int, size_t>;
  std::optional<Score> best;
  const ShardingStrategy *chosen = nullptr;
  for (auto [index, strategy] : llvm::enumerate(strategies)) {
    int gathers = 0, consumed = 0, splits = 0;
    bool applicable =
        node->getNumResults() >= 1 && isTensor(node->getResult(0));
    auto [blocks, blockedSize] = getBlocks(node, strategy);
    for (auto [i, operand] : llvm::enumerate(node->getOperands())) {
      if (!applicable || !isTensor(operand))
        continue;
      std::optional<ShardSplit> current = splitOf(operand);
      splits += current.has_value();
      int64_t axis = getCutAxis(strategy, i, operand);
      if (axis == kUnsplit) {
        gathers += current.has_value();
        continue;
      }
      if (axis < 0 || !cuts(operand, axis, blocks) ||
          (blocks > 1 && shapeOf(operand)[axis] != blockedSize)) {
        applicable = false;
        continue;
      }
      if (current && *current == ShardSplit{axis, blocks})
        ++consumed;
      else if (current)
        ++gathers;
    }
    if (applicable && strategy.resultAxis != kUnsplit) {
      Value result = node->getResult(0);
      int64_t axis = normalizeAxis(
          strategy.resultAxis, static_cast<int64_t>(shapeOf(result).size()));
      applicable = axis >= 0 && cuts(result, axis, blocks) &&
                   (blocks == 1 || shapeOf(result)[axis] == blockedSize);
    }
    if (!applicable)
      continue;
    Score score{gathers, strategy.collective != Collective::None ? 1 : 0,
                splits - consumed, index};
    if (!best || score < *best) {
      best = score;
      chosen = &strategy;
    }
  }
  if (!chosen)
    return false;
  // A result cut only to be gathered again by every user (a Split that
  // cannot carry the cut, an op with no rule) buys nothing: run the node
  // whole instead, unless it consumes a split it was given.
  if (chosen->collective == Collective::None &&
      chosen->resultAxis != kUnsplit &&
      llvm::none_of(node->getOperands(), [&](Value operand) {
        return splitOf(operand).has_value();
      })) {
    Value result = node->getResult(0);
    int64_t axis = normalizeAxis(chosen->resultAxis,
                                 static_cast<int64_t>(shapeOf(result).size()));
    if (!result.use_empty() &&
        llvm::all_of(result.getUses(), [&](OpOperand &use) {
          return gathersInput(use, ShardSplit{axis, blocksFor(node, axis)});
        }))
      return false;
  }
  sharding.strategy = chosen->name;
  Value result = node->getResult(0);
  int64_t blocks = getBlocks(node, *chosen).first;
  std::optional<ShardSplit> resultSplit;
  if (chosen->collective != Collective::AllReduce &&
      chosen->resultAxis != kUnsplit) {
    int64_t axis = normalizeAxis(chosen->resultAxis,
                                 static_cast<int64_t>(shapeOf(result).size()));
    resultSplit = ShardSplit{axis, blocks > 1 ? blocks : blocksFor(node, axis)};
  }
  for (auto [i, operand] : llvm::enumerate(node->getOperands())) {
    int64_t axis =
        isTensor(operand) ? getCutAxis(*chosen, i, operand) : kUnsplit;
    sharding.cutInputs[i] = axis != kUnsplit;
    std::optional<ShardSplit> current = splitOf(operand);
    if (current &&
        !(sharding.cutInputs[i] && *current == ShardSplit{axis, blocks}))
      gather(sharding, static_cast<unsigned>(i));
    if (!sharding.cutInputs[i])
      continue;
    // Cut in the strategy's blocks; a whole input whose cut axis is the
    // blocked result axis (the weight of a fused projection) in the
    // result's.
    int64_t inputBlocks = blocks;
    if (blocks == 1 && resultSplit && !current &&
        shapeOf(operand)[axis] == shapeOf(result)[resultSplit->axis])
      inputBlocks = resultSplit->blocks;
    sharding.inputSplits[i] = ShardSplit{axis, inputBlocks};
  }
  if (chosen->collective == Collective::AllReduce)
    sharding.collectives.push_back(
        {Collective::AllReduce, -1, 0, bytesOf(result)});
  else
    sharding.results[0] = resultSplit;
  return true;
}

void ShardingPlanner::follow(NodeSharding &sharding) {
  graph::NodeOp node = sharding.node;
  if (node->getNumResults() == 0 || !isTensor(node->getResult(0))) {
    sharding.strategy = "replicated";
    gatherInputs(sharding);
    return;
  }
  Value result = node->getResult(0);
  int64_t rank = static_cast<int64_t>(shapeOf(result).size());
  // The first split input decides; an input aligned from the end.
  std::optional<ShardSplit> out;
  for (Value operand : node->getOperands())
    if (std::optional<ShardSplit> split = splitOf(operand); split && !out) {
      int64_t offset = rank - static_cast<int64_t>(shapeOf(operand).size());
      out = ShardSplit{split->axis + offset, split->blocks};
    }
  if (!out) {
    sharding.strategy = "replicated";
    return;
  }
  sharding.strategy = "follow";
  for (auto [i, operand] : llvm::enumerate(node->getOperands())) {
    if (!isTensor(operand))
      continue;
    int64_t offset = rank - static_cast<int64_t>(shapeOf(operand).size());
    int64_t position = out->axis - offset;
    std::optional<ShardSplit> split = splitOf(operand);
    if (split && *split == ShardSplit{position, out->blocks}) {
      sharding.cutInputs[i] = true;
      sharding.inputSplits[i] = split;
      continue;
    }
    // Split another way: gathered, then read as a whole input is.
    if (split)
      gather(sharding, static_cast<unsigned>(i));
    // Held whole: broadcast along the axis, or cut alike for free.
    sharding.cutInputs[i] = position >= 0 && shapeOf(operand)[position] ==
                                                 shapeOf(result)[out->axis];
    if (sharding.cutInputs[i])
      sharding.inputSplits[i] = ShardSplit{position, out->blocks};
  }
  for (auto [r, value] : llvm::enumerate(node->getResults()))
    if (isTensor(value) && shapeOf(value) == shapeOf(result))
      sharding.results[r] = out;
}

void ShardingPlanner::carry(NodeSharding &sharding, ShardCarryFn fn) {
  graph::NodeOp node = sharding.node;
  std::optional<ShardSplit> input =
      node->getNumOperands() > 0 ? splitOf(node->getOperand(0)) : std::nullopt;
  SmallVector<ShardCarry, 1> carried;
  if (input)
    for (auto [r, value] : llvm::enumerate(node->getResults()))
      carried.push_back(isTensor(value) ? fn(node, static_cast<unsigned>(r),
                                             *input, plan.degree)
                                        : ShardCarry());
  if (!input || carried.empty() || !carried.front().carries()) {
    sharding.strategy = "replicated";
    gatherInputs(sharding);
    return;
  }
  sharding.cutInputs[0] = true;
  sharding.inputSplits[0] = input;
  gatherInputs(sharding, /*kept=*/{0});
  // A sum over the split axis: each device sums its slice, an all-reduce
  // adds the parts (a few bytes where gathering the input moves it all).
  if (carried.front().partialSums) {
    sharding.strategy = "partial";
    sharding.collectives.push_back(
        {Collective::AllReduce, -1, 0, bytesOf(node->getResult(0))});
    return;
  }
  sharding.strategy = "carry";
  for (auto [r, result] : llvm::enumerate(carried))
    sharding.results[r] = result.split;
}

void ShardingPlanner::join(NodeSharding &sharding, ShardJoinFn fn) {
  graph::NodeOp node = sharding.node;
  SmallVector<std::optional<ShardSplit>, 3> inputs = llvm::map_to_vector<3>(
      node->getOperands(), [&](Value operand) { return splitOf(operand); });
  std::optional<ShardJoin> joined;
  if (node->getNumResults() == 1 && isTensor(node->getResult(0)) &&
      llvm::all_of(node->getOperands(), isTensor))
    joined = fn(node, inputs, plan.degree);
  if (!joined) {
    sharding.strategy = "replicated";
    gatherInputs(sharding);
    return;
  }
  // Each input read as the rule says: a whole one cut for free, one split
  // otherwise gathered first.
  sharding.strategy = "join";
  for (auto [i, wanted] : llvm::enumerate(joined->inputs)) {
    if (inputs[i] && *inputs[i] != wanted)
      gather(sharding, static_cast<unsigned>(i));
    sharding.cutInputs[i] = true;
    sharding.inputSplits[i] = wanted;
  }
  sharding.results[0] = joined->result;
}

LogicalResult ShardingPlanner::visit(graph::NodeOp node) {
  for (Value value :
       llvm::concat<Value>(node->getOperands(), node->getResults()))
    if (auto type = dyn_cast<ShapedType>(value.getType());
        type && !type.hasStaticShape())
      return node.emitError("cannot plan tensor parallelism for node '")
             << node.getDisplayName() << "': it has a tensor of type " << type
             << ", not a static shape (bind the dims on import)";
  NodeSharding sharding;
  sharding.node = node;
  sharding.results.resize(node->getNumResults());
  sharding.cutInputs.assign(node->getNumOperands(), false);
  sharding.inputSplits.resize(node->getNumOperands());
  const OpEntry *entry = getOnnxOps().find(node);
  // One device holds everything: nothing to cut.
  ShardingRule rule =
      entry && plan.degree > 1 ? entry->sharding : ShardingRule();
  llvm::SmallVector<ShardingStrategy, 2> strategies(rule.strategies.begin(),
                                                    rule.strategies.end());
  if (rule.strategiesFor)
    strategies = rule.strategiesFor(node);
  if (!strategies.empty() && tryStrategies(sharding, strategies)) {
  } else if (rule.followsInput) {
    follow(sharding);
  } else if (rule.carry) {
    carry(sharding, rule.carry);
  } else if (rule.join) {
    join(sharding, rule.join);
  } else {
    sharding.strategy = "replicated";
    gatherInputs(sharding);
  }
  for (auto [value, split] : llvm::zip(node->getResults(), sharding.results))
    if (split)
      plan.splits[value] = *split;
  plan.nodes.push_back(std::move(sharding));
  return success();
}

void ShardingPlanner::finish(func::ReturnOp ret) {
  for (auto [i, value] : llvm::enumerate(ret.getOperands()))
    if (splitOf(value))
      plan.outputs.push_back(
          {Collective::AllGather, static_cast<int>(i), -1, bytesOf(value)});
}

} // namespace

FailureOr<ShardingPlan>
placer::planSharding(func::FuncOp func, int64_t degree,
                     const llvm::DenseMap<Value, ShardSplit> &held) {
  if (degree < 1)
    return func.emitError("tensor-parallel degree must be at least 1, got ")
           << degree;
  ShardingPlanner planner(degree);
  if (degree > 1)
    planner.plan.splits = held;
  if (func.getBody().empty())
    return planner.plan;
  Block &body = func.getBody().front();
  for (Operation &op : body)
    if (auto node = dyn_cast<graph::NodeOp>(op))
      if (failed(planner.visit(node)))
        return failure();
  if (auto ret = dyn_cast<func::ReturnOp>(body.getTerminator()))
    planner.finish(ret);
  return std::move(planner.plan);
}
