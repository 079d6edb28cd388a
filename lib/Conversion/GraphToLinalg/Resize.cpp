//===- Resize.cpp - Resize and Upsample
//------------------------------------===//
//
// One generic over the output. Per resized dimension, the output index maps
// to a coordinate in the input (coordinate_transformation_mode) from the
// scale (the scales input, read at run time, or output / input size when
// sizes are given); the taps around it (nearest: 1, linear: 2, cubic: 4)
// are read with clamped indices (edge padding) and weighted, over every
// combination of the resized dimensions' taps. Dimensions whose size does
// not change are read directly (except tf_crop_and_resize, whose roi may
// crop any of them).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace placer;
using namespace placer::lowering;

namespace {

struct ResizeMode {
  StringRef mode, coordinates, nearest;
  double cubicA, extrapolation;
  bool excludeOutside;
};

/// One tap of one dimension: the (unclamped) input index and its weight.
struct Tap {
  Value index, weight;
};

/// The input coordinate of output index `x` (f32) along a dimension. The
/// resized length is in x scale, unrounded, as ONNX's reference has it.
Value inputCoordinate(OpBuilder &b, Location loc, const ResizeMode &m, Value x,
                      Value scale, int64_t in, int64_t out, Value roiStart,
                      Value roiEnd) {
  Value length = arith::MulFOp::create(
      b, loc, scalarConstant(b, loc, b.getF32Type(), in), scale);
  Type f = b.getF32Type();
  auto c = [&](double v) { return scalarConstant(b, loc, f, v); };
  auto add = [&](Value a, Value v) {
    return Value(arith::AddFOp::create(b, loc, a, v));
  };
  auto sub = [&](Value a, Value v) {
    return Value(arith::SubFOp::create(b, loc, a, v));
  };
  auto mul = [&](Value a, Value v) {
    return Value(arith::MulFOp::create(b, loc, a, v));
  };
  auto div = [&](Value a, Value v) {
    return Value(arith::DivFOp::create(b, loc, a, v));
  };
  StringRef mode = m.coordinates;
  if (mode == "asymmetric")
    return div(x, scale);
  auto isOne = [&]() {
    return Value(
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, length, c(1)));
  };
  if (mode == "align_corners")
    return arith::SelectOp::create(b, loc, isOne(), c(0),
                                   div(mul(x, c(in - 1)), sub(length, c(1))));
  if (mode == "tf_half_pixel_for_nn")
    return div(add(x, c(0.5)), scale);
  if (mode == "pytorch_half_pixel")
    return arith::SelectOp::create(b, loc, isOne(), c(0),
                                   sub(div(add(x, c(0.5)), scale), c(0.5)));
  if (mode == "tf_crop_and_resize") {
    Value span = mul(sub(roiEnd, roiStart), c(in - 1));
    if (out == 1)
      return mul(mul(add(roiStart, roiEnd), c(0.5)), c(in - 1));
    return add(mul(roiStart, c(in - 1)), div(mul(x, span), c(out - 1)));
  }
  // half_pixel (the default) and pytorch_half_pixel.
  return sub(div(add(x, c(0.5)), scale), c(0.5));
}

/// The taps of coordinate `xo` for the node's mode.
SmallVector<Tap> tapsFor(OpBuilder &b, Location loc, const ResizeMode &m,
                         Value xo, int64_t in) {
  Type f = b.getF32Type();
  auto c = [&](double v) { return scalarConstant(b, loc, f, v); };
  Value base = math::FloorOp::create(b, loc, xo);
  Value ratio = arith::SubFOp::create(b, loc, xo, base);
  Value i0 = arith::FPToSIOp::create(b, loc, b.getI64Type(), base);
  auto at = [&](int64_t offset) {
    return Value(arith::AddIOp::create(
        b, loc, i0,
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(offset))));
  };
  if (m.mode == "nearest") {
    // Whether the upper neighbour is the nearest one.
    using P = arith::CmpFPredicate;
    Value upper;
    if (m.nearest == "floor")
      upper = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    else if (m.nearest == "ceil")
      upper = arith::CmpFOp::create(b, loc, P::OGT, ratio, c(0));
    else if (m.nearest == "round_prefer_ceil")
      upper = arith::CmpFOp::create(b, loc, P::OGE, ratio, c(0.5));
    else
      upper = arith::CmpFOp::create(b, loc, P::OGT, ratio, c(0.5));
    return {{arith::SelectOp::create(b, loc, upper, at(1), at(0)), c(1)}};
  }
  if (m.mode == "linear")
    return {{at(0), arith::SubFOp::create(b, loc, c(1), ratio)},
            {at(1), ratio}};
  // cubic: Keys' kernel with coefficient a.
  double a = m.cubicA;
  auto mul = [&](Value x, Value y) {
    return Value(arith::MulFOp::create(b, loc, x, y));
  };
  auto add = [&](Value x, Value y) {
    return Value(arith::AddFOp::create(b, loc, x, y));
  };
  auto sub = [&](Value x, Value y) {
    return Value(arith::SubFOp::create(b, loc, x, y));
  };
  // Outer taps (distance d in [1, 2]): ((a d - 5a) d + 8a) d - 4a.
  auto outer = [&](Value d) {
    return sub(mul(add(mul(sub(mul(c(a), d), c(5 * a)), d), c(8 * a)), d),
               c(4 * a));
  };
  // Inner taps (distance d in [0, 1]): ((a + 2) d - (a + 3)) d d + 1.
  auto inner = [&](Value d) {
    return add(mul(mul(sub(mul(c(a + 2), d), c(a + 3)), d), d), c(1));
  };
  Value oneMinus = sub(c(1), ratio);
  SmallVector<Tap> taps = {{at(-1), outer(add(ratio, c(1)))},
                           {at(0), inner(ratio)},
                           {at(1), inner(oneMinus)},
                           {at(2), outer(add(oneMinus, c(1)))}};
  if (m.excludeOutside) {
    // Taps outside the input weigh 0; the rest are renormalized.
    Value total = c(0);
    for (Tap &tap : taps) {
      using P = arith::CmpIPredicate;
      Value inside = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(
              b, loc, P::sge, tap.index,
              arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0))),
          arith::CmpIOp::create(
              b, loc, P::slt, tap.index,
              arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(in))));
      tap.weight = arith::SelectOp::create(b, loc, inside, tap.weight, c(0));
      total = add(total, tap.weight);
    }
    for (Tap &tap : taps)
      tap.weight = arith::DivFOp::create(b, loc, tap.weight, total);
  }
  return taps;
}

template <bool legacy, bool upsample = false>
Results lowerResize(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto inType = cast<RankedTensorType>(x.getType());
  RankedTensorType outType = n.getResultType();
  int64_t rank = inType.getRank();
  if (!isFloat(outType))
    return n.fail("only floating-point Resize is lowered");
  ResizeMode m;
  m.mode = n.getString("mode", "nearest");
  m.coordinates =
      legacy ? StringRef("asymmetric")
             : n.getString("coordinate_transformation_mode", "half_pixel");
  m.nearest = legacy ? StringRef("floor")
                     : n.getString("nearest_mode", "round_prefer_floor");
  m.cubicA = n.getFloat("cubic_coeff_a", -0.75f);
  m.excludeOutside = n.getInt("exclude_outside", 0);
  m.extrapolation = n.getFloat("extrapolation_value", 0.0f);
  if (m.mode == "bilinear")
    m.mode = "linear";
  if (m.mode != "nearest" && m.mode != "linear" && m.mode != "cubic")
    return n.fail("unknown mode '" + m.mode + "'");
  static constexpr StringLiteral modes[] = {
      "half_pixel", "pytorch_half_pixel",   "align_corners",
      "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (!llvm::is_contained(modes, m.coordinates))
    return n.fail("unknown coordinate_transformation_mode '" + m.coordinates +
                  "'");
  // Where the scales and the roi are.
  unsigned scalesAt = legacy ? 1 : 2, sizesAt = 3, roiAt = 1;
  Value scales;
  if (upsample && !n.hasOperand(1)) {
    scales = Value(); // opset 7: the scales attribute
  } else if (n.hasOperand(scalesAt) &&
             cast<RankedTensorType>(n.operands[scalesAt].getType())
                     .getNumElements() > 0) {
    scales = n.operands[scalesAt];
  } else if (!legacy && !n.hasOperand(sizesAt)) {
    return n.fail("needs scales or sizes");
  }
  std::optional<SmallVector<int64_t>> scaleAttr;
  bool crop = m.coordinates == "tf_crop_and_resize";
  Type f = b.getF32Type();
  SmallVector<Value> scaleOf(rank), roiStart(rank), roiEnd(rank);
  SmallVector<bool> resized(rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = inType.getDimSize(d), out = outType.getDimSize(d);
    if (scales)
      scaleOf[d] = extractScalar(b, loc, scales, f, d);
    else if (upsample && !n.hasOperand(1)) {
      auto attr = n.node.getAttrs().getAs<ArrayAttr>("scales");
      if (!attr || attr.size() != size_t(rank))
        return n.fail("scales needs one value per dimension");
      scaleOf[d] = scalarConstant(b, loc, f,
                                  cast<FloatAttr>(attr[d]).getValueAsDouble());
    } else
      scaleOf[d] = scalarConstant(b, loc, f, in == 0 ? 1.0 : double(out) / in);
    if (crop) {
      if (!n.hasOperand(roiAt))
        return n.fail("tf_crop_and_resize needs the roi input");
      roiStart[d] = extractScalar(b, loc, n.operands[roiAt], f, d);
      roiEnd[d] = extractScalar(b, loc, n.operands[roiAt], f, rank + d);
    }
    resized[d] = crop || in != out;
    if (in == 0 && out != 0)
      return n.fail("cannot resize an empty dimension");
  }
  Type element = outType.getElementType();
  return single(generate(
      b, loc, outType, [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
        // Per dimension: its taps (one exact tap where not resized).
        SmallVector<SmallVector<Tap>> taps(rank);
        Value outside = arith::ConstantOp::create(nb, l, nb.getBoolAttr(false));
        for (int64_t d = 0; d < rank; ++d) {
          if (!resized[d]) {
            taps[d] = {
                {arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[d]),
                 scalarConstant(nb, l, f, 1)}};
            continue;
          }
          int64_t in = inType.getDimSize(d);
          Value xr = arith::UIToFPOp::create(
              nb, l, f,
              arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[d]));
          Value xo =
              inputCoordinate(nb, l, m, xr, scaleOf[d], in,
                              outType.getDimSize(d), roiStart[d], roiEnd[d]);
          if (crop)
            outside = arith::OrIOp::create(
                nb, l, outside,
                arith::OrIOp::create(
                    nb, l,
                    arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLT, xo,
                                          scalarConstant(nb, l, f, 0)),
                    arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, xo,
                                          scalarConstant(nb, l, f, in - 1))));
          taps[d] = tapsFor(nb, l, m, xo, in);
        }
        // Sum over every combination of taps.
        Value sum = scalarConstant(nb, l, f, 0);
        SmallVector<size_t> pick(rank, 0);
        while (true) {
          Value weight = scalarConstant(nb, l, f, 1);
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d) {
            const Tap &tap = taps[d][pick[d]];
            weight = arith::MulFOp::create(nb, l, weight, tap.weight);
            Value clamped = arith::MaxSIOp::create(
                nb, l,
                arith::MinSIOp::create(
                    nb, l, tap.index,
                    arith::ConstantOp::create(
                        nb, l, nb.getI64IntegerAttr(inType.getDimSize(d) - 1))),
                arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
            at.push_back(
                arith::IndexCastOp::create(nb, l, nb.getIndexType(), clamped));
          }
          Value v =
              castScalar(nb, l, tensor::ExtractOp::create(nb, l, x, at), f);
          sum = arith::AddFOp::create(nb, l, sum,
                                      arith::MulFOp::create(nb, l, v, weight));
          int64_t d = rank - 1;
          while (d >= 0 && ++pick[d] == taps[d].size())
            pick[d--] = 0;
          if (d < 0)
            break;
        }
        if (crop)
          sum = arith::SelectOp::create(
              nb, l, outside, scalarConstant(nb, l, f, m.extrapolation), sum);
        return castScalar(nb, l, sum, element);
      }));
}

/// The reflection of coordinate `x` into [low, high] (GridSample's
/// reflection padding).
Value reflect(OpBuilder &b, Location loc, Value x, double low, double high) {
  Type f = x.getType();
  auto c = [&](double v) { return scalarConstant(b, loc, f, v); };
  double span = high - low;
  if (span <= 0)
    return c(0);
  // Distance from low folded over a period of 2 span.
  Value d =
      math::AbsFOp::create(b, loc, arith::SubFOp::create(b, loc, x, c(low)));
  Value flips =
      math::FloorOp::create(b, loc, arith::DivFOp::create(b, loc, d, c(span)));
  Value extra = arith::SubFOp::create(
      b, loc, d, arith::MulFOp::create(b, loc, flips, c(span)));
  Value even =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                            arith::RemFOp::create(b, loc, flips, c(2)), c(0));
  return arith::SelectOp::create(b, loc, even,
                                 arith::AddFOp::create(b, loc, extra, c(low)),
                                 arith::SubFOp::create(b, loc, c(high), extra));
}

/// GridSample (4-D): each output pixel samples the input at the grid's
/// normalized (x, y), unnormalized by align_corners, with zeros, border or
/// reflection padding and nearest, bilinear or bicubic taps.
Results lowerGridSample(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0], grid = n.operands[1];
  auto inType = cast<RankedTensorType>(x.getType());
  RankedTensorType outType = n.getResultType();
  if (inType.getRank() != 4 || !isFloat(outType))
    return n.fail("only 4-D floating-point inputs are lowered");
  StringRef mode = n.getString("mode", "bilinear");
  StringRef padding = n.getString("padding_mode", "zeros");
  bool alignCorners = n.getInt("align_corners", 0);
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return n.fail("unknown mode '" + mode + "'");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return n.fail("unknown padding_mode '" + padding + "'");
  Type f = b.getF32Type();
  int64_t sizes[2] = {inType.getDimSize(3), inType.getDimSize(2)}; // W, H
  ResizeMode taps;
  taps.mode = mode == "bilinear"  ? "linear"
              : mode == "bicubic" ? "cubic"
                                  : "nearest";
  // Nearest rounds half to even (below), not by a nearest_mode.
  taps.cubicA = -0.75;
  taps.excludeOutside = false;
  Type element = outType.getElementType();
  return single(generate(
      b, loc, outType, [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
        auto c = [&](double v) { return scalarConstant(nb, l, f, v); };
        // Per axis (x: width, y: height): the taps and whether each is in.
        SmallVector<SmallVector<Tap>> axisTaps(2);
        SmallVector<SmallVector<Value>> inside(2);
        for (int64_t axis = 0; axis < 2; ++axis) {
          int64_t size = sizes[axis];
          Value v = castScalar(
              nb, l,
              tensor::ExtractOp::create(
                  nb, l, grid,
                  ValueRange{ivs[0], ivs[2], ivs[3],
                             arith::ConstantIndexOp::create(nb, l, axis)}),
              f);
          // Unnormalize [-1, 1] to pixel coordinates.
          Value shifted = arith::AddFOp::create(nb, l, v, c(1));
          Value coord =
              alignCorners
                  ? Value(arith::MulFOp::create(nb, l, shifted,
                                                c((size - 1) / 2.0)))
                  : Value(arith::DivFOp::create(
                        nb, l,
                        arith::SubFOp::create(
                            nb, l,
                            arith::MulFOp::create(nb, l, shifted, c(size)),
                            c(1)),
                        c(2)));
          if (padding == "border")
            coord = arith::MinimumFOp::create(
                nb, l, arith::MaximumFOp::create(nb, l, coord, c(0)),
                c(size - 1));
          if (padding == "reflection") {
            coord = alignCorners ? reflect(nb, l, coord, 0, size - 1)
                                 : reflect(nb, l, coord, -0.5, size - 0.5);
            coord = arith::MinimumFOp::create(
                nb, l, arith::MaximumFOp::create(nb, l, coord, c(0)),
                c(size - 1));
          }
          if (mode == "nearest") {
            Value index = arith::FPToSIOp::create(
                nb, l, nb.getI64Type(),
                math::RoundEvenOp::create(nb, l, coord));
            axisTaps[axis] = {{index, c(1)}};
          } else {
            axisTaps[axis] = tapsFor(nb, l, taps, coord, size);
          }
          for (Tap &tap : axisTaps[axis]) {
            using P = arith::CmpIPredicate;
            Value in = arith::AndIOp::create(
                nb, l,
                arith::CmpIOp::create(
                    nb, l, P::sge, tap.index,
                    arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0))),
                arith::CmpIOp::create(nb, l, P::slt, tap.index,
                                      arith::ConstantOp::create(
                                          nb, l, nb.getI64IntegerAttr(size))));
            inside[axis].push_back(in);
            if (padding != "zeros") {
              // Border and reflection read the nearest edge for taps
              // outside (bicubic's outer taps).
              Value clamped = arith::MaxSIOp::create(
                  nb, l,
                  arith::MinSIOp::create(
                      nb, l, tap.index,
                      arith::ConstantOp::create(
                          nb, l, nb.getI64IntegerAttr(size - 1))),
                  arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
              tap.index = clamped;
              inside[axis].back() =
                  arith::ConstantOp::create(nb, l, nb.getBoolAttr(true));
            }
          }
        }
        Value sum = c(0);
        for (size_t iy = 0; iy < axisTaps[1].size(); ++iy)
          for (size_t ix = 0; ix < axisTaps[0].size(); ++ix) {
            const Tap &tx = axisTaps[0][ix], &ty = axisTaps[1][iy];
            auto clampIndex = [&](Value i, int64_t size) {
              Value cl = arith::MaxSIOp::create(
                  nb, l,
                  arith::MinSIOp::create(
                      nb, l, i,
                      arith::ConstantOp::create(
                          nb, l, nb.getI64IntegerAttr(size - 1))),
                  arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
              return Value(
                  arith::IndexCastOp::create(nb, l, nb.getIndexType(), cl));
            };
            Value v = castScalar(
                nb, l,
                tensor::ExtractOp::create(
                    nb, l, x,
                    ValueRange{ivs[0], ivs[1], clampIndex(ty.index, sizes[1]),
                               clampIndex(tx.index, sizes[0])}),
                f);
            Value in =
                arith::AndIOp::create(nb, l, inside[0][ix], inside[1][iy]);
            v = arith::SelectOp::create(nb, l, in, v, c(0));
            sum = arith::AddFOp::create(
                nb, l, sum,
                arith::MulFOp::create(
                    nb, l, v,
                    arith::MulFOp::create(nb, l, tx.weight, ty.weight)));
          }
        return castScalar(nb, l, sum, element);
      }));
}

} // namespace

void placer::lowering::registerResizeOps(OpRegistry &r) {
  r.beginFamily(
      "Resize",
      "One generic over the output: per resized dimension the output index "
      "maps to an input coordinate (half_pixel, pytorch_half_pixel, "
      "align_corners, asymmetric, tf_half_pixel_for_nn, tf_crop_and_resize "
      "with extrapolation_value) from the scales (read at run time) or the "
      "sizes; nearest (every nearest_mode), linear or cubic (cubic_coeff_a, "
      "exclude_outside) taps are read with edge clamping and weighted. "
      "Upsample and opset-10 Resize use asymmetric coordinates and floor. "
      "GridSample: the same taps at the grid's unnormalized coordinates, with "
      "zeros, border or reflection padding.");
  // Opset 10's Resize and Upsample (`legacy`): asymmetric coordinates,
  // floor-rounding nearest, the scales as input 1; from 11, the roi first.
  r.add("Resize", lowerResize<true>)
      .work(WorkRule::dataMovement())
      .backward(1.0);
  r.add("Resize", lowerResize<false>, 11);
  r.add("Upsample", lowerResize<true, /*upsample=*/true>)
      .work(WorkRule::dataMovement())
      .backward(1.0);
  r.add("GridSample", lowerGridSample).work(work::perOutputElement(8));
}
