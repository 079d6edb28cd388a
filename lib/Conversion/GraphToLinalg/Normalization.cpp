//===- Normalization.cpp - Softmax and normalizations ---------------------===//
//
// Softmax, LogSoftmax, LayerNormalization, BatchNormalization.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Support/DebugStringHelper.h"

using namespace mlir;
using namespace placer;
using namespace placer::lowering;

namespace {

/// Softmax / LogSoftmax over dimensions [axis, rank) for opset < 13 (the
/// input is coerced to 2-D there) or over `axis` alone from 13.
template <bool Log>
Results lowerSoftmax(NodeLowering &n) {
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  int64_t rank = type.getRank();
  bool modern = n.node.getVersion() >= 13;
  int64_t axis = normalizeAxis(n.getInt("axis", modern ? -1 : 1), rank);
  if (axis < 0 || axis >= rank)
    return n.fail("axis out of range");
  SmallVector<int64_t> axes;
  for (int64_t d = axis; d < (modern ? axis + 1 : rank); ++d)
    axes.push_back(d);
  return single(softmax(n.builder, n.getLoc(), n.operands[0], axes, Log));
}

/// (x - mean) / sqrt(var + epsilon) * scale + bias over [axis, rank).
Results lowerLayerNorm(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  int64_t rank = type.getRank();
  int64_t axis = normalizeAxis(n.getInt("axis", -1), rank);
  if (axis < 0 || axis >= rank)
    return n.fail("axis out of range");
  SmallVector<int64_t> axes, keptShape(type.getShape());
  int64_t count = 1;
  for (int64_t d = axis; d < rank; ++d) {
    axes.push_back(d);
    keptShape[d] = 1;
    count *= type.getDimSize(d);
  }
  Type element = type.getElementType();
  auto keptType = RankedTensorType::get(keptShape, element);
  auto add = [](OpBuilder &nb, Location l, Value v, Value acc) -> Value {
    return arith::AddFOp::create(nb, l, v, acc);
  };
  auto scaleBy = [&](Value sum) {
    return elementwise(b, loc, {reshapeTo(b, loc, sum, keptType)}, keptType,
                       [&](OpBuilder &nb, Location l, ValueRange args) {
                         return Value(arith::DivFOp::create(
                             nb, l, args[0], scalarConstant(nb, l, element, count)));
                       });
  };
  Value x = n.operands[0];
  Value mean = scaleBy(reduce(b, loc, x, axes, 0.0, add));
  Value centered = elementwise(b, loc, {x, mean}, type,
                               [](OpBuilder &nb, Location l, ValueRange args) {
                                 return Value(arith::SubFOp::create(
                                     nb, l, args[0], args[1]));
                               });
  Value squares = elementwise(b, loc, {centered}, type,
                              [](OpBuilder &nb, Location l, ValueRange args) {
                                return Value(arith::MulFOp::create(
                                    nb, l, args[0], args[0]));
                              });
  Value variance = scaleBy(reduce(b, loc, squares, axes, 0.0, add));
  double epsilon = n.getFloat("epsilon", 1e-5f);
  Value invStdDev = elementwise(
      b, loc, variance, keptType, [&](OpBuilder &nb, Location l, ValueRange args) {
        return Value(math::RsqrtOp::create(
            nb, l,
            arith::AddFOp::create(nb, l, args[0],
                                  scalarConstant(nb, l, element, epsilon))));
      });
  SmallVector<Value> inputs = {centered, invStdDev, n.operands[1]};
  if (n.hasOperand(2))
    inputs.push_back(n.operands[2]);
  Value y = elementwise(
      b, loc, inputs, type, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value y = arith::MulFOp::create(
            nb, l, arith::MulFOp::create(nb, l, args[0], args[1]), args[2]);
        if (args.size() > 3)
          y = arith::AddFOp::create(nb, l, y, args[3]);
        return y;
      });
  // The optional Mean and InvStdDev outputs: the statistics, of rank
  // `rank` with size 1 over the normalized axes.
  SmallVector<Value> results = {y};
  if (n.node.getOutputs().size() > 1)
    results.push_back(reshapeTo(b, loc, mean, n.getResultType(1)));
  if (n.node.getOutputs().size() > 2)
    results.push_back(reshapeTo(b, loc, invStdDev, n.getResultType(2)));
  return results;
}

/// Inference BatchNormalization: per-channel (dimension 1) statistics.
Results lowerBatchNorm(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  for (unsigned i = 1; i < n.node.getOutputs().size(); ++i)
    if (!n.node.getOutputs()[i].use_empty())
      return n.fail("training-mode outputs are not lowered");
  if (type.getRank() < 2)
    return n.fail("the input needs a channel dimension");
  MLIRContext *context = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(type.getRank(), context);
  AffineMap channel =
      AffineMap::get(type.getRank(), 0, {getAffineDimExpr(1, context)}, context);
  SmallVector<AffineMap> maps = {identity, channel, channel, channel, channel,
                                 identity};
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  double epsilon = n.getFloat("epsilon", 1e-5f);
  Type element = type.getElementType();
  return single(
      linalg::GenericOp::create(
          b, loc, TypeRange{type},
          ValueRange{n.operands[0], n.operands[1], n.operands[2], n.operands[3],
                     n.operands[4]},
          ValueRange{emptyTensor(b, loc, type)}, maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            // args: x, scale, bias, mean, var.
            Value denom = math::RsqrtOp::create(
                nb, l,
                arith::AddFOp::create(nb, l, args[4],
                                      scalarConstant(nb, l, element, epsilon)));
            Value y = arith::MulFOp::create(
                nb, l, arith::SubFOp::create(nb, l, args[0], args[3]), denom);
            y = arith::AddFOp::create(nb, l,
                                      arith::MulFOp::create(nb, l, y, args[1]),
                                      args[2]);
            linalg::YieldOp::create(nb, l, y);
          })
          .getResult(0));
}

} // namespace

void placer::lowering::registerNormalizationLowerings(LoweringRegistry &r) {
  r.beginFamily("Normalization",
                "Softmax and LogSoftmax: max-reduce, exp, sum-reduce, divide (opset 13: one axis; before: [axis, rank)). LayerNormalization, BatchNormalization (inference): reductions and one generic with `math.rsqrt`.");
  r.add("Softmax", lowerSoftmax<false>);
  r.add("LogSoftmax", lowerSoftmax<true>);
  r.add("LayerNormalization", lowerLayerNorm);
  r.add("BatchNormalization", lowerBatchNorm);
}
