//===- Signal.cpp - Windows and the discrete Fourier transform -----------===//
//
// The window functions are generics over their static length (the size
// input agrees with the output's shape, which import folded); DFT sums,
// per output frequency, every input sample times the unit root, as one
// linalg.generic with a reduction loop over the samples (O(n^2): no FFT).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace placer;
using namespace placer::lowering;

namespace {

/// A generalized cosine window a0 - a1 cos(2 pi n / N') + a2 cos(4 pi n /
/// N'), N' the length (periodic) or the length - 1 (symmetric).
template <int Kind> Results lowerWindow(NodeLowering &n) {
  static constexpr double coefficients[3][3] = {
      {0.5, 0.5, 0.0},                 // Hann
      {25.0 / 46.0, 21.0 / 46.0, 0.0}, // Hamming
      {0.42, 0.5, 0.08}};              // Blackman
  const double *a = coefficients[Kind];
  RankedTensorType outType = n.getResultType();
  if (outType.getRank() != 1)
    return n.fail("the window must be 1-D");
  int64_t length = outType.getDimSize(0);
  double period = n.getInt("periodic", 1) ? length : length - 1;
  Type f = n.builder.getF64Type();
  Type element = outType.getElementType();
  return single(generate(
      n.builder, n.getLoc(), outType,
      [&](OpBuilder &b, Location loc, ArrayRef<Value> ivs) {
        auto c = [&](double v) { return scalarConstant(b, loc, f, v); };
        Value i = arith::UIToFPOp::create(
            b, loc, f,
            arith::IndexCastOp::create(b, loc, b.getI64Type(), ivs[0]));
        Value angle = arith::MulFOp::create(
            b, loc, i, c(period > 0 ? 2 * M_PI / period : 0));
        Value w = arith::SubFOp::create(
            b, loc, c(a[0]),
            arith::MulFOp::create(b, loc, c(a[1]),
                                  math::CosOp::create(b, loc, angle)));
        if (a[2] != 0)
          w = arith::AddFOp::create(
              b, loc, w,
              arith::MulFOp::create(
                  b, loc, c(a[2]),
                  math::CosOp::create(
                      b, loc, arith::MulFOp::create(b, loc, angle, c(2)))));
        return castScalar(b, loc, w, element);
      }));
}

/// DFT along `axis` of [batch, ..., n, 1 (real) or 2 (complex)]: out[.., k,
/// re/im] = sum over n of x[.., n] e^(-+2 pi i k n / N), N the dft_length
/// (the input padded with zeros or cut to it), divided by N when inverse;
/// onesided keeps the first N / 2 + 1 frequencies (the output's shape).
Results lowerDFT(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto type = cast<RankedTensorType>(x.getType());
  RankedTensorType outType = n.getResultType();
  int64_t rank = type.getRank();
  int64_t axis = normalizeAxis(n.getInt("axis", 1), rank);
  if (rank < 3 || axis < 1 || axis >= rank - 1 || outType.getRank() != rank ||
      outType.getDimSize(rank - 1) != 2 || !isFloat(outType))
    return n.fail("needs [batch, ..., n, 1 or 2] floats and an axis among the "
                  "signal dimensions");
  bool complexInput = type.getDimSize(rank - 1) == 2;
  bool inverse = n.getInt("inverse", 0);
  int64_t samples = type.getDimSize(axis);
  int64_t length = samples;
  if (n.hasOperand(1)) {
    std::optional<SmallVector<int64_t>> given = n.getConstantInts(1);
    if (!given || given->size() != 1)
      return n.fail("dft_length must be a compile-time scalar");
    length = given->front();
  }
  if (length < 1)
    return n.fail("dft_length must be positive");
  int64_t used = std::min(samples, length);
  Type f = b.getF64Type();
  Type element = outType.getElementType();
  double sign = inverse ? 1.0 : -1.0;
  // Loops: the output's dims, then the samples (a reduction).
  MLIRContext *context = b.getContext();
  int64_t loops = rank + 1;
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  // A dummy operand spanning the samples gives the reduction loop its
  // bound.
  Value span = emptyTensor(b, loc, RankedTensorType::get({used}, element));
  auto spanMap =
      AffineMap::get(loops, 0, {getAffineDimExpr(rank, context)}, context);
  auto outMap =
      AffineMap::getMultiDimIdentityMap(loops, context).getMajorSubMap(rank);
  Value sum =
      linalg::GenericOp::create(
          b, loc, TypeRange{outType}, ValueRange{span},
          ValueRange{filled(b, loc, outType, 0)},
          SmallVector<AffineMap>{spanMap, outMap}, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            auto c = [&](double v) { return scalarConstant(nb, l, f, v); };
            SmallVector<Value> at;
            for (int64_t d = 0; d < rank - 1; ++d)
              at.push_back(linalg::IndexOp::create(nb, l, d));
            Value sample = linalg::IndexOp::create(nb, l, rank);
            Value k = at[axis];
            at[axis] = sample;
            auto read = [&](int64_t part) {
              SmallVector<Value> where(at);
              where.push_back(arith::ConstantIndexOp::create(nb, l, part));
              return castScalar(nb, l,
                                tensor::ExtractOp::create(nb, l, x, where), f);
            };
            Value re = read(0), im = complexInput ? read(1) : c(0);
            auto asFloat = [&](Value index) {
              return Value(arith::UIToFPOp::create(
                  nb, l, f,
                  arith::IndexCastOp::create(nb, l, nb.getI64Type(), index)));
            };
            // angle = sign 2 pi (k n mod N) / N, reduced for accuracy.
            Value kn = arith::RemUIOp::create(
                nb, l, arith::MulIOp::create(nb, l, k, sample),
                arith::ConstantIndexOp::create(nb, l, length));
            Value angle = arith::MulFOp::create(nb, l, asFloat(kn),
                                                c(sign * 2 * M_PI / length));
            Value cs = math::CosOp::create(nb, l, angle);
            Value sn = math::SinOp::create(nb, l, angle);
            // (re + i im)(cos + i sin)
            Value outRe = arith::SubFOp::create(
                nb, l, arith::MulFOp::create(nb, l, re, cs),
                arith::MulFOp::create(nb, l, im, sn));
            Value outIm = arith::AddFOp::create(
                nb, l, arith::MulFOp::create(nb, l, re, sn),
                arith::MulFOp::create(nb, l, im, cs));
            Value part = linalg::IndexOp::create(nb, l, rank - 1);
            Value isRe =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, part,
                                      arith::ConstantIndexOp::create(nb, l, 0));
            Value term = arith::SelectOp::create(nb, l, isRe, outRe, outIm);
            if (inverse)
              term = arith::DivFOp::create(nb, l, term, c(length));
            linalg::YieldOp::create(
                nb, l,
                Value(arith::AddFOp::create(nb, l, args[1],
                                            castScalar(nb, l, term, element))));
          })
          .getResult(0);
  return single(sum);
}

} // namespace

void placer::lowering::registerSignalOps(OpRegistry &r) {
  r.beginFamily(
      "Signal processing",
      "HannWindow, HammingWindow, BlackmanWindow (periodic or symmetric): a "
      "generic over the window's static length. DFT (real or complex input, "
      "inverse, dft_length, onesided through the output's shape): one "
      "generic summing every sample times its unit root, O(n^2).");
  r.add("HannWindow", lowerWindow<0>).work(work::perOutputElement(8));
  r.add("HammingWindow", lowerWindow<1>).work(work::perOutputElement(8));
  r.add("BlackmanWindow", lowerWindow<2>).work(work::perOutputElement(8));
  r.add("DFT", lowerDFT).work(work::dft());
}
