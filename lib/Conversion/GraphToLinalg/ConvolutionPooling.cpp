//===- ConvolutionPooling.cpp - Conv and pooling --------------------------===//
//
// Conv and pooling over NCW/NCHW tensors.
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
      return (n.fail("pads has " + Twine(pads->size()) + " values, expected " +
                     Twine(2 * rank)));
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

SmallVector<int64_t> intsOr(NodeLowering &n, StringRef name, size_t rank,
                            int64_t fallback) {
  return n.getInts(name).value_or(SmallVector<int64_t>(rank, fallback));
}

/// Adds a per-channel bias (dimension 1) to an NCHW tensor, in its type;
/// with `element`, the sum rounded to it (a half-precision convolution's
/// f32 accumulator, the bias widened to it: one rounding, as cuDNN's and
/// oneDNN's fused biases round).
Value addChannelBias(OpBuilder &b, Location loc, Value value, Value bias,
                     Type element = nullptr) {
  auto type = cast<RankedTensorType>(value.getType());
  auto resultType = element ? type.clone(element) : type;
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(type.getRank(), context),
      AffineMap::get(type.getRank(), 0, {getAffineDimExpr(1, context)},
                     context),
      AffineMap::getMultiDimIdentityMap(type.getRank(), context)};
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{value, bias},
             ValueRange{emptyTensor(b, loc, resultType,
                                    dynamicSizesOf(b, loc, value))},
             maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Type acc = args[0].getType();
               if (!isFloat(acc)) {
                 linalg::YieldOp::create(
                     nb, l,
                     Value(arith::AddIOp::create(nb, l, args[0], args[1])));
                 return;
               }
               Value biasValue = args[1];
               if (biasValue.getType() != acc)
                 biasValue = arith::ExtFOp::create(nb, l, acc, biasValue);
               Value sum = arith::AddFOp::create(nb, l, args[0], biasValue);
               if (resultType.getElementType() != acc)
                 sum = arith::TruncFOp::create(
                     nb, l, resultType.getElementType(), sum);
               linalg::YieldOp::create(nb, l, sum);
             })
      .getResult(0);
}

/// Windows take a dynamic batch (dim 0) only: the padding and the output
/// size follow from the static spatial dims.
LogicalResult checkBatchOnlyDynamic(NodeLowering &n, RankedTensorType inType,
                                    RankedTensorType outType) {
  for (RankedTensorType type : {inType, outType})
    for (int64_t d = 1; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        return n.fail("only the batch dim (0) may be dynamic");
  return success();
}

/// The batch size of an output whose batch is dynamic (that of `input`).
SmallVector<Value> batchSizes(OpBuilder &b, Location loc, Value input,
                              RankedTensorType outType) {
  if (outType.getRank() == 0 || !outType.isDynamicDim(0))
    return {};
  return {tensor::DimOp::create(b, loc, input, 0)};
}

/// A convolution or pooling window over 1 or 2 spatial dimensions, always
/// given in 2-D: 1-D nodes run as 2-D ones of height 1, so that one set of
/// linalg ops (and the contraction tiling) serves both.
struct Window {
  SmallVector<int64_t> kernel, strides, dilations;
  SmallVector<int64_t> begin, end;  // padding, ceil_mode's extra included
  SmallVector<int64_t> explicitEnd; // the `pads` attribute's end part
  bool lifted = false;              // a 1-D node
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
  auto padding = spatialPadding(n, inType.getShape().drop_front(2),
                                outType.getShape().drop_front(2), w.kernel,
                                w.strides, w.dilations);
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

} // namespace

FailureOr<Value> placer::lowering::convolve(NodeLowering &n, Value input,
                                            Value weight, Value bias,
                                            RankedTensorType finalType) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto inType = cast<RankedTensorType>(input.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  if (wType.getRank() != inType.getRank())
    return n.fail("the weight's rank differs from the input's");
  if (failed(checkBatchOnlyDynamic(n, inType, finalType)))
    return failure();
  SmallVector<Value> batch = batchSizes(b, loc, input, finalType);
  FailureOr<Window> window =
      readWindow(n, inType, finalType, wType.getShape().drop_front(2));
  if (failed(window))
    return failure();
  // Half-precision convolutions sum in f32 and round once, bias included,
  // as oneDNN's and cuDNN's fused biases do (getAccumulatorType).
  Type storage = finalType.getElementType();
  Type accumulator = getAccumulatorType(storage);
  RankedTensorType outType = finalType.clone(accumulator);
  if (window->lifted) {
    input = liftTo2d(b, loc, input);
    weight = liftTo2d(b, loc, weight);
    outType = liftedType(outType);
    wType = cast<RankedTensorType>(weight.getType());
  }
  input = padSpatial(b, loc, input, window->begin, window->end, 0.0);
  int64_t group = n.getInt("group", 1);
  int64_t channels = inType.getDimSize(1);
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
                 ValueRange{filled(b, loc, outType, 0.0, batch)}, attrs)
                 .getResult(0);
  } else {
    // N (G C) H W x (G F) C kh kw -> N G C H W x G F C kh kw.
    auto padded = cast<RankedTensorType>(input.getType());
    auto groupedIn =
        RankedTensorType::get({padded.getDimSize(0), group, channels / group,
                               padded.getDimSize(2), padded.getDimSize(3)},
                              padded.getElementType());
    auto groupedW =
        RankedTensorType::get({group, filters / group, wType.getDimSize(1),
                               wType.getDimSize(2), wType.getDimSize(3)},
                              wType.getElementType());
    auto groupedOut =
        RankedTensorType::get({outType.getDimSize(0), group, filters / group,
                               outType.getDimSize(2), outType.getDimSize(3)},
                              accumulator);
    Value in = tensor::ExpandShapeOp::create(
        b, loc, groupedIn, input,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    Value w = tensor::ExpandShapeOp::create(
        b, loc, groupedW, weight,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    Value conv = linalg::Conv2DNgchwGfchwOp::create(
                     b, loc, TypeRange{groupedOut}, ValueRange{in, w},
                     ValueRange{filled(b, loc, groupedOut, 0.0, batch)}, attrs)
                     .getResult(0);
    result = tensor::CollapseShapeOp::create(
        b, loc, outType, conv,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  }
  if (window->lifted)
    result = tensor::CollapseShapeOp::create(
        b, loc, finalType.clone(accumulator), result, unitHeight());
  if (bias)
    return addChannelBias(b, loc, result, bias, storage);
  return roundTo(b, loc, result, storage, batch);
}

namespace {

Results lowerConv(NodeLowering &n) {
  if (!isFloat(n.getResultType()))
    return n.fail("only floating-point Conv is lowered (ConvInteger: "
                  "integers)");
  FailureOr<Value> result =
      convolve(n, n.operands[0], n.operands[1],
               n.hasOperand(2) ? n.operands[2] : Value(), n.getResultType());
  if (failed(result))
    return failure();
  return single(*result);
}

/// ConvTranspose over 1 to 3 spatial dimensions, gathered per output
/// element: out[n, m, o] sums x[n, c, i] * w[c, f, k] over the group's
/// channels c and the kernel k, for i = (o + pad_begin - k * dilation) /
/// stride where that divides exactly and lies inside the input. Padding
/// comes from `pads`, or from the output shape (output_shape or auto_pad:
/// SAME_UPPER puts the smaller half first).
Results lowerConvTranspose(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0], w = n.operands[1];
  auto inType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  RankedTensorType outType = n.getResultType();
  if (!isFloat(outType))
    return n.fail("only floating-point ConvTranspose is lowered");
  int64_t spatial = inType.getRank() - 2;
  if (spatial < 1 || wType.getRank() != inType.getRank() ||
      outType.getRank() != inType.getRank())
    return n.fail("needs N C spatial... inputs and weights of the same rank");
  int64_t group = n.getInt("group", 1);
  int64_t channels = inType.getDimSize(1);
  if (group < 1 || channels % group || wType.getDimSize(0) != channels)
    return n.fail("the weight's first dimension must be the input channels, "
                  "divisible by group");
  int64_t perGroupIn = channels / group, perGroupOut = wType.getDimSize(1);
  if (outType.getDimSize(1) != perGroupOut * group)
    return n.fail("the output channels must be group x the weight's second "
                  "dimension");
  SmallVector<int64_t> kernel(wType.getShape().drop_front(2));
  SmallVector<int64_t> strides = intsOr(n, "strides", spatial, 1);
  SmallVector<int64_t> dilations = intsOr(n, "dilations", spatial, 1);
  SmallVector<int64_t> outPad = intsOr(n, "output_padding", spatial, 0);
  if (strides.size() != size_t(spatial) ||
      dilations.size() != size_t(spatial) || outPad.size() != size_t(spatial))
    return n.fail("strides, dilations and output_padding need one value per "
                  "spatial dimension");
  if (llvm::any_of(strides, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(dilations, [](int64_t v) { return v < 1; }))
    return n.fail("strides and dilations must be positive");
  SmallVector<int64_t> begin(spatial, 0);
  std::optional<SmallVector<int64_t>> pads = n.getInts("pads");
  StringRef autoPad = n.getString("auto_pad", "NOTSET");
  for (int64_t d = 0; d < spatial; ++d) {
    if (pads && autoPad == "NOTSET" && !n.getInts("output_shape")) {
      if (pads->size() != size_t(2 * spatial))
        return n.fail("pads needs 2 values per spatial dimension");
      begin[d] = (*pads)[d];
      continue;
    }
    int64_t total = strides[d] * (inType.getDimSize(2 + d) - 1) + outPad[d] +
                    (kernel[d] - 1) * dilations[d] + 1 -
                    outType.getDimSize(2 + d);
    // An output larger than the input covers (output_shape) grows at the
    // end.
    begin[d] = total < 0                 ? 0
               : autoPad == "SAME_UPPER" ? total / 2
                                         : total - total / 2;
  }
  // Loops: n, g, f, o..., then the reductions c, k...; the weight is read
  // as [G, C/G, F, k...] and the output written as [N, G, F, o...], so
  // every loop is a plain dimension of an operand.
  MLIRContext *context = b.getContext();
  int64_t loops = 4 + 2 * spatial;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, context); };
  SmallVector<AffineExpr> wExprs = {dim(1), dim(3 + spatial), dim(2)};
  SmallVector<AffineExpr> outExprs = {dim(0), dim(1), dim(2)};
  SmallVector<int64_t> wShape = {group, perGroupIn, perGroupOut};
  SmallVector<int64_t> outShape = {outType.getDimSize(0), group, perGroupOut};
  for (int64_t d = 0; d < spatial; ++d) {
    wExprs.push_back(dim(4 + spatial + d));
    outExprs.push_back(dim(3 + d));
    wShape.push_back(kernel[d]);
    outShape.push_back(outType.getDimSize(2 + d));
  }
  Type element = outType.getElementType();
  auto groupedOut = RankedTensorType::get(outShape, element);
  auto groupedW = RankedTensorType::get(wShape, element);
  SmallVector<ReassociationIndices> splitFirst = {{0, 1}},
                                    splitSecond = {{0}, {1, 2}};
  for (int64_t d = 0; d < spatial + 1; ++d)
    splitFirst.push_back({d + 2});
  for (int64_t d = 0; d < spatial; ++d)
    splitSecond.push_back({d + 3});
  Value grouped =
      tensor::ExpandShapeOp::create(b, loc, groupedW, w, splitFirst);
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::reduction);
  std::fill_n(iterators.begin(), 3 + spatial, utils::IteratorType::parallel);
  Value result =
      linalg::GenericOp::create(
          b, loc, TypeRange{groupedOut}, ValueRange{grouped},
          ValueRange{filled(b, loc, groupedOut, 0.0)},
          SmallVector<AffineMap>{AffineMap::get(loops, 0, wExprs, context),
                                 AffineMap::get(loops, 0, outExprs, context)},
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            auto index = [&](int64_t v) {
              return Value(arith::ConstantIndexOp::create(nb, l, v));
            };
            using P = arith::CmpIPredicate;
            Value channel = arith::AddIOp::create(
                nb, l,
                arith::MulIOp::create(nb, l, linalg::IndexOp::create(nb, l, 1),
                                      index(perGroupIn)),
                linalg::IndexOp::create(nb, l, 3 + spatial));
            SmallVector<Value> at = {linalg::IndexOp::create(nb, l, 0),
                                     channel};
            Value valid =
                arith::ConstantOp::create(nb, l, nb.getBoolAttr(true));
            for (int64_t d = 0; d < spatial; ++d) {
              Value o = linalg::IndexOp::create(nb, l, 3 + d);
              Value k = linalg::IndexOp::create(nb, l, 4 + spatial + d);
              Value t = arith::SubIOp::create(
                  nb, l, arith::AddIOp::create(nb, l, o, index(begin[d])),
                  arith::MulIOp::create(nb, l, k, index(dilations[d])));
              Value i = arith::DivSIOp::create(nb, l, t, index(strides[d]));
              Value ok = arith::AndIOp::create(
                  nb, l, arith::CmpIOp::create(nb, l, P::sge, t, index(0)),
                  arith::CmpIOp::create(
                      nb, l, P::eq,
                      arith::RemSIOp::create(nb, l, t, index(strides[d])),
                      index(0)));
              ok = arith::AndIOp::create(
                  nb, l, ok,
                  arith::CmpIOp::create(nb, l, P::slt, i,
                                        index(inType.getDimSize(2 + d))));
              valid = arith::AndIOp::create(nb, l, valid, ok);
              at.push_back(arith::SelectOp::create(nb, l, ok, i, index(0)));
            }
            Value read = tensor::ExtractOp::create(nb, l, x, at);
            read = arith::SelectOp::create(nb, l, valid, read,
                                           scalarConstant(nb, l, element, 0));
            linalg::YieldOp::create(
                nb, l,
                Value(arith::AddFOp::create(
                    nb, l, args[1],
                    arith::MulFOp::create(nb, l, read, args[0]))));
          })
          .getResult(0);
  result =
      tensor::CollapseShapeOp::create(b, loc, outType, result, splitSecond);
  if (n.hasOperand(2))
    result = addChannelBias(b, loc, result, n.operands[2]);
  return single(result);
}

/// Pooling over any number of spatial dimensions, gathered per output
/// element: the window's elements read at o * stride + k * dilation - begin
/// and skipped outside the input (so max ignores padding and the average
/// divides by the elements inside, or by the window with
/// count_include_pad). MaxPool's Indices output is the row-major offset of
/// the maximum in the whole input (storage_order 1: column-major within
/// the spatial dims). Used for 3-D windows and for Indices; 1-D and 2-D
/// pools take the named-op path.
template <bool IsMax>
Results lowerGatheredPool(NodeLowering &n, ArrayRef<int64_t> kernel) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto inType = cast<RankedTensorType>(x.getType());
  RankedTensorType outType = n.getResultType();
  int64_t spatial = inType.getRank() - 2;
  if (spatial < 1 || kernel.size() != size_t(spatial))
    return n.fail("kernel_shape needs one size per spatial dimension");
  SmallVector<int64_t> strides = intsOr(n, "strides", spatial, 1);
  SmallVector<int64_t> dilations = intsOr(n, "dilations", spatial, 1);
  if (strides.size() != size_t(spatial) || dilations.size() != size_t(spatial))
    return n.fail("strides and dilations need one value per spatial dimension");
  auto padding = spatialPadding(n, inType.getShape().drop_front(2),
                                outType.getShape().drop_front(2), kernel,
                                strides, dilations);
  if (failed(padding))
    return failure();
  SmallVector<int64_t> begin = padding->first;
  SmallVector<int64_t> pads = intsOr(n, "pads", 2 * spatial, 0);
  SmallVector<int64_t> explicitEnd(pads.begin() + spatial, pads.end());
  bool includePad = !IsMax && n.getInt("count_include_pad", 0);
  bool columnMajor = n.getInt("storage_order", 0);
  bool withIndices = IsMax && n.wantsResult(1);
  Type element = outType.getElementType();
  Type f = element;
  double inf = std::numeric_limits<double>::infinity();
  // Output element: value (and index) from a compile-time loop over the
  // window.
  RankedTensorType indexType =
      withIndices ? n.getResultType(1) : RankedTensorType();
  int64_t window = 1;
  for (int64_t k : kernel)
    window *= k;
  auto body = [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs,
                  bool wantIndex) -> Value {
    auto i64 = [&](int64_t v) {
      return Value(arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(v)));
    };
    using P = arith::CmpIPredicate;
    bool floating = isFloat(f), isUnsigned = n.isUnsignedInput(0);
    Value acc = isUnsigned ? scalarConstant(nb, l, f, 0)
                           : scalarConstant(nb, l, f, IsMax ? -inf : 0);
    Value best = i64(0), count = scalarConstant(nb, l, f, 0);
    for (int64_t w = 0; w < window; ++w) {
      SmallVector<int64_t> k(spatial);
      for (int64_t d = spatial - 1, rest = w; d >= 0; --d) {
        k[d] = rest % kernel[d];
        rest /= kernel[d];
      }
      SmallVector<Value> at(ivs.take_front(2));
      Value inside = arith::ConstantOp::create(nb, l, nb.getBoolAttr(true));
      Value withPad = inside;
      SmallVector<Value> coords;
      for (int64_t d = 0; d < spatial; ++d) {
        Value o =
            arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[2 + d]);
        Value i = arith::AddIOp::create(
            nb, l, arith::MulIOp::create(nb, l, o, i64(strides[d])),
            i64(k[d] * dilations[d] - begin[d]));
        int64_t in = inType.getDimSize(2 + d);
        inside = arith::AndIOp::create(
            nb, l, inside,
            arith::AndIOp::create(
                nb, l, arith::CmpIOp::create(nb, l, P::sge, i, i64(0)),
                arith::CmpIOp::create(nb, l, P::slt, i, i64(in))));
        // count_include_pad counts the explicit pads, not ceil_mode's.
        withPad = arith::AndIOp::create(
            nb, l, withPad,
            arith::CmpIOp::create(nb, l, P::slt, i, i64(in + explicitEnd[d])));
        Value clamped = arith::MaxSIOp::create(
            nb, l, arith::MinSIOp::create(nb, l, i, i64(in - 1)), i64(0));
        coords.push_back(clamped);
        at.push_back(
            arith::IndexCastOp::create(nb, l, nb.getIndexType(), clamped));
      }
      Value v = tensor::ExtractOp::create(nb, l, x, at);
      if (IsMax) {
        Value greater = floating
                            ? Value(arith::CmpFOp::create(
                                  nb, l, arith::CmpFPredicate::OGT, v, acc))
                            : Value(arith::CmpIOp::create(
                                  nb, l, isUnsigned ? P::ugt : P::sgt, v, acc));
        Value better = arith::AndIOp::create(nb, l, inside, greater);
        acc = arith::SelectOp::create(nb, l, better, v, acc);
        if (wantIndex) {
          // Offset of (n, c, coords) in the input.
          Value offset =
              arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[0]);
          offset = arith::AddIOp::create(
              nb, l,
              arith::MulIOp::create(nb, l, offset, i64(inType.getDimSize(1))),
              arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[1]));
          Value spatialOffset = i64(0);
          for (int64_t j = 0; j < spatial; ++j) {
            int64_t d = columnMajor ? spatial - 1 - j : j;
            spatialOffset = arith::AddIOp::create(
                nb, l,
                arith::MulIOp::create(nb, l, spatialOffset,
                                      i64(inType.getDimSize(2 + d))),
                coords[d]);
          }
          int64_t plane = 1;
          for (int64_t d = 0; d < spatial; ++d)
            plane *= inType.getDimSize(2 + d);
          offset = arith::AddIOp::create(
              nb, l, arith::MulIOp::create(nb, l, offset, i64(plane)),
              spatialOffset);
          best = arith::SelectOp::create(nb, l, better, offset, best);
        }
      } else {
        acc = arith::AddFOp::create(
            nb, l, acc,
            arith::SelectOp::create(nb, l, inside, v,
                                    scalarConstant(nb, l, f, 0)));
        count = arith::AddFOp::create(
            nb, l, count,
            arith::SelectOp::create(nb, l, includePad ? withPad : inside,
                                    scalarConstant(nb, l, f, 1),
                                    scalarConstant(nb, l, f, 0)));
      }
    }
    if (wantIndex)
      return best;
    if (!IsMax)
      acc = arith::DivFOp::create(nb, l, acc, count);
    return acc;
  };
  SmallVector<Value> results = {generate(
      b, loc, outType, [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
        return body(nb, l, ivs, false);
      })};
  if (withIndices)
    results.push_back(generate(
        b, loc, indexType, [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
          return body(nb, l, ivs, true);
        }));
  return results;
}

template <bool IsMax> Results lowerPool(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto inType = cast<RankedTensorType>(n.operands[0].getType());
  RankedTensorType finalType = n.getResultType();
  if (!IsMax && !isFloat(finalType))
    return n.fail("only floating-point AveragePool is lowered");
  std::optional<SmallVector<int64_t>> kernel = n.getInts("kernel_shape");
  if (failed(checkBatchOnlyDynamic(n, inType, finalType)))
    return failure();
  if (kernel &&
      (inType.getRank() > 4 || !isFloat(finalType) || n.wantsResult(1))) {
    if (!inType.hasStaticShape())
      return n.fail("3-D, integer and index-returning pooling take static "
                    "shapes only");
    return lowerGatheredPool<IsMax>(n, *kernel);
  }
  if (!kernel)
    return n.fail("kernel_shape is missing");
  FailureOr<Window> window = readWindow(n, inType, finalType, *kernel);
  if (failed(window))
    return failure();
  Value input = n.operands[0];
  SmallVector<Value> batch = batchSizes(b, loc, input, finalType);
  RankedTensorType outType = finalType;
  if (window->lifted) {
    input = liftTo2d(b, loc, input);
    outType = liftedType(finalType);
  }
  auto finish = [&](Value result) {
    return single(window->lifted ? Value(tensor::CollapseShapeOp::create(
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
    return finish(
        linalg::PoolingNchwMaxOp::create(
            b, loc, TypeRange{outType}, ValueRange{input, windowShape},
            ValueRange{filled(b, loc, outType, padValue, batch)}, attrs)
            .getResult(0));
  Value sum = linalg::PoolingNchwSumOp::create(
                  b, loc, TypeRange{outType}, ValueRange{input, windowShape},
                  ValueRange{filled(b, loc, outType, 0.0, batch)}, attrs)
                  .getResult(0);
  // The divisor: the window size, or (count_include_pad = 0) the number of
  // real input elements under each window, pooled from a padded tensor of
  // ones. Padding added for ceil_mode never counts.
  Value counts;
  bool includePad = n.getInt("count_include_pad", 0) != 0;
  auto onesType =
      RankedTensorType::get(inShape.take_back(2), outType.getElementType());
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
  Value pooledCounts =
      linalg::PoolingNchwSumOp::create(
          b, loc, TypeRange{pooledCountsType}, ValueRange{counts4, windowShape},
          ValueRange{filled(b, loc, pooledCountsType, 0.0)}, attrs)
          .getResult(0);
  return finish(elementwise(b, loc, {sum, pooledCounts}, outType,
                            [](OpBuilder &nb, Location l, ValueRange args) {
                              return Value(arith::DivFOp::create(nb, l, args[0],
                                                                 args[1]));
                            }));
}

/// GlobalAveragePool / GlobalMaxPool: reduce every spatial dimension.
template <bool IsMax> Results lowerGlobalPool(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto inType = cast<RankedTensorType>(n.operands[0].getType());
  if (failed(checkBatchOnlyDynamic(n, inType, n.getResultType())))
    return failure();
  SmallVector<int64_t> axes;
  int64_t count = 1;
  for (int64_t d = 2; d < inType.getRank(); ++d) {
    axes.push_back(d);
    count *= inType.getDimSize(d);
  }
  Value reduced =
      reduce(b, loc, n.operands[0], axes,
             IsMax ? -std::numeric_limits<double>::infinity() : 0.0,
             [](OpBuilder &nb, Location l, Value x, Value acc) -> Value {
               if (IsMax)
                 return arith::MaximumFOp::create(nb, l, x, acc);
               return arith::AddFOp::create(nb, l, x, acc);
             });
  RankedTensorType outType = n.getResultType();
  Value result =
      reshapeTo(b, loc, reduced, outType, dynamicSizesOf(b, loc, reduced));
  if (!IsMax) {
    Type element = outType.getElementType();
    result = elementwise(
        b, loc, {result}, outType,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          return Value(arith::DivFOp::create(
              nb, l, args[0], scalarConstant(nb, l, element, count)));
        });
  }
  return single(result);
}

} // namespace

void placer::lowering::registerConvolutionPoolingOps(OpRegistry &r) {
  r.beginFamily(
      "Convolution and pooling",
      "Conv: `tensor.pad` (pads, auto_pad SAME_UPPER/SAME_LOWER/VALID), "
      "then `linalg.conv_2d_nchw_fchw`, or for group > 1 "
      "`linalg.conv_2d_ngchw_gfchw` between reshapes; bias by channel; 1-D "
      "windows run as 2-D ones of height 1; integer operands accumulate in "
      "i32 (ConvInteger, QLinearConv). ConvTranspose (1-D to 3-D, groups, "
      "dilations, output_padding, output_shape, auto_pad): a generic "
      "gathering, per output element, the inputs whose stride lands on it. "
      "Pooling (1-D, 2-D): `linalg.pooling_nchw_max/sum`, the average "
      "dividing by the window count (count_include_pad) or by a pooled "
      "tensor of ones; ceil_mode through the node's output shape. 3-D "
      "windows, integer MaxPool and MaxPool's Indices output: a generic "
      "over the output reading each window element. Global pooling: "
      "`linalg.reduce` over the spatial dimensions.");
  r.add("Conv", lowerConv)
      .computesIn(CastPolicy::Half)
      .work(work::conv())
      .backward(2.0)
      .gradient(gradients::conv)
      .shardBy(sharding::conv)
      .fuses(fusion::convolution);
  r.add("ConvTranspose", lowerConvTranspose)
      .computesIn(CastPolicy::Half)
      .work(work::convTranspose())
      .backward(2.0)
      .fuses(fusion::convolution);
  r.add("MaxPool", lowerPool<true>)
      .work(work::pool())
      .backward(1.0)
      .carriesSplit(sharding::channels)
      .fuses(fusion::maxPool);
  // The gradient scatters with reduction=add, which opset 16 brought.
  r.add("MaxPool", lowerPool<true>, 16).gradient(gradients::maxPool);
  r.add("AveragePool", lowerPool<false>)
      .work(work::pool())
      .backward(1.0)
      .gradient(gradients::averagePool)
      .carriesSplit(sharding::channels);
  r.add("GlobalAveragePool", lowerGlobalPool<false>)
      .work(work::perInputElement(1))
      .backward(1.0)
      .gradient(gradients::globalAveragePool)
      .carriesSplit(sharding::channels)
      .fuses(fusion::reduction);
  r.add("GlobalMaxPool", lowerGlobalPool<true>)
      .work(work::perInputElement(1))
      .backward(1.0)
      .carriesSplit(sharding::channels)
      .fuses(fusion::reduction);
  // A dynamic batch (dim 0): see checkBatchOnlyDynamic.
  r.allowDynamicDims(
      {"Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"});

  // Known to the cost model and placement; no lowering yet.
  r.add("GlobalLpPool", nullptr).work(work::perInputElement(2));
  r.add("LpPool", nullptr).work(work::pool()).backward(1.0);
}
