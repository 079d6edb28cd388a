//===- Fusion.cpp - How an op joins a row kernel --------------------------===//
//
// The FusionRoleFn rules the op families register (Rules.h; OpRegistry.h,
// FusionRole): which nodes reduce rows, and over how many leading axes.
// The cost model groups a graph's nodes into row kernels by these roles
// exactly as it groups a lowered module's ops by their structure
// (lib/Analysis/RowFusion.cpp), so the rules say what the lowering of the
// node looks like: a row reduction lowers to `linalg.reduce` over the
// trailing axes of input 0 and elementwise generics.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "Utils.h"

using namespace mlir;
using namespace placer;

namespace {

/// The static shape of `value`, or nothing (the role is then None: the cost
/// model refuses dynamic shapes anyway).
std::optional<ArrayRef<int64_t>> staticShape(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return type.getShape();
}

FusionRole rowsBefore(graph::NodeOp node, int64_t axis) {
  std::optional<ArrayRef<int64_t>> in = staticShape(node->getOperand(0));
  if (!in)
    return {};
  int64_t rank = static_cast<int64_t>(in->size());
  int64_t positive = lowering::normalizeAxis(axis, rank);
  if (positive < 0 || positive >= rank)
    return {};
  return {FusionKind::RowReduction, positive};
}

int64_t getIntAttr(graph::NodeOp node, StringRef name, int64_t fallback) {
  if (auto attr = node.getAttrs().getAs<IntegerAttr>(name))
    return attr.getInt();
  return fallback;
}

} // namespace

FusionRole fusion::elementwise(graph::NodeOp) {
  return {FusionKind::Elementwise};
}

FusionRole fusion::reduction(graph::NodeOp node) {
  // The reduced axes from the shapes (the axes may be an input known only
  // at run time): rows are a leading run of input 0's axes whose sizes,
  // ones aside, are the output's, and everything after them is reduced.
  if (node->getNumResults() == 0)
    return {};
  std::optional<ArrayRef<int64_t>> in = staticShape(node->getOperand(0));
  std::optional<ArrayRef<int64_t>> out = staticShape(node->getResult(0));
  if (!in || !out)
    return {};
  auto nonUnit = [](ArrayRef<int64_t> dims) {
    SmallVector<int64_t> kept;
    for (int64_t dim : dims)
      if (dim != 1)
        kept.push_back(dim);
    return kept;
  };
  SmallVector<int64_t> rows = nonUnit(*out);
  for (size_t k = 0; k <= in->size(); ++k)
    if (nonUnit(in->take_front(k)) == rows)
      return {FusionKind::RowReduction, static_cast<int64_t>(k)};
  return {};
}

FusionRole fusion::coercedSoftmax(graph::NodeOp node) {
  // Before opset 13: along every axis from `axis` (default 1) on.
  return rowsBefore(node, getIntAttr(node, "axis", 1));
}

FusionRole fusion::softmax(graph::NodeOp node) {
  // Along `axis` (default -1) alone: rows only when it is the last.
  std::optional<ArrayRef<int64_t>> in = staticShape(node->getOperand(0));
  if (!in)
    return {};
  int64_t rank = static_cast<int64_t>(in->size());
  if (lowering::normalizeAxis(getIntAttr(node, "axis", -1), rank) != rank - 1)
    return {};
  return rowsBefore(node, rank - 1);
}

FusionRole fusion::layerNorm(graph::NodeOp node) {
  return rowsBefore(node, getIntAttr(node, "axis", -1));
}

FusionRole fusion::spatial(graph::NodeOp node) {
  // Batch and channel index the rows; every spatial axis is reduced.
  return rowsBefore(node, 2);
}

FusionRole fusion::batchNorm(graph::NodeOp node) {
  // Inference (one result): one elementwise generic with per-channel
  // constants. Training mode reduces over batch and space: not rows.
  if (node->getNumResults() == 1 && getIntAttr(node, "training_mode", 0) == 0)
    return {FusionKind::Elementwise};
  return {};
}

FusionRole fusion::contraction(graph::NodeOp) {
  return {FusionKind::Contraction};
}

FusionRole fusion::gemm(graph::NodeOp node) {
  // alpha and an added C are one elementwise generic after the product.
  bool addsC = node->getNumOperands() > 2 &&
               isa<ShapedType>(node->getOperand(2).getType());
  auto number = [&](StringRef name) {
    auto attr = node.getAttrs().getAs<FloatAttr>(name);
    return attr ? attr.getValueAsDouble() : 1.0;
  };
  if (number("alpha") != 1.0 || (addsC && number("beta") != 0.0))
    return {};
  return {FusionKind::Contraction};
}

FusionRole fusion::convolution(graph::NodeOp node) {
  // The bias is added by a generic of its own, which then is the epilogue.
  if (node->getNumOperands() > 2 &&
      isa<ShapedType>(node->getOperand(2).getType()))
    return {};
  return {FusionKind::Contraction};
}

FusionRole fusion::maxPool(graph::NodeOp node) {
  // With indices the lowering computes a second result.
  if (node->getNumResults() != 1)
    return {};
  return {FusionKind::Contraction};
}
