//===- Utils.cpp - Building blocks shared by the op lowerings -------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Support/DebugStringHelper.h"

#include <cmath>

using namespace mlir;
using namespace placer;

namespace placer::lowering {

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange dynamicSizes) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynamicSizes);
}

SmallVector<Value> dynamicSizesOf(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, value, d));
  return sizes;
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  if (std::isinf(value)) {
    // The integer extremes stand for infinities (max/min identities).
    unsigned bits = type.getIntOrFloatBitWidth();
    APInt extreme = value > 0 ? APInt::getSignedMaxValue(bits)
                              : APInt::getSignedMinValue(bits);
    if (bits == 1)
      extreme = APInt(1, value > 0 ? 1 : 0);
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, extreme));
  }
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value filled(OpBuilder &b, Location loc, RankedTensorType type, double value,
             ValueRange dynamicSizes) {
  Value scalar = scalarConstant(b, loc, type.getElementType(), value);
  return linalg::FillOp::create(b, loc, scalar,
                                emptyTensor(b, loc, type, dynamicSizes))
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


/// An elementwise linalg.generic over `outType` reading broadcast inputs.
Value elementwise(OpBuilder &b, Location loc, ValueRange inputs,
                  RankedTensorType outType, BodyFn body) {
  // A dynamic output dim is an input's dynamic dim: ONNX inference names a
  // broadcast of two such dims only when they are the same symbol.
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < outType.getRank(); ++d) {
    if (!outType.isDynamicDim(d))
      continue;
    for (Value input : inputs) {
      auto type = cast<RankedTensorType>(input.getType());
      int64_t at = d - (outType.getRank() - type.getRank());
      if (at >= 0 && type.isDynamicDim(at)) {
        sizes.push_back(tensor::DimOp::create(b, loc, input, at));
        break;
      }
    }
  }
  return elementwise(b, loc, inputs, outType, sizes, body);
}

Value elementwise(OpBuilder &b, Location loc, ValueRange inputs,
                  RankedTensorType outType, ValueRange outDynamicSizes,
                  BodyFn body) {
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
             ValueRange{emptyTensor(b, loc, outType, outDynamicSizes)}, maps,
             iterators,
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
             double init, CombineFn combine) {
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  return reduce(b, loc, input, axes, scalarConstant(b, loc, element, init),
                combine);
}

Value reduce(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
             Value init, CombineFn combine) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> kept;
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (llvm::is_contained(axes, d))
      continue;
    kept.push_back(type.getDimSize(d));
    if (type.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, input, d));
  }
  // Half-precision inputs reduce in f32 and round once (getAccumulatorType).
  Type element = type.getElementType();
  Type acc = getAccumulatorType(element);
  if (acc != element)
    init = arith::ExtFOp::create(b, loc, acc, init);
  auto accType = RankedTensorType::get(kept, acc);
  Value initTensor =
      linalg::FillOp::create(b, loc, init, emptyTensor(b, loc, accType, sizes))
          .getResult(0);
  Value result =
      linalg::ReduceOp::create(
          b, loc, ValueRange{input}, ValueRange{initTensor}, axes,
          [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
            Value x = args[0];
            if (acc != element)
              x = arith::ExtFOp::create(nested, nestedLoc, acc, x);
            linalg::YieldOp::create(nested, nestedLoc,
                                    combine(nested, nestedLoc, x, args[1]));
          })
          .getResult(0);
  if (acc == element)
    return result;
  return elementwise(b, loc, result, RankedTensorType::get(kept, element),
                     sizes, [&](OpBuilder &nb, Location nloc, ValueRange args) {
                       return Value(
                           arith::TruncFOp::create(nb, nloc, element, args[0]));
                     });
}

/// reshapeTo with dynamic dims: collapse to 1-D, expand with the target's
/// sizes given at run time.
static Value reshapeDynamic(OpBuilder &b, Location loc, Value input,
                            RankedTensorType target,
                            ValueRange targetDynamicSizes) {
  auto type = cast<RankedTensorType>(input.getType());
  auto all = [](int64_t rank) {
    SmallVector<ReassociationIndices> groups(1);
    for (int64_t d = 0; d < rank; ++d)
      groups.back().push_back(d);
    return groups;
  };
  auto flatType =
      RankedTensorType::get({ShapedType::kDynamic}, type.getElementType());
  Value flat = type.getRank() == 1
                   ? Value(tensor::CastOp::create(b, loc, flatType, input))
                   : Value(tensor::CollapseShapeOp::create(
                         b, loc, flatType, input, all(type.getRank())));
  if (target.getRank() == 1)
    return tensor::CastOp::create(b, loc, target, flat);
  SmallVector<OpFoldResult> sizes;
  unsigned next = 0;
  for (int64_t d = 0; d < target.getRank(); ++d)
    sizes.push_back(target.isDynamicDim(d)
                        ? OpFoldResult(targetDynamicSizes[next++])
                        : OpFoldResult(b.getIndexAttr(target.getDimSize(d))));
  return tensor::ExpandShapeOp::create(b, loc, target, flat,
                                       all(target.getRank()), sizes);
}

/// Any static reshape with the same element count: collapse to 1-D, expand
/// to the target (both are views after bufferization).
Value reshapeTo(OpBuilder &b, Location loc, Value input,
                RankedTensorType target, ValueRange targetDynamicSizes) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type == target)
    return input;
  if (!type.hasStaticShape() || !target.hasStaticShape())
    return reshapeDynamic(b, loc, input, target, targetDynamicSizes);
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

Type getAccumulatorType(Type element) {
  if (element.isF16() || element.isBF16())
    return Float32Type::get(element.getContext());
  return element;
}

Value roundTo(OpBuilder &b, Location loc, Value value, Type element,
              ValueRange dynamicSizes) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == element)
    return value;
  return elementwise(b, loc, value, type.clone(element), dynamicSizes,
                     [&](OpBuilder &nb, Location nloc, ValueRange args) {
                       return Value(
                           arith::TruncFOp::create(nb, nloc, element, args[0]));
                     });
}

void multiplyAdd(OpBuilder &b, Location loc, ValueRange args) {
  if (!isFloat(args[2].getType())) {
    Value mul = arith::MulIOp::create(b, loc, args[0], args[1]);
    linalg::YieldOp::create(b, loc,
                            Value(arith::AddIOp::create(b, loc, args[2], mul)));
    return;
  }
  Type acc = args[2].getType();
  auto widen = [&](Value v) {
    return v.getType() == acc ? v
                              : Value(arith::ExtFOp::create(b, loc, acc, v));
  };
  Value mul = arith::MulFOp::create(b, loc, widen(args[0]), widen(args[1]));
  linalg::YieldOp::create(b, loc,
                          Value(arith::AddFOp::create(b, loc, args[2], mul)));
}

Value castScalar(OpBuilder &b, Location loc, Value value, Type to,
                 bool fromUnsigned, bool toUnsigned) {
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
  // Booleans are 0 or 1: unsigned.
  fromUnsigned |= from.isInteger(1);
  if (fromFloat)
    return toUnsigned ? Value(arith::FPToUIOp::create(b, loc, to, value))
                      : Value(arith::FPToSIOp::create(b, loc, to, value));
  if (toFloat)
    return fromUnsigned ? Value(arith::UIToFPOp::create(b, loc, to, value))
                        : Value(arith::SIToFPOp::create(b, loc, to, value));
  unsigned fromBits = from.getIntOrFloatBitWidth(),
           toBits = to.getIntOrFloatBitWidth();
  if (toBits > fromBits)
    return fromUnsigned ? Value(arith::ExtUIOp::create(b, loc, to, value))
                        : Value(arith::ExtSIOp::create(b, loc, to, value));
  return arith::TruncIOp::create(b, loc, to, value);
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

DenseIntElementsAttr i64Elements(OpBuilder &b, ArrayRef<int64_t> values) {
  return DenseIntElementsAttr::get(
      RankedTensorType::get({static_cast<int64_t>(values.size())},
                            b.getI64Type()),
      values);
}

SmallVector<Value> buildFor(OpBuilder &b, Location loc, Value lo, Value hi,
                            ValueRange init, LoopBodyFn body) {
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, arith::ConstantIndexOp::create(b, loc, 1), init,
      [&](OpBuilder &lb, Location l, Value iv, ValueRange carried) {
        scf::YieldOp::create(lb, l, body(lb, l, iv, carried));
      });
  return SmallVector<Value>(loop.getResults());
}

Value boundedIndex(OpBuilder &b, Location loc, Value raw, int64_t extent) {
  auto constant = [&](int64_t v) {
    return Value(arith::ConstantIndexOp::create(b, loc, v));
  };
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                       castScalar(b, loc, raw, b.getI64Type()));
  Value zero = constant(0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(
      b, loc, negative, arith::AddIOp::create(b, loc, i, constant(extent)), i);
  return arith::MaxSIOp::create(
      b, loc, arith::MinSIOp::create(b, loc, i, constant(extent - 1)), zero);
}

Value insertRow(OpBuilder &b, Location loc, Value row, Value stacked,
                Value at) {
  auto type = cast<RankedTensorType>(stacked.getType());
  SmallVector<int64_t> rowShape(type.getShape());
  rowShape[0] = 1;
  Value lifted =
      reshapeTo(b, loc, row, RankedTensorType::get(rowShape, type.getElementType()));
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, ones(type.getRank(), b.getIndexAttr(1));
  offsets[0] = at;
  for (int64_t size : rowShape)
    sizes.push_back(b.getIndexAttr(size));
  return tensor::InsertSliceOp::create(b, loc, lifted, stacked, offsets, sizes,
                                       ones);
}

Value extractScalar(OpBuilder &b, Location loc, Value tensor, Type to,
                    int64_t position, bool isUnsigned) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> indices;
  for (int64_t d = 0; d < type.getRank(); ++d)
    indices.push_back(arith::ConstantIndexOp::create(
        b, loc, d + 1 == type.getRank() ? position : 0));
  Value element = tensor::ExtractOp::create(b, loc, tensor, indices);
  return castScalar(b, loc, element, to, isUnsigned);
}

Value extractI64(OpBuilder &b, Location loc, Value tensor, int64_t position) {
  return extractScalar(b, loc, tensor, b.getI64Type(), position);
}

Value selectByKey(OpBuilder &b, Location loc, Value key, ArrayRef<int64_t> keys,
                  ArrayRef<Value> candidates) {
  if (candidates.size() == 1)
    return candidates.front();
  SmallVector<Value> matches;
  for (int64_t k : keys.drop_back())
    matches.push_back(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, key,
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(k))));
  auto type = cast<RankedTensorType>(candidates.front().getType());
  return elementwise(b, loc, candidates, type,
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       Value result = args.back();
                       for (int64_t i = matches.size() - 1; i >= 0; --i)
                         result = arith::SelectOp::create(nb, l, matches[i],
                                                          args[i], result);
                       return result;
                     });
}

Value softmax(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
              bool log) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  auto keptType = [&](Value reduced) {
    // The reduced tensor with size-1 dimensions put back, for broadcasting.
    SmallVector<int64_t> shape(type.getShape());
    for (int64_t a : axes)
      shape[a] = 1;
    return reshapeTo(b, loc, reduced, RankedTensorType::get(shape, element));
  };
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
  if (log)
    return elementwise(b, loc, {shifted, sum}, type,
                       [](OpBuilder &nb, Location l, ValueRange args) {
                         return Value(arith::SubFOp::create(
                             nb, l, args[0], math::LogOp::create(nb, l, args[1])));
                       });
  return elementwise(b, loc, {exp, sum}, type,
                     [](OpBuilder &nb, Location l, ValueRange args) {
                       return Value(arith::DivFOp::create(nb, l, args[0], args[1]));
                     });
}

/// A generic over `outType` whose body yields `read(indices of the output)`.
Value generate(OpBuilder &b, Location loc, RankedTensorType outType,
               GenerateFn read) {
  int64_t rank = outType.getRank();
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, ValueRange{},
             ValueRange{emptyTensor(b, loc, outType)},
             SmallVector<AffineMap>{
                 AffineMap::getMultiDimIdentityMap(rank, b.getContext())},
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange) {
               SmallVector<Value> ivs;
               for (int64_t d = 0; d < rank; ++d)
                 ivs.push_back(linalg::IndexOp::create(nb, l, d));
               linalg::YieldOp::create(nb, l, read(nb, l, ivs));
             })
      .getResult(0);
}

} // namespace placer::lowering
