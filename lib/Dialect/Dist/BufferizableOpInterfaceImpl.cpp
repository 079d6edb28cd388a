//===- BufferizableOpInterfaceImpl.cpp - Bufferizing transfers ------------===//

#include "placer/Dialect/Dist/BufferizableOpInterfaceImpl.h"

#include "placer/Dialect/Dist/DistDialect.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace placer::dist {
namespace {

/// Reads its operand's buffer in place; no result, no alias.
struct SendOpInterface
    : public BufferizableOpInterface::ExternalModel<SendOpInterface, SendOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto send = cast<SendOp>(op);
    FailureOr<Value> buffer =
        getBuffer(rewriter, send.getValue(), options, state);
    if (failed(buffer))
      return failure();
    replaceOpWithNewBufferizedOp<SendOp>(rewriter, op, *buffer,
                                         send.getChannel(), send.getPeer());
    return success();
  }
};

/// Allocates a contiguous buffer and receives into it: a message is a dense
/// byte range, which only an identity layout can hold without a copy.
struct RecvOpInterface
    : public BufferizableOpInterface::ExternalModel<RecvOpInterface, RecvOp> {
  bool bufferizesToAllocation(Operation *, Value) const { return true; }
  bool resultBufferizesToMemoryWrite(Operation *, OpResult,
                                     const AnalysisState &) const {
    return true;
  }
  AliasingOpOperandList getAliasingOpOperands(Operation *, Value,
                                              const AnalysisState &) const {
    return {};
  }
  FailureOr<BufferLikeType>
  getBufferType(Operation *op, Value value, const BufferizationOptions &,
                const BufferizationState &, SmallVector<Value> &) const {
    return cast<BufferLikeType>(getMemRefTypeWithStaticIdentityLayout(
        cast<TensorType>(value.getType())));
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &) const {
    auto recv = cast<RecvOp>(op);
    auto tensorType = dyn_cast<RankedTensorType>(recv.getTransferType());
    if (!tensorType || !tensorType.hasStaticShape())
      return recv.emitOpError("needs a static tensor to bufferize, got ")
             << recv.getTransferType();
    auto type = cast<MemRefType>(
        getMemRefTypeWithStaticIdentityLayout(tensorType));
    FailureOr<Value> buffer =
        options.createAlloc(rewriter, recv.getLoc(), type, {});
    if (failed(buffer))
      return failure();
    RecvOp::create(rewriter, recv.getLoc(), Type(), recv.getChannel(),
                   recv.getPeer(), *buffer);
    replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};

/// A collective reads its operand's buffer and writes a fresh contiguous
/// one (a message is a dense byte range, as for dist.recv): its result
/// aliases nothing.
template <typename Op>
struct CollectiveOpInterface
    : public BufferizableOpInterface::ExternalModel<CollectiveOpInterface<Op>,
                                                    Op> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }
  bool resultBufferizesToMemoryWrite(Operation *, OpResult,
                                     const AnalysisState &) const {
    return true;
  }
  AliasingOpOperandList getAliasingOpOperands(Operation *, Value,
                                              const AnalysisState &) const {
    return {};
  }
  FailureOr<BufferLikeType>
  getBufferType(Operation *, Value value, const BufferizationOptions &,
                const BufferizationState &, SmallVector<Value> &) const {
    return cast<BufferLikeType>(getMemRefTypeWithStaticIdentityLayout(
        cast<TensorType>(value.getType())));
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto collective = cast<Op>(op);
    auto tensorType = cast<RankedTensorType>(collective.getResult().getType());
    if (!tensorType.hasStaticShape())
      return collective.emitOpError("needs a static tensor to bufferize, got ")
             << tensorType;
    FailureOr<Value> input =
        getBuffer(rewriter, collective.getValue(), options, state);
    if (failed(input))
      return failure();
    auto type = cast<MemRefType>(
        getMemRefTypeWithStaticIdentityLayout(tensorType));
    FailureOr<Value> output =
        options.createAlloc(rewriter, op->getLoc(), type, {});
    if (failed(output))
      return failure();
    rewriter.setInsertionPoint(op);
    if constexpr (std::is_same_v<Op, AllGatherOp>)
      AllGatherOp::create(rewriter, op->getLoc(), Type(), *input,
                          collective.getGroup(), collective.getAxis(),
                          *output);
    else
      AllReduceOp::create(rewriter, op->getLoc(), Type(), *input,
                          collective.getGroup(), *output);
    replaceOpWithBufferizedValues(rewriter, op, *output);
    return success();
  }
};

} // namespace

void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, DistDialect *) {
    SendOp::attachInterface<SendOpInterface>(*context);
    RecvOp::attachInterface<RecvOpInterface>(*context);
    AllReduceOp::attachInterface<CollectiveOpInterface<AllReduceOp>>(*context);
    AllGatherOp::attachInterface<CollectiveOpInterface<AllGatherOp>>(*context);
  });
}

} // namespace placer::dist
