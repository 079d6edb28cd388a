//===- GpuNativeMath.cpp - Kernel math without libdevice ------------------===//
//
// The build machine has no CUDA, so no libdevice: upstream's NVVM lowering
// would leave `.extern .func __nv_sqrtf` in the PTX (or, where CUDA happens
// to be installed, link it in: the artifact would depend on the machine
// that compiled it). These ops are single PTX instructions, reached through
// LLVM's generic intrinsics, which the NVVM lowering leaves alone when they
// are called by name.
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

namespace placer {
#define GEN_PASS_DEF_GPUNATIVEMATH
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;

namespace {

/// The LLVM intrinsic of each math op NVPTX implements in one instruction.
std::optional<StringRef> getIntrinsic(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<StringRef>>(op)
      .Case<math::SqrtOp>([](auto) { return StringRef("llvm.sqrt"); })
      .Case<math::FloorOp>([](auto) { return StringRef("llvm.floor"); })
      .Case<math::CeilOp>([](auto) { return StringRef("llvm.ceil"); })
      .Case<math::AbsFOp>([](auto) { return StringRef("llvm.fabs"); })
      .Case<math::FmaOp>([](auto) { return StringRef("llvm.fma"); })
      .Case<math::RoundEvenOp>(
          [](auto) { return StringRef("llvm.roundeven"); })
      .Case<math::TruncOp>([](auto) { return StringRef("llvm.trunc"); })
      .Case<math::CopySignOp>(
          [](auto) { return StringRef("llvm.copysign"); })
      .Default([](Operation *) { return std::nullopt; });
}

struct GpuNativeMathPass
    : placer::impl::GpuNativeMathBase<GpuNativeMathPass> {
  void runOnOperation() override {
    // Powers with small constant exponents as products (x ** 3 in GELU).
    RewritePatternSet patterns(&getContext());
    populateMathAlgebraicSimplificationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    OpBuilder b(&getContext());
    // rsqrt has no generic intrinsic: 1 / sqrt, each rounded as in strict
    // IEEE (PTX div.rn, sqrt.rn).
    getOperation().walk([&](math::RsqrtOp op) {
      Type type = op.getType();
      if (!type.isF32() && !type.isF64())
        return;
      b.setInsertionPoint(op);
      Value root = math::SqrtOp::create(b, op.getLoc(), op.getOperand());
      Value one = arith::ConstantOp::create(b, op.getLoc(), type,
                                            b.getFloatAttr(type, 1.0));
      op.replaceAllUsesWith(
          arith::DivFOp::create(b, op.getLoc(), one, root).getResult());
      op.erase();
    });
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (getIntrinsic(op) && op->getNumResults() == 1 &&
          (op->getResult(0).getType().isF32() ||
           op->getResult(0).getType().isF64()))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      b.setInsertionPoint(op);
      Type type = op->getResult(0).getType();
      std::string name =
          (*getIntrinsic(op) + (type.isF32() ? ".f32" : ".f64")).str();
      auto call = LLVM::CallIntrinsicOp::create(
          b, op->getLoc(), type, b.getStringAttr(name), op->getOperands());
      op->getResult(0).replaceAllUsesWith(call.getResult(0));
      op->erase();
    }
  }
};

} // namespace
