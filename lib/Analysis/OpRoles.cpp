//===- OpRoles.cpp - Which ops a placement places -------------------------===//
#include "placer/Analysis/OpRoles.h"

#include "placer/Analysis/CostModel.h"
#include "placer/Conversion/OnnxOps.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace placer;

namespace {

/// Default-domain ONNX nodes without subgraphs whose results are small and
/// statically shaped: the only candidates for compile-time values.
bool isSmallOnnxNode(graph::NodeOp node) {
  if (node->getNumRegions() != 0 ||
      !(node.getDomain().empty() || node.getDomain() == "ai.onnx"))
    return false;
  int64_t bytes = 0;
  for (Value result : node.getOutputs()) {
    std::optional<int64_t> b = getTypeBytes(result.getType());
    if (!b)
      return false;
    bytes += *b;
  }
  return bytes <= kReplicatedBytesLimit;
}

bool isGraphOp(Operation *op) {
  return isa_and_nonnull<graph::GraphDialect>(op->getDialect());
}

/// Ops of other dialects (linalg, tosa, tensor, arith, ...) that may be
/// compile-time values: no side effects, statically shaped results.
bool isPureStaticOp(Operation *op) {
  return !isGraphOp(op) && isMemoryEffectFree(op) && op->getNumResults() > 0 &&
         llvm::all_of(op->getResultTypes(), [](Type type) {
           return getTypeBytes(type).has_value() || !isa<ShapedType>(type);
         });
}

/// Builds its result from scalars alone (tensor.empty, a linalg.fill, a
/// splat): a copy on every device costs a memset, whatever its size, and
/// sending it would cost more.
bool buildsFromScalars(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  // A region that reads a tensor from above copies from it.
  llvm::SetVector<Value> captured;
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, captured);
  if (llvm::any_of(captured,
                   [](Value v) { return isa<ShapedType>(v.getType()); }))
    return false;
  return llvm::all_of(op->getOpOperands(), [&](OpOperand &operand) {
    return !isa<ShapedType>(operand.get().getType()) ||
           (linalgOp && linalgOp.isDpsInit(&operand) &&
            !linalgOp.payloadUsesValueFromOperand(&operand));
  });
}

int64_t getResultBytes(Operation *op) {
  int64_t bytes = 0;
  for (Type type : op->getResultTypes())
    bytes += getTypeBytes(type).value_or(0);
  return bytes;
}

/// The initializers a training step updates (its results' placer.updates):
/// state that changes from step to step, not compile-time values.
llvm::StringSet<> getUpdatedNames(Block &block) {
  llvm::StringSet<> names;
  auto function = dyn_cast_or_null<FunctionOpInterface>(block.getParentOp());
  if (!function)
    return names;
  for (unsigned i = 0; i < function.getNumResults(); ++i)
    if (auto name =
            function.getResultAttrOfType<StringAttr>(i, kUpdatesAttrName))
      names.insert(name.getValue());
  return names;
}

} // namespace

SmallVector<Value> placer::getReadValues(Operation *op) {
  llvm::SetVector<Value> used(op->getOperands().begin(),
                              op->getOperands().end());
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, used);
  return used.takeVector();
}

OpRoles::OpRoles(Block &block) {
  llvm::StringSet<> updated = getUpdatedNames(block);
  auto isState = [&](Operation *def) {
    auto constant = dyn_cast<graph::ConstantOp>(def);
    return constant && updated.contains(constant.getName());
  };
  // An op that reads training state runs once per step on one device:
  // a copy elsewhere would read a stale copy of the state.
  auto fromCompileTimeValues = [&](Operation &op) {
    return llvm::all_of(getReadValues(&op), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && def->getBlock() == &block &&
             getRole(def) != OpRole::Placed && !isState(def);
    });
  };
  for (Operation &op : block) {
    OpRole role = OpRole::Placed;
    if (isa<graph::ConstantOp, graph::NoneOp>(op) ||
        (!isGraphOp(&op) && op.hasTrait<OpTrait::ConstantLike>())) {
      role = OpRole::Replicated;
    } else if (isPureStaticOp(&op) && fromCompileTimeValues(op) &&
               (buildsFromScalars(&op) ||
                getResultBytes(&op) <= kReplicatedBytesLimit)) {
      role = OpRole::Replicated;
    } else if (auto node = dyn_cast<graph::NodeOp>(op);
               node && isSmallOnnxNode(node)) {
      if (getFoldedValue(node))
        role = OpRole::Folded;
      else if (!node.getInputs().empty() && fromCompileTimeValues(*node))
        role = OpRole::Replicated;
    }
    if (role != OpRole::Placed)
      roles[&op] = role;
  }
}

OpRole OpRoles::getRole(Operation *op) const {
  auto it = roles.find(op);
  return it == roles.end() ? OpRole::Placed : it->second;
}

DenseElementsAttr placer::getFoldedValue(Operation *op) {
  auto node = dyn_cast<graph::NodeOp>(op);
  const OpEntry *entry = node ? getOnnxOps().find(node) : nullptr;
  return entry && entry->foldFromTypes ? entry->foldFromTypes(node)
                                       : DenseElementsAttr();
}
