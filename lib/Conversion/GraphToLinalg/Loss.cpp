//===- Loss.cpp - NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss ------===//
//
// Both losses pick, per sample (and per spatial position), the input at the
// target class: one generic over the target's shape reads it with
// tensor.extract and yields the weighted loss and its weight; the
// reduction ("none", "sum", "mean" = weighted sum / sum of weights) follows.
// Targets equal to ignore_index weigh 0.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace placer;
using namespace placer::lowering;

namespace {

/// The negative log-likelihood of `input` (N, C, d...) at `target`
/// (N, d...), weighted by `weight` (C) when given, reduced as the node's
/// `reduction` says into `outType`.
FailureOr<Value> negativeLogLikelihood(NodeLowering &n, Value input,
                                       Value target, Value weight,
                                       RankedTensorType outType) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto inType = cast<RankedTensorType>(input.getType());
  auto targetType = cast<RankedTensorType>(target.getType());
  if (inType.getRank() < 2 || targetType.getRank() != inType.getRank() - 1)
    return n.fail("the input needs (N, C, d...) and the target (N, d...)");
  StringRef reduction = n.getString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return n.fail("unknown reduction '" + reduction + "'");
  Type element = inType.getElementType();
  int64_t classes = inType.getDimSize(1);
  std::optional<int64_t> ignore;
  if (n.node.getAttrs().get("ignore_index"))
    ignore = n.getInt("ignore_index", 0);
  auto lossType = RankedTensorType::get(targetType.getShape(), element);
  int64_t rank = targetType.getRank();
  MLIRContext *context = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{lossType, lossType}, ValueRange{target},
      ValueRange{emptyTensor(b, loc, lossType), emptyTensor(b, loc, lossType)},
      SmallVector<AffineMap>{identity, identity, identity}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value t = castScalar(nb, l, args[0], nb.getI64Type());
        Value skip = arith::ConstantOp::create(nb, l, nb.getBoolAttr(false));
        if (ignore)
          skip = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::eq, t,
              arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(*ignore)));
        // A target outside [0, C) (an ignored one among them) reads class 0
        // and weighs nothing, so no read leaves the tensor.
        Value zero = arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0));
        Value inRange = arith::AndIOp::create(
            nb, l,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, t, zero),
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, t,
                                  arith::ConstantOp::create(
                                      nb, l, nb.getI64IntegerAttr(classes))));
        Value valid = arith::AndIOp::create(
            nb, l, inRange,
            arith::XOrIOp::create(
                nb, l, skip,
                arith::ConstantOp::create(nb, l, nb.getBoolAttr(true))));
        Value c = arith::IndexCastOp::create(
            nb, l, nb.getIndexType(),
            arith::SelectOp::create(nb, l, valid, t, zero));
        SmallVector<Value> at = {linalg::IndexOp::create(nb, l, 0), c};
        for (int64_t d = 1; d < rank; ++d)
          at.push_back(linalg::IndexOp::create(nb, l, d));
        Value picked = tensor::ExtractOp::create(nb, l, input, at);
        Value w = weight ? Value(tensor::ExtractOp::create(nb, l, weight, c))
                         : scalarConstant(nb, l, element, 1);
        w = arith::SelectOp::create(nb, l, valid, w,
                                    scalarConstant(nb, l, element, 0));
        Value loss = arith::NegFOp::create(
            nb, l, arith::MulFOp::create(nb, l, picked, w));
        linalg::YieldOp::create(nb, l, ValueRange{loss, w});
      });
  Value loss = generic.getResult(0), weights = generic.getResult(1);
  if (reduction == "none")
    return reshapeTo(b, loc, loss, outType);
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < rank; ++d)
    all.push_back(d);
  auto sum = [&](Value v) {
    return reshapeTo(b, loc,
                     reduce(b, loc, v, all, 0.0,
                            [](OpBuilder &nb, Location l, Value x, Value acc) {
                              return Value(
                                  arith::AddFOp::create(nb, l, x, acc));
                            }),
                     outType);
  };
  Value total = sum(loss);
  if (reduction == "sum")
    return total;
  return elementwise(b, loc, {total, sum(weights)}, outType,
                     [](OpBuilder &nb, Location l, ValueRange args) {
                       return Value(
                           arith::DivFOp::create(nb, l, args[0], args[1]));
                     });
}

Results lowerNegativeLogLikelihoodLoss(NodeLowering &n) {
  if (!isFloat(n.getResultType()))
    return n.fail("only floating-point losses are lowered");
  FailureOr<Value> loss = negativeLogLikelihood(
      n, n.operands[0], n.operands[1],
      n.hasOperand(2) ? n.operands[2] : Value(), n.getResultType());
  if (failed(loss))
    return failure();
  return single(*loss);
}

/// LogSoftmax over the classes (axis 1), then the negative log-likelihood;
/// the optional second output is the log-probabilities.
Results lowerSoftmaxCrossEntropyLoss(NodeLowering &n) {
  if (!isFloat(n.getResultType()))
    return n.fail("only floating-point losses are lowered");
  auto type = cast<RankedTensorType>(n.operands[0].getType());
  if (type.getRank() < 2)
    return n.fail("the scores need (N, C, d...)");
  Value logProb = softmax(n.builder, n.getLoc(), n.operands[0], {1},
                          /*log=*/true);
  FailureOr<Value> loss = negativeLogLikelihood(
      n, logProb, n.operands[1], n.hasOperand(2) ? n.operands[2] : Value(),
      n.getResultType());
  if (failed(loss))
    return failure();
  SmallVector<Value> results = {*loss};
  if (n.wantsResult(1))
    results.push_back(logProb);
  return results;
}

} // namespace

void placer::lowering::registerLossOps(OpRegistry &r) {
  r.beginFamily(
      "Losses",
      "NegativeLogLikelihoodLoss: one generic over the target's shape reads "
      "the input at each target class (`tensor.extract`), weighted, "
      "ignore_index weighing 0; reduction none, sum or mean (weighted sum over "
      "the sum of weights). SoftmaxCrossEntropyLoss: LogSoftmax over the "
      "classes, then the same; the log-probabilities as its second output.");
  r.add("NegativeLogLikelihoodLoss", lowerNegativeLogLikelihoodLoss)
      .computesIn(CastPolicy::Float)
      .work(work::loss());
  r.add("SoftmaxCrossEntropyLoss", lowerSoftmaxCrossEntropyLoss)
      .computesIn(CastPolicy::Float)
      .work(work::softmaxLoss());
}
