//===- GpuBuffers.cpp - Device memory for a GPU program's buffers ---------===//
//
// A GPU program keeps its activations in device memory from op to op: only
// the stage's inputs and outputs cross between host and device, once per
// call, and the weights are uploaded once when the runtime loads the code.
// Upstream's GPU lowering leaves memory to the user; this pass decides it
// on bufferized code, before the loops become kernels.
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/Passes.h"

#include "placer/Dialect/Dist/DistDialect.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace placer {
#define GEN_PASS_DEF_GPUBUFFERS
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;

namespace {

/// Whether anything writes `buffer` or a view of it (calls are assumed to,
/// except for the inputs of library calls).
bool isWritten(Value buffer) {
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        if (view.getViewSource() == value)
          worklist.push_back(view->getResult(0));
        continue;
      }
      // A library call writes its output only: its inputs are read.
      if (auto call = dyn_cast<CallOpInterface>(user)) {
        if (!placer::isReadOnlyGpuLibraryOperand(call, use))
          return true;
        continue;
      }
      if (hasEffect<MemoryEffects::Write>(user, value))
        return true;
      if (!isa<MemoryEffectOpInterface>(user) &&
          !user->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return true;
    }
  }
  return false;
}

bool isContiguous(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  return type.getLayout().isIdentity();
}

void copy(OpBuilder &b, Location loc, Value to, Value from) {
  gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), to, from);
}

Value allocate(OpBuilder &b, Location loc, MemRefType type,
               ValueRange dynamicSizes = {}) {
  return gpu::AllocOp::create(b, loc, type, Type(), ValueRange(),
                              dynamicSizes, ValueRange(), false)
      .getMemref();
}

/// A stage's transfers leave and enter through host buffers: the transfer
/// hooks and MPI read host memory. A send copies its device buffer to a
/// fresh host one first, a receive lands in one and is copied to the
/// device after (through a contiguous device buffer when the transferred
/// one is a strided view).
void stageTransfers(func::FuncOp func) {
  OpBuilder b(func.getContext());
  func.walk([&](Operation *op) {
    auto send = dyn_cast<placer::dist::SendOp>(op);
    auto recv = dyn_cast<placer::dist::RecvOp>(op);
    Value device = send ? send.getValue() : recv ? recv.getBuffer() : Value();
    if (!device)
      return;
    auto type = cast<MemRefType>(device.getType());
    auto dense = MemRefType::get(type.getShape(), type.getElementType());
    Location loc = op->getLoc();
    b.setInsertionPoint(op);
    Value host = memref::AllocOp::create(b, loc, dense);
    Value contiguous = device;
    if (!isContiguous(device)) {
      contiguous = allocate(b, loc, dense);
      if (send)
        linalg::CopyOp::create(b, loc, device, contiguous);
    }
    if (send)
      copy(b, loc, host, contiguous);
    op->replaceUsesOfWith(device, host);
    b.setInsertionPointAfter(op);
    if (recv) {
      copy(b, loc, contiguous, host);
      if (contiguous != device)
        linalg::CopyOp::create(b, loc, contiguous, device);
    }
    memref::DeallocOp::create(b, loc, host);
    if (contiguous != device)
      gpu::DeallocOp::create(b, loc, Type(), ValueRange(), contiguous);
  });
}

struct GpuBuffersPass : placer::impl::GpuBuffersBase<GpuBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration() || !func.isPublic())
      return;
    if (!func.getBody().hasOneBlock()) {
      func.emitError("GPU code: the function must have one block");
      return signalPassFailure();
    }
    Block &entry = func.getBody().front();
    auto returns = llvm::to_vector(func.getOps<func::ReturnOp>());
    OpBuilder b(&getContext());
    // Device buffers that live for the whole call: freed (and written ones
    // first copied back to their host buffer) before every return.
    SmallVector<std::pair<Value, Value>> mirrors; // (device, host or null)

    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || func.getArgAttr(arg.getArgNumber(), placer::kWeightAttrName))
        continue;
      if (!type.hasStaticShape() || !isContiguous(arg)) {
        func.emitError("GPU code: argument ")
            << arg.getArgNumber() << " must be a static, contiguous memref";
        return signalPassFailure();
      }
      b.setInsertionPointToStart(&entry);
      Value device = allocate(b, arg.getLoc(), type);
      bool written = isWritten(arg);
      arg.replaceAllUsesWith(device);
      // Inputs cross to the device; outputs only back.
      if (!written)
        copy(b, arg.getLoc(), device, arg);
      mirrors.emplace_back(device, written ? Value(arg) : Value());
    }

    // Constant globals live in host memory: a device copy per call.
    for (auto global :
         llvm::to_vector(func.getOps<memref::GetGlobalOp>())) {
      auto type = cast<MemRefType>(global.getType());
      b.setInsertionPointAfter(global);
      Value device = allocate(b, global.getLoc(), type);
      global.getResult().replaceAllUsesExcept(device, {});
      copy(b, global.getLoc(), device, global);
      mirrors.emplace_back(device, Value());
    }

    // Buffers the code allocates are device buffers.
    WalkResult walk = func.walk([&](Operation *op) {
      b.setInsertionPoint(op);
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (!alloc.getSymbolOperands().empty())
          return WalkResult::interrupt();
        Value device = allocate(b, alloc.getLoc(), alloc.getType(),
                                alloc.getDynamicSizes());
        alloc.replaceAllUsesWith(device);
        alloc.erase();
      } else if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
        if (alloca->getParentRegion() != &func.getBody())
          return WalkResult::interrupt();
        Value device = allocate(b, alloca.getLoc(), alloca.getType(),
                                alloca.getDynamicSizes());
        alloca.replaceAllUsesWith(device);
        alloca.erase();
        mirrors.emplace_back(device, Value());
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        gpu::DeallocOp::create(b, dealloc.getLoc(), Type(), ValueRange(),
                               dealloc.getMemref());
        dealloc.erase();
      } else if (auto copyOp = dyn_cast<memref::CopyOp>(op)) {
        // gpu.memcpy moves contiguous bytes; strided views copy in a kernel.
        if (isContiguous(copyOp.getSource()) &&
            isContiguous(copyOp.getTarget()))
          copy(b, copyOp.getLoc(), copyOp.getTarget(), copyOp.getSource());
        else
          linalg::CopyOp::create(b, copyOp.getLoc(), copyOp.getSource(),
                                 copyOp.getTarget());
        copyOp.erase();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted()) {
      func.emitError("GPU code: an allocation this pass cannot place "
                     "(symbols, or a stack buffer inside a loop)");
      return signalPassFailure();
    }

    stageTransfers(func);
    for (func::ReturnOp ret : returns) {
      b.setInsertionPoint(ret);
      for (auto [device, host] : mirrors) {
        if (host)
          copy(b, ret.getLoc(), host, device);
        gpu::DeallocOp::create(b, ret.getLoc(), Type(), ValueRange(), device);
      }
    }
  }
};

} // namespace
