//===- LowerDistToMPI.cpp - Bufferized transfers to MPI -------------------===//
//
// After deallocation, each dist.send/recv of a stage function becomes an MPI
// transfer of one dense byte range: a call into libplacer_rt's pipelined
// transfers, or upstream's blocking mpi.send/recv (docs/Execution.md says
// which parts are upstream and which are ours). Each dist.all_reduce and
// dist.all_gather of a tensor-parallel group becomes a call of libplacer_rt's
// collective hooks, in either mode.
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/Passes.h"

#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace placer {
#define GEN_PASS_DEF_LOWERDISTTOMPI
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;

namespace {

/// The hooks of lib/Runtime/hooks/DistHooks.c that pipelined transfers call:
/// (data, bytes, first rank, replicas, tag).
constexpr llvm::StringLiteral kSendHook = "placer_dist_send";
constexpr llvm::StringLiteral kRecvHook = "placer_dist_recv";
constexpr llvm::StringLiteral kProgressHook = "placer_dist_progress";
/// (first rank, replicas) -> the rank of this microbatch's copy, for
/// upstream's blocking transfers to a replicated stage.
constexpr llvm::StringLiteral kRouteHook = "placer_dist_route";
/// The collectives of a tensor-parallel group, whichever the transfers:
/// (in, out, elements, element kind, first rank, ranks, stride) and (in,
/// out, rows, bytes of a slice's row, first rank, ranks, stride). Upstream's mpi.allreduce
/// sums in MPI's order, which may differ between ranks and runs; the hook
/// adds the group's tensors in rank order on every rank.
constexpr llvm::StringLiteral kAllReduceHook = "placer_dist_all_reduce";
constexpr llvm::StringLiteral kAllGatherHook = "placer_dist_all_gather";

/// The ranks that run a transfer's peer: `replicas` consecutive ranks from
/// `first`, microbatch m on first + m mod replicas.
struct PeerRanks {
  int64_t first, replicas;
};

/// One transfer to lower, whichever its direction.
struct Transfer {
  Operation *op;
  Value buffer;
  int64_t channel, peer;
  bool isSend;
};

struct LowerDistToMPIPass
    : public placer::impl::LowerDistToMPIBase<LowerDistToMPIPass> {
  using LowerDistToMPIBase::LowerDistToMPIBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (transfers != "pipelined" && transfers != "blocking") {
      mlir::emitError(module->getLoc(),
                      "--placer-lower-dist-to-mpi: transfers must be "
                      "'pipelined' or 'blocking', not '")
          << transfers << "'";
      return signalPassFailure();
    }
    if (mpiImplementation != "OpenMPI" && mpiImplementation != "MPICH") {
      mlir::emitError(module->getLoc(),
                      "--placer-lower-dist-to-mpi: mpi-implementation must "
                      "be 'OpenMPI' or 'MPICH', not '")
          << mpiImplementation << "'";
      return signalPassFailure();
    }
    bool any = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      SmallVector<Transfer> found;
      SmallVector<Operation *> collectives;
      WalkResult walk = func.walk([&](Operation *op) {
        if (auto send = dyn_cast<dist::SendOp>(op))
          found.push_back({op, send.getValue(), int64_t(send.getChannel()),
                           int64_t(send.getPeer()), true});
        else if (auto recv = dyn_cast<dist::RecvOp>(op))
          found.push_back({op, recv.getBuffer(), int64_t(recv.getChannel()),
                           int64_t(recv.getPeer()), false});
        else if (isa<dist::AllReduceOp, dist::AllGatherOp>(op)) {
          // The tensor form has a result; the bufferized one an 'into'.
          if (op->getNumResults() && op->getResult(0)) {
            op->emitOpError("must be bufferized before "
                            "--placer-lower-dist-to-mpi");
            return WalkResult::interrupt();
          }
          collectives.push_back(op);
          return WalkResult::advance();
        } else
          return WalkResult::advance();
        if (!found.back().buffer ||
            !isa<MemRefType>(found.back().buffer.getType())) {
          op->emitOpError("must be bufferized before "
                          "--placer-lower-dist-to-mpi");
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
      if (!found.empty() && transfers == "pipelined" && progress)
        addProgressCalls(module, func);
      for (const Transfer &transfer : found)
        if (failed(lower(module, func, transfer)))
          return signalPassFailure();
      for (Operation *collective : collectives)
        if (failed(lowerCollective(module, func, collective)))
          return signalPassFailure();
      any |= !found.empty();
      // Peers are ranks now; the map has no meaning past this pass.
      func->removeAttr(dist::kReplicasAttrName);
      func->removeAttr(dist::kRanksAttrName);
    }
    if (any && transfers == "blocking") {
      MLIRContext *context = module.getContext();
      auto entry = DataLayoutEntryAttr::get(
          StringAttr::get(context, "MPI:Implementation"),
          StringAttr::get(context, mpiImplementation));
      module->setAttr("dlti.map", MapAttr::get(context, {entry}));
    }
  }

  /// Declares `name` as a private function of `type` unless it exists.
  static void declare(ModuleOp module, StringRef name, FunctionType type) {
    if (module.lookupSymbol(name))
      return;
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    func::FuncOp::create(top, module.getLoc(), name, type).setPrivate();
  }

  /// A progress call after each compute op: transfers in flight need MPI
  /// calls on both sides to move, and ops can run for long.
  void addProgressCalls(ModuleOp module, func::FuncOp func) {
    OpBuilder b(module.getContext());
    declare(module, kProgressHook, b.getFunctionType({}, {}));
    for (Operation &op : llvm::make_early_inc_range(func.getBody().getOps())) {
      if (!isa<linalg::LinalgOp>(op) && op.getNumRegions() == 0)
        continue;
      b.setInsertionPointAfter(&op);
      func::CallOp::create(b, op.getLoc(), kProgressHook, TypeRange());
    }
  }

  FailureOr<PeerRanks> ranksOf(func::FuncOp func, const Transfer &transfer) {
    FailureOr<int64_t> first =
        dist::getRankOf(func, transfer.op, transfer.peer, "peer");
    if (failed(first))
      return failure();
    auto replicas =
        func->getAttrOfType<DenseI64ArrayAttr>(dist::kReplicasAttrName);
    return PeerRanks{*first, replicas ? replicas[*first] : 1};
  }

  LogicalResult lower(ModuleOp module, func::FuncOp func,
                      const Transfer &transfer) {
    auto type = cast<MemRefType>(transfer.buffer.getType());
    if (!type.hasStaticShape())
      return transfer.op->emitOpError("transfers need static shapes, got ")
             << type;
    FailureOr<PeerRanks> peer = ranksOf(func, transfer);
    if (failed(peer))
      return failure();
    if (transfer.channel > std::numeric_limits<int32_t>::max() ||
        peer->first + peer->replicas > std::numeric_limits<int32_t>::max())
      return transfer.op->emitOpError("channel or rank does not fit an MPI "
                                      "tag or rank (32 bits)");

    OpBuilder b(transfer.op);
    Location loc = transfer.op->getLoc();
    Value dense = denseBuffer(b, loc, transfer.buffer, transfer.isSend);
    bool copied = dense != transfer.buffer;
    LogicalResult emitted =
        transfers == "pipelined"
            ? emitHookCall(b, module, loc, dense, transfer, *peer)
            : emitUpstream(b, module, loc, dense, transfer, *peer);
    if (failed(emitted))
      return failure();
    if (copied) {
      if (!transfer.isSend)
        memref::CopyOp::create(b, loc, dense, transfer.buffer);
      memref::DeallocOp::create(b, loc, dense);
    }
    transfer.op->erase();
    return success();
  }

  /// `buffer` as one dense byte range: itself, or a copy (`copyIn`: of its
  /// values) that the caller copies back and frees.
  static Value denseBuffer(OpBuilder &b, Location loc, Value buffer,
                           bool copyIn) {
    auto type = cast<MemRefType>(buffer.getType());
    if (memref::isStaticShapeAndContiguousRowMajor(type) &&
        type.getLayout().isIdentity())
      return buffer;
    auto denseType = MemRefType::get(type.getShape(), type.getElementType());
    Value dense = memref::AllocOp::create(b, loc, denseType);
    if (copyIn)
      memref::CopyOp::create(b, loc, buffer, dense);
    return dense;
  }

  /// A bufferized all_reduce or all_gather as a call of its hook.
  LogicalResult lowerCollective(ModuleOp module, func::FuncOp func,
                                Operation *op) {
    auto reduce = dyn_cast<dist::AllReduceOp>(op);
    auto gather = dyn_cast<dist::AllGatherOp>(op);
    Value in = reduce ? reduce.getValue() : gather.getValue();
    Value out = reduce ? reduce.getBuffer() : gather.getBuffer();
    auto inType = cast<MemRefType>(in.getType());
    auto outType = cast<MemRefType>(out.getType());
    if (!inType.hasStaticShape() || !outType.hasStaticShape())
      return op->emitOpError("collectives need static shapes, got ")
             << inType;
    FailureOr<dist::GroupRanks> ranks = dist::getGroupRanks(
        func, op, reduce ? reduce.getGroup() : gather.getGroup());
    if (failed(ranks))
      return failure();
    Type element = inType.getElementType();
    int64_t elementBytes = graph::getElementByteSize(element);
    // The element kinds the hook sums (its enum, DistHooks.h).
    int64_t kind = element.isF32()                 ? 0
                   : element.isF64()               ? 1
                   : element.isSignlessInteger(32) ? 2
                   : element.isSignlessInteger(64) ? 3
                   : element.isF16()               ? 4
                   : element.isBF16()              ? 5
                                                   : -1;
    if (reduce && kind < 0)
      return op->emitOpError("cannot sum ")
             << element << " (f32, f64, f16, bf16, i32 and i64 are summed)";

    OpBuilder b(op);
    Location loc = op->getLoc();
    Type i64 = b.getI64Type();
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, i64, v);
    };
    auto pointer = [&](Value buffer) -> Value {
      Value address =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
      return LLVM::IntToPtrOp::create(
          b, loc, ptrType,
          arith::IndexCastOp::create(b, loc, i64, address).getResult());
    };
    Value denseIn = denseBuffer(b, loc, in, /*copyIn=*/true);
    Value denseOut = denseBuffer(b, loc, out, /*copyIn=*/false);
    StringRef hook = reduce ? kAllReduceHook : kAllGatherHook;
    declare(module, hook,
            b.getFunctionType({ptrType, ptrType, i64, i64, i64, i64, i64}, {}));
    SmallVector<Value> args = {pointer(denseIn), pointer(denseOut)};
    if (reduce) {
      args.append({constant(inType.getNumElements()), constant(kind)});
    } else {
      // Rows: the dims before the axis; a row of a slice: the rest.
      int64_t axis = static_cast<int64_t>(gather.getAxis());
      int64_t rows = 1;
      for (int64_t d = 0; d < axis; ++d)
        rows *= inType.getDimSize(d);
      int64_t rowBytes =
          rows ? inType.getNumElements() / rows * elementBytes : 0;
      args.append({constant(rows), constant(rowBytes)});
    }
    args.append({constant(ranks->first), constant(ranks->count),
                 constant(ranks->stride)});
    func::CallOp::create(b, loc, hook, TypeRange(), args);
    if (denseIn != in)
      memref::DeallocOp::create(b, loc, denseIn);
    if (denseOut != out) {
      memref::CopyOp::create(b, loc, denseOut, out);
      memref::DeallocOp::create(b, loc, denseOut);
    }
    op->erase();
    return success();
  }

  /// placer_dist_send/recv(ptr, bytes, first rank, replicas, tag).
  LogicalResult emitHookCall(OpBuilder &b, ModuleOp module, Location loc,
                             Value dense, const Transfer &transfer,
                             PeerRanks peer) {
    auto type = cast<MemRefType>(dense.getType());
    Type i64 = b.getI64Type();
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
    StringRef hook = transfer.isSend ? kSendHook : kRecvHook;
    declare(module, hook, b.getFunctionType({ptrType, i64, i64, i64, i64}, {}));
    int64_t bytes =
        type.getNumElements() * graph::getElementByteSize(type.getElementType());
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dense);
    Value pointer = LLVM::IntToPtrOp::create(
        b, loc, ptrType,
        arith::IndexCastOp::create(b, loc, i64, address).getResult());
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, i64, v);
    };
    func::CallOp::create(
        b, loc, hook, TypeRange(),
        ValueRange{pointer, constant(bytes), constant(peer.first),
                   constant(peer.replicas), constant(transfer.channel)});
    return success();
  }

  /// mpi.send/recv on the buffer collapsed to 1-D (upstream sends dim 0).
  LogicalResult emitUpstream(OpBuilder &b, ModuleOp module, Location loc,
                             Value dense, const Transfer &transfer,
                             PeerRanks peer) {
    auto type = cast<MemRefType>(dense.getType());
    Type element = type.getElementType();
    bool known = element.isF32() || element.isF64() ||
                 (element.isSignlessInteger() &&
                  element.getIntOrFloatBitWidth() >= 8);
    if (!known)
      return transfer.op->emitOpError("transfers=blocking cannot send ")
             << element
             << " (upstream's MPI lowering has no datatype for it); use "
                "transfers=pipelined";
    Value flat = dense;
    if (type.getRank() == 0) {
      flat = memref::ExpandShapeOp::create(
          b, loc, MemRefType::get({1}, element), dense,
          ArrayRef<ReassociationIndices>{});
    } else if (type.getRank() > 1) {
      ReassociationIndices all;
      for (int64_t i = 0; i < type.getRank(); ++i)
        all.push_back(i);
      flat = memref::CollapseShapeOp::create(b, loc, dense,
                                             ArrayRef<ReassociationIndices>{all});
    }
    Value comm = mpi::CommWorldOp::create(b, loc, mpi::CommType::get(b.getContext()));
    Value tag = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                             transfer.channel);
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Value rank = arith::ConstantIntOp::create(b, loc, i32, peer.first);
    if (peer.replicas > 1) {
      declare(module, kRouteHook, b.getFunctionType({i64, i64}, {i32}));
      rank = func::CallOp::create(
                 b, loc, kRouteHook, TypeRange{i32},
                 ValueRange{
                     arith::ConstantIntOp::create(b, loc, i64, peer.first),
                     arith::ConstantIntOp::create(b, loc, i64, peer.replicas)})
                 .getResult(0);
    }
    if (transfer.isSend)
      mpi::SendOp::create(b, loc, TypeRange(), flat, tag, rank, comm);
    else
      mpi::RecvOp::create(b, loc, TypeRange(), flat, tag, rank, comm);
    return success();
  }
};

} // namespace
