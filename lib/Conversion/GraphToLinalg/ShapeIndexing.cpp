//===- ShapeIndexing.cpp - Data movement and compile-time values ----------===//
//
// Data movement (reshapes, slices, gathers, padding) and values known at
// compile time (Shape, Size, Constant, Range).
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

void placer::lowering::registerShapeIndexingLowerings(LoweringRegistry &r) {
  r.beginFamily("Shape and indexing",
                "Reshapes are views (collapse to 1-D, expand to the static output type); Transpose is `linalg.transpose`; Concat, Slice and Split are `tensor.insert_slice`/`extract_slice` (a generic reading `start + i * step` for negative steps); Gather reads with `tensor.extract` (negative indices wrap); Expand is a broadcasting copy; Pad is `tensor.pad` (constant) or a generic reading the clamped (edge) or mirrored (reflect) index. Shape, Size, Constant, ConstantOfShape are compile-time constants; Range a generic over its index.");
  r.add("Identity", lowerIdentity);
  r.add("Dropout", lowerIdentity);
  r.add("Reshape", lowerReshape);
  r.add("Flatten", lowerReshape);
  r.add("Squeeze", lowerReshape);
  r.add("Unsqueeze", lowerReshape);
  r.add("Transpose", lowerTranspose);
  r.add("Concat", lowerConcat);
  r.add("Slice", lowerSlice);
  r.add("Split", lowerSplit);
  r.add("Gather", lowerGather);
  r.add("Expand", lowerExpand);
  r.add("Pad", lowerPad);
  r.add("Shape", lowerShape);
  r.add("Size", lowerSize);
  r.add("Constant", lowerConstantNode);
  r.add("ConstantOfShape", lowerConstantOfShape);
  r.add("Range", lowerRange);
}
