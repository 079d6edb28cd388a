//===- Sharding.cpp - Where an op carries a tensor-parallel split ---------===//
//
// The ShardCarryFn rules the op families register (Rules.h): for ops whose
// attributes decide whether a split of input 0 survives them and on which
// axis of the result (OpRegistry.h, ShardingRule::carry).
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "Utils.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace placer;

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

int64_t getIntAttr(graph::NodeOp node, StringRef name, int64_t fallback) {
  if (auto attr = node.getAttrs().getAs<IntegerAttr>(name))
    return attr.getInt();
  return fallback;
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t dim : dims)
    result *= dim;
  return result;
}

/// `axis` (possibly negative) counted from 0 in a rank-`rank` tensor, or -1
/// when it is not one of its axes (an attribute from a hostile model).
int64_t normalize(int64_t axis, int64_t rank) {
  int64_t positive = lowering::normalizeAxis(axis, rank);
  return positive >= 0 && positive < rank ? positive : -1;
}

} // namespace

ShardCarry sharding::reshape(graph::NodeOp node, unsigned result,
                             ShardSplit input, int64_t degree) {
  // A row-major reshape keeps a split whole slices of which stay whole
  // slices: the same count of elements before the axis, and the axis with
  // everything after it one contiguous run of the same length, cut at the
  // same places (the new axis's size divisible by the degree). A blocked
  // axis keeps its blocks where it keeps its size.
  if (result != 0)
    return std::nullopt;
  ArrayRef<int64_t> in = shapeOf(node->getOperand(0));
  ArrayRef<int64_t> out = shapeOf(node->getResult(0));
  int64_t before = product(in.take_front(input.axis));
  int64_t run = product(in.drop_front(input.axis));
  int64_t prefix = 1;
  for (auto [j, dim] : llvm::enumerate(out)) {
    if (prefix == before && product(out.drop_front(j)) == run &&
        dim % (degree * input.blocks) == 0 &&
        (input.blocks == 1 || dim == in[input.axis]))
      return ShardSplit{static_cast<int64_t>(j), input.blocks};
    prefix *= dim;
    if (prefix > before)
      break;
  }
  return std::nullopt;
}

ShardCarry sharding::transpose(graph::NodeOp node, unsigned result,
                               ShardSplit input, int64_t) {
  int64_t rank = static_cast<int64_t>(shapeOf(node->getOperand(0)).size());
  SmallVector<int64_t> perm;
  if (auto attr = node.getAttrs().getAs<DenseI64ArrayAttr>("perm"))
    perm.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  // out[j] = in[perm[j]]: the split moves to where its axis went.
  for (auto [j, from] : llvm::enumerate(perm))
    if (from == input.axis && result == 0)
      return ShardSplit{static_cast<int64_t>(j), input.blocks};
  return std::nullopt;
}

ShardCarry sharding::softmax(graph::NodeOp node, unsigned result,
                             ShardSplit input, int64_t) {
  // Opset 13 normalizes along `axis` (default -1); before, along every axis
  // from `axis` (default 1) on, as a 2-D coercion.
  int64_t rank = static_cast<int64_t>(shapeOf(node->getOperand(0)).size());
  bool single = node.getVersion() >= 13;
  int64_t axis = normalize(getIntAttr(node, "axis", single ? -1 : 1), rank);
  bool normalized = single ? input.axis == axis : input.axis >= axis;
  if (result != 0 || axis < 0 || normalized)
    return std::nullopt;
  return input;
}

ShardCarry sharding::layerNorm(graph::NodeOp node, unsigned, ShardSplit input,
                               int64_t) {
  // Normalized over every axis from `axis` (default -1) on; the mean and
  // inverse deviation results (1 and 2) keep the leading axes too.
  int64_t rank = static_cast<int64_t>(shapeOf(node->getOperand(0)).size());
  int64_t axis = normalize(getIntAttr(node, "axis", -1), rank);
  if (axis < 0 || input.axis >= axis)
    return std::nullopt;
  return input;
}

ShardCarry sharding::split(graph::NodeOp node, unsigned, ShardSplit input,
                           int64_t degree) {
  // Every piece comes out alike.
  int64_t rank = static_cast<int64_t>(shapeOf(node->getOperand(0)).size());
  int64_t axis = normalize(getIntAttr(node, "axis", 0), rank);
  if (axis < 0)
    return std::nullopt;
  // Another axis than the one split apart: every piece keeps the split.
  if (input.axis != axis)
    return input;
  // The split axis cut into its blocks: piece r is block r, which every
  // device holds its slice of, if the pieces are the blocks.
  unsigned pieces = node->getNumResults();
  int64_t size = shapeOf(node->getOperand(0))[axis];
  if (input.blocks != static_cast<int64_t>(pieces) || size % pieces != 0)
    return std::nullopt;
  for (Value piece : node->getResults())
    if (shapeOf(piece)[axis] != size / pieces ||
        shapeOf(piece)[axis] % degree != 0)
      return std::nullopt;
  return ShardSplit{axis, 1};
}

SmallVector<ShardingStrategy, 2> sharding::gemm(graph::NodeOp node) {
  // Y = A' B' + C with A' = transA ? Aᵀ : A (M x K), B' = transB ? Bᵀ : B
  // (K x N): B's N axis is 0 when transposed, its K axis 1.
  bool transA = getIntAttr(node, "transA", 0) != 0;
  bool transB = getIntAttr(node, "transB", 0) != 0;
  bool hasBias = node->getNumOperands() > 2 &&
                 isa<ShapedType>(node->getOperand(2).getType());
  SmallVector<ShardingStrategy, 2> strategies;
  ShardingStrategy column{
      "column", {kUnsplit, transB ? 0 : 1}, 1, Collective::None};
  if (hasBias) {
    // C broadcasts to M x N: its last axis is N unless it is 1 wide.
    ArrayRef<int64_t> bias = shapeOf(node->getOperand(2));
    column.inputAxes.push_back(!bias.empty() && bias.back() != 1 ? -1
                                                                 : kUnsplit);
  }
  strategies.push_back(column);
  if (!hasBias)
    strategies.push_back({"row",
                          {transA ? 0 : 1, transB ? 1 : 0},
                          kUnsplit,
                          Collective::AllReduce});
  return strategies;
}

SmallVector<ShardingStrategy, 2> sharding::gather(graph::NodeOp node) {
  // Only a lookup along the table's first axis, as an embedding is.
  if (getIntAttr(node, "axis", 0) != 0)
    return {};
  return {ShardingStrategy{
      "vocabulary", {0, kUnsplit}, kUnsplit, Collective::AllReduce}};
}

SmallVector<ShardingStrategy, 2> sharding::conv(graph::NodeOp node) {
  // X [N, C, ...] and W [M, C / group, ...]: with one group, output
  // channels are Gemm's columns (W's axis 0, the result's axis 1, a bias
  // cut alike) and input channels its reduction axis (X's and W's axis 1,
  // partial sums, no bias).
  if (getIntAttr(node, "group", 1) != 1)
    return {};
  bool hasBias = node->getNumOperands() > 2 &&
                 isa<ShapedType>(node->getOperand(2).getType());
  SmallVector<ShardingStrategy, 2> strategies;
  ShardingStrategy outputs{
      "output-channels", {kUnsplit, 0}, 1, Collective::None};
  if (hasBias)
    outputs.inputAxes.push_back(0);
  strategies.push_back(outputs);
  if (!hasBias)
    strategies.push_back(
        {"input-channels", {1, 1}, kUnsplit, Collective::AllReduce});
  return strategies;
}

ShardCarry sharding::channels(graph::NodeOp, unsigned result, ShardSplit input,
                              int64_t) {
  // Batch and channels are independent in a pooling or a batch
  // normalization (its per-channel parameters cut alike); spatial axes are
  // not.
  if (result != 0 || input.axis > 1)
    return std::nullopt;
  return input;
}

namespace {

/// The axes a reduction covers, each in [0, rank) and sorted: its `axes`
/// attribute or constant input (empty: every axis, or none with
/// noop_with_empty_axes); std::nullopt when they are computed at run time
/// or name no axis of the input.
std::optional<SmallVector<int64_t>> getReducedAxes(graph::NodeOp node,
                                                   int64_t rank) {
  SmallVector<int64_t> axes;
  if (node->getNumOperands() > 1 &&
      isa<RankedTensorType>(node->getOperand(1).getType())) {
    auto constant = node->getOperand(1).getDefiningOp<graph::ConstantOp>();
    auto dense = constant ? dyn_cast<DenseIntElementsAttr>(constant.getValue())
                          : DenseIntElementsAttr();
    if (!dense)
      return std::nullopt;
    for (const APInt &axis : dense.getValues<APInt>())
      axes.push_back(axis.getSExtValue());
  } else if (auto attr = node.getAttrs().getAs<DenseI64ArrayAttr>("axes")) {
    axes.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  }
  if (axes.empty()) {
    if (getIntAttr(node, "noop_with_empty_axes", 0))
      return axes;
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  for (int64_t &axis : axes) {
    axis = normalize(axis, rank);
    if (axis < 0)
      return std::nullopt;
  }
  llvm::sort(axes);
  return axes;
}

} // namespace

template <bool sums>
ShardCarry sharding::reduce(graph::NodeOp node, unsigned result,
                            ShardSplit input, int64_t) {
  int64_t rank = static_cast<int64_t>(shapeOf(node->getOperand(0)).size());
  std::optional<SmallVector<int64_t>> axes = getReducedAxes(node, rank);
  if (result != 0 || !axes)
    return std::nullopt;
  // Summed over the split axis: each device's sum of its slice is a part
  // of the whole sum.
  if (llvm::is_contained(*axes, input.axis))
    return sums ? ShardCarry::partial() : ShardCarry(std::nullopt);
  // Kept: where it lands once the reduced axes before it are dropped.
  if (getIntAttr(node, "keepdims", 1))
    return input;
  int64_t dropped =
      llvm::count_if(*axes, [&](int64_t axis) { return axis < input.axis; });
  return ShardSplit{input.axis - dropped, input.blocks};
}

template ShardCarry sharding::reduce<true>(graph::NodeOp, unsigned, ShardSplit,
                                           int64_t);
template ShardCarry sharding::reduce<false>(graph::NodeOp, unsigned, ShardSplit,
                                            int64_t);

std::optional<ShardJoin>
sharding::concat(graph::NodeOp node, ArrayRef<std::optional<ShardSplit>> inputs,
                 int64_t degree) {
  auto first = llvm::find_if(
      inputs, [](const std::optional<ShardSplit> &split) { return split; });
  if (first == inputs.end() || node->getNumResults() != 1)
    return std::nullopt;
  ArrayRef<int64_t> out = shapeOf(node->getResult(0));
  int64_t rank = static_cast<int64_t>(out.size());
  int64_t axis = normalize(getIntAttr(node, "axis", 0), rank);
  ShardSplit split = **first;
  if (axis < 0 || split.axis >= rank)
    return std::nullopt;
  ShardJoin join;
  // Split along another axis: every input is cut alike, and so is the
  // result.
  if (split.axis != axis) {
    join.inputs.assign(inputs.size(), split);
    join.result = split;
    return join;
  }
  // Along the joined axis: k equal inputs of b blocks each are the k * b
  // blocks of the result, each device holding its slice of every one (a
  // fused projection's gradient, joined from q's, k's and v's).
  int64_t size = shapeOf(node->getOperand(0))[axis];
  for (Value operand : node->getOperands())
    if (shapeOf(operand)[axis] != size)
      return std::nullopt;
  if (size % (degree * split.blocks) != 0)
    return std::nullopt;
  join.inputs.assign(inputs.size(), split);
  join.result =
      ShardSplit{axis, split.blocks * static_cast<int64_t>(inputs.size())};
  return join;
}
