//===- OpNames.cpp - What reports call an op ------------------------------===//
#include "placer/Analysis/OpNames.h"

#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

using namespace mlir;
using namespace placer;

std::string placer::getOpTypeName(Operation *op) {
  if (auto node = dyn_cast<graph::NodeOp>(op))
    return node.getDomain().empty()
               ? node.getOpType().str()
               : (node.getDomain() + "." + node.getOpType()).str();
  return op->getName().getStringRef().str();
}

/// 1-based position among the ops of the block, as the split numbers them.
static int64_t getPosition(Operation *op) {
  if (auto position = op->getAttrOfType<IntegerAttr>(dist::kPositionAttrName))
    return position.getInt();
  Block *block = op->getBlock();
  if (!block)
    return 0;
  int64_t position = 0;
  for (Operation &other : *block) {
    ++position;
    if (&other == op)
      break;
  }
  return position;
}

std::string placer::getOpDisplayName(Operation *op) {
  if (auto node = dyn_cast<graph::NodeOp>(op))
    return node.getDisplayName().str();
  if (auto constant = dyn_cast<graph::ConstantOp>(op))
    return constant.getName().str();
  std::string base = op->getName().getStringRef().str();
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    base = loc.getName().str();
  return base + "#" + std::to_string(getPosition(op));
}
