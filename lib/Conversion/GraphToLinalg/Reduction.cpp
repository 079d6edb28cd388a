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
// Reductions and normalizations
//===----------------------------------------------------------------------===//

/// Reduction axes: the `axes` attribute, or (ReduceSum from opset 13,
/// every Reduce* from 18) a constant second input; none means all axes
/// unless noop_with_empty_axes.
FailureOr<SmallVector<int64_t>> reductionAxes(NodeLowering &n, int64_t rank) {
  std::optional<SmallVector<int64_t>> axes = n.getInts("axes");
  if (!axes && n.hasOperand(1)) {
    axes = n.getConstantInts(1);
    if (!axes)
      return (n.fail("axes must be a compile-time constant"));
  }
  SmallVector<int64_t> result;
  if (!axes || axes->empty()) {
    if (n.getInt("noop_with_empty_axes", 0))
      return result;
    for (int64_t d = 0; d < rank; ++d)
      result.push_back(d);
    return result;
  }
  for (int64_t a : *axes) {
    a = normalizeAxis(a, rank);
    if (a < 0 || a >= rank)
      return (n.fail("axis out of range"));
    if (!llvm::is_contained(result, a))
      result.push_back(a);
  }
  llvm::sort(result);
  return result;
}

enum class ReduceKind { Sum, Mean, Max, Min, SumSquare, L2 };

template <ReduceKind Kind>
Results lowerReduce(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto inType = cast<RankedTensorType>(n.operands[0].getType());
  RankedTensorType outType = n.getResultType();
  if (!isFloat(outType))
    return n.fail("only floating-point reductions are lowered");
  auto axes = reductionAxes(n, inType.getRank());
  if (failed(axes))
    return failure();
  if (axes->empty())
    return single(reshapeTo(b, loc, n.operands[0], outType));
  Value input = n.operands[0];
  if (Kind == ReduceKind::SumSquare || Kind == ReduceKind::L2)
    input = elementwise(b, loc, {input}, inType,
                        [](OpBuilder &nb, Location l, ValueRange args) {
                          return Value(
                              arith::MulFOp::create(nb, l, args[0], args[0]));
                        });
  double init = Kind == ReduceKind::Max ? -std::numeric_limits<double>::infinity()
                : Kind == ReduceKind::Min ? std::numeric_limits<double>::infinity()
                                          : 0.0;
  Value reduced = reduce(b, loc, input, *axes, init,
                         [](OpBuilder &nb, Location l, Value x, Value acc) -> Value {
                           if (Kind == ReduceKind::Max)
                             return arith::MaximumFOp::create(nb, l, x, acc);
                           if (Kind == ReduceKind::Min)
                             return arith::MinimumFOp::create(nb, l, x, acc);
                           return arith::AddFOp::create(nb, l, x, acc);
                         });
  Value result = reshapeTo(b, loc, reduced, outType);
  int64_t count = 1;
  for (int64_t a : *axes)
    count *= inType.getDimSize(a);
  Type element = outType.getElementType();
  if (Kind == ReduceKind::Mean || Kind == ReduceKind::L2)
    result = elementwise(b, loc, {result}, outType,
                         [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                           if (Kind == ReduceKind::L2)
                             return math::SqrtOp::create(nb, l, args[0]);
                           return arith::DivFOp::create(
                               nb, l, args[0],
                               scalarConstant(nb, l, element, count));
                         });
  return single(result);
}

} // namespace

void placer::lowering::registerReductionLowerings(LoweringRegistry &r) {
  r.beginFamily("Reductions",
                "`linalg.reduce` over the axes (attribute, or a constant input from opset 13/18; keepdims, noop_with_empty_axes).");
  r.add("ReduceSum", lowerReduce<ReduceKind::Sum>);
  r.add("ReduceMean", lowerReduce<ReduceKind::Mean>);
  r.add("ReduceMax", lowerReduce<ReduceKind::Max>);
  r.add("ReduceMin", lowerReduce<ReduceKind::Min>);
  r.add("ReduceSumSquare", lowerReduce<ReduceKind::SumSquare>);
  r.add("ReduceL2", lowerReduce<ReduceKind::L2>);
}
