//===- Elementwise.cpp - Elementwise ops ----------------------------------===//
//
// Elementwise ops: one linalg.generic per node, the scalar body per op type,
// numpy broadcasting through indexing maps.
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

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// A scalar body: the node (for attributes), the builder, the element
/// arguments. The node's output element type is the result type.
using ScalarFn = Value (*)(NodeLowering &, OpBuilder &, Location, ValueRange,
                           Type);

template <ScalarFn Fn> Results lowerElementwise(NodeLowering &n) {
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < n.operands.size(); ++i)
    if (n.hasOperand(i))
      inputs.push_back(n.operands[i]);
  RankedTensorType outType = n.getResultType();
  if (failed(checkBroadcast(n, inputs, outType, /*exact=*/true)))
    return failure();
  Value result =
      elementwise(n.builder, n.getLoc(), inputs, outType,
                  [&](OpBuilder &b, Location loc, ValueRange args) {
                    return Fn(n, b, loc, args, outType.getElementType());
                  });
  return single(result);
}

Value constant(OpBuilder &b, Location loc, Value like, double value) {
  return scalarConstant(b, loc, like.getType(), value);
}

//===----------------------------------------------------------------------===//
// Arithmetic (float, signed and unsigned integers)
//===----------------------------------------------------------------------===//

template <typename FloatOp, typename SignedOp, typename UnsignedOp = SignedOp>
Value binary(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
             Type) {
  if (isFloat(args[0].getType()))
    return FloatOp::create(b, loc, args[0], args[1]);
  if (n.isUnsignedInput(0))
    return UnsignedOp::create(b, loc, args[0], args[1]);
  return SignedOp::create(b, loc, args[0], args[1]);
}

/// Sum/Mean/Max/Min over any number of inputs.
template <typename FloatOp, typename SignedOp, typename UnsignedOp = SignedOp,
          bool Mean = false>
Value variadic(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
               Type type) {
  Value acc = args[0];
  for (Value next : args.drop_front())
    acc = isFloat(type)          ? Value(FloatOp::create(b, loc, acc, next))
          : n.isUnsignedInput(0) ? Value(UnsignedOp::create(b, loc, acc, next))
                                 : Value(SignedOp::create(b, loc, acc, next));
  if (Mean)
    acc = arith::DivFOp::create(b, loc, acc,
                                scalarConstant(b, loc, type, args.size()));
  return acc;
}

/// Mod: C's fmod (fmod = 1, sign of the dividend), or for integers the
/// floored remainder of Python (fmod = 0, sign of the divisor).
Value mod(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args, Type) {
  Value x = args[0], y = args[1];
  if (isFloat(x.getType()))
    return arith::RemFOp::create(b, loc, x, y);
  if (n.isUnsignedInput(0))
    return arith::RemUIOp::create(b, loc, x, y);
  Value r = arith::RemSIOp::create(b, loc, x, y);
  if (n.getInt("fmod", 0))
    return r;
  Value zero = constant(b, loc, x, 0);
  Value nonzero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
  Value signsDiffer = arith::XOrIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero));
  return arith::SelectOp::create(
      b, loc, arith::AndIOp::create(b, loc, nonzero, signsDiffer),
      arith::AddIOp::create(b, loc, r, y), r);
}

Value bitShift(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
               Type) {
  if (n.getString("direction", "") == "LEFT")
    return arith::ShLIOp::create(b, loc, args[0], args[1]);
  return arith::ShRUIOp::create(b, loc, args[0], args[1]);
}

Results lowerBitShift(NodeLowering &n) {
  StringRef direction = n.getString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return n.fail("unknown direction '" + direction + "'");
  if (isFloat(n.getResultType()))
    return n.fail("shifts integers only");
  return lowerElementwise<bitShift>(n);
}

/// Pow: float results as math.powf; integer results through f64 (exact for
/// the magnitudes an integer power can hold without overflow).
Value power(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
            Type type) {
  Type compute = isFloat(type) ? type : Type(b.getF64Type());
  Value base = castScalar(b, loc, args[0], compute, n.isUnsignedInput(0));
  Value exponent = castScalar(b, loc, args[1], compute, n.isUnsignedInput(1));
  Value result = math::PowFOp::create(b, loc, base, exponent);
  return castScalar(b, loc, result, type, false, n.isUnsignedResult());
}

//===----------------------------------------------------------------------===//
// Unary math and activations
//===----------------------------------------------------------------------===//

template <typename FloatOp>
Value unaryFloat(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
                 Type) {
  return FloatOp::create(b, loc, args[0]);
}

Value negate(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
             Type) {
  if (isFloat(args[0].getType()))
    return arith::NegFOp::create(b, loc, args[0]);
  return arith::SubIOp::create(b, loc, constant(b, loc, args[0], 0), args[0]);
}

Value absolute(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
               Type) {
  if (isFloat(args[0].getType()))
    return math::AbsFOp::create(b, loc, args[0]);
  if (n.isUnsignedInput(0))
    return args[0];
  return math::AbsIOp::create(b, loc, args[0]);
}

/// Sign: -1, 0 or 1 in the input's type.
Value sign(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args, Type) {
  Value x = args[0], zero = constant(b, loc, x, 0);
  Value one = constant(b, loc, x, 1), minusOne = constant(b, loc, x, -1);
  Value positive, negative;
  if (isFloat(x.getType())) {
    positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
    negative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  } else {
    positive =
        arith::CmpIOp::create(b, loc,
                              n.isUnsignedInput(0) ? arith::CmpIPredicate::ugt
                                                   : arith::CmpIPredicate::sgt,
                              x, zero);
    negative =
        n.isUnsignedInput(0)
            ? Value(arith::ConstantOp::create(b, loc, b.getBoolAttr(false)))
            : Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x,
                                          zero));
  }
  return arith::SelectOp::create(
      b, loc, positive, one,
      arith::SelectOp::create(b, loc, negative, minusOne, zero));
}

Value isNaN(NodeLowering &, OpBuilder &b, Location loc, ValueRange args, Type) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, args[0],
                               args[0]);
}

Value isInf(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
            Type) {
  Value x = args[0];
  double inf = std::numeric_limits<double>::infinity();
  Value result = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  if (n.getInt("detect_positive", 1))
    result = arith::OrIOp::create(
        b, loc, result,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x,
                              constant(b, loc, x, inf)));
  if (n.getInt("detect_negative", 1))
    result = arith::OrIOp::create(
        b, loc, result,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x,
                              constant(b, loc, x, -inf)));
  return result;
}

Value relu(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
           Type type) {
  if (!isFloat(type))
    return arith::MaxSIOp::create(b, loc, args[0],
                                  scalarConstant(b, loc, type, 0.0));
  return arith::MaximumFOp::create(b, loc, args[0],
                                   scalarConstant(b, loc, type, 0.0));
}

/// x where `keep` holds, else `other`.
Value selectWhere(OpBuilder &b, Location loc, Value x, arith::CmpFPredicate p,
                  double threshold, Value other) {
  Value keep =
      arith::CmpFOp::create(b, loc, p, x, constant(b, loc, x, threshold));
  return arith::SelectOp::create(b, loc, keep, x, other);
}

Value leakyRelu(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
                Type type) {
  Value scaled = arith::MulFOp::create(
      b, loc, args[0],
      scalarConstant(b, loc, type, n.getFloat("alpha", 0.01f)));
  return selectWhere(b, loc, args[0], arith::CmpFPredicate::OGT, 0, scaled);
}

/// PRelu: x < 0 ? slope * x : x, the slope broadcast.
Value pRelu(NodeLowering &, OpBuilder &b, Location loc, ValueRange args, Type) {
  Value scaled = arith::MulFOp::create(b, loc, args[0], args[1]);
  return selectWhere(b, loc, args[0], arith::CmpFPredicate::OGE, 0, scaled);
}

/// alpha * (exp(x) - 1).
Value expMinusOne(OpBuilder &b, Location loc, Value x, double alpha) {
  return arith::MulFOp::create(b, loc, constant(b, loc, x, alpha),
                               math::ExpM1Op::create(b, loc, x));
}

Value elu(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args, Type) {
  Value x = args[0];
  return selectWhere(b, loc, x, arith::CmpFPredicate::OGE, 0,
                     expMinusOne(b, loc, x, n.getFloat("alpha", 1.0f)));
}

Value selu(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args, Type) {
  Value x = args[0];
  double alpha = n.getFloat("alpha", 1.67326319217681884765625f);
  double gamma = n.getFloat("gamma", 1.05070102214813232421875f);
  Value y = selectWhere(b, loc, x, arith::CmpFPredicate::OGT, 0,
                        expMinusOne(b, loc, x, alpha));
  return arith::MulFOp::create(b, loc, y, constant(b, loc, x, gamma));
}

/// Celu: max(0, x) + min(0, alpha (exp(x / alpha) - 1)).
Value celu(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args, Type) {
  Value x = args[0], zero = constant(b, loc, x, 0);
  double alpha = n.getFloat("alpha", 1.0f);
  Value scaled = arith::DivFOp::create(b, loc, x, constant(b, loc, x, alpha));
  return arith::AddFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, x, zero),
      arith::MinimumFOp::create(b, loc, zero,
                                expMinusOne(b, loc, scaled, alpha)));
}

/// Softplus: log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)), which does not
/// overflow for large x.
Value softplus(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
               Type) {
  Value x = args[0];
  Value negAbs = arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
  return arith::AddFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, x, constant(b, loc, x, 0)),
      math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negAbs)));
}

Value softsign(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
               Type) {
  Value x = args[0];
  return arith::DivFOp::create(
      b, loc, x,
      arith::AddFOp::create(b, loc, constant(b, loc, x, 1),
                            math::AbsFOp::create(b, loc, x)));
}

Value thresholdedRelu(NodeLowering &n, OpBuilder &b, Location loc,
                      ValueRange args, Type) {
  return selectWhere(b, loc, args[0], arith::CmpFPredicate::OGT,
                     n.getFloat("alpha", 1.0f), constant(b, loc, args[0], 0));
}

/// Shrink: x + bias below -lambd, x - bias above lambd, 0 between.
Value shrink(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
             Type) {
  Value x = args[0];
  double lambd = n.getFloat("lambd", 0.5f), bias = n.getFloat("bias", 0.0f);
  bool floating = isFloat(x.getType());
  auto cmp = [&](arith::CmpFPredicate fp, arith::CmpIPredicate ip, double v) {
    return floating ? Value(arith::CmpFOp::create(b, loc, fp, x,
                                                  constant(b, loc, x, v)))
                    : Value(arith::CmpIOp::create(b, loc, ip, x,
                                                  constant(b, loc, x, v)));
  };
  auto add = [&](double v) {
    return floating
               ? Value(arith::AddFOp::create(b, loc, x, constant(b, loc, x, v)))
               : Value(
                     arith::AddIOp::create(b, loc, x, constant(b, loc, x, v)));
  };
  Value below =
      cmp(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt, -lambd);
  Value above =
      cmp(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt, lambd);
  return arith::SelectOp::create(
      b, loc, below, add(bias),
      arith::SelectOp::create(b, loc, above, add(-bias),
                              constant(b, loc, x, 0)));
}

Value sigmoid(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
              Type type) {
  Value one = scalarConstant(b, loc, type, 1.0);
  Value negated = arith::NegFOp::create(b, loc, args[0]);
  Value denominator =
      arith::AddFOp::create(b, loc, one, math::ExpOp::create(b, loc, negated));
  return arith::DivFOp::create(b, loc, one, denominator);
}

Value hardSigmoidOf(OpBuilder &b, Location loc, Value x, Type type,
                    double alpha, double beta) {
  Value y = arith::AddFOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, x, scalarConstant(b, loc, type, alpha)),
      scalarConstant(b, loc, type, beta));
  y = arith::MaximumFOp::create(b, loc, y, scalarConstant(b, loc, type, 0.0));
  return arith::MinimumFOp::create(b, loc, y,
                                   scalarConstant(b, loc, type, 1.0));
}

Value hardSigmoid(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
                  Type type) {
  return hardSigmoidOf(b, loc, args[0], type, n.getFloat("alpha", 0.2f),
                       n.getFloat("beta", 0.5f));
}

Value hardSwish(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
                Type type) {
  return arith::MulFOp::create(
      b, loc, args[0], hardSigmoidOf(b, loc, args[0], type, 1.0 / 6, 0.5));
}

/// Gelu: exact 0.5 x (1 + erf(x / sqrt 2)), or the tanh approximation.
Value gelu(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
           Type type) {
  Value x = args[0];
  Value half = scalarConstant(b, loc, type, 0.5);
  Value one = scalarConstant(b, loc, type, 1.0);
  Value inner;
  if (n.getString("approximate", "none") == "tanh") {
    Value cube =
        arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
    Value poly = arith::AddFOp::create(
        b, loc, x,
        arith::MulFOp::create(b, loc, cube,
                              scalarConstant(b, loc, type, 0.044715)));
    inner = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(
            b, loc, poly, scalarConstant(b, loc, type, std::sqrt(2.0 / M_PI))));
  } else {
    inner = math::ErfOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, x,
                              scalarConstant(b, loc, type, M_SQRT1_2)));
  }
  return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, half, x),
                               arith::AddFOp::create(b, loc, one, inner));
}

Value reciprocal(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
                 Type type) {
  return arith::DivFOp::create(b, loc, scalarConstant(b, loc, type, 1.0),
                               args[0]);
}

/// Clip: bounds from inputs 1 and 2 (opset 11+) or attributes (before).
Value clip(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
           Type type) {
  Value x = args[0];
  bool hasMin = n.hasOperand(1), hasMax = n.hasOperand(2);
  // Inputs come packed (omitted ones are skipped): [x, min?, max?].
  unsigned next = 1;
  Value lo = hasMin ? args[next++] : Value();
  Value hi = hasMax ? args[next++] : Value();
  if (!hasMin && n.node.getAttrs().get("min"))
    lo = scalarConstant(b, loc, type, n.getFloat("min", 0));
  if (!hasMax && n.node.getAttrs().get("max"))
    hi = scalarConstant(b, loc, type, n.getFloat("max", 0));
  if (isFloat(type)) {
    if (lo)
      x = arith::MaximumFOp::create(b, loc, x, lo);
    if (hi)
      x = arith::MinimumFOp::create(b, loc, x, hi);
    return x;
  }
  bool isUnsigned = n.isUnsignedInput(0);
  if (lo)
    x = isUnsigned ? Value(arith::MaxUIOp::create(b, loc, x, lo))
                   : Value(arith::MaxSIOp::create(b, loc, x, lo));
  if (hi)
    x = isUnsigned ? Value(arith::MinUIOp::create(b, loc, x, hi))
                   : Value(arith::MinSIOp::create(b, loc, x, hi));
  return x;
}

//===----------------------------------------------------------------------===//
// Comparisons, logic, selection, casts
//===----------------------------------------------------------------------===//

template <arith::CmpFPredicate FloatPredicate, arith::CmpIPredicate Signed,
          arith::CmpIPredicate Unsigned = Signed>
Value compare(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
              Type) {
  if (isFloat(args[0].getType()))
    return arith::CmpFOp::create(b, loc, FloatPredicate, args[0], args[1]);
  return arith::CmpIOp::create(b, loc, n.isUnsignedInput(0) ? Unsigned : Signed,
                               args[0], args[1]);
}

template <typename Op>
Value logical(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
              Type) {
  return Op::create(b, loc, args[0], args[1]);
}

Value where(NodeLowering &, OpBuilder &b, Location loc, ValueRange args, Type) {
  return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
}

Value logicalNot(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
                 Type type) {
  return arith::XOrIOp::create(
      b, loc, args[0],
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 1)));
}

/// Cast, and CastLike (the target type is the second input's, which is the
/// output's).
Value castElement(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
                  Type type) {
  return castScalar(b, loc, args[0], type, n.isUnsignedInput(0),
                    n.isUnsignedResult());
}

template <ScalarFn Fn> Results lowerUnaryElementwise(NodeLowering &n) {
  // CastLike's second input only gives the type: the loop reads the first.
  RankedTensorType outType = n.getResultType();
  if (failed(checkBroadcast(n, n.operands[0], outType, /*exact=*/true)))
    return failure();
  return single(elementwise(n.builder, n.getLoc(), n.operands[0], outType,
                            [&](OpBuilder &b, Location loc, ValueRange args) {
                              return Fn(n, b, loc, args,
                                        outType.getElementType());
                            }));
}

} // namespace

void placer::lowering::registerElementwiseOps(OpRegistry &r) {
  r.beginFamily(
      "Elementwise",
      "One `linalg.generic` per node reading broadcast inputs (numpy "
      "rules through indexing maps: a size-1 dimension reads index 0, "
      "nothing is materialised), with an arith/math scalar body per "
      "op type. Integers are signless in the lowered code; ops whose "
      "result differs for unsigned ONNX types (division, remainder, "
      "comparisons, min/max, casts) read the declared type.");
  using namespace arith;
  r.add("Add", lowerElementwise<binary<AddFOp, AddIOp>>)
      .work(work::perOutputElement(1))
      .backward(1.0)
      .gradient(gradients::add)
      .followsInput()
      .fold(folders::add());
  r.add("Sub", lowerElementwise<binary<SubFOp, SubIOp>>)
      .work(work::perOutputElement(1))
      .backward(1.0)
      .gradient(gradients::sub)
      .followsInput()
      .fold(folders::sub());
  r.add("Mul", lowerElementwise<binary<MulFOp, MulIOp>>)
      .work(work::perOutputElement(1))
      .backward(2.0)
      .gradient(gradients::mul)
      .followsInput()
      .fold(folders::mul());
  r.add("Div", lowerElementwise<binary<DivFOp, DivSIOp, DivUIOp>>)
      .work(work::perOutputElement(1))
      .backward(2.0)
      .gradient(gradients::div)
      .followsInput()
      .fold(folders::div());
  r.add("Mod", lowerElementwise<mod>)
      .work(work::perOutputElement(1))
      .fold(folders::mod())
      .followsInput();
  r.add("Pow", lowerElementwise<power>)
      .computesIn(CastPolicy::Float)
      .work(work::perOutputElement(4))
      .backward(2.0)
      .gradient(gradients::pow)
      .fold(folders::pow())
      .followsInput();
  r.add("BitShift", lowerBitShift)
      .work(work::perOutputElement(1))
      .followsInput();
  r.add("Max", lowerElementwise<variadic<MaximumFOp, MaxSIOp, MaxUIOp>>)
      .work(work::variadic())
      .backward(1.0)
      .fold(folders::max())
      .followsInput();
  r.add("Min", lowerElementwise<variadic<MinimumFOp, MinSIOp, MinUIOp>>)
      .work(work::variadic())
      .backward(1.0)
      .fold(folders::min())
      .followsInput();
  r.add("Sum", lowerElementwise<variadic<AddFOp, AddIOp>>)
      .work(work::variadic())
      .backward(1.0)
      .followsInput();
  r.add("Mean", lowerElementwise<variadic<AddFOp, AddIOp, AddIOp, true>>)
      .work(work::variadic())
      .backward(1.0)
      .followsInput();
  r.add("Relu", lowerElementwise<relu>)
      .work(work::perOutputElement(1))
      .backward(1.0)
      .gradient(gradients::relu)
      .followsInput();
  r.add("LeakyRelu", lowerElementwise<leakyRelu>)
      .work(work::perOutputElement(1))
      .backward(1.0)
      .followsInput();
  r.add("PRelu", lowerElementwise<pRelu>)
      .work(work::perOutputElement(1))
      .backward(2.0)
      .followsInput();
  r.add("Elu", lowerElementwise<elu>)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .followsInput();
  r.add("Selu", lowerElementwise<selu>)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .followsInput();
  r.add("Celu", lowerElementwise<celu>)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .followsInput();
  r.add("ThresholdedRelu", lowerElementwise<thresholdedRelu>)
      .work(work::perOutputElement(1))
      .backward(1.0)
      .followsInput();
  r.add("Shrink", lowerElementwise<shrink>)
      .work(work::perOutputElement(2))
      .backward(1.0)
      .followsInput();
  r.add("Softplus", lowerElementwise<softplus>)
      .computesIn(CastPolicy::Float)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .followsInput();
  r.add("Softsign", lowerElementwise<softsign>)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .followsInput();
  r.add("Sigmoid", lowerElementwise<sigmoid>)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .gradient(gradients::sigmoid)
      .followsInput();
  r.add("HardSigmoid", lowerElementwise<hardSigmoid>)
      .work(work::perOutputElement(2))
      .backward(1.0)
      .followsInput();
  r.add("HardSwish", lowerElementwise<hardSwish>)
      .work(work::perOutputElement(2))
      .backward(1.0)
      .followsInput();
  r.add("Gelu", lowerElementwise<gelu>)
      .work(work::perOutputElement(8))
      .backward(1.0)
      .followsInput();
  r.add("Tanh", lowerElementwise<unaryFloat<math::TanhOp>>)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .gradient(gradients::tanh)
      .followsInput();
  r.add("Erf", lowerElementwise<unaryFloat<math::ErfOp>>)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .gradient(gradients::erf)
      .followsInput();
  r.add("Exp", lowerElementwise<unaryFloat<math::ExpOp>>)
      .computesIn(CastPolicy::Float)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .gradient(gradients::exp)
      .followsInput();
  r.add("Log", lowerElementwise<unaryFloat<math::LogOp>>)
      .computesIn(CastPolicy::Float)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .followsInput();
  r.add("Sqrt", lowerElementwise<unaryFloat<math::SqrtOp>>)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .gradient(gradients::sqrt)
      .followsInput()
      .fold(folders::sqrt());
  r.add("Sin", lowerElementwise<unaryFloat<math::SinOp>>)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .followsInput();
  r.add("Cos", lowerElementwise<unaryFloat<math::CosOp>>)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .followsInput();
  r.add("Tan", lowerElementwise<unaryFloat<math::TanOp>>)
      .computesIn(CastPolicy::Float)
      .work(work::perOutputElement(4))
      .followsInput();
  r.add("Asin", lowerElementwise<unaryFloat<math::AsinOp>>)
      .computesIn(CastPolicy::Float)
      .work(work::perOutputElement(4))
      .followsInput();
  r.add("Acos", lowerElementwise<unaryFloat<math::AcosOp>>)
      .computesIn(CastPolicy::Float)
      .work(work::perOutputElement(4))
      .followsInput();
  r.add("Atan", lowerElementwise<unaryFloat<math::AtanOp>>)
      .work(work::perOutputElement(4))
      .followsInput();
  r.add("Sinh", lowerElementwise<unaryFloat<math::SinhOp>>)
      .computesIn(CastPolicy::Float)
      .work(work::perOutputElement(4))
      .followsInput();
  r.add("Cosh", lowerElementwise<unaryFloat<math::CoshOp>>)
      .computesIn(CastPolicy::Float)
      .work(work::perOutputElement(4))
      .followsInput();
  r.add("Asinh", lowerElementwise<unaryFloat<math::AsinhOp>>)
      .work(work::perOutputElement(4))
      .followsInput();
  r.add("Acosh", lowerElementwise<unaryFloat<math::AcoshOp>>)
      .work(work::perOutputElement(4))
      .followsInput();
  r.add("Atanh", lowerElementwise<unaryFloat<math::AtanhOp>>)
      .work(work::perOutputElement(4))
      .followsInput();
  r.add("Abs", lowerElementwise<absolute>)
      .work(work::perOutputElement(1))
      .backward(1.0)
      .followsInput()
      .fold(folders::abs());
  r.add("Neg", lowerElementwise<negate>)
      .work(work::perOutputElement(1))
      .backward(1.0)
      .gradient(gradients::neg)
      .followsInput()
      .fold(folders::neg());
  r.add("Sign", lowerElementwise<sign>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .followsInput();
  r.add("Floor", lowerElementwise<unaryFloat<math::FloorOp>>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .fold(folders::floor())
      .followsInput();
  r.add("Ceil", lowerElementwise<unaryFloat<math::CeilOp>>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .fold(folders::ceil())
      .followsInput();
  r.add("Round", lowerElementwise<unaryFloat<math::RoundEvenOp>>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .followsInput();
  r.add("Reciprocal", lowerElementwise<reciprocal>)
      .computesIn(CastPolicy::Float)
      .work(work::perOutputElement(1))
      .followsInput();
  r.add("Clip", lowerElementwise<clip>)
      .work(work::perOutputElement(1))
      .backward(1.0)
      .followsInput();
  r.add("IsNaN", lowerElementwise<isNaN>).work(work::perOutputElement(1))
      .followsInput();
  r.add("IsInf", lowerElementwise<isInf>).work(work::perOutputElement(1))
      .followsInput();
  r.add("Equal",
        lowerElementwise<compare<CmpFPredicate::OEQ, CmpIPredicate::eq>>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .fold(folders::equal())
      .followsInput();
  r.add(
       "Less",
       lowerElementwise<
           compare<CmpFPredicate::OLT, CmpIPredicate::slt, CmpIPredicate::ult>>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .fold(folders::less())
      .followsInput();
  r.add(
       "Greater",
       lowerElementwise<
           compare<CmpFPredicate::OGT, CmpIPredicate::sgt, CmpIPredicate::ugt>>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .fold(folders::greater())
      .followsInput();
  r.add(
       "LessOrEqual",
       lowerElementwise<
           compare<CmpFPredicate::OLE, CmpIPredicate::sle, CmpIPredicate::ule>>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .followsInput();
  r.add(
       "GreaterOrEqual",
       lowerElementwise<
           compare<CmpFPredicate::OGE, CmpIPredicate::sge, CmpIPredicate::uge>>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .followsInput();
  r.add("And", lowerElementwise<logical<AndIOp>>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .followsInput();
  r.add("Or", lowerElementwise<logical<OrIOp>>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .followsInput();
  r.add("Xor", lowerElementwise<logical<XOrIOp>>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .followsInput();
  r.add("Not", lowerElementwise<logicalNot>)
      .work(work::perOutputElement(1))
      .backward(0.0)
      .fold(folders::logicalNot())
      .followsInput();
  r.add("Where", lowerElementwise<where>)
      .work(work::perOutputElement(1))
      .backward(1.0)
      .gradient(gradients::where)
      .fold(folders::where())
      .followsInput();
  r.add("Cast", lowerElementwise<castElement>)
      .work(WorkRule::dataMovement())
      .backward(1.0)
      .followsInput()
      .fold(folders::cast());
  r.add("CastLike", lowerUnaryElementwise<castElement>)
      .work(WorkRule::dataMovement())
      .fuses(fusion::elementwise);
  // One generic over the output: any dims, dynamic ones included.
  r.allowDynamicDims({"Add",         "Sub",
                      "Mul",         "Div",
                      "Mod",         "Pow",
                      "BitShift",    "Max",
                      "Min",         "Sum",
                      "Mean",        "Relu",
                      "LeakyRelu",   "PRelu",
                      "Elu",         "Selu",
                      "Celu",        "ThresholdedRelu",
                      "Shrink",      "Softplus",
                      "Softsign",    "Sigmoid",
                      "HardSigmoid", "HardSwish",
                      "Gelu",        "Tanh",
                      "Erf",         "Exp",
                      "Log",         "Sqrt",
                      "Sin",         "Cos",
                      "Tan",         "Asin",
                      "Acos",        "Atan",
                      "Sinh",        "Cosh",
                      "Asinh",       "Acosh",
                      "Atanh",       "Abs",
                      "Neg",         "Sign",
                      "Floor",       "Ceil",
                      "Round",       "Reciprocal",
                      "Clip",        "IsNaN",
                      "IsInf",       "Equal",
                      "Less",        "Greater",
                      "LessOrEqual", "GreaterOrEqual",
                      "And",         "Or",
                      "Xor",         "Not",
                      "Where",       "Cast",
                      "CastLike"});

  // Known to the cost model and placement; no lowering yet.
  r.add("BitwiseAnd", nullptr).work(work::perOutputElement(1)).followsInput();
  r.add("BitwiseOr", nullptr).work(work::perOutputElement(1)).followsInput();
  r.add("BitwiseNot", nullptr).work(work::perOutputElement(1)).followsInput();
  r.add("Mish", nullptr)
      .work(work::perOutputElement(4))
      .backward(1.0)
      .followsInput();
}
