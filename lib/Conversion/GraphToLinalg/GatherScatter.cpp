//===- GatherScatter.cpp - Indexed reads and writes -----------------------===//
//
// Gathers are one linalg.generic over the output that reads its element
// with tensor.extract at indices taken from the index tensor. Scatters
// write in index order with duplicates combined, which is sequential: an
// scf.for nest over the updates carries the result tensor and inserts one
// element per iteration. Indices come from the program's inputs: negative
// ones wrap and any index is clamped into range, so that no read or write
// leaves a tensor (ONNX calls an out-of-range index an error).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace placer;
using namespace placer::lowering;

namespace {

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// GatherElements: out[i] = data[i with axis replaced by indices[i]].
Results lowerGatherElements(NodeLowering &n) {
  Value data = n.operands[0], indices = n.operands[1];
  auto dataType = cast<RankedTensorType>(data.getType());
  int64_t axis = normalizeAxis(n.getInt("axis", 0), dataType.getRank());
  if (axis < 0 || axis >= dataType.getRank())
    return n.fail("axis out of range");
  int64_t extent = dataType.getDimSize(axis);
  RankedTensorType outType = n.getResultType();
  if (outType.getNumElements() > 0 && extent == 0)
    return n.fail("gathers from an empty axis");
  return single(generate(
      n.builder, n.getLoc(), outType,
      [&](OpBuilder &b, Location loc, ArrayRef<Value> ivs) -> Value {
        SmallVector<Value> at(ivs);
        at[axis] = boundedIndex(
            b, loc, tensor::ExtractOp::create(b, loc, indices, ivs), extent);
        return tensor::ExtractOp::create(b, loc, data, at);
      }));
}

/// GatherND: indices (..., k) address the first k dimensions after
/// batch_dims; the output is indices' leading shape + data's trailing one.
Results lowerGatherND(NodeLowering &n) {
  Value data = n.operands[0], indices = n.operands[1];
  auto dataType = cast<RankedTensorType>(data.getType());
  auto indexType = cast<RankedTensorType>(indices.getType());
  int64_t batch = n.getInt("batch_dims", 0);
  int64_t k = indexType.getDimSize(indexType.getRank() - 1);
  int64_t leading = indexType.getRank() - 1;
  if (batch < 0 || batch + k > dataType.getRank())
    return n.fail("batch_dims and the index depth exceed the data's rank");
  RankedTensorType outType = n.getResultType();
  return single(generate(
      n.builder, n.getLoc(), outType,
      [&](OpBuilder &b, Location loc, ArrayRef<Value> ivs) -> Value {
        SmallVector<Value> at(ivs.take_front(batch));
        SmallVector<Value> where(ivs.take_front(leading));
        where.push_back(Value());
        for (int64_t j = 0; j < k; ++j) {
          where.back() = indexConstant(b, loc, j);
          at.push_back(boundedIndex(
              b, loc, tensor::ExtractOp::create(b, loc, indices, where),
              dataType.getDimSize(batch + j)));
        }
        for (Value iv : ivs.drop_front(leading))
          at.push_back(iv);
        return tensor::ExtractOp::create(b, loc, data, at);
      }));
}

/// An scf.for nest over `shape` carrying `init`; `body` returns the next
/// value of the carried tensor.
Value forEachIndex(
    OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Value init,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>, Value)> body) {
  SmallVector<Value> ivs;
  std::function<Value(OpBuilder &, Location, size_t, Value)> nest =
      [&](OpBuilder &nb, Location l, size_t d, Value carried) -> Value {
    if (d == shape.size())
      return body(nb, l, ivs, carried);
    auto loop = scf::ForOp::create(
        nb, l, indexConstant(nb, l, 0), indexConstant(nb, l, shape[d]),
        indexConstant(nb, l, 1), ValueRange{carried},
        [&](OpBuilder &lb, Location ll, Value iv, ValueRange args) {
          ivs.push_back(iv);
          Value next = nest(lb, ll, d + 1, args[0]);
          ivs.pop_back();
          scf::YieldOp::create(lb, ll, next);
        });
    return loop.getResult(0);
  };
  return nest(b, loc, 0, init);
}

/// The scatter reductions: none (overwrite), add, mul, max, min.
FailureOr<std::function<Value(OpBuilder &, Location, Value, Value)>>
scatterCombine(NodeLowering &n) {
  StringRef reduction = n.getString("reduction", "none");
  bool floating = isFloat(n.getResultType());
  bool isUnsigned = n.isUnsignedInput(0);
  using Fn = std::function<Value(OpBuilder &, Location, Value, Value)>;
  if (reduction == "none")
    return Fn(
        [](OpBuilder &, Location, Value, Value update) { return update; });
  if (reduction == "add")
    return Fn([=](OpBuilder &b, Location l, Value old, Value update) {
      return floating ? Value(arith::AddFOp::create(b, l, old, update))
                      : Value(arith::AddIOp::create(b, l, old, update));
    });
  if (reduction == "mul")
    return Fn([=](OpBuilder &b, Location l, Value old, Value update) {
      return floating ? Value(arith::MulFOp::create(b, l, old, update))
                      : Value(arith::MulIOp::create(b, l, old, update));
    });
  if (reduction == "max")
    return Fn([=](OpBuilder &b, Location l, Value old, Value update) {
      return floating     ? Value(arith::MaximumFOp::create(b, l, old, update))
             : isUnsigned ? Value(arith::MaxUIOp::create(b, l, old, update))
                          : Value(arith::MaxSIOp::create(b, l, old, update));
    });
  if (reduction == "min")
    return Fn([=](OpBuilder &b, Location l, Value old, Value update) {
      return floating     ? Value(arith::MinimumFOp::create(b, l, old, update))
             : isUnsigned ? Value(arith::MinUIOp::create(b, l, old, update))
                          : Value(arith::MinSIOp::create(b, l, old, update));
    });
  return n.fail("unknown reduction '" + reduction + "'");
}

/// ScatterElements (and the older Scatter): result = data, then for each
/// update position i, result[i with axis replaced by indices[i]] combined
/// with updates[i], in order.
Results lowerScatterElements(NodeLowering &n) {
  Value data = n.operands[0], indices = n.operands[1], updates = n.operands[2];
  auto dataType = cast<RankedTensorType>(data.getType());
  auto updateType = cast<RankedTensorType>(updates.getType());
  int64_t axis = normalizeAxis(n.getInt("axis", 0), dataType.getRank());
  if (axis < 0 || axis >= dataType.getRank())
    return n.fail("axis out of range");
  auto combine = scatterCombine(n);
  if (failed(combine))
    return failure();
  int64_t extent = dataType.getDimSize(axis);
  return single(forEachIndex(
      n.builder, n.getLoc(), updateType.getShape(), data,
      [&](OpBuilder &b, Location loc, ArrayRef<Value> ivs, Value result) {
        SmallVector<Value> at(ivs);
        at[axis] = boundedIndex(
            b, loc, tensor::ExtractOp::create(b, loc, indices, ivs), extent);
        Value update = tensor::ExtractOp::create(b, loc, updates, ivs);
        Value old = tensor::ExtractOp::create(b, loc, result, at);
        return Value(tensor::InsertOp::create(
            b, loc, (*combine)(b, loc, old, update), result, at));
      }));
}

/// ScatterND: indices (..., k) address data's first k dimensions; each
/// update slice (data's trailing shape) is combined in at its address.
Results lowerScatterND(NodeLowering &n) {
  Value data = n.operands[0], indices = n.operands[1], updates = n.operands[2];
  auto dataType = cast<RankedTensorType>(data.getType());
  auto indexType = cast<RankedTensorType>(indices.getType());
  auto updateType = cast<RankedTensorType>(updates.getType());
  int64_t k = indexType.getDimSize(indexType.getRank() - 1);
  int64_t leading = indexType.getRank() - 1;
  if (k > dataType.getRank())
    return n.fail("the index depth exceeds the data's rank");
  auto combine = scatterCombine(n);
  if (failed(combine))
    return failure();
  return single(forEachIndex(
      n.builder, n.getLoc(), updateType.getShape(), data,
      [&](OpBuilder &b, Location loc, ArrayRef<Value> ivs, Value result) {
        SmallVector<Value> at, where(ivs.take_front(leading));
        where.push_back(Value());
        for (int64_t j = 0; j < k; ++j) {
          where.back() = indexConstant(b, loc, j);
          at.push_back(boundedIndex(
              b, loc, tensor::ExtractOp::create(b, loc, indices, where),
              dataType.getDimSize(j)));
        }
        for (Value iv : ivs.drop_front(leading))
          at.push_back(iv);
        Value update = tensor::ExtractOp::create(b, loc, updates, ivs);
        Value old = tensor::ExtractOp::create(b, loc, result, at);
        return Value(tensor::InsertOp::create(
            b, loc, (*combine)(b, loc, old, update), result, at));
      }));
}

/// OneHot: on where the position along `axis` equals the index (negative
/// indices count from depth), off elsewhere; values = [off, on].
Results lowerOneHot(NodeLowering &n) {
  Value indices = n.operands[0], values = n.operands[2];
  RankedTensorType outType = n.getResultType();
  int64_t rank = outType.getRank();
  int64_t axis = normalizeAxis(n.getInt("axis", -1), rank);
  if (axis < 0 || axis >= rank)
    return n.fail("axis out of range");
  int64_t depth = outType.getDimSize(axis);
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Type element = outType.getElementType();
  Value off = extractScalar(b, loc, values, element, 0);
  Value on = extractScalar(b, loc, values, element, 1);
  return single(generate(
      b, loc, outType, [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
        SmallVector<Value> at(ivs);
        at.erase(at.begin() + axis);
        Value raw =
            castScalar(nb, l, tensor::ExtractOp::create(nb, l, indices, at),
                       nb.getI64Type());
        Value depthValue =
            arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(depth));
        Value negative = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::slt, raw,
            arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
        raw = arith::SelectOp::create(
            nb, l, negative, arith::AddIOp::create(nb, l, raw, depthValue),
            raw);
        Value position =
            arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[axis]);
        Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, raw,
                                          position);
        return Value(arith::SelectOp::create(nb, l, hit, on, off));
      }));
}

/// MaxUnpool: zeros of the output's shape, each input element written at
/// its Indices entry: a row-major offset into the shape the pooling came
/// from ((in - 1) * stride + kernel - pads), which an output_shape may
/// enlarge.
Results lowerMaxUnpool(NodeLowering &n) {
  Value x = n.operands[0], indices = n.operands[1];
  auto type = cast<RankedTensorType>(x.getType());
  RankedTensorType outType = n.getResultType();
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  int64_t spatial = type.getRank() - 2;
  std::optional<SmallVector<int64_t>> kernel = n.getInts("kernel_shape");
  if (spatial < 1 || !kernel || kernel->size() != size_t(spatial))
    return n.fail("kernel_shape needs one size per spatial dimension");
  SmallVector<int64_t> strides =
      n.getInts("strides").value_or(SmallVector<int64_t>(spatial, 1));
  SmallVector<int64_t> pads =
      n.getInts("pads").value_or(SmallVector<int64_t>(2 * spatial, 0));
  if (strides.size() != size_t(spatial) || pads.size() != size_t(2 * spatial))
    return n.fail("strides and pads need one value (pads: two) per spatial "
                  "dimension");
  SmallVector<int64_t> pooled(type.getShape().take_front(2));
  for (int64_t d = 0; d < spatial; ++d)
    pooled.push_back((type.getDimSize(2 + d) - 1) * strides[d] + (*kernel)[d] -
                     pads[d] - pads[spatial + d]);
  int64_t total = 1;
  for (int64_t size : pooled)
    total *= size;
  if (total <= 0 || outType.getNumElements() == 0)
    return single(filled(b, loc, outType, 0));
  return single(forEachIndex(
      b, loc, type.getShape(), filled(b, loc, outType, 0),
      [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs, Value result) {
        Value flat = boundedIndex(
            nb, l, tensor::ExtractOp::create(nb, l, indices, ivs), total);
        SmallVector<Value> at(outType.getRank());
        for (int64_t d = outType.getRank() - 1; d >= 0; --d) {
          Value size = indexConstant(nb, l, pooled[d]);
          at[d] = arith::MinUIOp::create(
              nb, l, arith::RemUIOp::create(nb, l, flat, size),
              indexConstant(nb, l, outType.getDimSize(d) - 1));
          flat = arith::DivUIOp::create(nb, l, flat, size);
        }
        return Value(tensor::InsertOp::create(
            nb, l, tensor::ExtractOp::create(nb, l, x, ivs), result, at));
      }));
}

/// ReverseSequence: along time_axis, the first sequence_lens[b] elements
/// of each batch entry b reversed, the rest as they are.
Results lowerReverseSequence(NodeLowering &n) {
  Value x = n.operands[0], lengths = n.operands[1];
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  int64_t batchAxis = normalizeAxis(n.getInt("batch_axis", 1), rank);
  int64_t timeAxis = normalizeAxis(n.getInt("time_axis", 0), rank);
  if (batchAxis < 0 || batchAxis >= rank || timeAxis < 0 || timeAxis >= rank ||
      batchAxis == timeAxis)
    return n.fail("batch_axis and time_axis must be two different axes");
  int64_t steps = type.getDimSize(timeAxis);
  return single(generate(
      n.builder, n.getLoc(), n.getResultType(),
      [&](OpBuilder &b, Location loc, ArrayRef<Value> ivs) {
        Value length = arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            castScalar(
                b, loc,
                tensor::ExtractOp::create(b, loc, lengths, ivs[batchAxis]),
                b.getI64Type()));
        length = arith::MinSIOp::create(b, loc, length,
                                        indexConstant(b, loc, steps));
        Value t = ivs[timeAxis];
        Value reversed = arith::SubIOp::create(
            b, loc, arith::SubIOp::create(b, loc, length, t),
            indexConstant(b, loc, 1));
        Value inside =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, t, length);
        SmallVector<Value> at(ivs);
        at[timeAxis] = arith::SelectOp::create(b, loc, inside, reversed, t);
        return Value(tensor::ExtractOp::create(b, loc, x, at));
      }));
}

/// Compress: the slices along `axis` (of the flattened input without one)
/// whose condition holds, in order. The output's static size says how many
/// the model promises; an scf.for over the condition copies each selected
/// slice to the next free place, never past the output.
Results lowerCompress(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0], condition = n.operands[1];
  auto type = cast<RankedTensorType>(x.getType());
  RankedTensorType outType = n.getResultType();
  bool hasAxis = n.node.getAttrs().get("axis") != nullptr;
  if (!hasAxis) {
    x = reshapeTo(
        b, loc, x,
        RankedTensorType::get({type.getNumElements()}, type.getElementType()));
    type = cast<RankedTensorType>(x.getType());
  }
  int64_t rank = type.getRank();
  int64_t axis = hasAxis ? normalizeAxis(n.getInt("axis", 0), rank) : 0;
  if (axis < 0 || axis >= rank || outType.getRank() != rank)
    return n.fail("axis out of range");
  int64_t length =
      std::min(type.getDimSize(axis),
               cast<RankedTensorType>(condition.getType()).getNumElements());
  int64_t room = outType.getDimSize(axis);
  SmallVector<int64_t> sliceShape(type.getShape());
  sliceShape[axis] = 1;
  auto sliceType = RankedTensorType::get(sliceShape, type.getElementType());
  Value init = filled(b, loc, outType, 0);
  if (room == 0 || length == 0)
    return single(init);
  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, length),
      indexConstant(b, loc, 1), ValueRange{init, indexConstant(b, loc, 0)},
      [&](OpBuilder &lb, Location l, Value i, ValueRange carried) {
        Value result = carried[0], next = carried[1];
        Value keep = castScalar(
            lb, l,
            tensor::ExtractOp::create(
                lb, l, condition,
                SmallVector<Value>(
                    cast<RankedTensorType>(condition.getType()).getRank(), i)),
            lb.getI1Type());
        Value fits = arith::CmpIOp::create(lb, l, arith::CmpIPredicate::ult,
                                           next, indexConstant(lb, l, room));
        auto branch = scf::IfOp::create(
            lb, l, arith::AndIOp::create(lb, l, keep, fits),
            [&](OpBuilder &tb, Location tl) {
              SmallVector<OpFoldResult> from(rank, tb.getIndexAttr(0)),
                  to(rank, tb.getIndexAttr(0)), sizes,
                  ones(rank, tb.getIndexAttr(1));
              for (int64_t size : sliceShape)
                sizes.push_back(tb.getIndexAttr(size));
              from[axis] = i;
              to[axis] = next;
              Value slice = tensor::ExtractSliceOp::create(tb, tl, sliceType, x,
                                                           from, sizes, ones);
              Value written = tensor::InsertSliceOp::create(
                  tb, tl, slice, result, to, sizes, ones);
              scf::YieldOp::create(
                  tb, tl,
                  ValueRange{written,
                             arith::AddIOp::create(tb, tl, next,
                                                   indexConstant(tb, tl, 1))});
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, ValueRange{result, next});
            });
        scf::YieldOp::create(lb, l, branch.getResults());
      });
  return single(loop.getResult(0));
}

/// NonZero: the indices (rank x count, row-major order) of the nonzero
/// elements, for as many as the output's static count holds.
Results lowerNonZero(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto type = cast<RankedTensorType>(x.getType());
  RankedTensorType outType = n.getResultType();
  int64_t rank = type.getRank();
  if (outType.getRank() != 2 ||
      outType.getDimSize(0) != std::max<int64_t>(rank, 1))
    return n.fail("the output must be rank x count");
  int64_t room = outType.getDimSize(1);
  Value init = filled(b, loc, outType, 0);
  if (room == 0 || type.getNumElements() == 0)
    return single(init);
  // The carried value packs the result and the next free column.
  Value counter =
      filled(b, loc, RankedTensorType::get({}, b.getIndexType()), 0);
  SmallVector<Value> ivs;
  std::function<SmallVector<Value>(OpBuilder &, Location, int64_t, ValueRange)>
      nest = [&](OpBuilder &nb, Location l, int64_t d,
                 ValueRange carried) -> SmallVector<Value> {
    if (d == rank) {
      Value result = carried[0],
            next = tensor::ExtractOp::create(nb, l, carried[1]);
      Value v = tensor::ExtractOp::create(nb, l, x, ivs);
      Value nonzero = isFloat(v.getType())
                          ? Value(arith::CmpFOp::create(
                                nb, l, arith::CmpFPredicate::UNE, v,
                                scalarConstant(nb, l, v.getType(), 0)))
                          : Value(arith::CmpIOp::create(
                                nb, l, arith::CmpIPredicate::ne, v,
                                scalarConstant(nb, l, v.getType(), 0)));
      Value fits = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, next,
                                         indexConstant(nb, l, room));
      auto branch = scf::IfOp::create(
          nb, l, arith::AndIOp::create(nb, l, nonzero, fits),
          [&](OpBuilder &tb, Location tl) {
            Value written = result;
            for (int64_t r = 0; r < std::max<int64_t>(rank, 1); ++r) {
              Value index = rank == 0 ? indexConstant(tb, tl, 0) : ivs[r];
              written = tensor::InsertOp::create(
                  tb, tl,
                  arith::IndexCastOp::create(tb, tl, tb.getI64Type(), index),
                  written, ValueRange{indexConstant(tb, tl, r), next});
            }
            Value count = tensor::InsertOp::create(
                tb, tl,
                arith::AddIOp::create(tb, tl, next, indexConstant(tb, tl, 1)),
                carried[1], ValueRange{});
            scf::YieldOp::create(tb, tl, ValueRange{written, count});
          },
          [&](OpBuilder &eb, Location el) {
            scf::YieldOp::create(eb, el, ValueRange{result, carried[1]});
          });
      return SmallVector<Value>(branch.getResults());
    }
    auto loop = scf::ForOp::create(
        nb, l, indexConstant(nb, l, 0),
        indexConstant(nb, l, type.getDimSize(d)), indexConstant(nb, l, 1),
        carried, [&](OpBuilder &lb, Location ll, Value iv, ValueRange args) {
          ivs.push_back(iv);
          SmallVector<Value> next = nest(lb, ll, d + 1, args);
          ivs.pop_back();
          scf::YieldOp::create(lb, ll, next);
        });
    return SmallVector<Value>(loop.getResults());
  };
  return single(nest(b, loc, 0, ValueRange{init, counter})[0]);
}

/// Unique: the distinct slices along `axis` (elements without one), sorted
/// lexicographically or in order of first occurrence, with each one's first
/// index, every slice's place among them and their counts. The counts of
/// values are the output's static sizes; the search is quadratic in the
/// slice count (each pair compared once per pass), which suits the small
/// tensors Unique sees in models (ids, labels).
Results lowerUnique(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  std::optional<int64_t> axis;
  if (n.node.getAttrs().get("axis")) {
    axis = normalizeAxis(n.getInt("axis", 0), rank);
    if (*axis < 0 || *axis >= rank)
      return n.fail("axis out of range");
  }
  // The input as [outer, A, inner]: slice a is view[:, a, :].
  int64_t outer = 1, inner = 1, count = type.getNumElements();
  if (axis) {
    count = type.getDimSize(*axis);
    for (int64_t d = 0; d < *axis; ++d)
      outer *= type.getDimSize(d);
    for (int64_t d = *axis + 1; d < rank; ++d)
      inner *= type.getDimSize(d);
  }
  Type element = type.getElementType();
  Value view = reshapeTo(b, loc, x,
                         RankedTensorType::get({outer, count, inner}, element));
  RankedTensorType yType = n.getResultType(0);
  int64_t unique = axis ? yType.getDimSize(*axis) : yType.getNumElements();
  if (unique > count)
    return n.fail("the output holds more values than the input");
  bool sorted = n.getInt("sorted", 1) != 0;
  int64_t sliceSize = outer * inner;
  auto index = [&](OpBuilder &ob, Location l, int64_t v) {
    return Value(arith::ConstantIndexOp::create(ob, l, v));
  };
  auto read = [&](OpBuilder &ob, Location l, Value a, Value s) {
    Value o = arith::DivUIOp::create(ob, l, s, index(ob, l, inner));
    Value i = arith::RemUIOp::create(ob, l, s, index(ob, l, inner));
    return Value(tensor::ExtractOp::create(ob, l, view, ValueRange{o, a, i}));
  };
  // (slice a < slice c lexicographically, slice a == slice c).
  auto compare = [&](OpBuilder &ob, Location l, Value a, Value c) {
    Value yes = arith::ConstantIntOp::create(ob, l, 1, 1);
    Value no = arith::ConstantIntOp::create(ob, l, 0, 1);
    SmallVector<Value> flags = buildFor(
        ob, l, index(ob, l, 0), index(ob, l, sliceSize), ValueRange{yes, no},
        [&](OpBuilder &fb, Location fl, Value s, ValueRange carried) {
          Value u = read(fb, fl, a, s), v = read(fb, fl, c, s);
          bool isFloatType = isa<FloatType>(element);
          Value less =
              isFloatType
                  ? Value(arith::CmpFOp::create(
                        fb, fl, arith::CmpFPredicate::OLT, u, v))
                  : Value(arith::CmpIOp::create(fb, fl,
                                                n.isUnsignedInput(0)
                                                    ? arith::CmpIPredicate::ult
                                                    : arith::CmpIPredicate::slt,
                                                u, v));
          Value same = isFloatType
                           ? Value(arith::CmpFOp::create(
                                 fb, fl, arith::CmpFPredicate::OEQ, u, v))
                           : Value(arith::CmpIOp::create(
                                 fb, fl, arith::CmpIPredicate::eq, u, v));
          // The first differing element decides.
          Value decided =
              arith::SelectOp::create(fb, fl, carried[0], less, carried[1]);
          return SmallVector<Value>{
              arith::AndIOp::create(fb, fl, carried[0], same), decided};
        });
    return std::make_pair(flags[1], flags[0]);
  };
  auto indexTensor = RankedTensorType::get({count}, b.getIndexType());
  // first[a]: the first slice equal to slice a.
  Value first = buildFor(
      b, loc, index(b, loc, 0), index(b, loc, count),
      ValueRange{emptyTensor(b, loc, indexTensor)},
      [&](OpBuilder &ob, Location l, Value a, ValueRange carried) {
        Value found = buildFor(
            ob, l, index(ob, l, 0), a, ValueRange{a},
            [&](OpBuilder &ib, Location il, Value c, ValueRange inner) {
              Value equal = compare(ib, il, c, a).second;
              Value unset = arith::CmpIOp::create(
                  ib, il, arith::CmpIPredicate::eq, inner[0], a);
              Value take = arith::AndIOp::create(ib, il, equal, unset);
              return SmallVector<Value>{
                  arith::SelectOp::create(ib, il, take, c, inner[0])};
            })[0];
        return SmallVector<Value>{
            tensor::InsertOp::create(ob, l, found, carried[0], a)};
      })[0];
  auto isFirst = [&](OpBuilder &ob, Location l, Value a) {
    Value f = tensor::ExtractOp::create(ob, l, first, a);
    return Value(arith::CmpIOp::create(ob, l, arith::CmpIPredicate::eq, f, a));
  };
  // place[a] for a first occurrence: how many first occurrences come
  // before it (by value when sorted, by index otherwise).
  Value place = buildFor(
      b, loc, index(b, loc, 0), index(b, loc, count),
      ValueRange{emptyTensor(b, loc, indexTensor)},
      [&](OpBuilder &ob, Location l, Value a, ValueRange carried) {
        Value before = buildFor(
            ob, l, index(ob, l, 0), index(ob, l, count),
            ValueRange{index(ob, l, 0)},
            [&](OpBuilder &ib, Location il, Value c, ValueRange inner) {
              Value earlier =
                  sorted ? compare(ib, il, c, a).first
                         : Value(arith::CmpIOp::create(
                               ib, il, arith::CmpIPredicate::ult, c, a));
              Value counts =
                  arith::AndIOp::create(ib, il, earlier, isFirst(ib, il, c));
              Value next =
                  arith::AddIOp::create(ib, il, inner[0],
                                        arith::IndexCastUIOp::create(
                                            ib, il, ib.getIndexType(), counts));
              return SmallVector<Value>{next};
            })[0];
        return SmallVector<Value>{
            tensor::InsertOp::create(ob, l, before, carried[0], a)};
      })[0];
  // The outputs, filled slice by slice.
  auto yView = RankedTensorType::get({outer, unique, inner}, element);
  auto i64Type = b.getI64Type();
  auto vector = [&](int64_t size) {
    return filled(b, loc, RankedTensorType::get({size}, i64Type), 0);
  };
  SmallVector<Value> outputs = buildFor(
      b, loc, index(b, loc, 0), index(b, loc, count),
      ValueRange{filled(b, loc, yView, 0), vector(unique), vector(count),
                 vector(unique)},
      [&](OpBuilder &ob, Location l, Value a, ValueRange carried) {
        Value f = tensor::ExtractOp::create(ob, l, first, a);
        Value p = tensor::ExtractOp::create(ob, l, place, f);
        // A declared output smaller than the distinct count keeps the first.
        Value fits = arith::CmpIOp::create(ob, l, arith::CmpIPredicate::ult, p,
                                           index(ob, l, unique));
        Value pAt = arith::MinUIOp::create(
            ob, l, p, index(ob, l, std::max<int64_t>(unique - 1, 0)));
        auto i64 = [&](OpBuilder &cb, Location cl, Value v) {
          return Value(arith::IndexCastUIOp::create(cb, cl, i64Type, v));
        };
        Value inverse =
            tensor::InsertOp::create(ob, l, i64(ob, l, p), carried[2], a);
        auto branch = scf::IfOp::create(
            ob, l, fits,
            [&](OpBuilder &tb, Location tl) {
              Value counts = carried[3];
              Value old = tensor::ExtractOp::create(tb, tl, counts, pAt);
              counts = tensor::InsertOp::create(
                  tb, tl,
                  arith::AddIOp::create(
                      tb, tl, old, arith::ConstantIntOp::create(tb, tl, 1, 64)),
                  counts, pAt);
              // The first occurrence writes its slice and its index.
              auto write = scf::IfOp::create(
                  tb, tl, isFirst(tb, tl, a),
                  [&](OpBuilder &wb, Location wl) {
                    Value y = buildFor(
                        wb, wl, index(wb, wl, 0), index(wb, wl, sliceSize),
                        ValueRange{carried[0]},
                        [&](OpBuilder &sb, Location sl, Value s,
                            ValueRange ys) {
                          Value o = arith::DivUIOp::create(
                              sb, sl, s, index(sb, sl, inner));
                          Value i = arith::RemUIOp::create(
                              sb, sl, s, index(sb, sl, inner));
                          return SmallVector<Value>{tensor::InsertOp::create(
                              sb, sl, read(sb, sl, a, s), ys[0],
                              ValueRange{o, pAt, i})};
                        })[0];
                    Value indices = tensor::InsertOp::create(
                        wb, wl, i64(wb, wl, a), carried[1], pAt);
                    scf::YieldOp::create(wb, wl, ValueRange{y, indices});
                  },
                  [&](OpBuilder &eb, Location el) {
                    scf::YieldOp::create(eb, el,
                                         ValueRange{carried[0], carried[1]});
                  });
              scf::YieldOp::create(
                  tb, tl,
                  ValueRange{write.getResult(0), write.getResult(1), counts});
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(
                  eb, el, ValueRange{carried[0], carried[1], carried[3]});
            });
        return SmallVector<Value>{branch.getResult(0), branch.getResult(1),
                                  inverse, branch.getResult(2)};
      });
  SmallVector<Value> results = {reshapeTo(b, loc, outputs[0], yType)};
  for (unsigned i = 1; i < 4; ++i) {
    if (!n.wantsResult(i)) {
      results.push_back(Value());
      continue;
    }
    RankedTensorType want = n.getResultType(i);
    if (want.getRank() != 1 || want.getElementType() != i64Type ||
        want.getDimSize(0) != (i == 2 ? count : unique))
      return n.fail("output #" + Twine(i) + " must be " +
                    Twine(i == 2 ? count : unique) + " i64 values");
    results.push_back(outputs[i]);
  }
  results.resize(n.node.getOutputs().size());
  return results;
}

} // namespace

void placer::lowering::registerGatherScatterOps(OpRegistry &r) {
  r.beginFamily(
      "Gather and scatter",
      "GatherElements, GatherND, OneHot, ReverseSequence: one generic over "
      "the output reading with `tensor.extract` at indices from the index "
      "tensor. ScatterElements, Scatter, ScatterND (reduction none, add, mul, "
      "max, min), MaxUnpool: an `scf.for` nest over the updates carrying the "
      "result tensor, one `tensor.insert` per update, in order. Compress, "
      "NonZero: an `scf.for` carrying the result and the next free place, "
      "for as many entries as the output's static shape holds. Unique: "
      "`scf.for` nests comparing slices (each one's first equal slice, its "
      "place among the distinct ones sorted or in order of appearance), then "
      "one pass writing values, first indices, inverse indices and counts. "
      "Negative indices wrap; "
      "indices out of range are clamped so that no access leaves a tensor.");
  r.add("GatherElements", lowerGatherElements)
      .work(WorkRule::sparseRead())
      .backward(1.0);
  r.add("GatherND", lowerGatherND).work(WorkRule::sparseRead()).backward(1.0);
  r.add("ScatterElements", lowerScatterElements).work(WorkRule::dataMovement());
  r.add("Scatter", lowerScatterElements).work(WorkRule::dataMovement());
  r.add("ScatterND", lowerScatterND).work(WorkRule::dataMovement());
  r.add("OneHot", lowerOneHot).work(WorkRule::dataMovement()).backward(0.0);
  r.add("MaxUnpool", lowerMaxUnpool).work(WorkRule::dataMovement());
  r.add("ReverseSequence", lowerReverseSequence).work(WorkRule::dataMovement());
  r.add("Compress", lowerCompress).work(WorkRule::dataMovement());
  r.add("NonZero", lowerNonZero).work(WorkRule::dataMovement()).backward(0.0);
  r.add("Unique", lowerUnique).work(work::unique());
}
