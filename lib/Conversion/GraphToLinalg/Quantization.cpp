//===- Quantization.cpp - Linear quantization and integer products --------===//
//
// QuantizeLinear saturates round-half-even(x / scale) + zero point to the
// output's integer range; DequantizeLinear computes (x - zero point) *
// scale. The integer products (MatMulInteger, ConvInteger) widen their
// operands to i32 minus the zero points, then run the float products'
// lowerings on i32; QLinearMatMul and QLinearConv requantize that
// accumulator with scale_a * scale_b / scale_y. Scales and zero points are
// scalars or, per axis, 1-D tensors read along that axis.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace placer;
using namespace placer::lowering;

namespace {

/// `v` (a scalar, or a 1-D tensor of per-axis values) reshaped to broadcast
/// against a tensor of `rank` along `axis`.
Value alongAxis(OpBuilder &b, Location loc, Value v, int64_t rank,
                int64_t axis) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() != 1 || type.getDimSize(0) == 1 || rank == 0)
    return type.getNumElements() == 1
               ? reshapeTo(b, loc, v,
                           RankedTensorType::get({}, type.getElementType()))
               : v;
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = type.getDimSize(0);
  return reshapeTo(b, loc, v,
                   RankedTensorType::get(shape, type.getElementType()));
}

/// The integer range of `type` (signed, or unsigned when `isUnsigned`).
std::pair<double, double> integerRange(Type type, bool isUnsigned) {
  unsigned bits = type.getIntOrFloatBitWidth();
  if (isUnsigned)
    return {0.0, std::ldexp(1.0, bits) - 1};
  return {-std::ldexp(1.0, bits - 1), std::ldexp(1.0, bits - 1) - 1};
}

/// saturate(round-half-even(x) + zeroPoint) in `to`; x and zeroPoint are
/// floats.
Value saturate(OpBuilder &b, Location loc, Value x, Value zeroPoint, Type to,
               bool isUnsigned) {
  Type f = x.getType();
  Value r = arith::AddFOp::create(b, loc, math::RoundEvenOp::create(b, loc, x),
                                  zeroPoint);
  auto [lo, hi] = integerRange(to, isUnsigned);
  r = arith::MaximumFOp::create(b, loc, r, scalarConstant(b, loc, f, lo));
  r = arith::MinimumFOp::create(b, loc, r, scalarConstant(b, loc, f, hi));
  return castScalar(b, loc, r, to, false, isUnsigned);
}

/// The axis of per-axis scales (QuantizeLinear, DequantizeLinear); only
/// a scale of more than one element reads it.
FailureOr<int64_t> quantAxis(NodeLowering &n, int64_t rank);

/// x, its scale and (when given) its zero point, the last two reshaped to
/// broadcast along the axis.
FailureOr<SmallVector<Value>> linearQuantInputs(NodeLowering &n) {
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  auto axis = quantAxis(n, type.getRank());
  if (failed(axis))
    return failure();
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  SmallVector<Value> inputs = {
      n.operands[0], alongAxis(b, loc, n.operands[1], type.getRank(), *axis)};
  if (n.hasOperand(2))
    inputs.push_back(alongAxis(b, loc, n.operands[2], type.getRank(), *axis));
  return inputs;
}

FailureOr<int64_t> quantAxis(NodeLowering &n, int64_t rank) {
  int64_t axis = normalizeAxis(n.getInt("axis", 1), rank);
  auto scale = cast<RankedTensorType>(n.operands[1].getType());
  if (scale.getNumElements() > 1 &&
      (axis < 0 || axis >= rank ||
       scale.getNumElements() !=
           cast<RankedTensorType>(n.operands[0].getType()).getDimSize(axis)))
    return n.fail("per-axis scales do not match the axis");
  return axis;
}

Results lowerQuantizeLinear(NodeLowering &n) {
  FailureOr<SmallVector<Value>> inputs = linearQuantInputs(n);
  if (failed(inputs))
    return failure();
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  RankedTensorType outType = n.getResultType();
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  bool isUnsigned = n.isUnsignedResult();
  bool zpUnsigned = n.isUnsignedInput(2);
  Type f = type.getElementType();
  return single(elementwise(
      b, loc, *inputs, outType,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value scaled = arith::DivFOp::create(nb, l, args[0],
                                             castScalar(nb, l, args[1], f));
        Value zp = args.size() > 2 ? castScalar(nb, l, args[2], f, zpUnsigned)
                                   : scalarConstant(nb, l, f, 0);
        return saturate(nb, l, scaled, zp, outType.getElementType(),
                        isUnsigned);
      }));
}

Results lowerDequantizeLinear(NodeLowering &n) {
  FailureOr<SmallVector<Value>> inputs = linearQuantInputs(n);
  if (failed(inputs))
    return failure();
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  RankedTensorType outType = n.getResultType();
  bool xUnsigned = n.isUnsignedInput(0), zpUnsigned = n.isUnsignedInput(2);
  Type f = outType.getElementType();
  return single(
      elementwise(b, loc, *inputs, outType,
                  [&](OpBuilder &nb, Location l, ValueRange args) {
                    Value x = castScalar(nb, l, args[0], f, xUnsigned);
                    if (args.size() > 2)
                      x = arith::SubFOp::create(
                          nb, l, x, castScalar(nb, l, args[2], f, zpUnsigned));
                    return Value(arith::MulFOp::create(nb, l, x, args[1]));
                  }));
}

/// DynamicQuantizeLinear: uint8 with scale (max(0, x) - min(0, x)) / 255 and
/// the zero point that maps 0 exactly.
Results lowerDynamicQuantizeLinear(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto type = cast<RankedTensorType>(x.getType());
  Type f = type.getElementType();
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  auto extreme = [&](bool max) {
    // The range always holds 0.
    return reduce(
        b, loc, x, all, 0.0,
        [max](OpBuilder &nb, Location l, Value v, Value acc) -> Value {
          return max ? Value(arith::MaximumFOp::create(nb, l, v, acc))
                     : Value(arith::MinimumFOp::create(nb, l, v, acc));
        });
  };
  Value lo = extreme(false), hi = extreme(true);
  RankedTensorType scaleType = n.getResultType(1), zpType = n.getResultType(2);
  Value scale =
      elementwise(b, loc, {lo, hi}, scaleType,
                  [&](OpBuilder &nb, Location l, ValueRange args) {
                    return Value(arith::DivFOp::create(
                        nb, l, arith::SubFOp::create(nb, l, args[1], args[0]),
                        scalarConstant(nb, l, f, 255)));
                  });
  Value zpFloat = elementwise(
      b, loc, {lo, scale}, scaleType,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value z = arith::NegFOp::create(
            nb, l, arith::DivFOp::create(nb, l, args[0], args[1]));
        z = arith::MaximumFOp::create(nb, l,
                                      math::RoundEvenOp::create(nb, l, z),
                                      scalarConstant(nb, l, f, 0));
        return Value(
            arith::MinimumFOp::create(nb, l, z, scalarConstant(nb, l, f, 255)));
      });
  Value zp = elementwise(
      b, loc, zpFloat, zpType, [&](OpBuilder &nb, Location l, ValueRange args) {
        return castScalar(nb, l, args[0], zpType.getElementType(), false, true);
      });
  RankedTensorType yType = n.getResultType(0);
  Value y = elementwise(
      b, loc, {x, scale, zpFloat}, yType,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        return saturate(nb, l, arith::DivFOp::create(nb, l, args[0], args[1]),
                        args[2], yType.getElementType(), true);
      });
  return SmallVector<Value>{y, scale, zp};
}

/// Operand `i` widened to i32 minus zero point operand `zp` (when given),
/// the zero point read along `axis`.
Value widen(NodeLowering &n, unsigned i, unsigned zp, int64_t axis) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[i];
  auto type = cast<RankedTensorType>(x.getType());
  auto wideType = RankedTensorType::get(type.getShape(), b.getI32Type());
  SmallVector<Value> inputs = {x};
  if (n.hasOperand(zp))
    inputs.push_back(alongAxis(b, loc, n.operands[zp], type.getRank(), axis));
  bool xUnsigned = n.isUnsignedInput(i), zpUnsigned = n.isUnsignedInput(zp);
  return elementwise(
      b, loc, inputs, wideType,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value v = castScalar(nb, l, args[0], nb.getI32Type(), xUnsigned);
        if (args.size() > 1)
          v = arith::SubIOp::create(
              nb, l, v,
              castScalar(nb, l, args[1], nb.getI32Type(), zpUnsigned));
        return v;
      });
}

RankedTensorType withI32(RankedTensorType type) {
  return RankedTensorType::get(type.getShape(),
                               IntegerType::get(type.getContext(), 32));
}

Results lowerMatMulInteger(NodeLowering &n) {
  int64_t lhsRank = cast<RankedTensorType>(n.operands[0].getType()).getRank();
  int64_t rhsRank = cast<RankedTensorType>(n.operands[1].getType()).getRank();
  // Zero points: A's per row, B's per column.
  Value lhs = widen(n, 0, 2, std::max<int64_t>(lhsRank - 2, 0));
  Value rhs = widen(n, 1, 3, rhsRank - 1);
  return single(matmul(n.builder, n.getLoc(), lhs, rhs, n.getResultType()));
}

Results lowerConvInteger(NodeLowering &n) {
  Value input = widen(n, 0, 2, 1);
  Value weight = widen(n, 1, 3, 0);
  FailureOr<Value> result =
      convolve(n, input, weight, Value(), n.getResultType());
  if (failed(result))
    return failure();
  return single(*result);
}

/// The i32 accumulator requantized: round(acc * scaleA * scaleB / scaleY)
/// + zero point Y, saturated. Scale B may be per output channel (`axis`).
Value requantize(NodeLowering &n, Value acc, unsigned scaleA, unsigned scaleB,
                 int64_t axisB, unsigned scaleY, unsigned zpY) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  RankedTensorType outType = n.getResultType();
  int64_t rank = outType.getRank();
  Type f = b.getF32Type();
  SmallVector<Value> inputs = {
      acc, alongAxis(b, loc, n.operands[scaleA], rank, 0),
      alongAxis(b, loc, n.operands[scaleB], rank, axisB),
      alongAxis(b, loc, n.operands[scaleY], rank, 0),
      alongAxis(b, loc, n.operands[zpY], rank, 0)};
  bool zpUnsigned = n.isUnsignedInput(zpY), isUnsigned = n.isUnsignedResult();
  return elementwise(
      b, loc, inputs, outType, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value scale = arith::DivFOp::create(
            nb, l, arith::MulFOp::create(nb, l, args[1], args[2]), args[3]);
        Value x =
            arith::MulFOp::create(nb, l, castScalar(nb, l, args[0], f), scale);
        return saturate(nb, l, x, castScalar(nb, l, args[4], f, zpUnsigned),
                        outType.getElementType(), isUnsigned);
      });
}

/// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp).
Results lowerQLinearMatMul(NodeLowering &n) {
  OpBuilder &b = n.builder;
  RankedTensorType outType = n.getResultType();
  int64_t lhsRank = cast<RankedTensorType>(n.operands[0].getType()).getRank();
  int64_t rhsRank = cast<RankedTensorType>(n.operands[3].getType()).getRank();
  Value lhs = widen(n, 0, 2, std::max<int64_t>(lhsRank - 2, 0));
  Value rhs = widen(n, 3, 5, rhsRank - 1);
  Value acc = matmul(b, n.getLoc(), lhs, rhs, withI32(outType));
  return single(requantize(n, acc, 1, 4, outType.getRank() - 1, 6, 7));
}

/// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B?).
Results lowerQLinearConv(NodeLowering &n) {
  RankedTensorType outType = n.getResultType();
  Value input = widen(n, 0, 2, 1);
  Value weight = widen(n, 3, 5, 0);
  FailureOr<Value> acc =
      convolve(n, input, weight, n.hasOperand(8) ? n.operands[8] : Value(),
               withI32(outType));
  if (failed(acc))
    return failure();
  return single(requantize(n, *acc, 1, 4, 1, 6, 7));
}

} // namespace

void placer::lowering::registerQuantizationOps(OpRegistry &r) {
  r.beginFamily(
      "Quantization",
      "QuantizeLinear: saturate(round-half-even(x / scale) + zero point) to "
      "the "
      "output's integer type; DequantizeLinear: (x - zero point) * scale; "
      "scales and zero points scalar or per axis. DynamicQuantizeLinear: "
      "uint8 over [min(0, x), max(0, x)]. MatMulInteger, ConvInteger: "
      "operands widened to i32 minus their zero points, then the float "
      "products' lowerings on i32. QLinearMatMul, QLinearConv: the same "
      "accumulator requantized with scale_a * scale_b / scale_y (scale_b per "
      "output channel).");
  r.add("QuantizeLinear", lowerQuantizeLinear).work(work::perInputElement(4));
  r.add("DequantizeLinear", lowerDequantizeLinear)
      .work(work::perInputElement(2));
  r.add("DynamicQuantizeLinear", lowerDynamicQuantizeLinear)
      .work(work::perInputElement(6));
  r.add("MatMulInteger", lowerMatMulInteger).work(work::matMul());
  r.add("ConvInteger", lowerConvInteger).work(work::convInteger());
  r.add("QLinearMatMul", lowerQLinearMatMul).work(work::matMul());
  r.add("QLinearConv", lowerQLinearConv).work(work::qlinearConv());
}
