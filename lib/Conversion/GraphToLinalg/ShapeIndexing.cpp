//===- ShapeIndexing.cpp - Data movement and compile-time values ----------===//
//
// Data movement (reshapes, slices, gathers, padding) and values known at
// compile time (Shape, Size, Constant, Range).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

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
// Data movement
//===----------------------------------------------------------------------===//

/// Reshape, Flatten, Squeeze, Unsqueeze: the node's output type says
/// everything (its dynamic dims are symbols of the inputs' sizes).
Results lowerReshape(NodeLowering &n) {
  return single(reshapeTo(n.builder, n.getLoc(), n.operands[0],
                          n.getResultType(), n.getResultDynamicSizes()));
}

Results lowerIdentity(NodeLowering &n) { return single(n.operands[0]); }

/// Dropout in inference: the input, and a mask of all true. Training mode
/// (a training_mode input not known false) draws a random mask, which is
/// not lowered unless the ratio is 0.
Results lowerDropout(NodeLowering &n) {
  if (n.hasOperand(2)) {
    std::optional<SmallVector<int64_t>> training = n.getConstantInts(2);
    std::optional<double> ratio =
        n.hasOperand(1) ? n.getConstantScalar(1) : std::optional<double>(0.5);
    if ((!training || training->front() != 0) && (!ratio || *ratio != 0))
      return n.fail("training-mode Dropout (a random mask) is not lowered");
  }
  SmallVector<Value> results = {n.operands[0]};
  if (n.wantsResult(1))
    results.push_back(filled(n.builder, n.getLoc(), n.getResultType(1), 1,
                             n.getResultDynamicSizes(1)));
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
                    n.builder, n.getLoc(), n.operands[0], n.emptyResult(), perm)
                    .getResult()[0]);
}

Results lowerConcat(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  RankedTensorType outType = n.getResultType();
  int64_t axis = normalizeAxis(n.getInt("axis", 0), outType.getRank());
  Value result = n.emptyResult();
  // Where the next input goes: static, or a sum of dynamic sizes.
  OpFoldResult offset = b.getIndexAttr(0);
  for (Value input : n.operands) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<OpFoldResult> offsets(outType.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(outType.getRank(), b.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
    offsets[axis] = offset;
    if (type.getDimSize(axis) == 0)
      continue;
    result = tensor::InsertSliceOp::create(b, loc, input, result, offsets,
                                           sizes, strides);
    std::optional<int64_t> at = getConstantIntValue(offset);
    if (at && !type.isDynamicDim(axis))
      offset = b.getIndexAttr(*at + type.getDimSize(axis));
    else
      offset = Value(arith::AddIOp::create(
          b, loc, getValueOrCreateConstantIndexOp(b, loc, offset),
          getValueOrCreateConstantIndexOp(b, loc, sizes[axis])));
  }
  return single(result);
}

/// Slice with starts, axes or steps known only at run time. The output
/// shape is static, so only where each output dimension starts and its step
/// are computed: per data dimension, the entry whose axis names it (ONNX's
/// clamping included), then one generic reads input[start + i * step].
Results lowerRuntimeSlice(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value data = n.operands[0];
  auto type = cast<RankedTensorType>(data.getType());
  int64_t rank = type.getRank();
  int64_t count =
      cast<RankedTensorType>(n.operands[1].getType()).getNumElements();
  auto i64 = [&](int64_t v) {
    return Value(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v)));
  };
  auto select = [&](Value c, Value x, Value y) {
    return Value(arith::SelectOp::create(b, loc, c, x, y));
  };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return Value(arith::CmpIOp::create(b, loc, p, x, y));
  };
  using P = arith::CmpIPredicate;
  SmallVector<Value> starts, steps;
  for (int64_t d = 0; d < rank; ++d) {
    starts.push_back(i64(0));
    steps.push_back(i64(1));
  }
  Value zero = i64(0);
  for (int64_t i = 0; i < count; ++i) {
    Value axis =
        n.hasOperand(3) ? extractI64(b, loc, n.operands[3], i) : i64(i);
    axis = select(cmp(P::slt, axis, zero),
                  arith::AddIOp::create(b, loc, axis, i64(rank)), axis);
    Value step =
        n.hasOperand(4) ? extractI64(b, loc, n.operands[4], i) : i64(1);
    Value start = extractI64(b, loc, n.operands[1], i);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t dim = type.getDimSize(d);
      // ONNX: a negative start counts from the end; then clamp to [0, dim]
      // going forward, [0, dim - 1] going backward.
      Value s = select(cmp(P::slt, start, zero),
                       arith::AddIOp::create(b, loc, start, i64(dim)), start);
      Value backward = cmp(P::slt, step, zero);
      Value high = select(backward, i64(dim - 1), i64(dim));
      s = arith::MaxSIOp::create(b, loc,
                                 arith::MinSIOp::create(b, loc, s, high), zero);
      Value here = cmp(P::eq, axis, i64(d));
      starts[d] = select(here, s, starts[d]);
      steps[d] = select(here, step, steps[d]);
    }
  }
  RankedTensorType outType = n.getResultType();
  return single(generate(
      b, loc, outType, [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          Value i = arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[d]);
          Value j = arith::AddIOp::create(
              nb, l, starts[d], arith::MulIOp::create(nb, l, i, steps[d]));
          // The static output shape bounds i; clamping keeps a model whose
          // inputs contradict it inside the tensor.
          j = arith::MaxSIOp::create(
              nb, l,
              arith::MinSIOp::create(
                  nb, l, j,
                  arith::ConstantOp::create(
                      nb, l, nb.getI64IntegerAttr(type.getDimSize(d) - 1))),
              arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
          at.push_back(arith::IndexCastOp::create(nb, l, nb.getIndexType(), j));
        }
        return Value(tensor::ExtractOp::create(nb, l, data, at));
      }));
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
    if (!starts || !ends || (n.hasOperand(3) && !axes) ||
        (n.hasOperand(4) && !steps))
      return lowerRuntimeSlice(n);
  }
  if (!starts || !ends || starts->size() != ends->size())
    return n.fail(
        "starts and ends must be compile-time constants of one length");
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
    if (type.isDynamicDim(axis))
      return n.fail("slicing a dynamic dim is not lowered (its clamped "
                    "bounds need the size)");
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
  // An empty slice reads nothing (its offset may sit at the end).
  if (outType.hasStaticShape() && outType.getNumElements() == 0)
    return single(emptyTensor(b, loc, outType));
  if (llvm::all_of(strides, [](int64_t step) { return step > 0; })) {
    // Unsliced dynamic dims keep their size.
    SmallVector<OpFoldResult> mixedSizes =
        tensor::getMixedSizes(b, loc, n.operands[0]);
    for (int64_t d = 0; d < rank; ++d)
      if (!type.isDynamicDim(d))
        mixedSizes[d] = b.getIndexAttr(sizes[d]);
    return single(tensor::ExtractSliceOp::create(
        b, loc, outType, n.operands[0],
        getAsIndexOpFoldResult(b.getContext(), offsets), mixedSizes,
        getAsIndexOpFoldResult(b.getContext(), strides)));
  }
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
                    ValueRange{n.emptyResult()}, maps, iterators,
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
  for (unsigned i = 0; i < n.node.getOutputs().size(); ++i) {
    RankedTensorType outType = n.getResultType(i);
    SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
    offsets[axis] = offset;
    offset += outType.getDimSize(axis);
    if (outType.getNumElements() == 0) {
      // An empty part (split 0) reads nothing, even past an empty input.
      results.push_back(emptyTensor(b, loc, outType));
      continue;
    }
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
  if (ShapedType::isDynamic(extent))
    return n.fail("gathers along a dynamic dim (indices wrap by its size)");
  if (extent == 0 && outType.hasStaticShape() && outType.getNumElements() > 0)
    return n.fail("gathers from an empty axis");
  return single(
      linalg::GenericOp::create(
          b, loc, TypeRange{outType}, ValueRange{indices},
          ValueRange{n.emptyResult()}, maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            // Token ids out of range read the nearest row.
            Value index = boundedIndex(nb, l, args[0], extent);
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
  return single(elementwise(
      n.builder, n.getLoc(), {n.operands[0]}, n.getResultType(),
      n.getResultDynamicSizes(),
      [](OpBuilder &, Location, ValueRange args) { return args[0]; }));
}

/// The input index that output index `i` reads for edge or reflect
/// padding of a dimension of size `dim` padded by `low` in front.
Value sourceIndex(OpBuilder &b, Location loc, Value i, int64_t low, int64_t dim,
                  StringRef mode) {
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
      b, loc, after, arith::SubIOp::create(b, loc, index(2 * (dim - 1)), j), j);
}

/// Pad with pads or the constant value known only at run time, or
/// negative pads (crops): each output element reads input[i - begin],
/// mapped (edge: clamped, reflect: mirrored) or, in constant mode, the
/// value where that index is outside the input.
Results lowerRuntimePad(NodeLowering &n, StringRef mode) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value input = n.operands[0];
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  RankedTensorType outType = n.getResultType();
  Type element = outType.getElementType();
  SmallVector<Value> begins;
  std::optional<SmallVector<int64_t>> attr = n.getInts("pads");
  if (!attr &&
      cast<RankedTensorType>(n.operands[1].getType()).getNumElements() !=
          2 * rank)
    return n.fail("pads must hold 2 x rank values");
  for (int64_t d = 0; d < rank; ++d)
    begins.push_back(attr ? Value(arith::ConstantOp::create(
                                b, loc, b.getI64IntegerAttr((*attr)[d])))
                          : extractI64(b, loc, n.operands[1], d));
  for (int64_t d = 0; d < rank; ++d)
    if (type.getDimSize(d) == 0 && mode != "constant")
      return n.fail("cannot pad an empty dimension in " + mode + " mode");
  Value value = scalarConstant(b, loc, element, n.getFloat("value", 0.0f));
  if (n.hasOperand(2))
    value = extractScalar(b, loc, n.operands[2], element);
  return single(generate(
      b, loc, outType, [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
        auto i64 = [&](int64_t v) {
          return Value(
              arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(v)));
        };
        using P = arith::CmpIPredicate;
        Value inside = arith::ConstantOp::create(nb, l, nb.getBoolAttr(true));
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          int64_t dim = type.getDimSize(d);
          Value j = arith::SubIOp::create(
              nb, l, arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[d]),
              begins[d]);
          Value zero = i64(0), last = i64(std::max<int64_t>(dim - 1, 0));
          if (mode == "reflect") {
            // Mirror about the edges (period 2 (dim - 1)).
            Value period = i64(std::max<int64_t>(2 * (dim - 1), 1));
            Value m = arith::RemSIOp::create(nb, l, j, period);
            m = arith::SelectOp::create(
                nb, l, arith::CmpIOp::create(nb, l, P::slt, m, zero),
                arith::AddIOp::create(nb, l, m, period), m);
            j = arith::SelectOp::create(
                nb, l, arith::CmpIOp::create(nb, l, P::sgt, m, last),
                arith::SubIOp::create(nb, l, period, m), m);
          } else if (mode == "constant") {
            inside = arith::AndIOp::create(
                nb, l, inside,
                arith::AndIOp::create(
                    nb, l, arith::CmpIOp::create(nb, l, P::sge, j, zero),
                    arith::CmpIOp::create(nb, l, P::slt, j, i64(dim))));
          }
          j = arith::MaxSIOp::create(
              nb, l, arith::MinSIOp::create(nb, l, j, last), zero);
          at.push_back(arith::IndexCastOp::create(nb, l, nb.getIndexType(), j));
        }
        if (type.getNumElements() == 0)
          return value;
        Value read = tensor::ExtractOp::create(nb, l, input, at);
        return Value(arith::SelectOp::create(nb, l, inside, read, value));
      }));
}

Results lowerPad(NodeLowering &n) {
  StringRef mode = n.getString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return n.fail("unknown pad mode '" + mode + "'");
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  if (n.hasOperand(3))
    return n.fail("the axes input of Pad is not lowered");
  std::optional<SmallVector<int64_t>> pads =
      n.getInts("pads") ? n.getInts("pads") : n.getConstantInts(1);
  if (pads && pads->size() != 2 * static_cast<size_t>(type.getRank()))
    return n.fail("pads has " + Twine(pads->size()) + " values, expected " +
                  Twine(2 * type.getRank()));
  double value = n.getFloat("value", 0.0f);
  std::optional<double> constant =
      n.hasOperand(2) ? n.getConstantScalar(2) : std::optional<double>(value);
  if (!pads || !constant ||
      llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return lowerRuntimePad(n, mode);
  value = *constant;
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
  return single(generate(
      b, loc, outType, [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d)
          indices.push_back(
              sourceIndex(nb, l, ivs[d], all[d], type.getDimSize(d), mode));
        return Value(tensor::ExtractOp::create(nb, l, input, indices));
      }));
}

//===----------------------------------------------------------------------===//
// Compile-time values
//===----------------------------------------------------------------------===//

Value denseConstant(OpBuilder &b, Location loc, RankedTensorType type,
                    ArrayRef<int64_t> values) {
  SmallVector<APInt> ints;
  for (int64_t v : values)
    ints.push_back(APInt(type.getElementTypeBitWidth(), v, /*isSigned=*/true));
  return arith::ConstantOp::create(b, loc,
                                   DenseIntElementsAttr::get(type, ints));
}

Results lowerShape(NodeLowering &n) {
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  int64_t rank = type.getRank();
  int64_t start =
      std::clamp<int64_t>(normalizeAxis(n.getInt("start", 0), rank), 0, rank);
  int64_t end =
      std::clamp<int64_t>(normalizeAxis(n.getInt("end", rank), rank), 0, rank);
  SmallVector<int64_t> dims(
      type.getShape().slice(start, std::max<int64_t>(0, end - start)));
  if (llvm::none_of(dims, ShapedType::isDynamic))
    return single(
        denseConstant(n.builder, n.getLoc(), n.getResultType(), dims));
  // Dynamic dims are read when the program runs.
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Type element = n.getResultType().getElementType();
  SmallVector<Value> values;
  for (auto [i, dim] : llvm::enumerate(dims))
    values.push_back(
        ShapedType::isDynamic(dim)
            ? Value(arith::IndexCastOp::create(
                  b, loc, element,
                  tensor::DimOp::create(b, loc, n.operands[0], start + i)))
            : scalarConstant(b, loc, element, dim));
  return single(
      tensor::FromElementsOp::create(b, loc, n.getResultType(), values));
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
  return single(filled(n.builder, n.getLoc(), n.getResultType(), value,
                       n.getResultDynamicSizes()));
}

Results lowerRange(NodeLowering &n) {
  RankedTensorType outType = n.getResultType();
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Type element = outType.getElementType();
  // Start and delta as values (constants fold): the output's static length
  // already fixes the element count.
  Type wide = isa<FloatType>(element) ? element : Type(b.getI64Type());
  Value start = extractScalar(b, loc, n.operands[0], wide);
  Value delta = extractScalar(b, loc, n.operands[2], wide);
  return single(
      linalg::GenericOp::create(
          b, loc, TypeRange{outType}, ValueRange{},
          ValueRange{emptyTensor(b, loc, outType)},
          SmallVector<AffineMap>{
              AffineMap::getMultiDimIdentityMap(1, b.getContext())},
          SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
          [&](OpBuilder &nb, Location l, ValueRange) {
            Value i = arith::IndexCastOp::create(
                nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, 0));
            Value v;
            if (isa<FloatType>(element)) {
              Value fi = arith::SIToFPOp::create(nb, l, element, i);
              v = arith::AddFOp::create(
                  nb, l, start, arith::MulFOp::create(nb, l, fi, delta));
            } else {
              v = castScalar(
                  nb, l,
                  arith::AddIOp::create(nb, l, start,
                                        arith::MulIOp::create(nb, l, i, delta)),
                  element);
            }
            linalg::YieldOp::create(nb, l, v);
          })
          .getResult(0));
}

//===----------------------------------------------------------------------===//
// Layout: Tile, DepthToSpace, SpaceToDepth, Trilu, EyeLike
//===----------------------------------------------------------------------===//

/// A copy of `input` into `outType` reading through `map` (output indices
/// -> input indices).
Value copyThrough(OpBuilder &b, Location loc, Value input,
                  RankedTensorType outType, AffineMap map) {
  int64_t rank = outType.getRank();
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, ValueRange{input},
             ValueRange{emptyTensor(b, loc, outType)},
             SmallVector<AffineMap>{
                 map, AffineMap::getMultiDimIdentityMap(rank, b.getContext())},
             iterators,
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, args[0]);
             })
      .getResult(0);
}

/// Tile: out[i] = in[i mod dim] (the repeats are the output's static shape
/// over the input's).
Results lowerTile(NodeLowering &n) {
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  RankedTensorType outType = n.getResultType();
  if (outType.getRank() != type.getRank())
    return n.fail("the output's rank differs from the input's");
  MLIRContext *context = n.builder.getContext();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t dim = type.getDimSize(d);
    if (dim == 0 ? outType.getDimSize(d) != 0 : outType.getDimSize(d) % dim)
      return n.fail("the output's shape is not a multiple of the input's");
    exprs.push_back(dim == 0 ? getAffineConstantExpr(0, context)
                             : getAffineDimExpr(d, context) % dim);
  }
  if (outType.getNumElements() == 0)
    return single(emptyTensor(n.builder, n.getLoc(), outType));
  return single(copyThrough(n.builder, n.getLoc(), n.operands[0], outType,
                            AffineMap::get(type.getRank(), 0, exprs, context)));
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth on NCHW: index arithmetic
/// in the read map, no copy but the output.
template <bool ToSpace> Results lowerDepthSpace(NodeLowering &n) {
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  RankedTensorType outType = n.getResultType();
  int64_t block = n.getInt("blocksize", 0);
  if (type.getRank() != 4 || block < 1)
    return n.fail("needs an NCHW input and a positive blocksize");
  MLIRContext *context = n.builder.getContext();
  AffineExpr batch = getAffineDimExpr(0, context),
             c = getAffineDimExpr(1, context), h = getAffineDimExpr(2, context),
             w = getAffineDimExpr(3, context);
  SmallVector<AffineExpr> read;
  if (ToSpace) {
    int64_t channels = outType.getDimSize(1);
    AffineExpr offset = (h % block) * block + w % block;
    AffineExpr channel = n.getString("mode", "DCR") == "CRD"
                             ? c * (block * block) + offset
                             : offset * channels + c;
    read = {batch, channel, h.floorDiv(block), w.floorDiv(block)};
  } else {
    int64_t channels = type.getDimSize(1);
    AffineExpr k = c.floorDiv(channels);
    read = {batch, c % channels, h * block + k.floorDiv(block),
            w * block + k % block};
  }
  return single(copyThrough(n.builder, n.getLoc(), n.operands[0], outType,
                            AffineMap::get(4, 0, read, context)));
}

/// Trilu: keep the elements on and above (upper) or below (lower) the k-th
/// diagonal of the last two dimensions, zero the rest; k may come at run
/// time.
Results lowerTrilu(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  RankedTensorType type = n.getResultType();
  int64_t rank = type.getRank();
  if (rank < 2)
    return n.fail("needs at least two dimensions");
  Value k =
      n.hasOperand(1)
          ? extractI64(b, loc, n.operands[1])
          : Value(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0)));
  bool upper = n.getInt("upper", 1);
  Type element = type.getElementType();
  return single(elementwise(
      b, loc, n.operands[0], type,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        auto at = [&](int64_t d) {
          return Value(arith::IndexCastOp::create(
              nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, d)));
        };
        Value diagonal =
            arith::SubIOp::create(nb, l, at(rank - 1), at(rank - 2));
        Value keep = arith::CmpIOp::create(nb, l,
                                           upper ? arith::CmpIPredicate::sge
                                                 : arith::CmpIPredicate::sle,
                                           diagonal, k);
        return Value(arith::SelectOp::create(
            nb, l, keep, args[0], scalarConstant(nb, l, element, 0)));
      }));
}

/// EyeLike: ones on the k-th diagonal of a 2-D output, zeros elsewhere.
Results lowerEyeLike(NodeLowering &n) {
  RankedTensorType type = n.getResultType();
  if (type.getRank() != 2)
    return n.fail("needs a 2-D input");
  int64_t k = n.getInt("k", 0);
  Type element = type.getElementType();
  return single(generate(n.builder, n.getLoc(), type,
                         [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
                           Value column = arith::AddIOp::create(
                               nb, l, ivs[0],
                               arith::ConstantIndexOp::create(nb, l, k));
                           Value on = arith::CmpIOp::create(
                               nb, l, arith::CmpIPredicate::eq, ivs[1], column);
                           return Value(arith::SelectOp::create(
                               nb, l, on, scalarConstant(nb, l, element, 1),
                               scalarConstant(nb, l, element, 0)));
                         }));
}

/// Shape and Size of a statically shaped tensor: their i64 result follows
/// from the input's type, so placement gives every device that uses it a
/// constant instead of sending it (OpRoles' Folded role).
template <bool size> DenseElementsAttr foldShapeOf(graph::NodeOp node) {
  if (node.getNumOperands() != 1 || node->getNumResults() != 1)
    return {};
  auto input = dyn_cast<RankedTensorType>(node.getInputs()[0].getType());
  auto type = dyn_cast<RankedTensorType>(node->getResult(0).getType());
  if (!input || !input.hasStaticShape() || !type || !type.hasStaticShape() ||
      !type.getElementType().isInteger(64))
    return {};
  auto attr = [&](StringRef name) -> std::optional<int64_t> {
    if (auto value = node.getAttrs().getAs<IntegerAttr>(name))
      return value.getInt();
    return std::nullopt;
  };
  std::vector<int64_t> values =
      size ? std::vector<int64_t>{input.getNumElements()}
           : folders::sliceShape(input.getShape(), attr("start"), attr("end"));
  if (type.getNumElements() != static_cast<int64_t>(values.size()))
    return {};
  return DenseElementsAttr::get(type, ArrayRef<int64_t>(values));
}

} // namespace

void placer::lowering::registerShapeIndexingOps(OpRegistry &r) {
  r.beginFamily(
      "Shape and indexing",
      "Reshapes are views (collapse to 1-D, expand to the static output "
      "type); Transpose is `linalg.transpose`; Concat, Slice and Split are "
      "`tensor.insert_slice`/`extract_slice` (a generic reading `start + i "
      "* step` for negative steps); Gather reads with `tensor.extract` "
      "(negative indices wrap); Expand is a broadcasting copy; Pad is "
      "`tensor.pad` (constant) or a generic reading the clamped (edge) or "
      "mirrored (reflect) index. Shape, Size, Constant, ConstantOfShape are"
      " compile-time constants; Range a generic over its index.");
  r.add("Identity", lowerIdentity)
      .work(WorkRule::view())
      .backward(0.0)
      .gradient(gradients::identity)
      .fold(folders::identity());
  r.add("Dropout", lowerDropout).work(WorkRule::view()).backward(1.0);
  r.add("Reshape", lowerReshape)
      .work(WorkRule::view())
      .backward(0.0)
      .gradient(gradients::reshape)
      .fold(folders::reshape())
      .carriesSplit(sharding::reshape);
  r.add("Flatten", lowerReshape)
      .work(WorkRule::view())
      .backward(0.0)
      .gradient(gradients::reshape)
      .carriesSplit(sharding::reshape);
  r.add("Squeeze", lowerReshape)
      .work(WorkRule::view())
      .backward(0.0)
      .gradient(gradients::reshape)
      .fold(folders::squeeze())
      .carriesSplit(sharding::reshape);
  r.add("Unsqueeze", lowerReshape)
      .work(WorkRule::view())
      .backward(0.0)
      .gradient(gradients::reshape)
      .fold(folders::unsqueeze())
      .carriesSplit(sharding::reshape);
  r.add("Transpose", lowerTranspose)
      .work(WorkRule::dataMovement())
      .backward(1.0)
      .gradient(gradients::transpose)
      .fold(folders::transpose())
      .carriesSplit(sharding::transpose);
  r.add("Concat", lowerConcat)
      .work(WorkRule::dataMovement())
      .backward(1.0)
      .gradient(gradients::concat)
      .fold(folders::concat())
      .joinsSplits(sharding::concat);
  r.add("Slice", lowerSlice)
      .work(work::slice())
      .backward(1.0)
      .gradient(gradients::slice)
      .fold(folders::slice());
  r.add("Split", lowerSplit)
      .work(WorkRule::view())
      .backward(1.0)
      .gradient(gradients::split)
      .carriesSplit(sharding::split);
  r.add("Gather", lowerGather)
      .work(WorkRule::sparseRead())
      .backward(1.0)
      .fold(folders::gather())
      .shardBy(sharding::gather);
  // The gradient scatters with reduction=add, which opset 16 brought.
  r.add("Gather", lowerGather, 16).gradient(gradients::gather);
  r.add("Expand", lowerExpand)
      .work(WorkRule::dataMovement())
      .backward(1.0)
      .gradient(gradients::expand)
      .fuses(fusion::elementwise);
  r.add("Pad", lowerPad).work(WorkRule::dataMovement()).backward(1.0);
  r.add("Tile", lowerTile).work(WorkRule::dataMovement()).backward(1.0);
  r.add("DepthToSpace", lowerDepthSpace<true>)
      .work(WorkRule::dataMovement())
      .backward(1.0);
  r.add("SpaceToDepth", lowerDepthSpace<false>)
      .work(WorkRule::dataMovement())
      .backward(1.0);
  r.add("Trilu", lowerTrilu).work(WorkRule::dataMovement());
  r.add("EyeLike", lowerEyeLike).work(WorkRule::dataMovement());
  r.add("Shape", lowerShape)
      .work(WorkRule::view())
      .backward(0.0)
      .foldFromTypes(foldShapeOf<false>)
      .fold(folders::shape());
  r.add("Size", lowerSize)
      .work(WorkRule::view())
      .backward(0.0)
      .foldFromTypes(foldShapeOf<true>)
      .fold(folders::size());
  r.add("Constant", lowerConstantNode)
      .work(WorkRule::view())
      .backward(0.0)
      .fold(folders::constant());
  r.add("ConstantOfShape", lowerConstantOfShape)
      .work(WorkRule::dataMovement())
      .backward(0.0)
      .fold(folders::constantOfShape());
  r.add("Range", lowerRange)
      .work(WorkRule::dataMovement())
      .backward(0.0)
      .fold(folders::range());
  r.allowDynamicDims({"Identity", "Dropout", "Reshape", "Flatten", "Squeeze",
                      "Unsqueeze", "Transpose", "Concat", "Slice", "Gather",
                      "Expand", "Shape", "ConstantOfShape"});
}
