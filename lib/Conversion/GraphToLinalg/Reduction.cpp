//===- Reduction.cpp - Reduce* ops ----------------------------------------===//
//
// Reduce* ops: linalg.reduce over the reduced axes.
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
// Reduce*
//===----------------------------------------------------------------------===//

/// The shape `shape` keeps with `axes` reduced to size 1.
SmallVector<int64_t> keptShape(ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> axes) {
  SmallVector<int64_t> kept(shape);
  for (int64_t a : axes)
    kept[a] = 1;
  return kept;
}

/// The axes sets a Reduce* node may reduce. One set when the attribute or a
/// constant input gives the axes (none: all axes, or none at all with
/// noop_with_empty_axes). Axes known only at run time: every set the static
/// input and output shapes allow, each keyed by its bit mask, and the run
/// time mask of the axes input to pick one by.
struct AxesChoice {
  SmallVector<SmallVector<int64_t>> sets;
  SmallVector<int64_t> masks;
  Value runtimeMask;
};

FailureOr<SmallVector<int64_t>>
normalizeAxes(NodeLowering &n, ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t a : axes) {
    a = normalizeAxis(a, rank);
    if (a < 0 || a >= rank)
      return n.fail("axis out of range");
    if (!llvm::is_contained(result, a))
      result.push_back(a);
  }
  llvm::sort(result);
  return result;
}

/// The sets of `count` axes whose removal (keepdims = 0) or reduction to
/// size 1 (keepdims = 1) turns `in` into `out`.
SmallVector<SmallVector<int64_t>> axesSetsFor(ArrayRef<int64_t> in,
                                              ArrayRef<int64_t> out,
                                              int64_t count, bool keepDims) {
  SmallVector<SmallVector<int64_t>> sets;
  int64_t rank = in.size();
  if (keepDims) {
    // Reducing a size-1 axis changes nothing: the axes whose size changes
    // are the only set that matters.
    SmallVector<int64_t> set;
    for (int64_t d = 0; d < rank; ++d)
      if (in[d] != out[d])
        set.push_back(d);
    sets.push_back(set);
    return sets;
  }
  for (uint64_t mask = 0; mask < (uint64_t(1) << rank); ++mask) {
    if (llvm::popcount(mask) != count)
      continue;
    SmallVector<int64_t> axes, rest;
    for (int64_t d = 0; d < rank; ++d) {
      if (mask >> d & 1)
        axes.push_back(d);
      else
        rest.push_back(in[d]);
    }
    if (ArrayRef<int64_t>(rest) == out)
      sets.push_back(axes);
  }
  return sets;
}

FailureOr<AxesChoice> reductionAxes(NodeLowering &n, RankedTensorType inType,
                                    RankedTensorType outType) {
  int64_t rank = inType.getRank();
  AxesChoice choice;
  std::optional<SmallVector<int64_t>> axes = n.getInts("axes");
  bool runtime = false;
  if (!axes && n.hasOperand(1)) {
    axes = n.getConstantInts(1);
    auto axesType = cast<RankedTensorType>(n.operands[1].getType());
    if (!axes && axesType.getNumElements() == 0)
      axes.emplace();
    runtime = !axes;
  }
  if (!runtime) {
    if (!axes || axes->empty()) {
      choice.sets.emplace_back();
      if (!n.getInt("noop_with_empty_axes", 0))
        for (int64_t d = 0; d < rank; ++d)
          choice.sets.back().push_back(d);
      return choice;
    }
    auto set = normalizeAxes(n, *axes, rank);
    if (failed(set))
      return failure();
    choice.sets.push_back(*set);
    return choice;
  }
  // Axes from the program's inputs: the static shapes tell which sets fit.
  bool keepDims = n.getInt("keepdims", 1);
  int64_t count =
      cast<RankedTensorType>(n.operands[1].getType()).getNumElements();
  choice.sets =
      axesSetsFor(inType.getShape(), outType.getShape(), count, keepDims);
  if (choice.sets.empty())
    return n.fail("no set of " + Twine(count) +
                  " axes turns the input's shape into the output's");
  if (choice.sets.size() == 1)
    return choice;
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value mask = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  Value one = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1));
  Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  Value rankValue =
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(rank));
  for (int64_t i = 0; i < count; ++i) {
    Value axis = extractI64(b, loc, n.operands[1], i);
    Value negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, axis, zero);
    axis = arith::SelectOp::create(
        b, loc, negative, arith::AddIOp::create(b, loc, axis, rankValue), axis);
    mask = arith::OrIOp::create(b, loc, mask,
                                arith::ShLIOp::create(b, loc, one, axis));
  }
  choice.runtimeMask = mask;
  for (const SmallVector<int64_t> &set : choice.sets) {
    int64_t key = 0;
    for (int64_t a : set)
      key |= int64_t(1) << a;
    choice.masks.push_back(key);
  }
  return choice;
}

enum class ReduceKind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  SumSquare,
  L1,
  L2,
  LogSum,
  LogSumExp
};

/// `input` reduced over `axes` with `kind`, in the shape of `outType`.
Value reduceAs(NodeLowering &n, Value input, ArrayRef<int64_t> axes,
               ReduceKind kind, RankedTensorType outType) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto inType = cast<RankedTensorType>(input.getType());
  Type element = inType.getElementType();
  bool floating = isFloat(element), isUnsigned = n.isUnsignedInput(0);
  if (axes.empty() && kind != ReduceKind::SumSquare && kind != ReduceKind::L1)
    return reshapeTo(b, loc, input, outType);
  auto keptType =
      RankedTensorType::get(keptShape(inType.getShape(), axes), element);
  auto map = [&](Value x, BodyFn body) {
    return elementwise(b, loc, x, cast<RankedTensorType>(x.getType()), body);
  };
  Value max;
  if (kind == ReduceKind::SumSquare || kind == ReduceKind::L2)
    input = map(input, [&](OpBuilder &nb, Location l, ValueRange args) {
      return floating ? Value(arith::MulFOp::create(nb, l, args[0], args[0]))
                      : Value(arith::MulIOp::create(nb, l, args[0], args[0]));
    });
  if (kind == ReduceKind::L1)
    input = map(input, [&](OpBuilder &nb, Location l, ValueRange args) {
      return floating ? Value(math::AbsFOp::create(nb, l, args[0]))
                      : Value(math::AbsIOp::create(nb, l, args[0]));
    });
  if (kind == ReduceKind::LogSumExp) {
    // exp(x - max) keeps the sum finite; the max is added back after log.
    max = reshapeTo(
        b, loc,
        reduce(b, loc, input, axes, -std::numeric_limits<double>::infinity(),
               [](OpBuilder &nb, Location l, Value x, Value acc) {
                 return Value(arith::MaximumFOp::create(nb, l, x, acc));
               }),
        keptType);
    input = elementwise(
        b, loc, {input, max}, inType,
        [](OpBuilder &nb, Location l, ValueRange args) {
          return Value(math::ExpOp::create(
              nb, l, arith::SubFOp::create(nb, l, args[0], args[1])));
        });
  }
  if (axes.empty())
    return reshapeTo(b, loc, input, outType);
  double inf = std::numeric_limits<double>::infinity();
  Value init;
  if (kind == ReduceKind::Max)
    init = isUnsigned ? scalarConstant(b, loc, element, 0)
                      : scalarConstant(b, loc, element, -inf);
  else if (kind == ReduceKind::Min)
    init = isUnsigned
               ? Value(arith::ConstantOp::create(
                     b, loc,
                     b.getIntegerAttr(
                         element,
                         APInt::getMaxValue(element.getIntOrFloatBitWidth()))))
               : scalarConstant(b, loc, element, inf);
  else
    init = scalarConstant(b, loc, element, kind == ReduceKind::Prod ? 1 : 0);
  Value reduced = reduce(
      b, loc, input, axes, init,
      [&](OpBuilder &nb, Location l, Value x, Value acc) -> Value {
        switch (kind) {
        case ReduceKind::Max:
          if (floating)
            return arith::MaximumFOp::create(nb, l, x, acc);
          return isUnsigned ? Value(arith::MaxUIOp::create(nb, l, x, acc))
                            : Value(arith::MaxSIOp::create(nb, l, x, acc));
        case ReduceKind::Min:
          if (floating)
            return arith::MinimumFOp::create(nb, l, x, acc);
          return isUnsigned ? Value(arith::MinUIOp::create(nb, l, x, acc))
                            : Value(arith::MinSIOp::create(nb, l, x, acc));
        case ReduceKind::Prod:
          return floating ? Value(arith::MulFOp::create(nb, l, x, acc))
                          : Value(arith::MulIOp::create(nb, l, x, acc));
        default:
          return floating ? Value(arith::AddFOp::create(nb, l, x, acc))
                          : Value(arith::AddIOp::create(nb, l, x, acc));
        }
      });
  int64_t count = 1;
  for (int64_t a : axes)
    count *= inType.getDimSize(a);
  Value result = reshapeTo(b, loc, reduced, keptType);
  SmallVector<Value> inputs = {result};
  if (max)
    inputs.push_back(max);
  switch (kind) {
  case ReduceKind::Mean:
  case ReduceKind::L2:
  case ReduceKind::LogSum:
  case ReduceKind::LogSumExp:
    result = elementwise(
        b, loc, inputs, keptType,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          if (kind == ReduceKind::L2)
            return floating ? Value(math::SqrtOp::create(nb, l, args[0]))
                            : castScalar(nb, l,
                                         math::SqrtOp::create(
                                             nb, l,
                                             castScalar(nb, l, args[0],
                                                        nb.getF64Type())),
                                         element);
          if (kind == ReduceKind::LogSum)
            return math::LogOp::create(nb, l, args[0]);
          if (kind == ReduceKind::LogSumExp)
            return arith::AddFOp::create(
                nb, l, math::LogOp::create(nb, l, args[0]), args[1]);
          if (floating)
            return arith::DivFOp::create(nb, l, args[0],
                                         scalarConstant(nb, l, element, count));
          return arith::DivSIOp::create(nb, l, args[0],
                                        scalarConstant(nb, l, element, count));
        });
    break;
  default:
    break;
  }
  return reshapeTo(b, loc, result, outType);
}

template <ReduceKind Kind> Results lowerReduce(NodeLowering &n) {
  auto inType = cast<RankedTensorType>(n.operands[0].getType());
  RankedTensorType outType = n.getResultType();
  auto choice = reductionAxes(n, inType, outType);
  if (failed(choice))
    return failure();
  if (!isFloat(outType) &&
      (Kind == ReduceKind::LogSum || Kind == ReduceKind::LogSumExp))
    return n.fail("log reductions need floating-point inputs");
  SmallVector<Value> candidates;
  for (const SmallVector<int64_t> &axes : choice->sets)
    candidates.push_back(reduceAs(n, n.operands[0], axes, Kind, outType));
  if (candidates.size() == 1)
    return single(candidates.front());
  return single(selectByKey(n.builder, n.getLoc(), choice->runtimeMask,
                            choice->masks, candidates));
}

//===----------------------------------------------------------------------===//
// ArgMax, ArgMin, Hardmax, TopK, CumSum
//===----------------------------------------------------------------------===//

/// Whether `x` beats `best` (strictly, or also on ties to keep the last).
Value beats(OpBuilder &b, Location loc, Value x, Value best, bool isMax,
            bool orEqual, bool isUnsigned) {
  if (isFloat(x.getType())) {
    using P = arith::CmpFPredicate;
    P p = isMax ? (orEqual ? P::OGE : P::OGT) : (orEqual ? P::OLE : P::OLT);
    return arith::CmpFOp::create(b, loc, p, x, best);
  }
  using P = arith::CmpIPredicate;
  P p =
      isUnsigned
          ? (isMax ? (orEqual ? P::uge : P::ugt) : (orEqual ? P::ule : P::ult))
          : (isMax ? (orEqual ? P::sge : P::sgt) : (orEqual ? P::sle : P::slt));
  return arith::CmpIOp::create(b, loc, p, x, best);
}

/// The index (i64) of the largest or smallest element along `axis`, in the
/// input's shape with `axis` of size 1: the first one on ties, or the last.
Value argExtreme(NodeLowering &n, Value input, int64_t axis, bool isMax,
                 bool last) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  MLIRContext *context = b.getContext();
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = 1;
  auto valueType = RankedTensorType::get(shape, type.getElementType());
  auto indexType = RankedTensorType::get(shape, b.getI64Type());
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(d == axis ? getAffineConstantExpr(0, context)
                                 : getAffineDimExpr(d, context));
  AffineMap outMap = AffineMap::get(rank, 0, outExprs, context);
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, context), outMap, outMap};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[axis] = utils::IteratorType::reduction;
  double inf = std::numeric_limits<double>::infinity();
  bool isUnsigned = n.isUnsignedInput(0);
  Value start =
      isUnsigned && isMax
          ? scalarConstant(b, loc, type.getElementType(), 0)
          : scalarConstant(b, loc, type.getElementType(), isMax ? -inf : inf);
  if (isUnsigned && !isMax)
    start = arith::ConstantOp::create(
        b, loc,
        b.getIntegerAttr(type.getElementType(),
                         APInt::getMaxValue(type.getElementTypeBitWidth())));
  Value valueInit =
      linalg::FillOp::create(b, loc, start, emptyTensor(b, loc, valueType))
          .getResult(0);
  Value indexInit = filled(b, loc, indexType, -1);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{valueType, indexType}, ValueRange{input},
      ValueRange{valueInit, indexInit}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value i = arith::IndexCastOp::create(
            nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, axis));
        // The first element always wins, so that an all -inf (or all
        // extreme) row still reports an index.
        Value first = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::slt, args[2],
            arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
        Value better = arith::OrIOp::create(
            nb, l, first,
            beats(nb, l, args[0], args[1], isMax, last, isUnsigned));
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, better, args[0], args[1]),
                       arith::SelectOp::create(nb, l, better, i, args[2])});
      });
  return generic.getResult(1);
}

template <bool IsMax> Results lowerArgExtreme(NodeLowering &n) {
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  int64_t axis = normalizeAxis(n.getInt("axis", 0), type.getRank());
  if (axis < 0 || axis >= type.getRank())
    return n.fail("axis out of range");
  Value index = argExtreme(n, n.operands[0], axis, IsMax,
                           n.getInt("select_last_index", 0));
  return single(reshapeTo(n.builder, n.getLoc(), index, n.getResultType()));
}

/// Hardmax: 1 at the first largest element along the axis (opset 13,
/// `modern`), or along the flattened [axis, rank) (before), 0 elsewhere.
template <bool modern> Results lowerHardmax(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  int64_t rank = type.getRank();
  int64_t axis = normalizeAxis(n.getInt("axis", modern ? -1 : 1), rank);
  if (axis < 0 || axis >= rank)
    return n.fail("axis out of range");
  Value input = n.operands[0];
  RankedTensorType workType = type;
  if (!modern) {
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d)
      (d < axis ? outer : inner) *= type.getDimSize(d);
    workType = RankedTensorType::get({outer, inner}, type.getElementType());
    input = reshapeTo(b, loc, input, workType);
    axis = 1;
  }
  Value index = argExtreme(n, input, axis, /*isMax=*/true, /*last=*/false);
  Type element = type.getElementType();
  Value result = elementwise(
      b, loc, index, workType, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value i = arith::IndexCastOp::create(
            nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, axis));
        Value hit =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, i, args[0]);
        return Value(arith::SelectOp::create(
            nb, l, hit, scalarConstant(nb, l, element, 1),
            scalarConstant(nb, l, element, 0)));
      });
  return single(reshapeTo(b, loc, result, type));
}

/// TopK: the k largest (or smallest) elements along the axis and their
/// indices, ties broken by the lower index. Each element's place in the
/// order is counted (O(n^2) along the axis), then each output place takes
/// the element counted there.
Results lowerTopK(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  int64_t axis = normalizeAxis(n.getInt("axis", -1), rank);
  if (axis < 0 || axis >= rank)
    return n.fail("axis out of range");
  bool largest = n.getInt("largest", 1);
  bool isUnsigned = n.isUnsignedInput(0);
  RankedTensorType valuesType = n.getResultType(0);
  RankedTensorType indicesType = n.getResultType(1);
  MLIRContext *context = b.getContext();
  // place[i] = #{m : x[m] beats x[i], or ties it with m < i}.
  SmallVector<AffineExpr> atM;
  for (int64_t d = 0; d < rank; ++d)
    atM.push_back(getAffineDimExpr(d == axis ? rank : d, context));
  auto identity =
      AffineMap::getMultiDimIdentityMap(rank + 1, context).getMajorSubMap(rank);
  SmallVector<utils::IteratorType> iterators(rank + 1,
                                             utils::IteratorType::parallel);
  iterators[rank] = utils::IteratorType::reduction;
  auto placeType = RankedTensorType::get(type.getShape(), b.getI64Type());
  Value place =
      linalg::GenericOp::create(
          b, loc, TypeRange{placeType}, ValueRange{x, x},
          ValueRange{filled(b, loc, placeType, 0)},
          SmallVector<AffineMap>{
              identity, AffineMap::get(rank + 1, 0, atM, context), identity},
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value i = linalg::IndexOp::create(nb, l, axis);
            Value m = linalg::IndexOp::create(nb, l, rank);
            Value before =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, m, i);
            Value wins = arith::OrIOp::create(
                nb, l,
                beats(nb, l, args[1], args[0], largest, false, isUnsigned),
                arith::AndIOp::create(
                    nb, l, before,
                    isFloat(args[0].getType())
                        ? Value(arith::CmpFOp::create(nb, l,
                                                      arith::CmpFPredicate::OEQ,
                                                      args[1], args[0]))
                        : Value(arith::CmpIOp::create(nb, l,
                                                      arith::CmpIPredicate::eq,
                                                      args[1], args[0]))));
            Value count = arith::AddIOp::create(
                nb, l, args[2],
                arith::ExtUIOp::create(nb, l, nb.getI64Type(), wins));
            linalg::YieldOp::create(nb, l, count);
          })
          .getResult(0);
  // values[j], indices[j] = x[i], i for the i whose place is j.
  SmallVector<AffineExpr> readI;
  for (int64_t d = 0; d < rank; ++d)
    readI.push_back(getAffineDimExpr(d == axis ? rank : d, context));
  AffineMap readMap = AffineMap::get(rank + 1, 0, readI, context);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{valuesType, indicesType}, ValueRange{x, place},
      ValueRange{filled(b, loc, valuesType, 0), filled(b, loc, indicesType, 0)},
      SmallVector<AffineMap>{readMap, readMap, identity, identity}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value j = arith::IndexCastOp::create(
            nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, axis));
        Value i = arith::IndexCastOp::create(
            nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, rank));
        Value hit =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, args[1], j);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, hit, args[0], args[2]),
                       arith::SelectOp::create(nb, l, hit, i, args[3])});
      });
  return SmallVector<Value>{generic.getResult(0), generic.getResult(1)};
}

/// CumSum along one axis: out[i] sums x[k] for k <= i (k < i when
/// exclusive; k >= i, k > i when reversed), as a masked reduction loop.
Value cumulativeSum(NodeLowering &n, Value x, int64_t axis, bool exclusive,
                    bool reverse) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  MLIRContext *context = b.getContext();
  SmallVector<AffineExpr> readK;
  for (int64_t d = 0; d < rank; ++d)
    readK.push_back(getAffineDimExpr(d == axis ? rank : d, context));
  SmallVector<utils::IteratorType> iterators(rank + 1,
                                             utils::IteratorType::parallel);
  iterators[rank] = utils::IteratorType::reduction;
  auto identity =
      AffineMap::getMultiDimIdentityMap(rank + 1, context).getMajorSubMap(rank);
  // The reduction loop runs over the axis's extent: the loop bounds come
  // from the input read at k, so the axis loop i and k both span it.
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{x},
             ValueRange{filled(b, loc, type, 0)},
             SmallVector<AffineMap>{AffineMap::get(rank + 1, 0, readK, context),
                                    identity},
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value i = linalg::IndexOp::create(nb, l, axis);
               Value k = linalg::IndexOp::create(nb, l, rank);
               using P = arith::CmpIPredicate;
               P p = reverse ? (exclusive ? P::ugt : P::uge)
                             : (exclusive ? P::ult : P::ule);
               Value take = arith::CmpIOp::create(nb, l, p, k, i);
               Value sum =
                   isFloat(args[0].getType())
                       ? Value(arith::AddFOp::create(nb, l, args[1], args[0]))
                       : Value(arith::AddIOp::create(nb, l, args[1], args[0]));
               linalg::YieldOp::create(
                   nb, l,
                   Value(arith::SelectOp::create(nb, l, take, sum, args[1])));
             })
      .getResult(0);
}

Results lowerCumSum(NodeLowering &n) {
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  int64_t rank = type.getRank();
  bool exclusive = n.getInt("exclusive", 0), reverse = n.getInt("reverse", 0);
  if (auto axis = n.getConstantInts(1)) {
    if (axis->size() != 1)
      return n.fail("axis must hold one value");
    int64_t a = normalizeAxis(axis->front(), rank);
    if (a < 0 || a >= rank)
      return n.fail("axis out of range");
    return single(cumulativeSum(n, n.operands[0], a, exclusive, reverse));
  }
  // An axis known at run time: one scan per possible axis, picked by it.
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  SmallVector<Value> candidates;
  SmallVector<int64_t> keys;
  for (int64_t a = 0; a < rank; ++a) {
    candidates.push_back(
        cumulativeSum(n, n.operands[0], a, exclusive, reverse));
    keys.push_back(a);
  }
  Value axis = extractI64(b, loc, n.operands[1]);
  Value negative = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::slt, axis,
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0)));
  axis = arith::SelectOp::create(
      b, loc, negative,
      arith::AddIOp::create(
          b, loc, axis,
          arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(rank))),
      axis);
  return single(selectByKey(b, loc, axis, keys, candidates));
}

} // namespace

void placer::lowering::registerReductionOps(OpRegistry &r) {
  r.beginFamily(
      "Reductions",
      "`linalg.reduce` over the axes (attribute, or an input from opset 13/18; "
      "keepdims, noop_with_empty_axes), float or integer (signed, unsigned). "
      "Axes given at run time: the sets the static shapes allow are each "
      "reduced and the one matching the axes' bit mask is selected. "
      "ReduceLogSumExp subtracts the maximum before `exp`. ArgMax/ArgMin: one "
      "`linalg.generic` with value and index accumulators (select_last_index). "
      "Hardmax: ArgMax, then a comparison with the index. TopK: each "
      "element's place counted along the axis (O(n^2)), each output place "
      "takes its element. CumSum: a masked reduction loop (exclusive, "
      "reverse); an axis given at run time selects among one scan per axis.");
  r.add("ReduceSum", lowerReduce<ReduceKind::Sum>)
      .computesIn(CastPolicy::Float)
      .work(work::perInputElement(1))
      .backward(1.0)
      .gradient(gradients::reduceSum)
      .fuses(fusion::reduction)
      .carriesSplit(sharding::reduce<true>);
  r.add("ReduceMean", lowerReduce<ReduceKind::Mean>)
      .work(work::perInputElement(1))
      .backward(1.0)
      .gradient(gradients::reduceMean)
      .fuses(fusion::reduction)
      .carriesSplit(sharding::reduce<false>);
  r.add("ReduceMax", lowerReduce<ReduceKind::Max>)
      .work(work::perInputElement(1))
      .backward(1.0)
      .fuses(fusion::reduction)
      .carriesSplit(sharding::reduce<false>);
  r.add("ReduceMin", lowerReduce<ReduceKind::Min>)
      .work(work::perInputElement(1))
      .backward(1.0)
      .fuses(fusion::reduction)
      .carriesSplit(sharding::reduce<false>);
  r.add("ReduceProd", lowerReduce<ReduceKind::Prod>)
      .computesIn(CastPolicy::Float)
      .work(work::perInputElement(1))
      .fuses(fusion::reduction)
      .carriesSplit(sharding::reduce<false>);
  r.add("ReduceSumSquare", lowerReduce<ReduceKind::SumSquare>)
      .computesIn(CastPolicy::Float)
      .work(work::perInputElement(2))
      .backward(1.0)
      .fuses(fusion::reduction)
      .carriesSplit(sharding::reduce<true>);
  r.add("ReduceL1", lowerReduce<ReduceKind::L1>)
      .computesIn(CastPolicy::Float)
      .work(work::perInputElement(1))
      .fuses(fusion::reduction)
      .carriesSplit(sharding::reduce<true>);
  r.add("ReduceL2", lowerReduce<ReduceKind::L2>)
      .computesIn(CastPolicy::Float)
      .work(work::perInputElement(2))
      .backward(1.0)
      .fuses(fusion::reduction)
      .carriesSplit(sharding::reduce<false>);
  r.add("ReduceLogSum", lowerReduce<ReduceKind::LogSum>)
      .computesIn(CastPolicy::Float)
      .work(work::perInputElement(1))
      .fuses(fusion::reduction)
      .carriesSplit(sharding::reduce<false>);
  r.add("ReduceLogSumExp", lowerReduce<ReduceKind::LogSumExp>)
      .computesIn(CastPolicy::Float)
      .work(work::perInputElement(1))
      .fuses(fusion::reduction)
      .carriesSplit(sharding::reduce<false>);
  r.add("ArgMax", lowerArgExtreme<true>)
      .work(work::perInputElement(1))
      .backward(0.0);
  r.add("ArgMin", lowerArgExtreme<false>)
      .work(work::perInputElement(1))
      .backward(0.0);
  r.add("Hardmax", lowerHardmax<false>).work(work::perInputElement(5));
  r.add("Hardmax", lowerHardmax<true>, 13);
  r.add("TopK", lowerTopK).work(work::topK());
  r.add("CumSum", lowerCumSum)
      .computesIn(CastPolicy::Float)
      .work(work::perInputElement(1))
      .backward(1.0);
}
