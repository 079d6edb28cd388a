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

/// The operand half of a transfer or collective: it reads its operand's
/// buffer in place and writes none of it; nothing aliases it.
template <typename Model, typename Op>
struct ReadsOperand
    : public BufferizableOpInterface::ExternalModel<Model, Op> {
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
};

/// The result half of a receive or collective (with a collective's operand
/// half: a receive has no operand): a fresh buffer of identity
/// layout it writes (a message is a dense byte range, which only an
/// identity layout holds without a copy), aliasing no operand.
template <typename Model, typename Op>
struct WritesFreshBuffer : public ReadsOperand<Model, Op> {
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

protected:
  /// The fresh buffer for a result of `type` (a static tensor, else an
  /// error on `op`).
  static FailureOr<Value> allocateResult(Operation *op, Type type,
                                         RewriterBase &rewriter,
                                         const BufferizationOptions &options) {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (!tensorType || !tensorType.hasStaticShape())
      return op->emitOpError("needs a static tensor to bufferize, got ")
             << type;
    return options.createAlloc(
        rewriter, op->getLoc(),
        cast<MemRefType>(getMemRefTypeWithStaticIdentityLayout(tensorType)),
        {});
  }
};

/// Reads its operand's buffer in place; no result.
struct SendOpInterface : public ReadsOperand<SendOpInterface, SendOp> {
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

/// Receives into a fresh buffer.
struct RecvOpInterface : public WritesFreshBuffer<RecvOpInterface, RecvOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &) const {
    auto recv = cast<RecvOp>(op);
    FailureOr<Value> buffer =
        allocateResult(op, recv.getTransferType(), rewriter, options);
    if (failed(buffer))
      return failure();
    RecvOp::create(rewriter, recv.getLoc(), Type(), recv.getChannel(),
                   recv.getPeer(), *buffer);
    replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};

/// Reads its operand's buffer and sums or gathers into a fresh one.
template <typename Op>
struct CollectiveOpInterface
    : public WritesFreshBuffer<CollectiveOpInterface<Op>, Op> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto collective = cast<Op>(op);
    FailureOr<Value> input =
        getBuffer(rewriter, collective.getValue(), options, state);
    if (failed(input))
      return failure();
    FailureOr<Value> output = this->allocateResult(
        op, collective.getResult().getType(), rewriter, options);
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
