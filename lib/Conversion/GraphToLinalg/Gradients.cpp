//===- Gradients.cpp - Vector-Jacobian products of graph nodes ------------===//
//
// The gradient rules the op families register (Rules.h), and the builder
// they emit graph nodes with (placer/Conversion/GradientBuilder.h). Each
// emits ONNX ops that the lowering runs, on static shapes; the rules are
// checked against central finite differences in float64
// (test/Transforms/gradients.py).
//
//===----------------------------------------------------------------------===//

#include "Rules.h"

#include "placer/Conversion/GradientBuilder.h"
#include "placer/Dialect/Placer/PlacerDialect.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace mlir;
using namespace placer;
using graph::NodeOp;

GradientBuilder::GradientBuilder(OpBuilder &builder, Location loc,
                                 int64_t opset, StringRef prefix,
                                 IntegerAttr colorClass, StepPhase phase)
    : builder(builder), loc(loc), opset(opset), prefix(prefix.str()),
      colorClass(colorClass), phase(phase) {}

Value GradientBuilder::node(StringRef opType, ValueRange inputs, Type result,
                            ArrayRef<NamedAttribute> attrs) {
  return nodeWithResults(opType, inputs, result, attrs)[0];
}

ResultRange GradientBuilder::nodeWithResults(StringRef opType,
                                             ValueRange inputs,
                                             TypeRange results,
                                             ArrayRef<NamedAttribute> attrs) {
  std::string nodeName = prefix + "/" + std::to_string(count++);
  OperationState state(loc, NodeOp::getOperationName());
  state.addOperands(inputs);
  state.addTypes(results);
  state.addAttribute("op_type", builder.getStringAttr(opType));
  state.addAttribute("version", builder.getI64IntegerAttr(opset));
  state.addAttribute("name", builder.getStringAttr(nodeName));
  SmallVector<std::string> outputNames;
  for (size_t i = 0; i < results.size(); ++i)
    outputNames.push_back(nodeName + ":" + std::to_string(i));
  state.addAttribute("output_names",
                     builder.getStrArrayAttr(SmallVector<StringRef>(
                         outputNames.begin(), outputNames.end())));
  if (!attrs.empty())
    state.addAttribute("attrs", builder.getDictionaryAttr(attrs));
  // The update runs after the backward pass, and placement treats it as
  // backward work (it stays with its weight's first reader).
  if (phase != StepPhase::Forward)
    state.addAttribute(kBackwardNodeAttrName, builder.getUnitAttr());
  if (phase == StepPhase::Optimizer)
    state.addAttribute(kOptimizerNodeAttrName, builder.getUnitAttr());
  if (colorClass)
    state.addAttribute(kColorClassAttrName, colorClass);
  return builder.create(state)->getResults();
}

Value GradientBuilder::int64s(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    builder.getI64Type());
  std::string constName = prefix + "/const" + std::to_string(count++);
  return graph::ConstantOp::create(builder, loc, type, constName,
                                   DenseIntElementsAttr::get(type, values),
                                   builder.getStringAttr(constName));
}

Value GradientBuilder::scalar(double value, Type type) {
  Type element = cast<ShapedType>(type).getElementType();
  auto scalarType = RankedTensorType::get({}, element);
  std::string constName = prefix + "/const" + std::to_string(count++);
  return graph::ConstantOp::create(
      builder, loc, scalarType, constName,
      DenseElementsAttr::get(scalarType, builder.getFloatAttr(element, value)),
      builder.getStringAttr(constName));
}

Value GradientBuilder::reshape(Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return node("Reshape", {value, int64s(shape)}, type.clone(shape));
}

Value GradientBuilder::sumTo(Value value, RankedTensorType target) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == target.getShape())
    return value;
  // Target dims align with the trailing dims of value's.
  int64_t rank = type.getRank(), offset = rank - target.getRank();
  SmallVector<int64_t> axes, kept(type.getShape());
  for (int64_t d = 0; d < rank; ++d)
    if (d < offset ||
        (target.getDimSize(d - offset) == 1 && type.getDimSize(d) != 1)) {
      axes.push_back(d);
      kept[d] = 1;
    }
  Value summed = axes.empty() ? value : reduceSum(value, axes);
  return reshape(summed, target.getShape());
}

Value GradientBuilder::reduceSum(Value value, ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> kept(type.getShape());
  for (int64_t axis : axes)
    kept[axis] = 1;
  return node("ReduceSum", {value, int64s(axes)}, type.clone(kept),
              {builder.getNamedAttr("keepdims", builder.getI64IntegerAttr(1))});
}

Value GradientBuilder::zeros(RankedTensorType type) {
  return node("Expand", {scalar(0.0, type), int64s(type.getShape())}, type);
}

Value GradientBuilder::transposeLast(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> perm(type.getRank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  return node(
      "Transpose", {value}, type.clone(shape),
      {builder.getNamedAttr("perm", builder.getDenseI64ArrayAttr(perm))});
}

namespace {

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

int64_t getInt(NodeOp node, StringRef name, int64_t fallback) {
  auto attr = node.getAttrs().getAs<IntegerAttr>(name);
  return attr ? attr.getInt() : fallback;
}

double getFloat(NodeOp node, StringRef name, double fallback) {
  auto attr = node.getAttrs().getAs<FloatAttr>(name);
  return attr ? attr.getValueAsDouble() : fallback;
}

using Grads = SmallVectorImpl<Value>;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult identityRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                           Grads &dx) {
  dx.assign(node.getNumOperands(), Value());
  dx[0] = dy[0];
  return success();
}

/// Add and Sub: the adjoint, summed to each operand's shape (negated for
/// Sub's second).
template <bool subtract>
LogicalResult addRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                      Grads &dx) {
  Value a = node.getOperand(0), b = node.getOperand(1);
  dx.push_back(g.sumTo(dy[0], typeOf(a)));
  Value db = subtract ? g.node("Neg", {dy[0]}, dy[0].getType()) : dy[0];
  dx.push_back(g.sumTo(db, typeOf(b)));
  return success();
}

LogicalResult mulRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                      Grads &dx) {
  Value a = node.getOperand(0), b = node.getOperand(1);
  Type type = dy[0].getType();
  dx.push_back(g.sumTo(g.node("Mul", {dy[0], b}, type), typeOf(a)));
  dx.push_back(g.sumTo(g.node("Mul", {dy[0], a}, type), typeOf(b)));
  return success();
}

/// y = a / b: da = dy / b, db = -dy y / b.
LogicalResult divRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                      Grads &dx) {
  Value a = node.getOperand(0), b = node.getOperand(1), y = node.getResult(0);
  Type type = dy[0].getType();
  Value da = g.node("Div", {dy[0], b}, type);
  dx.push_back(g.sumTo(da, typeOf(a)));
  Value db = g.node("Neg", {g.node("Mul", {da, y}, type)}, type);
  dx.push_back(g.sumTo(db, typeOf(b)));
  return success();
}

/// dx = dy * f'(x), with f' written through the node's result y.
LogicalResult withSlope(GradientBuilder &g, ArrayRef<Value> dy, Grads &dx,
                        Value slope) {
  dx.push_back(g.node("Mul", {dy[0], slope}, dy[0].getType()));
  return success();
}

LogicalResult reluRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                       Grads &dx) {
  // Relu(x) >= 0, and Sign of it is 1 where x > 0, else 0.
  return withSlope(g, dy, dx,
                   g.node("Sign", {node.getResult(0)}, dy[0].getType()));
}

/// sigmoid' = y (1 - y).
LogicalResult sigmoidRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                          Grads &dx) {
  Value y = node.getResult(0);
  Type type = dy[0].getType();
  Value oneMinus = g.node("Sub", {g.scalar(1.0, type), y}, type);
  return withSlope(g, dy, dx, g.node("Mul", {y, oneMinus}, type));
}

/// tanh' = 1 - y^2.
LogicalResult tanhRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                       Grads &dx) {
  Value y = node.getResult(0);
  Type type = dy[0].getType();
  Value square = g.node("Mul", {y, y}, type);
  return withSlope(g, dy, dx,
                   g.node("Sub", {g.scalar(1.0, type), square}, type));
}

//===----------------------------------------------------------------------===//
// Products
//===----------------------------------------------------------------------===//

/// y = a b with a [..., m, k] and b [k, n] (a weight shared by the batch)
/// or b with a's batch dims: da = dy b^T, db = a^T dy (summed over the
/// batch when b is shared).
LogicalResult matmulRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                         Grads &dx) {
  Value a = node.getOperand(0), b = node.getOperand(1);
  RankedTensorType aType = typeOf(a), bType = typeOf(b);
  Type elem = aType.getElementType();
  if (aType.getRank() < 2 || bType.getRank() < 2 ||
      (bType.getRank() != 2 && bType.getRank() != aType.getRank()))
    return node.emitError("placer: no gradient for MatMul of ")
           << aType << " and " << bType
           << " (needs [..., m, k] times [k, n] or equal batch dims)";
  dx.push_back(g.node("MatMul", {dy[0], g.transposeLast(b)}, aType));
  if (bType.getRank() == 2) {
    // Rows of every batch as one matrix.
    int64_t k = aType.getDimSize(aType.getRank() - 1);
    int64_t n = bType.getDimSize(1);
    Value rows = g.reshape(a, {aType.getNumElements() / k, k});
    Value dRows = g.reshape(dy[0], {aType.getNumElements() / k, n});
    dx.push_back(g.node("MatMul", {g.transposeLast(rows), dRows},
                        RankedTensorType::get({k, n}, elem)));
  } else {
    dx.push_back(g.node("MatMul", {g.transposeLast(a), dy[0]}, bType));
  }
  return success();
}

/// y = alpha op(a) op(b) + beta c.
LogicalResult gemmRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                       Grads &dx) {
  OpBuilder &b = g.getBuilder();
  Value a = node.getOperand(0), bMat = node.getOperand(1);
  bool transA = getInt(node, "transA", 0), transB = getInt(node, "transB", 0);
  double alpha = getFloat(node, "alpha", 1.0),
         beta = getFloat(node, "beta", 1.0);
  auto gemm = [&](Value lhs, Value rhs, bool tl, bool tr, Type type) {
    return g.node("Gemm", {lhs, rhs}, type,
                  {b.getNamedAttr("alpha", b.getF32FloatAttr(alpha)),
                   b.getNamedAttr("transA", b.getI64IntegerAttr(tl)),
                   b.getNamedAttr("transB", b.getI64IntegerAttr(tr))});
  };
  // op(a) is [m, k], op(b) [k, n], dy [m, n].
  dx.push_back(transA ? gemm(bMat, dy[0], transB, true, a.getType())
                      : gemm(dy[0], bMat, false, !transB, a.getType()));
  dx.push_back(transB ? gemm(dy[0], a, true, transA, bMat.getType())
                      : gemm(a, dy[0], !transA, false, bMat.getType()));
  if (node.getNumOperands() > 2 &&
      isa<RankedTensorType>(node.getOperand(2).getType())) {
    Value dc = dy[0];
    if (beta != 1.0)
      dc = g.node("Mul", {dc, g.scalar(beta, dc.getType())}, dc.getType());
    dx.push_back(g.sumTo(dc, typeOf(node.getOperand(2))));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Shapes and normalizations
//===----------------------------------------------------------------------===//

/// Reshape, Flatten, Squeeze, Unsqueeze: the adjoint in the input's shape;
/// shape inputs get none.
LogicalResult reshapeRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                          Grads &dx) {
  dx.assign(node.getNumOperands(), Value());
  dx[0] = g.reshape(dy[0], typeOf(node.getOperand(0)).getShape());
  return success();
}

LogicalResult transposeRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                            Grads &dx) {
  RankedTensorType type = typeOf(node.getOperand(0));
  SmallVector<int64_t> perm(type.getRank());
  std::iota(perm.begin(), perm.end(), 0);
  if (auto given = node.getAttrs().getAs<DenseI64ArrayAttr>("perm"))
    perm.assign(given.asArrayRef().begin(), given.asArrayRef().end());
  else
    std::reverse(perm.begin(), perm.end());
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  OpBuilder &b = g.getBuilder();
  dx.push_back(
      g.node("Transpose", {dy[0]}, type,
             {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(inverse))}));
  return success();
}

/// y = softmax(x) along `axis`: dx = y (dy - sum(dy y)).
LogicalResult softmaxRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                          Grads &dx) {
  RankedTensorType type = typeOf(node.getResult(0));
  int64_t axis = getInt(node, "axis", -1);
  if (axis < 0)
    axis += type.getRank();
  Value y = node.getResult(0);
  Value product = g.node("Mul", {dy[0], y}, type);
  SmallVector<int64_t> kept(type.getShape());
  kept[axis] = 1;
  OpBuilder &b = g.getBuilder();
  Value sum = g.node("ReduceSum", {product, g.int64s({axis})}, type.clone(kept),
                     {b.getNamedAttr("keepdims", b.getI64IntegerAttr(1))});
  Value centred = g.node("Sub", {dy[0], sum}, type);
  dx.push_back(g.node("Mul", {y, centred}, type));
  return success();
}

//===----------------------------------------------------------------------===//
// Convolutions and pooling
//===----------------------------------------------------------------------===//

SmallVector<int64_t> getInts(NodeOp node, StringRef name, size_t count,
                             int64_t fallback) {
  if (auto given = node.getAttrs().getAs<DenseI64ArrayAttr>(name))
    return SmallVector<int64_t>(given.asArrayRef());
  return SmallVector<int64_t>(count, fallback);
}

/// The weight's adjoint of a convolution of `groups` groups (x [N, C, H, W],
/// w [F, Cg, KH, KW], C = g Cg, F = g Fg): dw[j Fg + f, c] sums over the
/// images the correlation of x[n, j Cg + c] with dy[n, j Fg + f]. As one
/// convolution of C groups: the images of each input channel as a group's
/// channels ([1, C N, H, W]), and as its Fg filters the adjoints of its
/// group's outputs over the images ([C Fg, N, OH, OW], each group's
/// repeated for its Cg channels), giving [1, C Fg, KH', KW'], cropped and
/// reordered to [F, Cg, KH, KW].
template <typename Crop>
Value groupedWeightGradient(GradientBuilder &g, Value x, Value dy,
                            RankedTensorType wType, int64_t groups, Crop crop,
                            ArrayRef<NamedAttribute> convAttrs,
                            const int64_t reach[2]) {
  OpBuilder &b = g.getBuilder();
  RankedTensorType xType = typeOf(x), dyType = typeOf(dy);
  int64_t n = xType.getDimSize(0), c = xType.getDimSize(1);
  int64_t f = wType.getDimSize(0), cg = wType.getDimSize(1), fg = f / groups;
  int64_t oh = dyType.getDimSize(2), ow = dyType.getDimSize(3);
  int64_t kh = wType.getDimSize(2), kw = wType.getDimSize(3);
  Type element = wType.getElementType();
  auto perm = [&](ArrayRef<int64_t> order) {
    return b.getNamedAttr("perm", b.getDenseI64ArrayAttr(order));
  };
  auto tensor = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, element);
  };
  // [N, C, H, W] -> [C, N, H, W] -> [1, C N, H, W].
  Value images =
      g.node("Transpose", {x},
             xType.clone({c, n, xType.getDimSize(2), xType.getDimSize(3)}),
             {perm({1, 0, 2, 3})});
  images =
      g.reshape(images, {1, c * n, xType.getDimSize(2), xType.getDimSize(3)});
  // [N, F, OH, OW] -> [N, g, 1, Fg, OH, OW] -> [g, 1, Fg, N, OH, OW]
  // -> [g, Cg, Fg, N, OH, OW] -> [C Fg, N, OH, OW].
  Value filters = g.reshape(dy, {n, groups, 1, fg, oh, ow});
  filters = g.node("Transpose", {filters}, tensor({groups, 1, fg, n, oh, ow}),
                   {perm({1, 2, 3, 0, 4, 5})});
  if (cg > 1)
    filters = g.node("Expand", {filters, g.int64s({groups, cg, fg, n, oh, ow})},
                     tensor({groups, cg, fg, n, oh, ow}));
  filters = g.reshape(filters, {c * fg, n, oh, ow});
  SmallVector<NamedAttribute> attrs(convAttrs.begin(), convAttrs.end());
  attrs.push_back(b.getNamedAttr("group", b.getI64IntegerAttr(c)));
  Value full = g.node("Conv", {images, filters},
                      tensor({1, c * fg, reach[0], reach[1]}), attrs);
  // [1, C Fg, KH, KW] -> [g, Cg, Fg, KH, KW] -> [g, Fg, Cg, KH, KW].
  Value cropped = g.reshape(crop(full), {groups, cg, fg, kh, kw});
  Value ordered =
      g.node("Transpose", {cropped}, tensor({groups, fg, cg, kh, kw}),
             {perm({0, 2, 1, 3, 4})});
  return g.reshape(ordered, wType.getShape());
}

/// A 2-D convolution, y = conv(x, w) + b:
///   db = the sum of dy over images and positions;
///   dx = ConvTranspose(dy, w) with the same strides, pads, dilations and
///        groups, output_padding restoring x's size;
///   dw = a convolution of x with dy over the images (images as channels,
///        channels as images): strides and dilations swap roles, and the
///        result is cropped to the kernel and transposed to [F, C, KH, KW]
///        (with groups: groupedWeightGradient).
LogicalResult convRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                       Grads &dx) {
  OpBuilder &b = g.getBuilder();
  Value x = node.getOperand(0), w = node.getOperand(1);
  RankedTensorType xType = typeOf(x), wType = typeOf(w),
                   yType = typeOf(node.getResult(0));
  auto autoPad = node.getAttrs().getAs<StringAttr>("auto_pad");
  int64_t groups = getInt(node, "group", 1);
  if (xType.getRank() != 4 || groups < 1 ||
      (autoPad && autoPad.getValue() != "NOTSET"))
    return node.emitError("placer: no gradient for this Conv (2-D with "
                          "explicit pads is covered)");
  SmallVector<int64_t> strides = getInts(node, "strides", 2, 1);
  SmallVector<int64_t> dilations = getInts(node, "dilations", 2, 1);
  SmallVector<int64_t> pads = getInts(node, "pads", 4, 0);
  int64_t kernel[2] = {wType.getDimSize(2), wType.getDimSize(3)};
  SmallVector<int64_t> outputPadding(2);
  for (int d = 0; d < 2; ++d)
    outputPadding[d] = xType.getDimSize(2 + d) -
                       ((yType.getDimSize(2 + d) - 1) * strides[d] - pads[d] -
                        pads[d + 2] + dilations[d] * (kernel[d] - 1) + 1);
  auto ints = [&](StringRef name, ArrayRef<int64_t> values) {
    return b.getNamedAttr(name, b.getDenseI64ArrayAttr(values));
  };
  dx.push_back(g.node("ConvTranspose", {dy[0], w}, xType,
                      {ints("strides", strides), ints("pads", pads),
                       ints("dilations", dilations),
                       ints("output_padding", outputPadding),
                       b.getNamedAttr("group", b.getI64IntegerAttr(groups))}));
  // dw: [C, N, H, W] convolved with [F, N, OH, OW] -> [C, F, KH', KW'].
  auto swapBatch = [&](Value v) {
    RankedTensorType type = typeOf(v);
    SmallVector<int64_t> shape = {type.getDimSize(1), type.getDimSize(0),
                                  type.getDimSize(2), type.getDimSize(3)};
    return g.node("Transpose", {v}, type.clone(shape),
                  {ints("perm", {1, 0, 2, 3})});
  };
  int64_t reach[2];
  for (int d = 0; d < 2; ++d)
    reach[d] = (xType.getDimSize(2 + d) + pads[d] + pads[d + 2] -
                ((yType.getDimSize(2 + d) - 1) * strides[d] + 1)) /
                   dilations[d] +
               1;
  auto crop = [&](Value full) {
    RankedTensorType type = typeOf(full);
    if (reach[0] == kernel[0] && reach[1] == kernel[1])
      return full;
    return g.node("Slice",
                  {full, g.int64s({0, 0}), g.int64s({kernel[0], kernel[1]}),
                   g.int64s({2, 3})},
                  type.clone({type.getDimSize(0), type.getDimSize(1), kernel[0],
                              kernel[1]}));
  };
  Type element = wType.getElementType();
  if (groups == 1) {
    auto full = RankedTensorType::get(
        {xType.getDimSize(1), wType.getDimSize(0), reach[0], reach[1]},
        element);
    Value dwFull = g.node("Conv", {swapBatch(x), swapBatch(dy[0])}, full,
                          {ints("strides", dilations), ints("pads", pads),
                           ints("dilations", strides)});
    dx.push_back(swapBatch(crop(dwFull)));
  } else {
    dx.push_back(
        groupedWeightGradient(g, x, dy[0], wType, groups, crop,
                              {ints("strides", dilations), ints("pads", pads),
                               ints("dilations", strides)},
                              reach));
  }
  if (node.getNumOperands() > 2 &&
      isa<RankedTensorType>(node.getOperand(2).getType())) {
    int64_t filters = yType.getDimSize(1);
    Value perFilter =
        g.sumTo(dy[0], RankedTensorType::get({1, filters, 1, 1},
                                             yType.getElementType()));
    dx.push_back(g.reshape(perFilter, {filters}));
  }
  return success();
}

/// y = the mean over each channel's positions: dx = dy / positions,
/// spread over them.
LogicalResult globalAveragePoolRule(GradientBuilder &g, NodeOp node,
                                    ArrayRef<Value> dy, Grads &dx) {
  RankedTensorType xType = typeOf(node.getOperand(0));
  int64_t positions =
      xType.getNumElements() / (xType.getDimSize(0) * xType.getDimSize(1));
  Value scaled =
      g.node("Mul", {dy[0], g.scalar(1.0 / positions, xType)}, dy[0].getType());
  dx.push_back(g.node("Expand", {scaled, g.int64s(xType.getShape())}, xType));
  return success();
}

//===----------------------------------------------------------------------===//
// More elementwise: the decoder's GELU, normalizations' roots and powers
//===----------------------------------------------------------------------===//

LogicalResult negRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                      Grads &dx) {
  dx.push_back(g.node("Neg", {dy[0]}, dy[0].getType()));
  return success();
}

/// exp' = y.
LogicalResult expRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                      Grads &dx) {
  return withSlope(g, dy, dx, node.getResult(0));
}

/// sqrt' = 1 / (2 y).
LogicalResult sqrtRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                       Grads &dx) {
  Type type = dy[0].getType();
  Value half = g.node("Mul", {dy[0], g.scalar(0.5, type)}, type);
  dx.push_back(g.node("Div", {half, node.getResult(0)}, type));
  return success();
}

/// erf'(x) = 2 / sqrt(pi) exp(-x^2).
LogicalResult erfRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                      Grads &dx) {
  Value x = node.getOperand(0);
  Type type = dy[0].getType();
  Value square = g.node("Mul", {x, x}, type);
  Value gauss = g.node("Exp", {g.node("Neg", {square}, type)}, type);
  return withSlope(
      g, dy, dx,
      g.node("Mul", {gauss, g.scalar(2.0 / std::sqrt(M_PI), type)}, type));
}

/// The constant `value` is, or null when a node computes it.
DenseElementsAttr getConstantValue(Value value) {
  auto constant = value.getDefiningOp<graph::ConstantOp>();
  return constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                  : DenseElementsAttr();
}

/// Integers of a constant input (axes, starts, ends), or failure.
FailureOr<SmallVector<int64_t>> getConstantInts(Value value) {
  auto dense = dyn_cast_or_null<DenseIntElementsAttr>(getConstantValue(value));
  if (!dense)
    return failure();
  SmallVector<int64_t> values;
  for (const APInt &v : dense.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

/// y = a^b with a constant exponent: da = dy b a^(b - 1).
LogicalResult powRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                      Grads &dx) {
  Value a = node.getOperand(0), b = node.getOperand(1);
  if (!getConstantValue(b))
    return node.emitError("placer: no gradient for Pow with an exponent that "
                          "is not a constant");
  Type type = dy[0].getType();
  Value lower = g.node("Sub", {b, g.scalar(1.0, b.getType())}, b.getType());
  Value power = g.node("Pow", {a, lower}, type);
  Value slope = g.node("Mul", {power, b}, type);
  dx.push_back(g.sumTo(g.node("Mul", {dy[0], slope}, type), typeOf(a)));
  dx.push_back(Value());
  return success();
}

/// Where(c, a, b): the adjoint goes to a where c holds, to b elsewhere.
LogicalResult whereRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                        Grads &dx) {
  Value c = node.getOperand(0);
  Type type = dy[0].getType();
  Value zero = g.scalar(0.0, type);
  dx.push_back(Value());
  dx.push_back(g.sumTo(g.node("Where", {c, dy[0], zero}, type),
                       typeOf(node.getOperand(1))));
  dx.push_back(g.sumTo(g.node("Where", {c, zero, dy[0]}, type),
                       typeOf(node.getOperand(2))));
  return success();
}

/// Expand: the adjoint summed back to the input's shape.
LogicalResult expandRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                         Grads &dx) {
  dx.push_back(g.sumTo(dy[0], typeOf(node.getOperand(0))));
  dx.push_back(Value());
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions and LayerNormalization
//===----------------------------------------------------------------------===//

/// The axes a reduction or normalization covers, each in [0, rank).
SmallVector<int64_t> normalizeAxes(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t axis : axes)
    result.push_back(axis < 0 ? axis + rank : axis);
  llvm::sort(result);
  return result;
}

/// ReduceSum and ReduceMean (axes as attribute or constant input,
/// keepdims): the adjoint spread back over the reduced axes (divided by
/// their size for the mean).
template <bool mean>
LogicalResult reduceRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                         Grads &dx) {
  RankedTensorType xType = typeOf(node.getOperand(0));
  int64_t rank = xType.getRank();
  SmallVector<int64_t> axes;
  if (node.getNumOperands() > 1 &&
      isa<RankedTensorType>(node.getOperand(1).getType())) {
    FailureOr<SmallVector<int64_t>> given = getConstantInts(node.getOperand(1));
    if (failed(given))
      return node.emitError("placer: no gradient for a reduction whose axes "
                            "are not a constant");
    axes = *given;
  } else if (auto attr = node.getAttrs().getAs<DenseI64ArrayAttr>("axes")) {
    axes.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  }
  if (axes.empty()) {
    if (getInt(node, "noop_with_empty_axes", 0))
      return identityRule(g, node, dy, dx);
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
  }
  axes = normalizeAxes(axes, rank);
  SmallVector<int64_t> kept(xType.getShape());
  int64_t count = 1;
  for (int64_t axis : axes) {
    count *= kept[axis];
    kept[axis] = 1;
  }
  Value d = g.reshape(dy[0], kept);
  if (mean)
    d = g.node("Mul", {d, g.scalar(1.0 / count, xType)}, d.getType());
  dx.assign(node.getNumOperands(), Value());
  dx[0] = g.node("Expand", {d, g.int64s(xType.getShape())}, xType);
  return success();
}

/// y = (x - mean) / sqrt(var + eps) * scale + bias over the axes from
/// `axis` on. With xhat the normalized input and inv the reciprocal root,
/// recomputed here: dscale = sum(dy xhat), dbias = sum(dy), and with
/// d = dy scale, dx = inv (d - mean(d) - xhat mean(d xhat)).
LogicalResult layerNormRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                            Grads &dx) {
  if (llvm::any_of(dy.drop_front(), [](Value v) { return bool(v); }))
    return node.emitError("placer: no gradient for LayerNormalization's mean "
                          "and inverse deviation outputs");
  Value x = node.getOperand(0), scale = node.getOperand(1);
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank(), axis = getInt(node, "axis", -1);
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> axes;
  int64_t count = 1;
  for (int64_t d = axis; d < rank; ++d) {
    axes.push_back(d);
    count *= type.getDimSize(d);
  }
  double epsilon = getFloat(node, "epsilon", 1e-5);
  auto mean = [&](Value v) {
    Value sum = g.reduceSum(v, axes);
    return g.node("Mul", {sum, g.scalar(1.0 / count, type)}, sum.getType());
  };
  Value mu = mean(x);
  Value centred = g.node("Sub", {x, mu}, type);
  Value variance = mean(g.node("Mul", {centred, centred}, type));
  Value root = g.node(
      "Sqrt",
      {g.node("Add", {variance, g.scalar(epsilon, type)}, variance.getType())},
      variance.getType());
  Value inv = g.node("Div", {g.scalar(1.0, type), root}, root.getType());
  Value xhat = g.node("Mul", {centred, inv}, type);
  Value d = g.node("Mul", {dy[0], scale}, type);
  Value spread = g.node("Sub", {d, mean(d)}, type);
  Value along =
      g.node("Mul", {xhat, mean(g.node("Mul", {d, xhat}, type))}, type);
  dx.push_back(
      g.node("Mul", {inv, g.node("Sub", {spread, along}, type)}, type));
  dx.push_back(g.sumTo(g.node("Mul", {dy[0], xhat}, type), typeOf(scale)));
  if (node.getNumOperands() > 2 &&
      isa<RankedTensorType>(node.getOperand(2).getType()))
    dx.push_back(g.sumTo(dy[0], typeOf(node.getOperand(2))));
  return success();
}

//===----------------------------------------------------------------------===//
// Indexing: Gather, Slice, Concat, Split
//===----------------------------------------------------------------------===//

/// Gather along axis 0 (an embedding's rows): the adjoint of each picked
/// row added into zeros of the data's shape (ScatterND, reduction add:
/// a row picked twice gets both).
LogicalResult gatherRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                         Grads &dx) {
  OpBuilder &b = g.getBuilder();
  Value data = node.getOperand(0), indices = node.getOperand(1);
  RankedTensorType dataType = typeOf(data), indexType = typeOf(indices);
  int64_t axis = getInt(node, "axis", 0);
  if (axis < 0)
    axis += dataType.getRank();
  if (axis != 0)
    return node.emitError("placer: no gradient for Gather along axis ")
           << axis << " (axis 0 is covered)";
  SmallVector<int64_t> shape(indexType.getShape());
  shape.push_back(1);
  Value column = g.reshape(indices, shape);
  dx.push_back(g.node("ScatterND", {g.zeros(dataType), column, dy[0]}, dataType,
                      {b.getNamedAttr("reduction", b.getStringAttr("add"))}));
  dx.push_back(Value());
  return success();
}

/// Slice with constant starts, ends and axes and unit steps: the adjoint
/// padded with zeros back to the input's shape.
LogicalResult sliceRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                        Grads &dx) {
  RankedTensorType xType = typeOf(node.getOperand(0));
  int64_t rank = xType.getRank();
  auto input = [&](unsigned i) -> FailureOr<SmallVector<int64_t>> {
    if (node.getNumOperands() <= i ||
        !isa<RankedTensorType>(node.getOperand(i).getType()))
      return SmallVector<int64_t>();
    return getConstantInts(node.getOperand(i));
  };
  FailureOr<SmallVector<int64_t>> starts = input(1), ends = input(2),
                                  axes = input(3), steps = input(4);
  if (failed(starts) || failed(ends) || failed(axes) || failed(steps) ||
      llvm::any_of(*steps, [](int64_t s) { return s != 1; }))
    return node.emitError("placer: no gradient for a Slice whose starts, "
                          "ends, axes or steps are not constants, or whose "
                          "steps are not 1");
  if (axes->empty()) {
    axes->resize(starts->size());
    std::iota(axes->begin(), axes->end(), 0);
  }
  SmallVector<int64_t> pads(2 * rank, 0);
  for (auto [i, axis] : llvm::enumerate(*axes)) {
    if (axis < 0)
      axis += rank;
    int64_t size = xType.getDimSize(axis);
    auto clamp = [&](int64_t v) {
      if (v < 0)
        v += size;
      return std::clamp<int64_t>(v, 0, size);
    };
    pads[axis] = clamp((*starts)[i]);
    pads[rank + axis] = size - std::max(pads[axis], clamp((*ends)[i]));
  }
  dx.assign(node.getNumOperands(), Value());
  dx[0] = g.node("Pad", {dy[0], g.int64s(pads)}, xType);
  return success();
}

/// Concat: each input's adjoint is its slice of the output's.
LogicalResult concatRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                         Grads &dx) {
  int64_t rank = typeOf(node.getResult(0)).getRank();
  int64_t axis = getInt(node, "axis", 0);
  if (axis < 0)
    axis += rank;
  int64_t offset = 0;
  for (Value input : node.getOperands()) {
    RankedTensorType type = typeOf(input);
    int64_t size = type.getDimSize(axis);
    dx.push_back(g.node("Slice",
                        {dy[0], g.int64s({offset}), g.int64s({offset + size}),
                         g.int64s({axis})},
                        type));
    offset += size;
  }
  return success();
}

/// Split: the outputs' adjoints (zeros for an unused output) concatenated.
LogicalResult splitRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                        Grads &dx) {
  OpBuilder &b = g.getBuilder();
  RankedTensorType type = typeOf(node.getOperand(0));
  int64_t axis = getInt(node, "axis", 0);
  if (axis < 0)
    axis += type.getRank();
  SmallVector<Value> parts;
  for (auto [result, d] : llvm::zip(node.getResults(), dy))
    parts.push_back(d ? d : g.zeros(typeOf(result)));
  dx.assign(node.getNumOperands(), Value());
  dx[0] = g.node("Concat", parts, type,
                 {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
  return success();
}

/// BatchNormalization with its statistics as given (the inference form
/// exported models hold; the statistics are not trained):
/// y = scale (x - mean) / sqrt(var + eps) + bias per channel (axis 1), so
/// dx = dy scale / sqrt(var + eps), dscale = sum(dy xhat), dbias = sum(dy).
LogicalResult batchNormRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                            Grads &dx) {
  if (getInt(node, "training_mode", 0) ||
      llvm::any_of(dy.drop_front(), [](Value v) { return bool(v); }))
    return node.emitError("placer: no gradient for BatchNormalization in "
                          "training mode (its statistics as given are "
                          "covered)");
  Value x = node.getOperand(0), scale = node.getOperand(1),
        mean = node.getOperand(3), variance = node.getOperand(4);
  RankedTensorType type = typeOf(x), channelType = typeOf(scale);
  // Per-channel values as [1, C, 1, ...], to broadcast against x.
  SmallVector<int64_t> perChannel(type.getRank(), 1);
  perChannel[1] = type.getDimSize(1);
  RankedTensorType spreadType = channelType.clone(perChannel);
  auto spread = [&](Value v) { return g.reshape(v, perChannel); };
  double epsilon = getFloat(node, "epsilon", 1e-5);
  Value shifted =
      g.node("Add", {variance, g.scalar(epsilon, channelType)}, channelType);
  Value inv = spread(g.node(
      "Div",
      {g.scalar(1.0, channelType), g.node("Sqrt", {shifted}, channelType)},
      channelType));
  Value xhat =
      g.node("Mul", {g.node("Sub", {x, spread(mean)}, type), inv}, type);
  Value slope = g.node("Mul", {spread(scale), inv}, spreadType);
  dx.push_back(g.node("Mul", {dy[0], slope}, type));
  auto perChannelSum = [&](Value v) {
    return g.reshape(g.sumTo(v, spreadType), channelType.getShape());
  };
  dx.push_back(perChannelSum(g.node("Mul", {dy[0], xhat}, type)));
  dx.push_back(perChannelSum(dy[0]));
  dx.push_back(Value());
  dx.push_back(Value());
  return success();
}

/// AveragePool (2-D): each window's adjoint spread evenly over the
/// elements it averaged. With W(o) the elements window o counts (the
/// whole window with count_include_pad, else those inside the input: a
/// convolution of ones with ones), dx = ConvTranspose(dy / W, ones) per
/// channel (groups = channels), the pool's strides and pads.
LogicalResult averagePoolRule(GradientBuilder &g, NodeOp node,
                              ArrayRef<Value> dy, Grads &dx) {
  OpBuilder &b = g.getBuilder();
  Value x = node.getOperand(0);
  RankedTensorType xType = typeOf(x), yType = typeOf(node.getResult(0));
  auto autoPad = node.getAttrs().getAs<StringAttr>("auto_pad");
  if (xType.getRank() != 4 || getInt(node, "ceil_mode", 0) ||
      (autoPad && autoPad.getValue() != "NOTSET") ||
      node.getAttrs().get("dilations"))
    return node.emitError("placer: no gradient for this AveragePool (2-D, "
                          "explicit pads, no ceil_mode or dilations are "
                          "covered)");
  SmallVector<int64_t> kernel = getInts(node, "kernel_shape", 2, 1);
  SmallVector<int64_t> strides = getInts(node, "strides", 2, 1);
  SmallVector<int64_t> pads = getInts(node, "pads", 4, 0);
  int64_t channels = xType.getDimSize(1);
  Type element = xType.getElementType();
  auto ints = [&](StringRef name, ArrayRef<int64_t> values) {
    return b.getNamedAttr(name, b.getDenseI64ArrayAttr(values));
  };
  auto ones = [&](ArrayRef<int64_t> shape) {
    return g.node(
        "Expand",
        {g.scalar(1.0, RankedTensorType::get({}, element)), g.int64s(shape)},
        RankedTensorType::get(shape, element));
  };
  int64_t oh = yType.getDimSize(2), ow = yType.getDimSize(3);
  Value counts;
  if (getInt(node, "count_include_pad", 0)) {
    counts = g.scalar(double(kernel[0] * kernel[1]), yType);
  } else {
    int64_t h = xType.getDimSize(2), w = xType.getDimSize(3);
    counts =
        g.node("Conv", {ones({1, 1, h, w}), ones({1, 1, kernel[0], kernel[1]})},
               RankedTensorType::get({1, 1, oh, ow}, element),
               {ints("strides", strides), ints("pads", pads)});
  }
  Value scaled = g.node("Div", {dy[0], counts}, yType);
  SmallVector<int64_t> outputPadding(2);
  for (int d = 0; d < 2; ++d)
    outputPadding[d] =
        xType.getDimSize(2 + d) - ((yType.getDimSize(2 + d) - 1) * strides[d] -
                                   pads[d] - pads[d + 2] + kernel[d]);
  dx.push_back(
      g.node("ConvTranspose",
             {scaled, ones({channels, 1, kernel[0], kernel[1]})}, xType,
             {ints("strides", strides), ints("pads", pads),
              ints("output_padding", outputPadding),
              b.getNamedAttr("group", b.getI64IntegerAttr(channels))}));
  return success();
}

/// MaxPool: each window's adjoint goes to its maximum, and an element that
/// is the maximum of several windows gets their sum: the pool recomputed
/// with its Indices output (row-major offsets into the whole input), then
/// the adjoint added at those offsets into zeros (ScatterElements,
/// reduction add, opset 16 or later).
LogicalResult maxPoolRule(GradientBuilder &g, NodeOp node, ArrayRef<Value> dy,
                          Grads &dx) {
  OpBuilder &b = g.getBuilder();
  if (getInt(node, "storage_order", 0) != 0 ||
      (node->getNumResults() > 1 && dy[1]))
    return node.emitError("placer: no gradient for this MaxPool (row-major "
                          "storage order, no use of its Indices are "
                          "covered)");
  Value x = node.getOperand(0);
  RankedTensorType xType = typeOf(x), yType = typeOf(node.getResult(0));
  ResultRange pooled =
      g.nodeWithResults("MaxPool", {x}, {yType, yType.clone(b.getI64Type())},
                        node.getAttrs().getValue());
  int64_t outputs = yType.getNumElements();
  auto flatType =
      RankedTensorType::get({xType.getNumElements()}, xType.getElementType());
  Value scattered =
      g.node("ScatterElements",
             {g.zeros(flatType), g.reshape(pooled[1], {outputs}),
              g.reshape(dy[0], {outputs})},
             flatType,
             {b.getNamedAttr("axis", b.getI64IntegerAttr(0)),
              b.getNamedAttr("reduction", b.getStringAttr("add"))});
  dx.push_back(g.reshape(scattered, xType.getShape()));
  return success();
}

} // namespace

// The rules under the names the families register (Rules.h).
namespace placer::gradients {

const GradientFn identity = identityRule;
const GradientFn add = addRule<false>;
const GradientFn sub = addRule<true>;
const GradientFn mul = mulRule;
const GradientFn div = divRule;
const GradientFn relu = reluRule;
const GradientFn sigmoid = sigmoidRule;
const GradientFn tanh = tanhRule;
const GradientFn matmul = matmulRule;
const GradientFn gemm = gemmRule;
const GradientFn reshape = reshapeRule;
const GradientFn transpose = transposeRule;
const GradientFn softmax = softmaxRule;
const GradientFn conv = convRule;
const GradientFn globalAveragePool = globalAveragePoolRule;
const GradientFn neg = negRule;
const GradientFn exp = expRule;
const GradientFn sqrt = sqrtRule;
const GradientFn erf = erfRule;
const GradientFn pow = powRule;
const GradientFn where = whereRule;
const GradientFn expand = expandRule;
const GradientFn reduceSum = reduceRule</*mean=*/false>;
const GradientFn reduceMean = reduceRule</*mean=*/true>;
const GradientFn layerNorm = layerNormRule;
const GradientFn gather = gatherRule;
const GradientFn slice = sliceRule;
const GradientFn concat = concatRule;
const GradientFn split = splitRule;
const GradientFn batchNorm = batchNormRule;
const GradientFn maxPool = maxPoolRule;
const GradientFn averagePool = averagePoolRule;

} // namespace placer::gradients
