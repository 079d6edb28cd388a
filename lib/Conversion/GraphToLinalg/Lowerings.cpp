//===- Lowerings.cpp - One lowering per ONNX op type ----------------------===//
//
// Each lowering builds linalg/tensor/arith/math ops on static tensors. The
// table at the end is the list of supported op types; docs/Execution.md
// mirrors it. Elementwise ops follow numpy broadcasting through indexing
// maps (a size-1 input dimension reads index 0), so no broadcast is ever
// materialised.
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Support/DebugStringHelper.h"

#include <cctype>
#include <map>
#include <numeric>

using namespace mlir;
using namespace placer;

namespace {

using Results = FailureOr<SmallVector<Value>>;

Results single(Value value) { return SmallVector<Value>{value}; }

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value filled(OpBuilder &b, Location loc, RankedTensorType type, double value) {
  Value scalar = scalarConstant(b, loc, type.getElementType(), value);
  return linalg::FillOp::create(b, loc, scalar, emptyTensor(b, loc, type))
      .getResult(0);
}

/// The map reading an input of `inShape` inside a loop nest over `outShape`
/// under numpy broadcasting (trailing dimensions align; size 1 reads 0).
AffineMap broadcastMap(ArrayRef<int64_t> inShape, ArrayRef<int64_t> outShape,
                       MLIRContext *context) {
  SmallVector<AffineExpr> exprs;
  size_t offset = outShape.size() - inShape.size();
  for (size_t i = 0; i < inShape.size(); ++i)
    exprs.push_back(inShape[i] == 1 && outShape[offset + i] != 1
                        ? getAffineConstantExpr(0, context)
                        : getAffineDimExpr(offset + i, context));
  return AffineMap::get(outShape.size(), 0, exprs, context);
}

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// An elementwise linalg.generic over `outType` reading broadcast inputs.
Value elementwise(OpBuilder &b, Location loc, ValueRange inputs,
                  RankedTensorType outType, BodyFn body) {
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(broadcastMap(cast<RankedTensorType>(input.getType()).getShape(),
                                outType.getShape(), context));
  maps.push_back(AffineMap::getMultiDimIdentityMap(outType.getRank(), context));
  SmallVector<utils::IteratorType> iterators(outType.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, inputs,
             ValueRange{emptyTensor(b, loc, outType)}, maps, iterators,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               Value result =
                   body(nested, nestedLoc, args.take_front(inputs.size()));
               linalg::YieldOp::create(nested, nestedLoc, result);
             })
      .getResult(0);
}

/// Reduces `input` over `axes` (sorted, unique) with `combine`, starting
/// from `init`; the result drops the reduced dimensions.
Value reduce(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
             double init,
             function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      kept.push_back(type.getDimSize(d));
  auto outType = RankedTensorType::get(kept, type.getElementType());
  Value initTensor = filled(b, loc, outType, init);
  return linalg::ReduceOp::create(
             b, loc, ValueRange{input}, ValueRange{initTensor}, axes,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               linalg::YieldOp::create(
                   nested, nestedLoc,
                   combine(nested, nestedLoc, args[0], args[1]));
             })
      .getResult(0);
}

/// Any static reshape with the same element count: collapse to 1-D, expand
/// to the target (both are views after bufferization).
Value reshapeTo(OpBuilder &b, Location loc, Value input,
                RankedTensorType target) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type == target)
    return input;
  auto all = [](int64_t rank) {
    SmallVector<ReassociationIndices> groups;
    if (rank > 0) {
      groups.emplace_back();
      for (int64_t d = 0; d < rank; ++d)
        groups.back().push_back(d);
    }
    return groups;
  };
  Value flat = input;
  if (type.getRank() != 1) {
    auto flatType = RankedTensorType::get(
        type.getRank() == 0 ? ArrayRef<int64_t>{1}
                            : ArrayRef<int64_t>{type.getNumElements()},
        type.getElementType());
    if (type.getRank() == 0)
      flat = tensor::ExpandShapeOp::create(b, loc, flatType, input,
                                           SmallVector<ReassociationIndices>{});
    else
      flat = tensor::CollapseShapeOp::create(b, loc, flatType, input,
                                             all(type.getRank()));
  }
  if (target.getRank() == 1)
    return flat;
  if (target.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, target, flat,
                                           SmallVector<ReassociationIndices>{});
  return tensor::ExpandShapeOp::create(b, loc, target, flat,
                                       all(target.getRank()));
}

bool isFloat(Type type) { return isa<FloatType>(getElementTypeOrSelf(type)); }

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// A scalar body: the node (for attributes), the builder, the element
/// arguments. The node's output element type is the result type.
using ScalarFn = Value (*)(NodeLowering &, OpBuilder &, Location, ValueRange,
                           Type);

/// Whether every input broadcasts (numpy rules) to `outType`, and, when
/// `exact`, whether `outType` is exactly the shape they broadcast to. The
/// declared type comes from the model: a contradicting one would make
/// broadcastMap's maps invalid, so it is refused here.
LogicalResult checkBroadcast(NodeLowering &n, ValueRange inputs,
                             RankedTensorType outType, bool exact) {
  ArrayRef<int64_t> out = outType.getShape();
  SmallVector<int64_t> broadcast(out.size(), 1);
  for (Value input : inputs) {
    ArrayRef<int64_t> in = cast<RankedTensorType>(input.getType()).getShape();
    bool fits = in.size() <= out.size();
    for (size_t i = 0; fits && i < in.size(); ++i) {
      size_t d = out.size() - in.size() + i;
      fits = in[i] == 1 || in[i] == out[d];
      if (in[i] != 1) // numpy: 1 stretches to the other size, even to 0
        broadcast[d] = in[i];
    }
    if (!fits)
      return n.fail("an input of type " + debugString(input.getType()) +
                    " does not broadcast to the declared result type " +
                    debugString(outType));
  }
  if (exact && ArrayRef<int64_t>(broadcast) != out)
    return n.fail("the inputs broadcast to " +
                  debugString(RankedTensorType::get(broadcast,
                                                 outType.getElementType())) +
                  ", not to the declared result type " + debugString(outType));
  return success();
}

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

/// Cast between float, signed integer and bool types (ONNX Cast).
Value castScalar(OpBuilder &b, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (fromFloat && toFloat)
    return to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth()
               ? Value(arith::ExtFOp::create(b, loc, to, value))
               : Value(arith::TruncFOp::create(b, loc, to, value));
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, from, 0);
    return fromFloat ? Value(arith::CmpFOp::create(
                           b, loc, arith::CmpFPredicate::UNE, value, zero))
                     : Value(arith::CmpIOp::create(
                           b, loc, arith::CmpIPredicate::ne, value, zero));
  }
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, to, value);
  if (toFloat)
    return from.isInteger(1) ? Value(arith::UIToFPOp::create(b, loc, to, value))
                             : Value(arith::SIToFPOp::create(b, loc, to, value));
  unsigned fromBits = from.getIntOrFloatBitWidth(),
           toBits = to.getIntOrFloatBitWidth();
  if (toBits > fromBits)
    return from.isInteger(1) ? Value(arith::ExtUIOp::create(b, loc, to, value))
                             : Value(arith::ExtSIOp::create(b, loc, to, value));
  return arith::TruncIOp::create(b, loc, to, value);
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

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// The body of a contraction: acc + lhs * rhs.
void multiplyAdd(OpBuilder &b, Location loc, ValueRange args) {
  Value mul = arith::MulFOp::create(b, loc, args[0], args[1]);
  linalg::YieldOp::create(b, loc,
                          Value(arith::AddFOp::create(b, loc, args[2], mul)));
}

/// A (.., m, k) x (.., k, n) contraction with numpy broadcasting of the
/// batch dimensions and ONNX's 1-D promotion rules.
Results lowerMatMul(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value lhs = n.operands[0], rhs = n.operands[1];
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  RankedTensorType outType = n.getResultType();
  if (!isFloat(outType))
    return n.fail("only floating-point MatMul is lowered");
  // 1-D operands: promote to matrices, and reshape the result back at the end.
  if (lhsType.getRank() == 1)
    lhs = reshapeTo(b, loc, lhs,
                    RankedTensorType::get({1, lhsType.getDimSize(0)},
                                          lhsType.getElementType()));
  if (rhsType.getRank() == 1)
    rhs = reshapeTo(b, loc, rhs,
                    RankedTensorType::get({rhsType.getDimSize(0), 1},
                                          rhsType.getElementType()));
  lhsType = cast<RankedTensorType>(lhs.getType());
  rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t batchRank = std::max(lhsType.getRank(), rhsType.getRank()) - 2;
  SmallVector<int64_t> fullShape;
  for (int64_t d = 0; d < batchRank; ++d) {
    auto dim = [&](RankedTensorType t) -> int64_t {
      int64_t i = d - (batchRank - (t.getRank() - 2));
      return i < 0 ? 1 : t.getDimSize(i);
    };
    fullShape.push_back(std::max(dim(lhsType), dim(rhsType)));
  }
  int64_t m = lhsType.getDimSize(lhsType.getRank() - 2);
  int64_t nCols = rhsType.getDimSize(rhsType.getRank() - 1);
  fullShape.push_back(m);
  fullShape.push_back(nCols);
  auto fullType = RankedTensorType::get(fullShape, outType.getElementType());
  Value init = filled(b, loc, fullType, 0.0);
  Value product;
  if (batchRank == 0) {
    product = linalg::MatmulOp::create(b, loc, TypeRange{fullType},
                                       ValueRange{lhs, rhs}, ValueRange{init})
                  .getResult(0);
  } else {
    // Loops: batch..., m, n, k.
    MLIRContext *context = b.getContext();
    unsigned numLoops = batchRank + 3;
    auto operandMap = [&](RankedTensorType t, unsigned rowLoop,
                          unsigned colLoop) {
      SmallVector<AffineExpr> exprs;
      int64_t offset = batchRank - (t.getRank() - 2);
      for (int64_t i = 0; i < t.getRank() - 2; ++i)
        exprs.push_back(t.getDimSize(i) == 1 && fullShape[offset + i] != 1
                            ? getAffineConstantExpr(0, context)
                            : getAffineDimExpr(offset + i, context));
      exprs.push_back(getAffineDimExpr(rowLoop, context));
      exprs.push_back(getAffineDimExpr(colLoop, context));
      return AffineMap::get(numLoops, 0, exprs, context);
    };
    SmallVector<AffineExpr> outExprs;
    for (unsigned i = 0; i < batchRank + 2; ++i)
      outExprs.push_back(getAffineDimExpr(i, context));
    SmallVector<AffineMap> maps = {
        operandMap(lhsType, batchRank, batchRank + 2),
        operandMap(rhsType, batchRank + 2, batchRank + 1),
        AffineMap::get(numLoops, 0, outExprs, context)};
    SmallVector<utils::IteratorType> iterators(numLoops,
                                               utils::IteratorType::parallel);
    iterators.back() = utils::IteratorType::reduction;
    product = linalg::GenericOp::create(
                  b, loc, TypeRange{fullType}, ValueRange{lhs, rhs},
                  ValueRange{init}, maps, iterators,
                  multiplyAdd)
                  .getResult(0);
  }
  return single(reshapeTo(b, loc, product, outType));
}

/// A' x B' for 2-D operands, transposes read through the indexing maps:
/// weights stored transposed (Linear layers, transB = 1) are not copied on
/// every run.
Value matmul2d(OpBuilder &b, Location loc, Value lhs, Value rhs, bool transA,
               bool transB, RankedTensorType outType) {
  MLIRContext *context = b.getContext();
  AffineExpr m = getAffineDimExpr(0, context), nDim = getAffineDimExpr(1, context),
             k = getAffineDimExpr(2, context);
  SmallVector<AffineMap> maps = {
      AffineMap::get(3, 0, transA ? ArrayRef{k, m} : ArrayRef{m, k}, context),
      AffineMap::get(3, 0, transB ? ArrayRef{nDim, k} : ArrayRef{k, nDim},
                     context),
      AffineMap::get(3, 0, {m, nDim}, context)};
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel,
                                                utils::IteratorType::parallel,
                                                utils::IteratorType::reduction};
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, ValueRange{lhs, rhs},
             ValueRange{filled(b, loc, outType, 0.0)}, maps, iterators,
             multiplyAdd)
      .getResult(0);
}

/// Einsum without ellipses: one loop per letter (the output's first, in
/// its order, then the summed ones), each operand read through the map of
/// its letters, the product of the operands summed into the output.
Results lowerEinsum(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  RankedTensorType outType = n.getResultType();
  if (!isFloat(outType))
    return n.fail("only floating-point Einsum is lowered");
  std::string equation;
  for (char c : n.getString("equation", ""))
    if (c != ' ')
      equation += c;
  if (StringRef(equation).contains("..."))
    return n.fail("ellipses in the equation are not lowered");
  auto [lhs, rhs] = StringRef(equation).split("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != n.operands.size())
    return n.fail("the equation has " + Twine(terms.size()) +
                  " operand terms for " + Twine(n.operands.size()) + " inputs");
  std::string output = rhs.str();
  if (!StringRef(equation).contains("->")) {
    // Implicit output: the letters used once, in alphabetical order.
    std::map<char, int> uses;
    for (StringRef term : terms)
      for (char c : term)
        ++uses[c];
    for (auto [c, count] : uses)
      if (count == 1)
        output += c;
  }
  std::string letters = output;
  for (StringRef term : terms)
    for (char c : term)
      if (letters.find(c) == std::string::npos)
        letters += c;
  if (!llvm::all_of(letters, [](char c) { return std::isalpha(c); }))
    return n.fail("the equation '" + equation + "' has characters other than letters");
  if (static_cast<int64_t>(output.size()) != outType.getRank())
    return n.fail("the output term does not match the result's rank");
  MLIRContext *context = b.getContext();
  auto mapOf = [&](StringRef term) {
    SmallVector<AffineExpr> exprs;
    for (char c : term)
      exprs.push_back(getAffineDimExpr(letters.find(c), context));
    return AffineMap::get(letters.size(), 0, exprs, context);
  };
  SmallVector<AffineMap> maps;
  for (auto [term, operand] : llvm::zip(terms, n.operands)) {
    if (static_cast<int64_t>(term.size()) !=
        cast<RankedTensorType>(operand.getType()).getRank())
      return n.fail("term '" + term + "' does not match its operand's rank");
    maps.push_back(mapOf(term));
  }
  maps.push_back(mapOf(output));
  SmallVector<utils::IteratorType> iterators(letters.size(),
                                             utils::IteratorType::reduction);
  std::fill_n(iterators.begin(), output.size(), utils::IteratorType::parallel);
  return single(linalg::GenericOp::create(
                    b, loc, TypeRange{outType}, n.operands,
                    ValueRange{filled(b, loc, outType, 0.0)}, maps, iterators,
                    [](OpBuilder &nb, Location l, ValueRange args) {
                      Value product = args[0];
                      for (Value arg : args.drop_front().drop_back())
                        product = arith::MulFOp::create(nb, l, product, arg);
                      linalg::YieldOp::create(
                          nb, l,
                          Value(arith::AddFOp::create(nb, l, args.back(),
                                                      product)));
                    })
                    .getResult(0));
}

/// alpha * A' B' + beta * C, with C broadcast.
Results lowerGemm(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  RankedTensorType outType = n.getResultType();
  if (!isFloat(outType))
    return n.fail("only floating-point Gemm is lowered");
  Value product = matmul2d(b, loc, n.operands[0], n.operands[1],
                           n.getInt("transA", 0), n.getInt("transB", 0), outType);
  double alpha = n.getFloat("alpha", 1.0f), beta = n.getFloat("beta", 1.0f);
  SmallVector<Value> inputs = {product};
  if (n.hasOperand(2) && beta != 0)
    inputs.push_back(n.operands[2]);
  if (alpha == 1 && inputs.size() == 1)
    return single(product);
  Type element = outType.getElementType();
  return single(elementwise(
      b, loc, inputs, outType, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value y = args[0];
        if (alpha != 1)
          y = arith::MulFOp::create(nb, l, y, scalarConstant(nb, l, element, alpha));
        if (args.size() > 1) {
          Value c = args[1];
          if (beta != 1)
            c = arith::MulFOp::create(nb, l, c, scalarConstant(nb, l, element, beta));
          y = arith::AddFOp::create(nb, l, y, c);
        }
        return y;
      }));
}

//===----------------------------------------------------------------------===//
// Convolution and pooling (2-D spatial, NCHW)
//===----------------------------------------------------------------------===//

/// Begin/end padding per spatial dimension: explicit `pads`, or auto_pad.
/// The end padding grows when the output (from the node's type, so
/// ceil_mode included) needs more input than the explicit padding gives.
FailureOr<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
spatialPadding(NodeLowering &n, ArrayRef<int64_t> inSpatial,
               ArrayRef<int64_t> outSpatial, ArrayRef<int64_t> kernel,
               ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
  size_t rank = inSpatial.size();
  SmallVector<int64_t> begin(rank, 0), end(rank, 0);
  StringRef autoPad = n.getString("auto_pad", "NOTSET");
  if (auto pads = n.getInts("pads")) {
    if (pads->size() != 2 * rank)
      return (n.fail("pads has " + Twine(pads->size()) +
                            " values, expected " + Twine(2 * rank)));
    for (size_t i = 0; i < rank; ++i) {
      begin[i] = (*pads)[i];
      end[i] = (*pads)[rank + i];
    }
  }
  for (size_t i = 0; i < rank; ++i) {
    int64_t needed =
        (outSpatial[i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1;
    int64_t total = std::max<int64_t>(0, needed - inSpatial[i]);
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t small = total / 2, large = total - small;
      begin[i] = autoPad == "SAME_UPPER" ? small : large;
      end[i] = total - begin[i];
    } else if (autoPad == "VALID") {
      begin[i] = end[i] = 0;
    }
    end[i] = std::max(end[i], needed - inSpatial[i] - begin[i]);
    if (begin[i] < 0 || end[i] < 0)
      return (n.fail("negative padding is not supported"));
  }
  return std::make_pair(begin, end);
}

Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> begin, ArrayRef<int64_t> end,
                 double padValue) {
  if (llvm::all_of(begin, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(end, [](int64_t p) { return p == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> low(type.getRank(), b.getIndexAttr(0)),
      high(type.getRank(), b.getIndexAttr(0));
  SmallVector<int64_t> shape(type.getShape());
  size_t first = type.getRank() - begin.size();
  for (size_t i = 0; i < begin.size(); ++i) {
    low[first + i] = b.getIndexAttr(begin[i]);
    high[first + i] = b.getIndexAttr(end[i]);
    shape[first + i] += begin[i] + end[i];
  }
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  Value value = scalarConstant(b, loc, type.getElementType(), padValue);
  return tensor::PadOp::create(b, loc, paddedType, input, low, high, value);
}

SmallVector<int64_t> intsOr(NodeLowering &n, StringRef name, size_t rank,
                            int64_t fallback) {
  return n.getInts(name).value_or(SmallVector<int64_t>(rank, fallback));
}

DenseIntElementsAttr i64Elements(OpBuilder &b, ArrayRef<int64_t> values) {
  return DenseIntElementsAttr::get(
      RankedTensorType::get({static_cast<int64_t>(values.size())},
                            b.getI64Type()),
      values);
}

/// Adds a per-channel bias (dimension 1) to an NCHW tensor.
Value addChannelBias(OpBuilder &b, Location loc, Value value, Value bias) {
  auto type = cast<RankedTensorType>(value.getType());
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(type.getRank(), context),
      AffineMap::get(type.getRank(), 0, {getAffineDimExpr(1, context)}, context),
      AffineMap::getMultiDimIdentityMap(type.getRank(), context)};
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{value, bias},
             ValueRange{emptyTensor(b, loc, type)}, maps, iterators,
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l, Value(arith::AddFOp::create(nb, l, args[0], args[1])));
             })
      .getResult(0);
}

/// A convolution or pooling window over 1 or 2 spatial dimensions, always
/// given in 2-D: 1-D nodes run as 2-D ones of height 1, so that one set of
/// linalg ops (and the contraction tiling) serves both.
struct Window {
  SmallVector<int64_t> kernel, strides, dilations;
  SmallVector<int64_t> begin, end; // padding, ceil_mode's extra included
  SmallVector<int64_t> explicitEnd; // the `pads` attribute's end part
  bool lifted = false;             // a 1-D node
};

FailureOr<Window> readWindow(NodeLowering &n, RankedTensorType inType,
                             RankedTensorType outType,
                             ArrayRef<int64_t> kernel) {
  size_t spatial = inType.getRank() - 2;
  if (spatial != 1 && spatial != 2)
    return n.fail("only 1-D and 2-D windows (NCW or NCHW inputs) are lowered");
  if (kernel.size() != spatial)
    return n.fail("the kernel has " + Twine(kernel.size()) +
                  " sizes, expected " + Twine(spatial));
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides = intsOr(n, "strides", spatial, 1);
  w.dilations = intsOr(n, "dilations", spatial, 1);
  if (w.strides.size() != spatial || w.dilations.size() != spatial)
    return n.fail("strides and dilations need one value per spatial dimension");
  if (llvm::any_of(w.strides, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(w.dilations, [](int64_t v) { return v < 1; }))
    return n.fail("strides and dilations must be positive");
  auto padding =
      spatialPadding(n, inType.getShape().drop_front(2),
                     outType.getShape().drop_front(2), w.kernel, w.strides,
                     w.dilations);
  if (failed(padding))
    return failure();
  std::tie(w.begin, w.end) = *padding;
  SmallVector<int64_t> pads = intsOr(n, "pads", 2 * spatial, 0);
  w.explicitEnd.assign(pads.begin() + spatial, pads.end());
  if (spatial == 1) {
    w.lifted = true;
    for (SmallVector<int64_t> *v : {&w.kernel, &w.strides, &w.dilations})
      v->insert(v->begin(), 1);
    for (SmallVector<int64_t> *v : {&w.begin, &w.end, &w.explicitEnd})
      v->insert(v->begin(), 0);
  }
  return w;
}

/// N C W -> N C 1 W (and back): the height-1 view of a 1-D window's tensors.
SmallVector<ReassociationIndices> unitHeight() { return {{0}, {1}, {2, 3}}; }

RankedTensorType liftedType(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + 2, 1);
  return RankedTensorType::get(shape, type.getElementType());
}

Value liftTo2d(OpBuilder &b, Location loc, Value value) {
  return tensor::ExpandShapeOp::create(
      b, loc, liftedType(cast<RankedTensorType>(value.getType())), value,
      unitHeight());
}

Results lowerConv(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto inType = cast<RankedTensorType>(n.operands[0].getType());
  auto wType = cast<RankedTensorType>(n.operands[1].getType());
  RankedTensorType finalType = n.getResultType();
  if (!isFloat(finalType))
    return n.fail("only floating-point Conv is lowered");
  if (wType.getRank() != inType.getRank())
    return n.fail("the weight's rank differs from the input's");
  FailureOr<Window> window =
      readWindow(n, inType, finalType, wType.getShape().drop_front(2));
  if (failed(window))
    return failure();
  Value input = n.operands[0], weight = n.operands[1];
  RankedTensorType outType = finalType;
  if (window->lifted) {
    input = liftTo2d(b, loc, input);
    weight = liftTo2d(b, loc, weight);
    outType = liftedType(finalType);
    wType = cast<RankedTensorType>(weight.getType());
  }
  input = padSpatial(b, loc, input, window->begin, window->end, 0.0);
  int64_t group = n.getInt("group", 1);
  int64_t batch = inType.getDimSize(0), channels = inType.getDimSize(1);
  int64_t filters = wType.getDimSize(0);
  if (group < 1 || channels % group || filters % group)
    return n.fail("group " + Twine(group) + " does not divide the channels");
  NamedAttribute attrs[] = {
      b.getNamedAttr("strides", i64Elements(b, window->strides)),
      b.getNamedAttr("dilations", i64Elements(b, window->dilations))};
  Value result;
  if (group == 1) {
    result = linalg::Conv2DNchwFchwOp::create(
                 b, loc, TypeRange{outType}, ValueRange{input, weight},
                 ValueRange{filled(b, loc, outType, 0.0)}, attrs)
                 .getResult(0);
  } else {
    // N (G C) H W x (G F) C kh kw -> N G C H W x G F C kh kw.
    auto padded = cast<RankedTensorType>(input.getType());
    Type element = outType.getElementType();
    auto groupedIn = RankedTensorType::get(
        {batch, group, channels / group, padded.getDimSize(2),
         padded.getDimSize(3)},
        element);
    auto groupedW = RankedTensorType::get(
        {group, filters / group, wType.getDimSize(1), wType.getDimSize(2),
         wType.getDimSize(3)},
        element);
    auto groupedOut = RankedTensorType::get(
        {batch, group, filters / group, outType.getDimSize(2),
         outType.getDimSize(3)},
        element);
    Value in = tensor::ExpandShapeOp::create(
        b, loc, groupedIn, input,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    Value w = tensor::ExpandShapeOp::create(
        b, loc, groupedW, weight,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    Value conv = linalg::Conv2DNgchwGfchwOp::create(
                     b, loc, TypeRange{groupedOut}, ValueRange{in, w},
                     ValueRange{filled(b, loc, groupedOut, 0.0)}, attrs)
                     .getResult(0);
    result = tensor::CollapseShapeOp::create(
        b, loc, outType, conv,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  }
  if (window->lifted)
    result = tensor::CollapseShapeOp::create(b, loc, finalType, result,
                                             unitHeight());
  if (n.hasOperand(2))
    result = addChannelBias(b, loc, result, n.operands[2]);
  return single(result);
}

template <bool IsMax>
Results lowerPool(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto inType = cast<RankedTensorType>(n.operands[0].getType());
  RankedTensorType finalType = n.getResultType();
  if (n.node.getOutputs().size() > 1 && !n.node.getOutputs()[1].use_empty())
    return n.fail("the Indices output of MaxPool is not lowered");
  std::optional<SmallVector<int64_t>> kernel = n.getInts("kernel_shape");
  if (!kernel)
    return n.fail("kernel_shape is missing");
  FailureOr<Window> window = readWindow(n, inType, finalType, *kernel);
  if (failed(window))
    return failure();
  Value input = n.operands[0];
  RankedTensorType outType = finalType;
  if (window->lifted) {
    input = liftTo2d(b, loc, input);
    outType = liftedType(finalType);
  }
  auto finish = [&](Value result) {
    return single(window->lifted
                      ? Value(tensor::CollapseShapeOp::create(
                            b, loc, finalType, result, unitHeight()))
                      : result);
  };
  double padValue = IsMax ? -std::numeric_limits<double>::infinity() : 0.0;
  auto inShape = cast<RankedTensorType>(input.getType()).getShape();
  input = padSpatial(b, loc, input, window->begin, window->end, padValue);
  Value windowShape =
      tensor::EmptyOp::create(b, loc, window->kernel, b.getF32Type());
  NamedAttribute attrs[] = {
      b.getNamedAttr("strides", i64Elements(b, window->strides)),
      b.getNamedAttr("dilations", i64Elements(b, window->dilations))};
  if (IsMax)
    return finish(linalg::PoolingNchwMaxOp::create(
                      b, loc, TypeRange{outType},
                      ValueRange{input, windowShape},
                      ValueRange{filled(b, loc, outType, padValue)}, attrs)
                      .getResult(0));
  Value sum = linalg::PoolingNchwSumOp::create(
                  b, loc, TypeRange{outType}, ValueRange{input, windowShape},
                  ValueRange{filled(b, loc, outType, 0.0)}, attrs)
                  .getResult(0);
  // The divisor: the window size, or (count_include_pad = 0) the number of
  // real input elements under each window, pooled from a padded tensor of
  // ones. Padding added for ceil_mode never counts.
  Value counts;
  bool includePad = n.getInt("count_include_pad", 0) != 0;
  auto onesType = RankedTensorType::get(inShape.take_back(2),
                                        outType.getElementType());
  ArrayRef<int64_t> begin = window->begin, end = window->end,
                    explicitEnd = window->explicitEnd;
  if (includePad) {
    // Explicit pads count; the extra end padding of ceil_mode does not.
    auto onesPadded = padSpatial(b, loc, filled(b, loc, onesType, 1.0), begin,
                                 explicitEnd, 1.0);
    SmallVector<int64_t> rest = {std::max<int64_t>(0, end[0] - explicitEnd[0]),
                                 std::max<int64_t>(0, end[1] - explicitEnd[1])};
    counts = padSpatial(b, loc, onesPadded, {0, 0}, rest, 0.0);
  } else {
    counts = padSpatial(b, loc, filled(b, loc, onesType, 1.0), begin, end, 0.0);
  }
  auto countType = RankedTensorType::get(outType.getShape().take_back(2),
                                         outType.getElementType());
  // A 2-D sum pool of the ones: expand to 1x1xHxW and pool.
  auto counts4Type = RankedTensorType::get(
      {1, 1, cast<RankedTensorType>(counts.getType()).getDimSize(0),
       cast<RankedTensorType>(counts.getType()).getDimSize(1)},
      outType.getElementType());
  Value counts4 = tensor::ExpandShapeOp::create(
      b, loc, counts4Type, counts,
      SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
  auto pooledCountsType = RankedTensorType::get(
      {1, 1, countType.getDimSize(0), countType.getDimSize(1)},
      outType.getElementType());
  Value pooledCounts = linalg::PoolingNchwSumOp::create(
                           b, loc, TypeRange{pooledCountsType},
                           ValueRange{counts4, windowShape},
                           ValueRange{filled(b, loc, pooledCountsType, 0.0)},
                           attrs)
                           .getResult(0);
  return finish(elementwise(b, loc, {sum, pooledCounts}, outType,
                            [](OpBuilder &nb, Location l, ValueRange args) {
                              return Value(arith::DivFOp::create(
                                  nb, l, args[0], args[1]));
                            }));
}

/// GlobalAveragePool / GlobalMaxPool: reduce every spatial dimension.
template <bool IsMax>
Results lowerGlobalPool(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto inType = cast<RankedTensorType>(n.operands[0].getType());
  SmallVector<int64_t> axes;
  int64_t count = 1;
  for (int64_t d = 2; d < inType.getRank(); ++d) {
    axes.push_back(d);
    count *= inType.getDimSize(d);
  }
  Value reduced = reduce(
      b, loc, n.operands[0], axes,
      IsMax ? -std::numeric_limits<double>::infinity() : 0.0,
      [](OpBuilder &nb, Location l, Value x, Value acc) -> Value {
        if (IsMax)
          return arith::MaximumFOp::create(nb, l, x, acc);
        return arith::AddFOp::create(nb, l, x, acc);
      });
  RankedTensorType outType = n.getResultType();
  Value result = reshapeTo(b, loc, reduced, outType);
  if (!IsMax) {
    Type element = outType.getElementType();
    result = elementwise(b, loc, {result}, outType,
                         [&](OpBuilder &nb, Location l, ValueRange args) {
                           return Value(arith::DivFOp::create(
                               nb, l, args[0],
                               scalarConstant(nb, l, element, count)));
                         });
  }
  return single(result);
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

/// Reduction axes: the `axes` attribute, or (ReduceSum from opset 13,
/// every Reduce* from 18) a constant second input; none means all axes
/// unless noop_with_empty_axes.
FailureOr<SmallVector<int64_t>> reductionAxes(NodeLowering &n, int64_t rank) {
  std::optional<SmallVector<int64_t>> axes = n.getInts("axes");
  if (!axes && n.hasOperand(1)) {
    axes = n.getConstantInts(1);
    if (!axes)
      return (n.fail("axes must be a compile-time constant"));
  }
  SmallVector<int64_t> result;
  if (!axes || axes->empty()) {
    if (n.getInt("noop_with_empty_axes", 0))
      return result;
    for (int64_t d = 0; d < rank; ++d)
      result.push_back(d);
    return result;
  }
  for (int64_t a : *axes) {
    a = normalizeAxis(a, rank);
    if (a < 0 || a >= rank)
      return (n.fail("axis out of range"));
    if (!llvm::is_contained(result, a))
      result.push_back(a);
  }
  llvm::sort(result);
  return result;
}

enum class ReduceKind { Sum, Mean, Max, Min, SumSquare, L2 };

template <ReduceKind Kind>
Results lowerReduce(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto inType = cast<RankedTensorType>(n.operands[0].getType());
  RankedTensorType outType = n.getResultType();
  if (!isFloat(outType))
    return n.fail("only floating-point reductions are lowered");
  auto axes = reductionAxes(n, inType.getRank());
  if (failed(axes))
    return failure();
  if (axes->empty())
    return single(reshapeTo(b, loc, n.operands[0], outType));
  Value input = n.operands[0];
  if (Kind == ReduceKind::SumSquare || Kind == ReduceKind::L2)
    input = elementwise(b, loc, {input}, inType,
                        [](OpBuilder &nb, Location l, ValueRange args) {
                          return Value(
                              arith::MulFOp::create(nb, l, args[0], args[0]));
                        });
  double init = Kind == ReduceKind::Max ? -std::numeric_limits<double>::infinity()
                : Kind == ReduceKind::Min ? std::numeric_limits<double>::infinity()
                                          : 0.0;
  Value reduced = reduce(b, loc, input, *axes, init,
                         [](OpBuilder &nb, Location l, Value x, Value acc) -> Value {
                           if (Kind == ReduceKind::Max)
                             return arith::MaximumFOp::create(nb, l, x, acc);
                           if (Kind == ReduceKind::Min)
                             return arith::MinimumFOp::create(nb, l, x, acc);
                           return arith::AddFOp::create(nb, l, x, acc);
                         });
  Value result = reshapeTo(b, loc, reduced, outType);
  int64_t count = 1;
  for (int64_t a : *axes)
    count *= inType.getDimSize(a);
  Type element = outType.getElementType();
  if (Kind == ReduceKind::Mean || Kind == ReduceKind::L2)
    result = elementwise(b, loc, {result}, outType,
                         [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                           if (Kind == ReduceKind::L2)
                             return math::SqrtOp::create(nb, l, args[0]);
                           return arith::DivFOp::create(
                               nb, l, args[0],
                               scalarConstant(nb, l, element, count));
                         });
  return single(result);
}

/// Softmax / LogSoftmax over dimensions [axis, rank) for opset < 13 (the
/// input is coerced to 2-D there) or over `axis` alone from 13.
template <bool Log>
Results lowerSoftmax(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  int64_t rank = type.getRank();
  bool modern = n.node.getVersion() >= 13;
  int64_t axis = normalizeAxis(n.getInt("axis", modern ? -1 : 1), rank);
  if (axis < 0 || axis >= rank)
    return n.fail("axis out of range");
  SmallVector<int64_t> axes;
  for (int64_t d = axis; d < (modern ? axis + 1 : rank); ++d)
    axes.push_back(d);
  Type element = type.getElementType();
  auto keptType = [&](Value reduced) {
    // The reduced tensor with size-1 dimensions put back, for broadcasting.
    SmallVector<int64_t> shape(type.getShape());
    for (int64_t a : axes)
      shape[a] = 1;
    return reshapeTo(b, loc, reduced, RankedTensorType::get(shape, element));
  };
  Value x = n.operands[0];
  Value max = keptType(reduce(
      b, loc, x, axes, -std::numeric_limits<double>::infinity(),
      [](OpBuilder &nb, Location l, Value v, Value acc) -> Value {
        return arith::MaximumFOp::create(nb, l, v, acc);
      }));
  Value shifted = elementwise(b, loc, {x, max}, type,
                              [](OpBuilder &nb, Location l, ValueRange args) {
                                return Value(
                                    arith::SubFOp::create(nb, l, args[0], args[1]));
                              });
  Value exp = elementwise(b, loc, {shifted}, type,
                          [](OpBuilder &nb, Location l, ValueRange args) {
                            return Value(math::ExpOp::create(nb, l, args[0]));
                          });
  Value sum = keptType(reduce(b, loc, exp, axes, 0.0,
                              [](OpBuilder &nb, Location l, Value v,
                                 Value acc) -> Value {
                                return arith::AddFOp::create(nb, l, v, acc);
                              }));
  if (Log)
    return single(elementwise(
        b, loc, {shifted, sum}, type,
        [](OpBuilder &nb, Location l, ValueRange args) {
          return Value(arith::SubFOp::create(
              nb, l, args[0], math::LogOp::create(nb, l, args[1])));
        }));
  return single(elementwise(b, loc, {exp, sum}, type,
                            [](OpBuilder &nb, Location l, ValueRange args) {
                              return Value(
                                  arith::DivFOp::create(nb, l, args[0], args[1]));
                            }));
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
  for (unsigned i = 1; i < n.node.getOutputs().size(); ++i)
    if (!n.node.getOutputs()[i].use_empty())
      return n.fail("the Mean and InvStdDev outputs are not lowered");
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
  SmallVector<Value> inputs = {centered, variance, n.operands[1]};
  if (n.hasOperand(2))
    inputs.push_back(n.operands[2]);
  return single(elementwise(
      b, loc, inputs, type, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value denom = math::RsqrtOp::create(
            nb, l,
            arith::AddFOp::create(nb, l, args[1],
                                  scalarConstant(nb, l, element, epsilon)));
        Value y = arith::MulFOp::create(
            nb, l, arith::MulFOp::create(nb, l, args[0], denom), args[2]);
        if (args.size() > 3)
          y = arith::AddFOp::create(nb, l, y, args[3]);
        return y;
      }));
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

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// Reshape, Flatten, Squeeze, Unsqueeze: the node's static output type says
/// everything.
Results lowerReshape(NodeLowering &n) {
  return single(reshapeTo(n.builder, n.getLoc(), n.operands[0],
                          n.getResultType()));
}

Results lowerIdentity(NodeLowering &n) {
  SmallVector<Value> results = {n.operands[0]};
  // Dropout's optional mask output: all true in inference.
  if (n.node.getOutputs().size() > 1 && !n.node.getOutputs()[1].use_empty()) {
    auto maskType = cast<RankedTensorType>(n.node.getOutputs()[1].getType());
    results.push_back(filled(n.builder, n.getLoc(), maskType, 1));
  }
  return results;
}

Results lowerTranspose(NodeLowering &n) {
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  SmallVector<int64_t> perm;
  if (auto attr = n.getInts("perm"))
    perm = *attr;
  else
    for (int64_t d = type.getRank() - 1; d >= 0; --d)
      perm.push_back(d);
  return single(linalg::TransposeOp::create(
                    n.builder, n.getLoc(), n.operands[0],
                    emptyTensor(n.builder, n.getLoc(), n.getResultType()), perm)
                    .getResult()[0]);
}

Results lowerConcat(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  RankedTensorType outType = n.getResultType();
  int64_t axis = normalizeAxis(n.getInt("axis", 0), outType.getRank());
  Value result = emptyTensor(b, loc, outType);
  int64_t offset = 0;
  for (Value input : n.operands) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<OpFoldResult> offsets(outType.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes, strides(outType.getRank(),
                                             b.getIndexAttr(1));
    for (int64_t d = 0; d < type.getRank(); ++d)
      sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
    offsets[axis] = b.getIndexAttr(offset);
    offset += type.getDimSize(axis);
    if (type.getDimSize(axis) == 0)
      continue;
    result = tensor::InsertSliceOp::create(b, loc, input, result, offsets,
                                           sizes, strides);
  }
  return single(result);
}

/// Slice with compile-time starts/ends/axes/steps (inputs from opset 10,
/// attributes before); negative steps are not lowered.
Results lowerSlice(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  int64_t rank = type.getRank();
  std::optional<SmallVector<int64_t>> starts, ends, axes, steps;
  if (n.getInts("starts")) {
    starts = n.getInts("starts");
    ends = n.getInts("ends");
    axes = n.getInts("axes");
  } else {
    starts = n.getConstantInts(1);
    ends = n.getConstantInts(2);
    axes = n.hasOperand(3) ? n.getConstantInts(3) : std::nullopt;
    steps = n.hasOperand(4) ? n.getConstantInts(4) : std::nullopt;
    if ((n.hasOperand(3) && !axes) || (n.hasOperand(4) && !steps))
      return n.fail("axes and steps must be compile-time constants");
  }
  if (!starts || !ends || starts->size() != ends->size())
    return n.fail("starts and ends must be compile-time constants of one length");
  if (!axes) {
    axes.emplace();
    for (size_t i = 0; i < starts->size(); ++i)
      axes->push_back(i);
  }
  if (!steps)
    steps = SmallVector<int64_t>(starts->size(), 1);
  SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape()),
      strides(rank, 1);
  for (size_t i = 0; i < starts->size(); ++i) {
    int64_t axis = normalizeAxis((*axes)[i], rank);
    if (axis < 0 || axis >= rank)
      return n.fail("axis out of range");
    int64_t step = (*steps)[i], dim = type.getDimSize(axis);
    if (step == 0)
      return n.fail("slice steps must not be zero");
    // ONNX clamps a backward slice's start to [0, dim - 1] and its end to
    // [-1, dim - 1] (-1: through index 0).
    int64_t low = step > 0 ? 0 : -1, high = step > 0 ? dim : dim - 1;
    auto clampIndex = [&](int64_t v, int64_t lowest) {
      if (v < 0)
        v += dim;
      return std::clamp<int64_t>(v, lowest, high);
    };
    int64_t start = clampIndex((*starts)[i], 0);
    int64_t end = clampIndex((*ends)[i], low);
    int64_t span = step > 0 ? end - start : start - end;
    int64_t magnitude = step > 0 ? step : -step;
    offsets[axis] = start;
    sizes[axis] = span > 0 ? (span + magnitude - 1) / magnitude : 0;
    strides[axis] = step;
  }
  RankedTensorType outType = n.getResultType();
  if (SmallVector<int64_t>(outType.getShape()) != sizes)
    return n.fail("the slice does not match the node's output shape");
  if (llvm::all_of(strides, [](int64_t step) { return step > 0; }))
    return single(tensor::ExtractSliceOp::create(
        b, loc, outType, n.operands[0], ValueRange{}, ValueRange{},
        ValueRange{}, offsets, sizes, strides));
  // Backward steps: a copy reading input index offset + i * step.
  MLIRContext *context = b.getContext();
  SmallVector<AffineExpr> read;
  for (int64_t d = 0; d < rank; ++d)
    read.push_back(getAffineDimExpr(d, context) * strides[d] + offsets[d]);
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, read, context),
      AffineMap::getMultiDimIdentityMap(rank, context)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return single(linalg::GenericOp::create(
                    b, loc, TypeRange{outType}, ValueRange{n.operands[0]},
                    ValueRange{emptyTensor(b, loc, outType)}, maps, iterators,
                    [](OpBuilder &nb, Location l, ValueRange args) {
                      linalg::YieldOp::create(nb, l, args[0]);
                    })
                    .getResult(0));
}

Results lowerSplit(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  int64_t axis = normalizeAxis(n.getInt("axis", 0), type.getRank());
  if (axis < 0 || axis >= type.getRank())
    return n.fail("axis out of range");
  SmallVector<Value> results;
  int64_t offset = 0;
  for (Value output : n.node.getOutputs()) {
    auto outType = cast<RankedTensorType>(output.getType());
    SmallVector<int64_t> offsets(type.getRank(), 0),
        strides(type.getRank(), 1);
    offsets[axis] = offset;
    offset += outType.getDimSize(axis);
    results.push_back(tensor::ExtractSliceOp::create(
        b, loc, outType, n.operands[0], ValueRange{}, ValueRange{},
        ValueRange{}, offsets, outType.getShape(), strides));
  }
  if (offset != type.getDimSize(axis))
    return n.fail("the outputs do not cover the split axis");
  return results;
}

/// Gather along `axis` with runtime indices (negative ones wrap).
Results lowerGather(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value data = n.operands[0], indices = n.operands[1];
  auto dataType = cast<RankedTensorType>(data.getType());
  auto indexType = cast<RankedTensorType>(indices.getType());
  RankedTensorType outType = n.getResultType();
  int64_t axis = normalizeAxis(n.getInt("axis", 0), dataType.getRank());
  if (axis < 0 || axis >= dataType.getRank())
    return n.fail("axis out of range");
  MLIRContext *context = b.getContext();
  int64_t indexRank = indexType.getRank();
  SmallVector<AffineExpr> indexExprs;
  for (int64_t i = 0; i < indexRank; ++i)
    indexExprs.push_back(getAffineDimExpr(axis + i, context));
  SmallVector<AffineMap> maps = {
      AffineMap::get(outType.getRank(), 0, indexExprs, context),
      AffineMap::getMultiDimIdentityMap(outType.getRank(), context)};
  SmallVector<utils::IteratorType> iterators(outType.getRank(),
                                             utils::IteratorType::parallel);
  int64_t extent = dataType.getDimSize(axis);
  if (extent == 0 && outType.getNumElements() > 0)
    return n.fail("gathers from an empty axis");
  return single(
      linalg::GenericOp::create(
          b, loc, TypeRange{outType}, ValueRange{indices},
          ValueRange{emptyTensor(b, loc, outType)}, maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value index = arith::IndexCastOp::create(nb, l, nb.getIndexType(),
                                                     args[0]);
            Value zero = arith::ConstantIndexOp::create(nb, l, 0);
            Value wrapped = arith::AddIOp::create(
                nb, l, index, arith::ConstantIndexOp::create(nb, l, extent));
            Value negative = arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::slt, index, zero);
            index = arith::SelectOp::create(nb, l, negative, wrapped, index);
            // Indices come from the program's inputs (token ids): one out
            // of range must not read outside the tensor. ONNX calls it an
            // error; it reads the nearest row instead (docs/Execution.md).
            index = arith::MaxSIOp::create(
                nb, l,
                arith::MinSIOp::create(
                    nb, l, index,
                    arith::ConstantIndexOp::create(nb, l, extent - 1)),
                zero);
            SmallVector<Value> coords;
            for (int64_t d = 0; d < axis; ++d)
              coords.push_back(linalg::IndexOp::create(nb, l, d));
            coords.push_back(index);
            for (int64_t d = axis + 1; d < dataType.getRank(); ++d)
              coords.push_back(
                  linalg::IndexOp::create(nb, l, d - 1 + indexRank));
            linalg::YieldOp::create(
                nb, l, Value(tensor::ExtractOp::create(nb, l, data, coords)));
          })
          .getResult(0));
}

Results lowerExpand(NodeLowering &n) {
  if (failed(checkBroadcast(n, n.operands[0], n.getResultType(),
                            /*exact=*/false)))
    return failure();
  return single(elementwise(n.builder, n.getLoc(), {n.operands[0]},
                            n.getResultType(),
                            [](OpBuilder &, Location, ValueRange args) {
                              return args[0];
                            }));
}

/// The input index that output index `i` reads for edge or reflect
/// padding of a dimension of size `dim` padded by `low` in front.
Value sourceIndex(OpBuilder &b, Location loc, Value i, int64_t low,
                  int64_t dim, StringRef mode) {
  auto index = [&](int64_t v) {
    return Value(arith::ConstantIndexOp::create(b, loc, v));
  };
  Value zero = index(0), last = index(dim - 1);
  Value j = arith::SubIOp::create(b, loc, i, index(low));
  if (mode == "edge")
    return arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, j, zero), last);
  // reflect: -j before the start, 2 (dim - 1) - j past the end.
  Value before =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j, zero);
  j = arith::SelectOp::create(b, loc, before,
                              arith::SubIOp::create(b, loc, zero, j), j);
  Value after =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, j, last);
  return arith::SelectOp::create(
      b, loc, after,
      arith::SubIOp::create(b, loc, index(2 * (dim - 1)), j), j);
}

Results lowerPad(NodeLowering &n) {
  StringRef mode = n.getString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return n.fail("unknown pad mode '" + mode + "'");
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  std::optional<SmallVector<int64_t>> pads =
      n.getInts("pads") ? n.getInts("pads") : n.getConstantInts(1);
  if (!pads || pads->size() != 2 * static_cast<size_t>(type.getRank()))
    return n.fail("pads must be a compile-time constant with 2 x rank values");
  if (n.hasOperand(3))
    return n.fail("the axes input of Pad is not lowered");
  double value = n.getFloat("value", 0.0f);
  if (n.hasOperand(2)) {
    std::optional<double> constant = n.getConstantScalar(2);
    if (!constant)
      return n.fail("constant_value must be a compile-time constant");
    value = *constant;
  }
  if (llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return n.fail("negative pads are not lowered");
  int64_t rank = type.getRank();
  ArrayRef<int64_t> all(*pads);
  if (mode == "constant")
    // padSpatial pads the trailing dimensions it is given: give all of them.
    return single(padSpatial(n.builder, n.getLoc(), n.operands[0],
                             all.take_front(rank), all.drop_front(rank),
                             value));
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = type.getDimSize(d);
    if (dim == 0 && (all[d] || all[rank + d]))
      return n.fail("cannot pad an empty dimension in " + mode + " mode");
    if (mode == "reflect" && (all[d] >= dim || all[rank + d] >= dim))
      return n.fail("reflect padding must be smaller than the dimension");
  }
  // Each output element reads the input at its edge or reflected index.
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  RankedTensorType outType = n.getResultType();
  Value input = n.operands[0];
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return single(
      linalg::GenericOp::create(
          b, loc, TypeRange{outType}, ValueRange{},
          ValueRange{emptyTensor(b, loc, outType)},
          SmallVector<AffineMap>{
              AffineMap::getMultiDimIdentityMap(rank, b.getContext())},
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange) {
            SmallVector<Value> indices;
            for (int64_t d = 0; d < rank; ++d)
              indices.push_back(sourceIndex(
                  nb, l, linalg::IndexOp::create(nb, l, d), all[d],
                  type.getDimSize(d), mode));
            linalg::YieldOp::create(
                nb, l, Value(tensor::ExtractOp::create(nb, l, input, indices)));
          })
          .getResult(0));
}

//===----------------------------------------------------------------------===//
// Compile-time values
//===----------------------------------------------------------------------===//

Value denseConstant(OpBuilder &b, Location loc, RankedTensorType type,
                    ArrayRef<int64_t> values) {
  SmallVector<APInt> ints;
  for (int64_t v : values)
    ints.push_back(APInt(type.getElementTypeBitWidth(), v, /*isSigned=*/true));
  return arith::ConstantOp::create(b, loc, DenseIntElementsAttr::get(type, ints));
}

Results lowerShape(NodeLowering &n) {
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  int64_t rank = type.getRank();
  int64_t start = std::clamp<int64_t>(normalizeAxis(n.getInt("start", 0), rank),
                                      0, rank);
  int64_t end = std::clamp<int64_t>(
      normalizeAxis(n.getInt("end", rank), rank), 0, rank);
  SmallVector<int64_t> dims(type.getShape().slice(
      start, std::max<int64_t>(0, end - start)));
  return single(denseConstant(n.builder, n.getLoc(), n.getResultType(), dims));
}

Results lowerSize(NodeLowering &n) {
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  return single(denseConstant(n.builder, n.getLoc(), n.getResultType(),
                              {type.getNumElements()}));
}

Results lowerConstantNode(NodeLowering &n) {
  if (auto value = n.node.getAttrs().getAs<ElementsAttr>("value"))
    if (value.getType() == n.getResultType())
      return single(arith::ConstantOp::create(n.builder, n.getLoc(),
                                              cast<TypedAttr>(value)));
  return n.fail("only tensor-valued Constant nodes are lowered");
}

Results lowerConstantOfShape(NodeLowering &n) {
  double value = 0;
  if (auto attr = n.node.getAttrs().getAs<DenseElementsAttr>("value")) {
    std::optional<double> single = getSingleValue(attr);
    if (!single)
      return n.fail("value must hold one number");
    value = *single;
  }
  return single(filled(n.builder, n.getLoc(), n.getResultType(), value));
}

Results lowerRange(NodeLowering &n) {
  RankedTensorType outType = n.getResultType();
  std::optional<double> start = n.getConstantScalar(0),
                        delta = n.getConstantScalar(2);
  if (!start || !delta)
    return n.fail("start and delta must be compile-time constants");
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Type element = outType.getElementType();
  return single(
      linalg::GenericOp::create(
          b, loc, TypeRange{outType}, ValueRange{},
          ValueRange{emptyTensor(b, loc, outType)},
          SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(1, b.getContext())},
          SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
          [&](OpBuilder &nb, Location l, ValueRange) {
            Value i = arith::IndexCastOp::create(nb, l, nb.getI64Type(),
                                                 linalg::IndexOp::create(nb, l, 0));
            Value v;
            if (isa<FloatType>(element)) {
              Value fi = arith::SIToFPOp::create(nb, l, element, i);
              v = arith::AddFOp::create(
                  nb, l, scalarConstant(nb, l, element, *start),
                  arith::MulFOp::create(nb, l, fi,
                                        scalarConstant(nb, l, element, *delta)));
            } else {
              Value wide = arith::AddIOp::create(
                  nb, l, scalarConstant(nb, l, nb.getI64Type(), *start),
                  arith::MulIOp::create(
                      nb, l, i, scalarConstant(nb, l, nb.getI64Type(), *delta)));
              v = castScalar(nb, l, wide, element);
            }
            linalg::YieldOp::create(nb, l, v);
          })
          .getResult(0));
}

} // namespace

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

const llvm::StringMap<LoweringFn> &placer::getNodeLowerings() {
  static const llvm::StringMap<LoweringFn> table = {
      // Elementwise arithmetic (numpy broadcasting).
      {"Add", lowerElementwise<binary<arith::AddFOp, arith::AddIOp>>},
      {"Sub", lowerElementwise<binary<arith::SubFOp, arith::SubIOp>>},
      {"Mul", lowerElementwise<binary<arith::MulFOp, arith::MulIOp>>},
      {"Div", lowerElementwise<binary<arith::DivFOp, arith::DivSIOp>>},
      {"Pow", lowerElementwise<power>},
      {"Max", lowerElementwise<variadic<arith::MaximumFOp, arith::MaxSIOp>>},
      {"Min", lowerElementwise<variadic<arith::MinimumFOp, arith::MinSIOp>>},
      {"Sum", lowerElementwise<variadic<arith::AddFOp, arith::AddIOp>>},
      {"Mean", lowerElementwise<variadic<arith::AddFOp, arith::AddIOp, true>>},
      // Activations and math.
      {"Relu", lowerElementwise<relu>},
      {"LeakyRelu", lowerElementwise<leakyRelu>},
      {"Sigmoid", lowerElementwise<sigmoid>},
      {"HardSigmoid", lowerElementwise<hardSigmoid>},
      {"HardSwish", lowerElementwise<hardSwish>},
      {"Gelu", lowerElementwise<gelu>},
      {"Tanh", lowerElementwise<unaryFloat<math::TanhOp>>},
      {"Erf", lowerElementwise<unaryFloat<math::ErfOp>>},
      {"Exp", lowerElementwise<unaryFloat<math::ExpOp>>},
      {"Log", lowerElementwise<unaryFloat<math::LogOp>>},
      {"Sqrt", lowerElementwise<unaryFloat<math::SqrtOp>>},
      {"Abs", lowerElementwise<unaryFloat<math::AbsFOp>>},
      {"Neg", lowerElementwise<unaryFloat<arith::NegFOp>>},
      {"Floor", lowerElementwise<unaryFloat<math::FloorOp>>},
      {"Ceil", lowerElementwise<unaryFloat<math::CeilOp>>},
      {"Reciprocal", lowerElementwise<reciprocal>},
      {"Clip", lowerElementwise<clip>},
      // Comparisons, selection, casts.
      {"Equal", lowerElementwise<compare<arith::CmpFPredicate::OEQ,
                                         arith::CmpIPredicate::eq>>},
      {"Less", lowerElementwise<compare<arith::CmpFPredicate::OLT,
                                        arith::CmpIPredicate::slt>>},
      {"Greater", lowerElementwise<compare<arith::CmpFPredicate::OGT,
                                           arith::CmpIPredicate::sgt>>},
      {"LessOrEqual", lowerElementwise<compare<arith::CmpFPredicate::OLE,
                                               arith::CmpIPredicate::sle>>},
      {"GreaterOrEqual", lowerElementwise<compare<arith::CmpFPredicate::OGE,
                                                  arith::CmpIPredicate::sge>>},
      {"Not", lowerElementwise<logicalNot>},
      {"Where", lowerElementwise<where>},
      {"Cast", lowerElementwise<castElement>},
      // Contractions, convolution, pooling.
      {"MatMul", lowerMatMul},
      {"Gemm", lowerGemm},
      {"Einsum", lowerEinsum},
      {"Conv", lowerConv},
      {"MaxPool", lowerPool<true>},
      {"AveragePool", lowerPool<false>},
      {"GlobalAveragePool", lowerGlobalPool<false>},
      {"GlobalMaxPool", lowerGlobalPool<true>},
      // Reductions and normalizations.
      {"ReduceSum", lowerReduce<ReduceKind::Sum>},
      {"ReduceMean", lowerReduce<ReduceKind::Mean>},
      {"ReduceMax", lowerReduce<ReduceKind::Max>},
      {"ReduceMin", lowerReduce<ReduceKind::Min>},
      {"ReduceSumSquare", lowerReduce<ReduceKind::SumSquare>},
      {"ReduceL2", lowerReduce<ReduceKind::L2>},
      {"Softmax", lowerSoftmax<false>},
      {"LogSoftmax", lowerSoftmax<true>},
      {"LayerNormalization", lowerLayerNorm},
      {"BatchNormalization", lowerBatchNorm},
      // Data movement.
      {"Identity", lowerIdentity},
      {"Dropout", lowerIdentity},
      {"Reshape", lowerReshape},
      {"Flatten", lowerReshape},
      {"Squeeze", lowerReshape},
      {"Unsqueeze", lowerReshape},
      {"Transpose", lowerTranspose},
      {"Concat", lowerConcat},
      {"Slice", lowerSlice},
      {"Split", lowerSplit},
      {"Gather", lowerGather},
      {"Expand", lowerExpand},
      {"Pad", lowerPad},
      // Compile-time values.
      {"Shape", lowerShape},
      {"Size", lowerSize},
      {"Constant", lowerConstantNode},
      {"ConstantOfShape", lowerConstantOfShape},
      {"Range", lowerRange},
  };
  return table;
}
