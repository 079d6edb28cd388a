//===- OpRoles.cpp - Which ops a placement places -------------------------===//
#include "placer/Analysis/OpRoles.h"

#include "placer/Analysis/CostModel.h"
#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/BuiltinTypes.h"

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

} // namespace

OpRoles::OpRoles(Block &block) {
  for (Operation &op : block) {
    OpRole role = OpRole::Placed;
    if (isa<graph::ConstantOp, graph::NoneOp>(op)) {
      role = OpRole::Replicated;
    } else if (auto node = dyn_cast<graph::NodeOp>(op);
               node && isSmallOnnxNode(node)) {
      if (isShapeOf(node) && getFoldedValue(node))
        role = OpRole::Folded;
      else if (!node.getInputs().empty() &&
               llvm::all_of(node.getInputs(), [&](Value v) {
                 Operation *def = v.getDefiningOp();
                 return def && def->getBlock() == &block &&
                        getRole(def) != OpRole::Placed;
               }))
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
