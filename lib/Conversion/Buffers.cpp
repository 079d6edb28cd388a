//===- Buffers.cpp - Shaping what bufferization makes ---------------------===//
//
// See include/placer/Conversion/Buffers.h.
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/Buffers.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

void placer::giveFillsOwnBuffers(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<linalg::FillOp> shared;
  func.walk([&](linalg::FillOp fill) {
    if (fill.hasPureTensorSemantics() &&
        fill.getOutputs().front().getDefiningOp<tensor::EmptyOp>())
      shared.push_back(fill);
  });
  for (linalg::FillOp fill : shared) {
    auto empty = fill.getOutputs().front().getDefiningOp<tensor::EmptyOp>();
    for (OpOperand &use : llvm::make_early_inc_range(fill->getUses())) {
      rewriter.setInsertionPoint(use.getOwner());
      Value buffer = bufferization::AllocTensorOp::create(
          rewriter, fill.getLoc(), empty.getType(), empty.getDynamicSizes());
      Value own = linalg::FillOp::create(rewriter, fill.getLoc(),
                                         fill.getInputs(), buffer)
                      .getResult(0);
      rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(own); });
    }
    rewriter.eraseOp(fill);
    if (empty->use_empty())
      rewriter.eraseOp(empty);
  }
}
