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

/// Softmax / LogSoftmax over dimensions [axis, rank) before opset 13 (the
/// input is coerced to 2-D there), over `axis` alone from 13 (`modern`).
template <bool Log, bool modern> Results lowerSoftmax(NodeLowering &n) {
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  int64_t rank = type.getRank();
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
    return elementwise(
        b, loc, {reshapeTo(b, loc, sum, keptType)}, keptType,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          return Value(arith::DivFOp::create(
              nb, l, args[0], scalarConstant(nb, l, element, count)));
        });
  };
  Value x = n.operands[0];
  Value mean = scaleBy(reduce(b, loc, x, axes, 0.0, add));
  Value centered = elementwise(
      b, loc, {x, mean}, type, [](OpBuilder &nb, Location l, ValueRange args) {
        return Value(arith::SubFOp::create(nb, l, args[0], args[1]));
      });
  Value squares = elementwise(
      b, loc, {centered}, type, [](OpBuilder &nb, Location l, ValueRange args) {
        return Value(arith::MulFOp::create(nb, l, args[0], args[0]));
      });
  Value variance = scaleBy(reduce(b, loc, squares, axes, 0.0, add));
  double epsilon = n.getFloat("epsilon", 1e-5f);
  Value invStdDev = elementwise(
      b, loc, variance, keptType,
      [&](OpBuilder &nb, Location l, ValueRange args) {
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
  SmallVector<Value> results = {y, Value(), Value()};
  if (n.wantsResult(1))
    results[1] = reshapeTo(b, loc, mean, n.getResultType(1));
  if (n.wantsResult(2))
    results[2] = reshapeTo(b, loc, invStdDev, n.getResultType(2));
  return results;
}

/// The mean and (population) variance of `x` over `axes`, each of x's rank
/// with size 1 over the axes.
std::pair<Value, Value> moments(OpBuilder &b, Location loc, Value x,
                                ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  SmallVector<int64_t> kept(type.getShape());
  int64_t count = 1;
  for (int64_t a : axes) {
    count *= type.getDimSize(a);
    kept[a] = 1;
  }
  auto keptType = RankedTensorType::get(kept, element);
  auto add = [](OpBuilder &nb, Location l, Value v, Value acc) -> Value {
    return arith::AddFOp::create(nb, l, v, acc);
  };
  auto average = [&](Value v) {
    return elementwise(
        b, loc, reshapeTo(b, loc, reduce(b, loc, v, axes, 0.0, add), keptType),
        keptType, [&](OpBuilder &nb, Location l, ValueRange args) {
          return Value(arith::DivFOp::create(
              nb, l, args[0], scalarConstant(nb, l, element, count)));
        });
  };
  Value mean = average(x);
  Value squares = elementwise(
      b, loc, {x, mean}, type, [](OpBuilder &nb, Location l, ValueRange args) {
        Value d = arith::SubFOp::create(nb, l, args[0], args[1]);
        return Value(arith::MulFOp::create(nb, l, d, d));
      });
  return {mean, average(squares)};
}

/// (x - mean) * rsqrt(var + epsilon) * scale + bias, the statistics of
/// x's shape reduced, scale and bias per channel (dimension 1).
Value normalizeWith(OpBuilder &b, Location loc, Value x, Value mean, Value var,
                    Value scale, Value bias, double epsilon) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Type element = type.getElementType();
  SmallVector<int64_t> channelShape(rank, 1);
  channelShape[1] = type.getDimSize(1);
  auto channelType = RankedTensorType::get(channelShape, element);
  return elementwise(
      b, loc,
      {x, mean, var, reshapeTo(b, loc, scale, channelType),
       reshapeTo(b, loc, bias, channelType)},
      type, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value inv = math::RsqrtOp::create(
            nb, l,
            arith::AddFOp::create(nb, l, args[2],
                                  scalarConstant(nb, l, element, epsilon)));
        Value y = arith::MulFOp::create(
            nb, l, arith::SubFOp::create(nb, l, args[0], args[1]), inv);
        return Value(arith::AddFOp::create(
            nb, l, arith::MulFOp::create(nb, l, y, args[3]), args[4]));
      });
}

/// Training-mode BatchNormalization: the batch's statistics normalize, and
/// the running ones move toward them by 1 - momentum.
Results lowerTrainingBatchNorm(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() < 2)
    return n.fail("the input needs a channel dimension");
  SmallVector<int64_t> axes = {0};
  for (int64_t d = 2; d < type.getRank(); ++d)
    axes.push_back(d);
  auto [mean, var] = moments(b, loc, x, axes);
  SmallVector<Value> results = {normalizeWith(b, loc, x, mean, var,
                                              n.operands[1], n.operands[2],
                                              n.getFloat("epsilon", 1e-5f))};
  double momentum = n.getFloat("momentum", 0.9f);
  Type element = type.getElementType();
  results.resize(3);
  for (unsigned i = 1; i < 3; ++i) {
    if (!n.wantsResult(i))
      continue;
    RankedTensorType runType = n.getResultType(i);
    Value current = reshapeTo(b, loc, i == 1 ? mean : var, runType);
    results[i] = elementwise(
        b, loc, {n.operands[2 + i], current}, runType,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          return Value(arith::AddFOp::create(
              nb, l,
              arith::MulFOp::create(nb, l, args[0],
                                    scalarConstant(nb, l, element, momentum)),
              arith::MulFOp::create(
                  nb, l, args[1],
                  scalarConstant(nb, l, element, 1 - momentum))));
        });
  }
  return results;
}

/// InstanceNormalization: per sample and channel, over the spatial dims.
Results lowerInstanceNorm(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() < 3)
    return n.fail("the input needs spatial dimensions");
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < type.getRank(); ++d)
    axes.push_back(d);
  auto [mean, var] = moments(b, loc, x, axes);
  return single(normalizeWith(b, loc, x, mean, var, n.operands[1],
                              n.operands[2], n.getFloat("epsilon", 1e-5f)));
}

/// MeanVarianceNormalization: (x - mean) / (sqrt(var) + 1e-9) over `axes`.
Results lowerMeanVarianceNorm(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> axes;
  for (int64_t a : n.getInts("axes").value_or(SmallVector<int64_t>{0, 2, 3})) {
    a = normalizeAxis(a, type.getRank());
    if (a < 0 || a >= type.getRank())
      return n.fail("axis out of range");
    if (!llvm::is_contained(axes, a))
      axes.push_back(a);
  }
  llvm::sort(axes);
  auto [mean, var] = moments(b, loc, x, axes);
  Type element = type.getElementType();
  return single(elementwise(
      b, loc, {x, mean, var}, type,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value std =
            arith::AddFOp::create(nb, l, math::SqrtOp::create(nb, l, args[2]),
                                  scalarConstant(nb, l, element, 1e-9));
        return Value(arith::DivFOp::create(
            nb, l, arith::SubFOp::create(nb, l, args[0], args[1]), std));
      }));
}

/// LRN: x / (bias + alpha / size * sum of squares over the channel window
/// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)])^beta.
Results lowerLRN(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto type = cast<RankedTensorType>(x.getType());
  int64_t size = n.getInt("size", 0), rank = type.getRank();
  if (size < 1 || rank < 2)
    return n.fail("needs a positive size and a channel dimension");
  double alpha = n.getFloat("alpha", 1e-4f), beta = n.getFloat("beta", 0.75f),
         bias = n.getFloat("bias", 1.0f);
  int64_t before = (size - 1) / 2, channels = type.getDimSize(1);
  Type element = type.getElementType();
  return single(generate(
      b, loc, type, [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
        Value sum = scalarConstant(nb, l, element, 0);
        SmallVector<Value> at(ivs);
        for (int64_t j = 0; j < size; ++j) {
          // Channel c - before + j, when inside [0, channels).
          Value c = arith::AddIOp::create(
              nb, l, arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[1]),
              arith::ConstantOp::create(nb, l,
                                        nb.getI64IntegerAttr(j - before)));
          Value inside = arith::AndIOp::create(
              nb, l,
              arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::sge, c,
                  arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0))),
              arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::slt, c,
                  arith::ConstantOp::create(nb, l,
                                            nb.getI64IntegerAttr(channels))));
          Value safe = arith::SelectOp::create(
              nb, l, inside, c,
              arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
          at[1] = arith::IndexCastOp::create(nb, l, nb.getIndexType(), safe);
          Value v = tensor::ExtractOp::create(nb, l, x, at);
          v = arith::SelectOp::create(nb, l, inside, v,
                                      scalarConstant(nb, l, element, 0));
          sum = arith::AddFOp::create(nb, l, sum,
                                      arith::MulFOp::create(nb, l, v, v));
        }
        Value denom = math::PowFOp::create(
            nb, l,
            arith::AddFOp::create(
                nb, l, scalarConstant(nb, l, element, bias),
                arith::MulFOp::create(
                    nb, l, sum, scalarConstant(nb, l, element, alpha / size))),
            scalarConstant(nb, l, element, beta));
        return Value(arith::DivFOp::create(
            nb, l, tensor::ExtractOp::create(nb, l, x, ivs), denom));
      }));
}

/// Inference BatchNormalization: per-channel (dimension 1) statistics.
Results lowerBatchNorm(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  if (n.getInt("training_mode", 0))
    return lowerTrainingBatchNorm(n);
  for (unsigned i = 1; i < n.node.getOutputs().size(); ++i)
    if (!n.node.getOutputs()[i].use_empty())
      return n.fail("the running statistics are outputs in training mode only");
  if (type.getRank() < 2)
    return n.fail("the input needs a channel dimension");
  MLIRContext *context = b.getContext();
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), context);
  AffineMap channel = AffineMap::get(type.getRank(), 0,
                                     {getAffineDimExpr(1, context)}, context);
  SmallVector<AffineMap> maps = {identity, channel, channel,
                                 channel,  channel, identity};
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  double epsilon = n.getFloat("epsilon", 1e-5f);
  // Half-precision data (its statistics f32 or half: ONNX's T, T1 and T2
  // may differ, as placer-autocast leaves them) computes in f32, rounded
  // once, as cuDNN's batch norm does.
  Type element = type.getElementType();
  Type compute = getAccumulatorType(element);
  return single(
      linalg::GenericOp::create(
          b, loc, TypeRange{type},
          ValueRange{n.operands[0], n.operands[1], n.operands[2], n.operands[3],
                     n.operands[4]},
          ValueRange{emptyTensor(b, loc, type)}, maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            // args: x, scale, bias, mean, var.
            SmallVector<Value> v;
            for (Value arg : args.take_front(5))
              v.push_back(
                  arg.getType() == compute
                      ? arg
                      : Value(arith::ExtFOp::create(nb, l, compute, arg)));
            Value denom = math::RsqrtOp::create(
                nb, l,
                arith::AddFOp::create(nb, l, v[4],
                                      scalarConstant(nb, l, compute, epsilon)));
            Value y = arith::MulFOp::create(
                nb, l, arith::SubFOp::create(nb, l, v[0], v[3]), denom);
            y = arith::AddFOp::create(
                nb, l, arith::MulFOp::create(nb, l, y, v[1]), v[2]);
            if (compute != element)
              y = arith::TruncFOp::create(nb, l, element, y);
            linalg::YieldOp::create(nb, l, y);
          })
          .getResult(0));
}

} // namespace

void placer::lowering::registerNormalizationOps(OpRegistry &r) {
  r.beginFamily(
      "Normalization",
      "Softmax and LogSoftmax: max-reduce, exp, sum-reduce, divide (opset 13: "
      "one axis; before: [axis, rank)). LayerNormalization (with its Mean and "
      "InvStdDev outputs), BatchNormalization (inference: one generic with "
      "`math.rsqrt`; training mode: batch statistics and updated running "
      "ones), InstanceNormalization, MeanVarianceNormalization: mean and "
      "variance reductions, then one elementwise generic. LRN: one generic "
      "summing the squares of the channel window.");
  r.add("Softmax", lowerSoftmax<false, false>)
      .computesIn(CastPolicy::Float)
      .work(work::perInputElement(5))
      .backward(1.0)
      .carriesSplit(sharding::softmax)
      .fuses(fusion::coercedSoftmax);
  r.add("Softmax", lowerSoftmax<false, true>, 13)
      .gradient(gradients::softmax)
      .carriesSplit(sharding::softmax)
      .fuses(fusion::softmax);
  r.add("LogSoftmax", lowerSoftmax<true, false>)
      .computesIn(CastPolicy::Float)
      .work(work::perInputElement(5))
      .backward(1.0)
      .carriesSplit(sharding::softmax)
      .fuses(fusion::coercedSoftmax);
  r.add("LogSoftmax", lowerSoftmax<true, true>, 13).fuses(fusion::softmax);
  r.add("LayerNormalization", lowerLayerNorm)
      .computesIn(CastPolicy::Float)
      .work(work::perInputElement(8))
      .backward(2.0)
      .gradient(gradients::layerNorm)
      .carriesSplit(sharding::layerNorm)
      .fuses(fusion::layerNorm);
  r.add("BatchNormalization", lowerBatchNorm)
      .work(work::perInputElement(4))
      .backward(2.0)
      .gradient(gradients::batchNorm)
      .carriesSplit(sharding::channels)
      .fuses(fusion::batchNorm);
  r.add("InstanceNormalization", lowerInstanceNorm)
      .work(work::perInputElement(8))
      .backward(2.0)
      .fuses(fusion::spatial);
  r.add("MeanVarianceNormalization", lowerMeanVarianceNorm)
      .work(work::perInputElement(8))
      .backward(2.0);
  r.add("LRN", lowerLRN).work(work::perInputElement(8)).backward(2.0);

  // Known to the cost model and placement; no lowering yet.
  r.add("LpNormalization", nullptr)
      .work(work::perInputElement(3))
      .backward(2.0);
}
