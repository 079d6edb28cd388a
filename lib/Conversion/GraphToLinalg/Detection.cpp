//===- Detection.cpp - NonMaxSuppression
//-----------------------------------===//
//
// Per batch and class: each box's place in the score order is counted (a
// generic, O(n^2)), the order inverted, then an scf.for walks the boxes best
// first and keeps one when its score passes the threshold and its IoU with
// every box kept for the class so far does not exceed the IoU threshold. The
// selected [batch, class, box] rows fill the output's static row count, as
// the model declares it.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace placer;
using namespace placer::lowering;

namespace {

/// A box's corners (y1, x1, y2, x2), from corner pairs in any order or, with
/// center_point_box, from (x center, y center, width, height).
struct Box {
  Value y1, x1, y2, x2;
};

Box readBox(OpBuilder &b, Location loc, Value boxes, Value batch, Value index,
            bool centered) {
  auto at = [&](int64_t k) {
    return castScalar(
        b, loc,
        tensor::ExtractOp::create(
            b, loc, boxes,
            ValueRange{batch, index,
                       arith::ConstantIndexOp::create(b, loc, k)}),
        b.getF32Type());
  };
  Value a0 = at(0), a1 = at(1), a2 = at(2), a3 = at(3);
  if (centered) {
    Value half = scalarConstant(b, loc, b.getF32Type(), 0.5);
    Value hw = arith::MulFOp::create(b, loc, a2, half);
    Value hh = arith::MulFOp::create(b, loc, a3, half);
    return {arith::SubFOp::create(b, loc, a1, hh),
            arith::SubFOp::create(b, loc, a0, hw),
            arith::AddFOp::create(b, loc, a1, hh),
            arith::AddFOp::create(b, loc, a0, hw)};
  }
  return {arith::MinimumFOp::create(b, loc, a0, a2),
          arith::MinimumFOp::create(b, loc, a1, a3),
          arith::MaximumFOp::create(b, loc, a0, a2),
          arith::MaximumFOp::create(b, loc, a1, a3)};
}

Value intersectionOverUnion(OpBuilder &b, Location loc, const Box &p,
                            const Box &q) {
  Value zero = scalarConstant(b, loc, b.getF32Type(), 0);
  auto extent = [&](Value lo1, Value hi1, Value lo2, Value hi2) {
    return Value(arith::MaximumFOp::create(
        b, loc, zero,
        arith::SubFOp::create(b, loc,
                              arith::MinimumFOp::create(b, loc, hi1, hi2),
                              arith::MaximumFOp::create(b, loc, lo1, lo2))));
  };
  Value inter = arith::MulFOp::create(b, loc, extent(p.y1, p.y2, q.y1, q.y2),
                                      extent(p.x1, p.x2, q.x1, q.x2));
  auto area = [&](const Box &r) {
    return Value(
        arith::MulFOp::create(b, loc, arith::SubFOp::create(b, loc, r.y2, r.y1),
                              arith::SubFOp::create(b, loc, r.x2, r.x1)));
  };
  Value uni = arith::SubFOp::create(
      b, loc, arith::AddFOp::create(b, loc, area(p), area(q)), inter);
  Value positive =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, uni, zero);
  return arith::SelectOp::create(
      b, loc, positive, arith::DivFOp::create(b, loc, inter, uni), zero);
}

Results lowerNonMaxSuppression(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value boxes = n.operands[0], scores = n.operands[1];
  auto boxType = cast<RankedTensorType>(boxes.getType());
  auto scoreType = cast<RankedTensorType>(scores.getType());
  RankedTensorType outType = n.getResultType();
  if (boxType.getRank() != 3 || boxType.getDimSize(2) != 4 ||
      scoreType.getRank() != 3 || outType.getRank() != 2 ||
      outType.getDimSize(1) != 3)
    return n.fail("needs boxes [B, N, 4], scores [B, C, N] and an [M, 3] "
                  "output");
  int64_t batches = boxType.getDimSize(0), boxCount = boxType.getDimSize(1);
  int64_t classes = scoreType.getDimSize(1), room = outType.getDimSize(0);
  bool centered = n.getInt("center_point_box", 0);
  Type f = b.getF32Type();
  auto scalarOf = [&](unsigned i, Type type, double fallback) -> Value {
    if (!n.hasOperand(i) ||
        cast<RankedTensorType>(n.operands[i].getType()).getNumElements() == 0)
      return scalarConstant(b, loc, type, fallback);
    return extractScalar(b, loc, n.operands[i], type);
  };
  Value maxPerClass = scalarOf(2, b.getI64Type(), 0);
  Value iouLimit = scalarOf(3, f, 0);
  Value scoreLimit = scalarOf(4, f, -std::numeric_limits<double>::infinity());
  bool hasScoreLimit = n.hasOperand(4);
  Value result = filled(b, loc, outType, 0);
  if (room == 0 || boxCount == 0)
    return single(result);
  auto idx = [](OpBuilder &ob, Location l, int64_t v) {
    return Value(arith::ConstantIndexOp::create(ob, l, v));
  };
  auto i64 = [](OpBuilder &ob, Location l, Value v) {
    return Value(arith::IndexCastOp::create(ob, l, ob.getI64Type(), v));
  };
  auto orderType = RankedTensorType::get({boxCount}, b.getIndexType());
  auto batchLoop = buildFor(
      b, loc, idx(b, loc, 0), idx(b, loc, batches),
      ValueRange{result, idx(b, loc, 0)},
      [&](OpBuilder &bb, Location bl, Value batch, ValueRange bArgs) {
        auto classLoop = buildFor(
            bb, bl, idx(bb, bl, 0), idx(bb, bl, classes), bArgs,
            [&](OpBuilder &cb, Location cl, Value cls, ValueRange cArgs) {
              auto score = [&](OpBuilder &ob, Location l, Value i) {
                return castScalar(ob, l,
                                  tensor::ExtractOp::create(
                                      ob, l, scores, ValueRange{batch, cls, i}),
                                  f);
              };
              // place[i]: boxes scoring higher, or equal with a lower index.
              auto places = buildFor(
                  cb, cl, idx(cb, cl, 0), idx(cb, cl, boxCount),
                  ValueRange{tensor::EmptyOp::create(
                      cb, cl, orderType.getShape(), cb.getIndexType())},
                  [&](OpBuilder &ib, Location il, Value i, ValueRange order) {
                    Value si = score(ib, il, i);
                    auto counted = buildFor(
                        ib, il, idx(ib, il, 0), idx(ib, il, boxCount),
                        ValueRange{idx(ib, il, 0)},
                        [&](OpBuilder &mb, Location ml, Value m,
                            ValueRange count) {
                          Value sm = score(mb, ml, m);
                          Value ahead = arith::OrIOp::create(
                              mb, ml,
                              arith::CmpFOp::create(
                                  mb, ml, arith::CmpFPredicate::OGT, sm, si),
                              arith::AndIOp::create(
                                  mb, ml,
                                  arith::CmpFOp::create(
                                      mb, ml, arith::CmpFPredicate::OEQ, sm,
                                      si),
                                  arith::CmpIOp::create(
                                      mb, ml, arith::CmpIPredicate::ult, m,
                                      i)));
                          return SmallVector<Value>{arith::SelectOp::create(
                              mb, ml, ahead,
                              arith::AddIOp::create(mb, ml, count[0],
                                                    idx(mb, ml, 1)),
                              count[0])};
                        });
                    return SmallVector<Value>{tensor::InsertOp::create(
                        ib, il, i, order[0], ValueRange{counted[0]})};
                  });
              Value order = places[0];
              Value start = cArgs[1];
              // Walk the boxes best first.
              auto walk = buildFor(
                  cb, cl, idx(cb, cl, 0), idx(cb, cl, boxCount),
                  ValueRange{cArgs[0], cArgs[1], i64(cb, cl, idx(cb, cl, 0))},
                  [&](OpBuilder &wb, Location wl, Value r, ValueRange w) {
                    Value out = w[0], count = w[1], kept = w[2];
                    Value i =
                        tensor::ExtractOp::create(wb, wl, order, ValueRange{r});
                    Value ok = arith::AndIOp::create(
                        wb, wl,
                        arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::slt,
                                              kept, maxPerClass),
                        arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::ult,
                                              count, idx(wb, wl, room)));
                    if (hasScoreLimit)
                      ok = arith::AndIOp::create(
                          wb, wl, ok,
                          arith::CmpFOp::create(wb, wl,
                                                arith::CmpFPredicate::OGT,
                                                score(wb, wl, i), scoreLimit));
                    Box box = readBox(wb, wl, boxes, batch, i, centered);
                    auto overlap = buildFor(
                        wb, wl, start, count,
                        ValueRange{arith::ConstantOp::create(
                            wb, wl, wb.getBoolAttr(false))},
                        [&](OpBuilder &ob, Location ol, Value j,
                            ValueRange hit) {
                          Value other = arith::IndexCastOp::create(
                              ob, ol, ob.getIndexType(),
                              tensor::ExtractOp::create(
                                  ob, ol, out, ValueRange{j, idx(ob, ol, 2)}));
                          Value iou = intersectionOverUnion(
                              ob, ol, box,
                              readBox(ob, ol, boxes, batch, other, centered));
                          return SmallVector<Value>{arith::OrIOp::create(
                              ob, ol, hit[0],
                              arith::CmpFOp::create(ob, ol,
                                                    arith::CmpFPredicate::OGT,
                                                    iou, iouLimit))};
                        });
                    Value keep = arith::AndIOp::create(
                        wb, wl, ok,
                        arith::XOrIOp::create(
                            wb, wl, overlap[0],
                            arith::ConstantOp::create(wb, wl,
                                                      wb.getBoolAttr(true))));
                    auto branch = scf::IfOp::create(
                        wb, wl, keep,
                        [&](OpBuilder &tb, Location tl) {
                          Value row = out;
                          Value fields[3] = {i64(tb, tl, batch),
                                             i64(tb, tl, cls), i64(tb, tl, i)};
                          for (int64_t k = 0; k < 3; ++k)
                            row = tensor::InsertOp::create(
                                tb, tl,
                                castScalar(tb, tl, fields[k],
                                           outType.getElementType()),
                                row, ValueRange{count, idx(tb, tl, k)});
                          scf::YieldOp::create(
                              tb, tl,
                              ValueRange{
                                  row,
                                  arith::AddIOp::create(tb, tl, count,
                                                        idx(tb, tl, 1)),
                                  arith::AddIOp::create(
                                      tb, tl, kept,
                                      arith::ConstantOp::create(
                                          tb, tl, tb.getI64IntegerAttr(1)))});
                        },
                        [&](OpBuilder &eb, Location el) {
                          scf::YieldOp::create(eb, el,
                                               ValueRange{out, count, kept});
                        });
                    return SmallVector<Value>(branch.getResults());
                  });
              return SmallVector<Value>{walk[0], walk[1]};
            });
        return classLoop;
      });
  return single(batchLoop[0]);
}

/// RoiAlign: each output bin averages (or, in max mode, takes the largest
/// weighted corner of) bilinear samples on a grid inside its part of the
/// region; sampling_ratio 0 sizes the grid from the region (ceil(roi / bins)),
/// so the sample loops are scf.for loops with bounds computed at run time.
/// half_pixel shifts the region by half a pixel; output_half_pixel (opset
/// 10's behaviour) does not and keeps regions at least one pixel wide.
template <bool halfPixelDefault> Results lowerRoiAlign(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0], rois = n.operands[1], batchIndices = n.operands[2];
  auto xType = cast<RankedTensorType>(x.getType());
  RankedTensorType outType = n.getResultType();
  if (xType.getRank() != 4 || outType.getRank() != 4 || !isFloat(outType))
    return n.fail("needs NCHW floating-point features");
  StringRef mode = n.getString("mode", "avg");
  StringRef coordinates =
      n.getString("coordinate_transformation_mode",
                  halfPixelDefault ? "half_pixel" : "output_half_pixel");
  if ((mode != "avg" && mode != "max") ||
      (coordinates != "half_pixel" && coordinates != "output_half_pixel"))
    return n.fail("unknown mode or coordinate_transformation_mode");
  bool halfPixel = coordinates == "half_pixel", isMax = mode == "max";
  int64_t height = xType.getDimSize(2), width = xType.getDimSize(3);
  int64_t binsH = outType.getDimSize(2), binsW = outType.getDimSize(3);
  int64_t ratio = n.getInt("sampling_ratio", 0);
  double scale = n.getFloat("spatial_scale", 1.0f);
  Type f = b.getF32Type();
  Type element = outType.getElementType();
  return single(generate(
      b, loc, outType, [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
        auto c = [&](double v) { return scalarConstant(nb, l, f, v); };
        auto add = [&](Value p, Value q) {
          return Value(arith::AddFOp::create(nb, l, p, q));
        };
        auto sub = [&](Value p, Value q) {
          return Value(arith::SubFOp::create(nb, l, p, q));
        };
        auto mul = [&](Value p, Value q) {
          return Value(arith::MulFOp::create(nb, l, p, q));
        };
        auto div = [&](Value p, Value q) {
          return Value(arith::DivFOp::create(nb, l, p, q));
        };
        auto idx = [&](int64_t v) {
          return Value(arith::ConstantIndexOp::create(nb, l, v));
        };
        auto asFloat = [&](Value index) {
          return Value(arith::UIToFPOp::create(
              nb, l, f,
              arith::IndexCastOp::create(nb, l, nb.getI64Type(), index)));
        };
        Value r = ivs[0];
        auto roi = [&](int64_t k) {
          return castScalar(
              nb, l,
              tensor::ExtractOp::create(nb, l, rois, ValueRange{r, idx(k)}), f);
        };
        Value offset = c(halfPixel ? 0.5 : 0.0);
        Value startW = sub(mul(roi(0), c(scale)), offset);
        Value startH = sub(mul(roi(1), c(scale)), offset);
        Value roiW = sub(sub(mul(roi(2), c(scale)), offset), startW);
        Value roiH = sub(sub(mul(roi(3), c(scale)), offset), startH);
        if (!halfPixel) {
          roiW = arith::MaximumFOp::create(nb, l, roiW, c(1));
          roiH = arith::MaximumFOp::create(nb, l, roiH, c(1));
        }
        Value binH = div(roiH, c(binsH)), binW = div(roiW, c(binsW));
        auto gridOf = [&](Value bin) {
          if (ratio > 0)
            return idx(ratio);
          return Value(arith::IndexCastOp::create(
              nb, l, nb.getIndexType(),
              arith::FPToSIOp::create(nb, l, nb.getI64Type(),
                                      math::CeilOp::create(nb, l, bin))));
        };
        Value gridH = gridOf(binH), gridW = gridOf(binW);
        Value batch = arith::IndexCastOp::create(
            nb, l, nb.getIndexType(),
            castScalar(
                nb, l,
                tensor::ExtractOp::create(nb, l, batchIndices, ValueRange{r}),
                nb.getI64Type()));
        batch =
            arith::MinUIOp::create(nb, l, batch, idx(xType.getDimSize(0) - 1));
        Value channel = ivs[1];
        Value baseH = add(startH, mul(asFloat(ivs[2]), binH));
        Value baseW = add(startW, mul(asFloat(ivs[3]), binW));
        Value init = c(isMax ? -std::numeric_limits<double>::infinity() : 0.0);
        auto rows = scf::ForOp::create(
            nb, l, idx(0), gridH, idx(1), ValueRange{init},
            [&](OpBuilder &yb, Location yl, Value iy, ValueRange yAcc) {
              auto cols = scf::ForOp::create(
                  yb, yl, idx(0), gridW, idx(1), yAcc,
                  [&](OpBuilder &xb, Location xl, Value ix, ValueRange xAcc) {
                    OpBuilder &q = xb;
                    auto cq = [&](double v) {
                      return scalarConstant(q, xl, f, v);
                    };
                    auto frac = [&](Value i, Value grid) {
                      return Value(arith::DivFOp::create(
                          q, xl,
                          arith::AddFOp::create(q, xl, asFloat(i), cq(0.5)),
                          asFloat(grid)));
                    };
                    Value y = arith::AddFOp::create(
                        q, xl, baseH,
                        arith::MulFOp::create(q, xl, frac(iy, gridH), binH));
                    Value xx = arith::AddFOp::create(
                        q, xl, baseW,
                        arith::MulFOp::create(q, xl, frac(ix, gridW), binW));
                    using P = arith::CmpFPredicate;
                    Value outside = arith::OrIOp::create(
                        q, xl,
                        arith::OrIOp::create(
                            q, xl,
                            arith::CmpFOp::create(q, xl, P::OLT, y, cq(-1)),
                            arith::CmpFOp::create(q, xl, P::OGT, y,
                                                  cq(height))),
                        arith::OrIOp::create(
                            q, xl,
                            arith::CmpFOp::create(q, xl, P::OLT, xx, cq(-1)),
                            arith::CmpFOp::create(q, xl, P::OGT, xx,
                                                  cq(width))));
                    // Corners and weights along one axis (clamped at the edge).
                    auto axis = [&](Value v, int64_t size) {
                      v = arith::MaximumFOp::create(q, xl, v, cq(0));
                      Value low = math::FloorOp::create(q, xl, v);
                      Value atEdge = arith::CmpFOp::create(q, xl, P::OGE, low,
                                                           cq(size - 1));
                      low = arith::SelectOp::create(q, xl, atEdge, cq(size - 1),
                                                    low);
                      v = arith::SelectOp::create(q, xl, atEdge, low, v);
                      Value high = arith::SelectOp::create(
                          q, xl, atEdge, low,
                          arith::AddFOp::create(q, xl, low, cq(1)));
                      Value lw = arith::SubFOp::create(q, xl, v, low);
                      auto toIndex = [&](Value g) {
                        return Value(arith::IndexCastOp::create(
                            q, xl, q.getIndexType(),
                            arith::FPToSIOp::create(q, xl, q.getI64Type(), g)));
                      };
                      return std::tuple{
                          toIndex(low), toIndex(high),
                          Value(arith::SubFOp::create(q, xl, cq(1), lw)), lw};
                    };
                    auto [yl0, yh0, hy, ly] = axis(y, height);
                    auto [xl0, xh0, hx, lx] = axis(xx, width);
                    auto at = [&](Value yi, Value xi) {
                      return castScalar(
                          q, xl,
                          tensor::ExtractOp::create(
                              q, xl, x, ValueRange{batch, channel, yi, xi}),
                          f);
                    };
                    Value terms[4] = {
                        arith::MulFOp::create(
                            q, xl, arith::MulFOp::create(q, xl, hy, hx),
                            at(yl0, xl0)),
                        arith::MulFOp::create(
                            q, xl, arith::MulFOp::create(q, xl, hy, lx),
                            at(yl0, xh0)),
                        arith::MulFOp::create(
                            q, xl, arith::MulFOp::create(q, xl, ly, hx),
                            at(yh0, xl0)),
                        arith::MulFOp::create(
                            q, xl, arith::MulFOp::create(q, xl, ly, lx),
                            at(yh0, xh0))};
                    Value sample;
                    if (isMax) {
                      sample = terms[0];
                      for (int k = 1; k < 4; ++k)
                        sample =
                            arith::MaximumFOp::create(q, xl, sample, terms[k]);
                      sample = arith::SelectOp::create(q, xl, outside, cq(0),
                                                       sample);
                      sample =
                          arith::MaximumFOp::create(q, xl, xAcc[0], sample);
                    } else {
                      sample = arith::AddFOp::create(
                          q, xl,
                          arith::AddFOp::create(q, xl, terms[0], terms[1]),
                          arith::AddFOp::create(q, xl, terms[2], terms[3]));
                      sample = arith::SelectOp::create(q, xl, outside, cq(0),
                                                       sample);
                      sample = arith::AddFOp::create(q, xl, xAcc[0], sample);
                    }
                    scf::YieldOp::create(q, xl, sample);
                  });
              scf::YieldOp::create(yb, yl, cols.getResults());
            });
        Value result = rows.getResult(0);
        if (!isMax) {
          Value count = arith::MaxUIOp::create(
              nb, l, arith::MulIOp::create(nb, l, gridH, gridW), idx(1));
          result = div(result, asFloat(count));
        }
        return castScalar(nb, l, result, element);
      }));
}

} // namespace

void placer::lowering::registerDetectionOps(OpRegistry &r) {
  r.beginFamily(
      "Detection",
      "NonMaxSuppression (corner or center_point_box boxes, score and IoU "
      "thresholds, max boxes per class): per batch and class, the boxes' "
      "score order counted (O(n^2)), then an `scf.for` keeping each box "
      "whose IoU with those kept before stays within the threshold; the "
      "selected rows fill the output's static row count. RoiAlign (avg, "
      "max; half_pixel, output_half_pixel): per output bin, `scf.for` loops "
      "over its bilinear samples (the grid sized at run time when "
      "sampling_ratio is 0).");
  r.add("NonMaxSuppression", lowerNonMaxSuppression)
      .work(work::nonMaxSuppression());
  // Opset 16 changed the default coordinate transformation to half_pixel.
  r.add("RoiAlign", lowerRoiAlign<false>).work(work::perOutputElement(40));
  r.add("RoiAlign", lowerRoiAlign<true>, 16);
}
