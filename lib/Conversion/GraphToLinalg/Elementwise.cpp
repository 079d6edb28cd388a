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

template <ScalarFn Fn>
Results lowerElementwise(NodeLowering &n) {
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < n.operands.size(); ++i)
    if (n.hasOperand(i))
      inputs.push_back(n.operands[i]);
  RankedTensorType outType = n.getResultType();
  if (failed(checkBroadcast(n, inputs, outType, /*exact=*/true)))
    return failure();
  Value result = elementwise(
      n.builder, n.getLoc(), inputs, outType,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        return Fn(n, b, loc, args, outType.getElementType());
      });
  return single(result);
}

template <typename FloatOp, typename IntOp>
Value binary(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
             Type) {
  if (isFloat(args[0].getType()))
    return FloatOp::create(b, loc, args[0], args[1]);
  return IntOp::create(b, loc, args[0], args[1]);
}

template <typename FloatOp>
Value unaryFloat(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
                 Type) {
  return FloatOp::create(b, loc, args[0]);
}

Value relu(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
           Type type) {
  return arith::MaximumFOp::create(b, loc, args[0],
                                   scalarConstant(b, loc, type, 0.0));
}

Value leakyRelu(NodeLowering &n, OpBuilder &b, Location loc, ValueRange args,
                Type type) {
  Value zero = scalarConstant(b, loc, type, 0.0);
  Value alpha = scalarConstant(b, loc, type, n.getFloat("alpha", 0.01f));
  Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                         args[0], zero);
  Value scaled = arith::MulFOp::create(b, loc, args[0], alpha);
  return arith::SelectOp::create(b, loc, positive, args[0], scaled);
}

Value sigmoid(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
              Type type) {
  Value one = scalarConstant(b, loc, type, 1.0);
  Value negated = arith::NegFOp::create(b, loc, args[0]);
  Value denominator = arith::AddFOp::create(
      b, loc, one, math::ExpOp::create(b, loc, negated));
  return arith::DivFOp::create(b, loc, one, denominator);
}

Value hardSigmoidOf(OpBuilder &b, Location loc, Value x, Type type,
                    double alpha, double beta) {
  Value y = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, x, scalarConstant(b, loc, type, alpha)),
      scalarConstant(b, loc, type, beta));
  y = arith::MaximumFOp::create(b, loc, y, scalarConstant(b, loc, type, 0.0));
  return arith::MinimumFOp::create(b, loc, y, scalarConstant(b, loc, type, 1.0));
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
    Value cube = arith::MulFOp::create(b, loc, x,
                                       arith::MulFOp::create(b, loc, x, x));
    Value poly = arith::AddFOp::create(
        b, loc, x,
        arith::MulFOp::create(b, loc, cube,
                              scalarConstant(b, loc, type, 0.044715)));
    inner = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, poly,
                              scalarConstant(b, loc, type,
                                             std::sqrt(2.0 / M_PI))));
  } else {
    inner = math::ErfOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, x,
                              scalarConstant(b, loc, type, M_SQRT1_2)));
  }
  return arith::MulFOp::create(
      b, loc, arith::MulFOp::create(b, loc, half, x),
      arith::AddFOp::create(b, loc, one, inner));
}

Value reciprocal(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
                 Type type) {
  return arith::DivFOp::create(b, loc, scalarConstant(b, loc, type, 1.0),
                               args[0]);
}

Value power(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
            Type type) {
  Value exponent = args[1];
  if (exponent.getType() != type)
    exponent = isFloat(exponent.getType())
                   ? Value(arith::ExtFOp::create(b, loc, type, exponent))
                   : Value(arith::SIToFPOp::create(b, loc, type, exponent));
  return math::PowFOp::create(b, loc, args[0], exponent);
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
  if (lo)
    x = arith::MaxSIOp::create(b, loc, x, lo);
  if (hi)
    x = arith::MinSIOp::create(b, loc, x, hi);
  return x;
}

template <arith::CmpFPredicate FloatPredicate, arith::CmpIPredicate IntPredicate>
Value compare(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
              Type) {
  if (isFloat(args[0].getType()))
    return arith::CmpFOp::create(b, loc, FloatPredicate, args[0], args[1]);
  return arith::CmpIOp::create(b, loc, IntPredicate, args[0], args[1]);
}

Value where(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
            Type) {
  return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
}

Value logicalNot(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
                 Type type) {
  return arith::XOrIOp::create(
      b, loc, args[0],
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 1)));
}


Value castElement(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
                  Type type) {
  return castScalar(b, loc, args[0], type);
}

/// Sum/Mean/Max/Min over any number of inputs.
template <typename FloatOp, typename IntOp, bool Mean = false>
Value variadic(NodeLowering &, OpBuilder &b, Location loc, ValueRange args,
               Type type) {
  Value acc = args[0];
  for (Value next : args.drop_front())
    acc = isFloat(type) ? Value(FloatOp::create(b, loc, acc, next))
                        : Value(IntOp::create(b, loc, acc, next));
  if (Mean)
    acc = arith::DivFOp::create(
        b, loc, acc, scalarConstant(b, loc, type, args.size()));
  return acc;
}

} // namespace

void placer::lowering::registerElementwiseLowerings(LoweringRegistry &r) {
  r.beginFamily("Elementwise",
                "One `linalg.generic` per node reading broadcast inputs (numpy rules through indexing maps: a size-1 dimension reads index 0, nothing is materialised), with an arith/math scalar body per op type.");
  r.add("Add", lowerElementwise<binary<arith::AddFOp, arith::AddIOp>>);
  r.add("Sub", lowerElementwise<binary<arith::SubFOp, arith::SubIOp>>);
  r.add("Mul", lowerElementwise<binary<arith::MulFOp, arith::MulIOp>>);
  r.add("Div", lowerElementwise<binary<arith::DivFOp, arith::DivSIOp>>);
  r.add("Pow", lowerElementwise<power>);
  r.add("Max", lowerElementwise<variadic<arith::MaximumFOp, arith::MaxSIOp>>);
  r.add("Min", lowerElementwise<variadic<arith::MinimumFOp, arith::MinSIOp>>);
  r.add("Sum", lowerElementwise<variadic<arith::AddFOp, arith::AddIOp>>);
  r.add("Mean", lowerElementwise<variadic<arith::AddFOp, arith::AddIOp, true>>);
  r.add("Relu", lowerElementwise<relu>);
  r.add("LeakyRelu", lowerElementwise<leakyRelu>);
  r.add("Sigmoid", lowerElementwise<sigmoid>);
  r.add("HardSigmoid", lowerElementwise<hardSigmoid>);
  r.add("HardSwish", lowerElementwise<hardSwish>);
  r.add("Gelu", lowerElementwise<gelu>);
  r.add("Tanh", lowerElementwise<unaryFloat<math::TanhOp>>);
  r.add("Erf", lowerElementwise<unaryFloat<math::ErfOp>>);
  r.add("Exp", lowerElementwise<unaryFloat<math::ExpOp>>);
  r.add("Log", lowerElementwise<unaryFloat<math::LogOp>>);
  r.add("Sqrt", lowerElementwise<unaryFloat<math::SqrtOp>>);
  r.add("Abs", lowerElementwise<unaryFloat<math::AbsFOp>>);
  r.add("Neg", lowerElementwise<unaryFloat<arith::NegFOp>>);
  r.add("Floor", lowerElementwise<unaryFloat<math::FloorOp>>);
  r.add("Ceil", lowerElementwise<unaryFloat<math::CeilOp>>);
  r.add("Reciprocal", lowerElementwise<reciprocal>);
  r.add("Clip", lowerElementwise<clip>);
  r.add("Equal", lowerElementwise<compare<arith::CmpFPredicate::OEQ,
                                          arith::CmpIPredicate::eq>>);
  r.add("Less", lowerElementwise<compare<arith::CmpFPredicate::OLT,
                                         arith::CmpIPredicate::slt>>);
  r.add("Greater", lowerElementwise<compare<arith::CmpFPredicate::OGT,
                                            arith::CmpIPredicate::sgt>>);
  r.add("LessOrEqual", lowerElementwise<compare<arith::CmpFPredicate::OLE,
                                                arith::CmpIPredicate::sle>>);
  r.add("GreaterOrEqual", lowerElementwise<compare<arith::CmpFPredicate::OGE,
                                                   arith::CmpIPredicate::sge>>);
  r.add("Not", lowerElementwise<logicalNot>);
  r.add("Where", lowerElementwise<where>);
  r.add("Cast", lowerElementwise<castElement>);
}
