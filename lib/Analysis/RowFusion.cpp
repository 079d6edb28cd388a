//===- RowFusion.cpp - Row kernels alike at every level -------------------===//

#include "placer/Analysis/RowFusion.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace placer;

namespace {

using Role = RowFusionGraph::Role;

/// Bounds that keep the per-op query local: a row kernel is a handful of
/// units (a LayerNorm exported op by op is nine).
constexpr size_t kMaxSearch = 64;
constexpr size_t kMaxGroup = 128;

/// Whether `shape` has a leading run of axes holding exactly `rows` rows:
/// the same rows, however the lowering reshaped them ([1, 8, 64] and
/// [8, 64] both hold 8 rows of 64).
bool holdsRows(llvm::ArrayRef<int64_t> shape, int64_t rows) {
  int64_t product = 1;
  if (product == rows)
    return true;
  for (int64_t dim : shape) {
    product *= dim;
    if (product == rows)
      return true;
    if (dim == 0 || product > rows)
      return false;
  }
  return false;
}

bool joinsRows(const Role &role, int64_t rows) {
  switch (role.kind) {
  case FusionKind::None:
    return false;
  case FusionKind::Elementwise:
    return holdsRows(role.shape, rows);
  case FusionKind::RowReduction:
    return role.rows == rows;
  }
  return false;
}

/// The group that grows from the row reduction `seed`.
llvm::SetVector<Operation *> growGroup(const RowFusionGraph &graph,
                                       Operation *seed, int64_t rows) {
  llvm::SetVector<Operation *> group;
  llvm::SetVector<Value> reads; // values from outside the group it reads
  auto add = [&](Operation *unit) {
    group.insert(unit);
    for (Value value : graph.getInputs(unit)) {
      Operation *producer = graph.getProducer(value, unit);
      if (!producer || !group.contains(producer))
        reads.insert(value);
    }
  };
  // A consumer joins when all it reads is the group's, a leaf, or read by
  // the group already: nothing it reads depends on the group through a
  // unit outside it.
  auto readsOnlyGroup = [&](Operation *unit) {
    return llvm::all_of(graph.getInputs(unit), [&](Value value) {
      Operation *producer = graph.getProducer(value, unit);
      return !producer || group.contains(producer) || reads.contains(value);
    });
  };
  add(seed);
  SmallVector<Operation *, 8> consumers;
  for (bool changed = true; changed && group.size() < kMaxGroup;) {
    changed = false;
    for (size_t i = 0; i < group.size() && group.size() < kMaxGroup; ++i) {
      consumers.clear();
      (void)graph.getConsumers(group[i], consumers);
      for (Operation *consumer : consumers)
        if (!group.contains(consumer) &&
            joinsRows(graph.classify(consumer), rows) &&
            readsOnlyGroup(consumer)) {
          add(consumer);
          changed = true;
        }
    }
    // A producer joins when the group alone reads it.
    for (size_t i = 0; i < reads.size() && group.size() < kMaxGroup; ++i) {
      Operation *producer = graph.getProducer(reads[i], seed);
      if (!producer || group.contains(producer) ||
          !joinsRows(graph.classify(producer), rows))
        continue;
      consumers.clear();
      if (!graph.getConsumers(producer, consumers) ||
          !llvm::all_of(consumers, [&](Operation *consumer) {
            return group.contains(consumer);
          }))
        continue;
      add(producer);
      changed = true;
    }
  }
  return group;
}

/// The row reductions near `unit`: those reached from it through units
/// that may fuse, in block order.
SmallVector<std::pair<Operation *, int64_t>>
findSeeds(const RowFusionGraph &graph, Operation *unit) {
  llvm::SetVector<Operation *> seen;
  seen.insert(unit);
  SmallVector<std::pair<Operation *, int64_t>> seeds;
  SmallVector<Operation *, 8> next;
  for (size_t i = 0; i < seen.size() && seen.size() < kMaxSearch; ++i) {
    Operation *current = seen[i];
    Role role = graph.classify(current);
    if (role.kind == FusionKind::None)
      continue;
    if (role.kind == FusionKind::RowReduction)
      seeds.push_back({current, role.rows});
    next.clear();
    (void)graph.getConsumers(current, next);
    for (Value value : graph.getInputs(current))
      if (Operation *producer = graph.getProducer(value, current))
        next.push_back(producer);
    for (Operation *neighbour : next)
      seen.insert(neighbour);
  }
  llvm::sort(seeds, [](auto &a, auto &b) {
    return a.first->isBeforeInBlock(b.first);
  });
  return seeds;
}

} // namespace

Value placer::lookThroughViews(Value value,
                               llvm::function_ref<bool(Operation *)> isView) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isView(def) || def->getNumOperands() == 0)
      break;
    value = def->getOperand(0);
  }
  return value;
}

void placer::forEachUseThroughViews(
    Value value, llvm::function_ref<bool(Operation *)> isView,
    llvm::function_ref<void(OpOperand &)> fn) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isView(user) && use.getOperandNumber() == 0) {
      for (Value result : user->getResults())
        forEachUseThroughViews(result, isView, fn);
      continue;
    }
    fn(use);
  }
}

Operation *RowFusionGraph::getProducer(Value value, Operation *reader) const {
  Value source = lookThroughViews(value);
  Operation *def = source.getDefiningOp();
  return def && def->getBlock() == reader->getBlock() && isUnit(def) &&
                 !isFreeRead(source)
             ? def
             : nullptr;
}

SmallVector<Value, 4> RowFusionGraph::getInputs(Operation *unit) const {
  llvm::SmallSetVector<Value, 4> inputs;
  for (Value operand : unit->getOperands())
    if (isa<ShapedType>(operand.getType()))
      inputs.insert(lookThroughViews(operand));
  return SmallVector<Value, 4>(inputs.begin(), inputs.end());
}

bool RowFusionGraph::getConsumers(
    Operation *unit, SmallVectorImpl<Operation *> &consumers) const {
  bool contained = true;
  for (Value result : unit->getResults())
    forEachReader(result, [&](Operation *user) {
      if (isUnit(user) && user->getBlock() == unit->getBlock()) {
        if (!llvm::is_contained(consumers, user))
          consumers.push_back(user);
      } else {
        contained = false;
      }
    });
  return contained;
}

bool RowFusionGraph::readsFromMemory(Operation *op, Value value,
                                     Operation *kernel) const {
  Value source = lookThroughViews(value);
  if (isFreeRead(source))
    return false;
  Operation *def = source.getDefiningOp();
  if (def && isUnit(def) && getKernel(def) == kernel)
    return false;
  bool earlier = false;
  forEachReader(source, [&](Operation *reader) {
    if (!earlier && reader != op && isUnit(reader) &&
        reader->getBlock() == op->getBlock() && reader->isBeforeInBlock(op) &&
        getKernel(reader) == kernel)
      earlier = true;
  });
  return !earlier;
}

bool RowFusionGraph::staysInKernel(Value result, Operation *kernel) const {
  bool inside = !result.use_empty();
  forEachReader(result, [&](Operation *reader) {
    if (!isUnit(reader) || getKernel(reader) != kernel)
      inside = false;
  });
  return inside;
}

Operation *placer::getRowKernel(const RowFusionGraph &graph, Operation *unit) {
  if (graph.classify(unit).kind == FusionKind::None)
    return nullptr;
  for (auto [seed, rows] : findSeeds(graph, unit))
    if (growGroup(graph, seed, rows).contains(unit))
      return seed;
  return nullptr;
}
