//===- DistinctResults.cpp - One allocation per returned buffer -----------===//

#include "placer/Conversion/Passes.h"

namespace placer {
#define GEN_PASS_DEF_DISTINCTRESULTS
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;

namespace {

struct DistinctResultsPass
    : public placer::impl::DistinctResultsBase<DistinctResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 8> seen;
      OpBuilder builder(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<MemRefType>(value.getType());
        if (!type || seen.insert(value).second)
          continue;
        if (!type.hasStaticShape() || !type.getLayout().isIdentity())
          continue; // buffer-results-to-out-params copies these itself
        Value copy = memref::AllocOp::create(builder, ret.getLoc(), type);
        memref::CopyOp::create(builder, ret.getLoc(), value, copy);
        operand.set(copy);
      }
    });
  }
};

} // namespace
