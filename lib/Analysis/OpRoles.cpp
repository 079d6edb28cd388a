//===- OpRoles.cpp - Which ops a placement places -------------------------===//
#include "placer/Analysis/OpRoles.h"

#include "placer/Analysis/CostModel.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace placer;

namespace {

bool isStaticTensor(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape();
}

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

bool isShapeOf(graph::NodeOp node) {
  return (node.getOpType() == "Shape" || node.getOpType() == "Size") &&
         node.getNumOperands() == 1 && node->getNumResults() == 1 &&
         isStaticTensor(node.getInputs()[0]) &&
         isStaticTensor(node->getResult(0)) &&
         cast<RankedTensorType>(node->getResult(0).getType())
             .getElementType()
             .isInteger(64);
}

bool isGraphOp(Operation *op) {
  return isa_and_nonnull<graph::GraphDialect>(op->getDialect());
}

/// Ops of other dialects (linalg, tosa, tensor, arith, ...) that may be
/// compile-time values: no side effects, statically shaped results.
bool isPureStaticOp(Operation *op) {
  return !isGraphOp(op) &&
         isMemoryEffectFree(op) && op->getNumResults() > 0 &&
         llvm::all_of(op->getResultTypes(), [](Type type) {
           return getTypeBytes(type).has_value() || !isa<ShapedType>(type);
         });
}

/// Builds its result from scalars alone (tensor.empty, a linalg.fill, a
/// splat): a copy on every device costs a memset, whatever its size, and
/// sending it would cost more.
bool buildsFromScalars(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
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

OpRoles::OpRoles(Block &block) {
  llvm::StringSet<> updated = getUpdatedNames(block);
  auto isState = [&](Operation *def) {
    auto constant = dyn_cast<graph::ConstantOp>(def);
    return constant && updated.contains(constant.getName());
  };
  // An op that reads training state runs once per step on one device:
  // a copy elsewhere would read a stale copy of the state.
  auto fromCompileTimeValues = [&](Operation &op) {
    return llvm::all_of(op.getOperands(), [&](Value v) {
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
      if (isShapeOf(node) && getFoldedValue(node))
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
  auto node = cast<graph::NodeOp>(op);
  auto input = cast<RankedTensorType>(node.getInputs()[0].getType());
  auto type = cast<RankedTensorType>(node->getResult(0).getType());
  ArrayRef<int64_t> shape = input.getShape();
  SmallVector<int64_t> values;
  if (node.getOpType() == "Size") {
    int64_t product = 1;
    for (int64_t dim : shape)
      product *= dim;
    values.push_back(product);
  } else {
    int64_t rank = shape.size();
    auto bound = [&](StringRef name, int64_t fallback) {
      auto attr = node.getAttrs().getAs<IntegerAttr>(name);
      int64_t axis = attr ? attr.getInt() : fallback;
      return std::clamp<int64_t>(axis < 0 ? axis + rank : axis, 0, rank);
    };
    int64_t start = bound("start", 0), end = bound("end", rank);
    values.append(shape.begin() + start, shape.begin() + std::max(start, end));
  }
  if (type.getNumElements() != static_cast<int64_t>(values.size()))
    return {};
  return DenseElementsAttr::get(type, ArrayRef<int64_t>(values));
}
