//===- GpuMapLoops.cpp - Parallel loops as GPU launches -------------------===//
//
// Every linalg op that is not a library call is a loop nest by now
// (convert-linalg-to-parallel-loops); upstream turns mapped scf.parallel
// loops into gpu.launch. What it leaves to us: the block shape (upstream's
// greedy mapper makes each dimension one block of one thread), loop nests
// with no parallel dimension (full reductions, which would run on the host
// against device memory), and a check that the host touches no device
// memory.
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/Passes.h"

#include "mlir/Conversion/SCFToGPU/SCFToGPU.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace placer {
#define GEN_PASS_DEF_GPUMAPLOOPS
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;

namespace {

/// Device work outside any parallel loop: a loop nest without parallel
/// dimension (a full reduction), or scalar code on rank-0 buffers (a fill,
/// an elementwise op on a scalar), with the arithmetic between.
bool isDeviceWork(Operation *op) {
  return isa<memref::LoadOp, memref::StoreOp, scf::ForOp, scf::IfOp>(op);
}
bool isMovable(Operation *op) {
  if (isDeviceWork(op))
    return true;
  // Constants stay: the host's index arithmetic shares them.
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
         !isa<arith::ConstantOp>(op) && isPure(op);
}

/// Moves the device work of `run` (consecutive ops of one block) into a
/// one-iteration scf.parallel, one thread's kernel, placed after the run.
/// Pure arithmetic whose value the host uses after the run (an address, a
/// size) stays on the host; if such a value depends on device work, nothing
/// moves (the check after the conversion names it).
void wrapInSingleThread(OpBuilder &b, ArrayRef<Operation *> run) {
  if (llvm::none_of(run, isDeviceWork))
    return;
  llvm::SmallPtrSet<Operation *, 8> inRun(run.begin(), run.end());
  auto usedAfter = [&](Operation *op) {
    return llvm::any_of(op->getUsers(), [&](Operation *user) {
      return !inRun.contains(op->getBlock()->findAncestorOpInBlock(*user));
    });
  };
  llvm::SmallPtrSet<Operation *, 8> stay;
  for (Operation *op : run)
    if (usedAfter(op)) {
      if (isDeviceWork(op))
        return;
      stay.insert(op);
    }
  // What stays must not need what moves, as it runs first.
  for (Operation *op : stay)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && inRun.contains(def) && !stay.contains(def))
        return;
  b.setInsertionPointAfter(run.back());
  Location loc = run.front()->getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto parallel = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                          ValueRange{one}, ValueRange{one});
  for (Operation *op : run)
    if (!stay.contains(op))
      op->moveBefore(parallel.getBody()->getTerminator());
}

/// Every maximal run of movable ops at the function's top level.
void wrapDeviceWork(OpBuilder &b, Block &block) {
  SmallVector<Operation *> run;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (isMovable(&op)) {
      run.push_back(&op);
      continue;
    }
    if (!run.empty())
      wrapInSingleThread(b, run);
    run.clear();
  }
}

/// Whether an op in `loop`'s body other than `load` and `store` may read or
/// write the buffer `root`: any use of it or a view, a call, or a store to
/// another function argument (arguments may alias one another).
bool otherAccess(scf::ForOp loop, Value root, Operation *load,
                 Operation *store) {
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (op == load || op == store)
      return WalkResult::advance();
    if (isa<CallOpInterface>(op))
      return WalkResult::interrupt();
    for (Value operand : op->getOperands())
      if (auto memref = dyn_cast<MemrefValue>(operand);
          memref && memref::skipViewLikeOps(memref) == root)
        return WalkResult::interrupt();
    if (auto other = dyn_cast<memref::StoreOp>(op))
      if (isa<BlockArgument>(root) &&
          isa<BlockArgument>(
              memref::skipViewLikeOps(cast<MemrefValue>(other.getMemRef()))))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// A reduction lowered to loops loads and stores its accumulator in memory
/// every iteration: on a GPU a round trip to global memory (hundreds of
/// cycles) per step of the loop. Where `loop`'s body accesses a buffer only
/// by one load and a later store at the same loop-invariant indices, the
/// value travels as an iter_arg instead: loaded before the loop, stored
/// after it. Returns the loop (replaced when promoted).
scf::ForOp promoteAccumulator(IRRewriter &rewriter, scf::ForOp loop) {
  Block *body = loop.getBody();
  for (auto load : llvm::to_vector(body->getOps<memref::LoadOp>())) {
    memref::StoreOp store;
    for (Operation *op = load->getNextNode(); op && !store;
         op = op->getNextNode())
      if (auto candidate = dyn_cast<memref::StoreOp>(op);
          candidate && candidate.getMemRef() == load.getMemRef() &&
          candidate.getIndices() == load.getIndices())
        store = candidate;
    if (!store || !llvm::all_of(load.getIndices(), [&](Value index) {
          return loop.isDefinedOutsideOfLoop(index);
        }))
      continue;
    Value root = memref::skipViewLikeOps(cast<MemrefValue>(load.getMemRef()));
    if (!loop.isDefinedOutsideOfLoop(load.getMemRef()) ||
        otherAccess(loop, root, load, store))
      continue;
    rewriter.setInsertionPoint(loop);
    Value initial = memref::LoadOp::create(rewriter, load.getLoc(),
                                           load.getMemRef(), load.getIndices());
    Value stored = store.getValueToStore();
    FailureOr<LoopLikeOpInterface> promoted = loop.replaceWithAdditionalYields(
        rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{stored};
        });
    if (failed(promoted))
      return loop;
    auto newLoop = cast<scf::ForOp>(promoted->getOperation());
    rewriter.replaceAllUsesWith(load.getResult(),
                                newLoop.getRegionIterArgs().back());
    rewriter.setInsertionPointAfter(newLoop);
    memref::StoreOp::create(rewriter, store.getLoc(),
                            newLoop.getResults().back(), store.getMemRef(),
                            store.getIndices());
    rewriter.eraseOp(store);
    rewriter.eraseOp(load);
    return promoteAccumulator(rewriter, newLoop);
  }
  return loop;
}

gpu::ParallelLoopDimMappingAttr mapTo(MLIRContext *context,
                                      gpu::Processor processor) {
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
  return gpu::ParallelLoopDimMappingAttr::get(context, processor, identity,
                                              identity);
}

/// The trip count of dimension `d` of `loop`, when constant.
std::optional<int64_t> getTripCount(scf::ParallelOp loop, unsigned d) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound()[d]);
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound()[d]);
  std::optional<int64_t> step = getConstantIntValue(loop.getStep()[d]);
  if (!lower || !upper || !step || *step <= 0)
    return std::nullopt;
  return std::max<int64_t>((*upper - *lower + *step - 1) / *step, 0);
}

/// Tiles `loop` into blocks of threads and maps both. A block holds up to
/// `blockSize` threads over the innermost dimensions (x innermost, then y
/// and z while the block has room): the innermost dimension alone would
/// give a 7x7 activation 7 threads a block. The three dimensions with the
/// most blocks go to the grid (x the largest), any others run sequentially
/// in each thread.
LogicalResult tileAndMap(scf::ParallelOp loop, int64_t blockSize) {
  unsigned rank = loop.getNumLoops();
  MLIRContext *context = loop.getContext();
  SmallVector<int64_t> sizes(rank, 1);
  // No more threads than iterations when the count is known; CUDA allows
  // at most 64 threads along z.
  const gpu::Processor threadDims[] = {gpu::Processor::ThreadX,
                                       gpu::Processor::ThreadY,
                                       gpu::Processor::ThreadZ};
  const int64_t threadLimits[] = {1024, 1024, 64};
  SmallVector<gpu::Processor> threadOf(rank, gpu::Processor::Sequential);
  int64_t room = blockSize;
  for (unsigned t = 0; t < 3 && t < rank && room > 1; ++t) {
    unsigned d = rank - 1 - t;
    std::optional<int64_t> trip = getTripCount(loop, d);
    int64_t size = std::min(room, threadLimits[t]);
    if (trip)
      size = std::clamp<int64_t>(*trip, 1, size);
    // A dimension of one iteration takes no thread: the next one may.
    if (size == 1 && t > 0)
      break;
    sizes[d] = size;
    threadOf[d] = threadDims[t];
    room /= size;
  }
  // The grid: the dimensions with the most blocks (unknown counts first).
  SmallVector<int64_t> blockCounts(rank);
  for (unsigned d = 0; d < rank; ++d) {
    std::optional<int64_t> trip = getTripCount(loop, d);
    blockCounts[d] = trip ? (*trip + sizes[d] - 1) / sizes[d]
                          : std::numeric_limits<int64_t>::max();
  }
  SmallVector<unsigned> byCount = llvm::to_vector(llvm::seq<unsigned>(0, rank));
  llvm::stable_sort(byCount, [&](unsigned a, unsigned b) {
    return blockCounts[a] > blockCounts[b];
  });
  const gpu::Processor grid[] = {gpu::Processor::BlockX, gpu::Processor::BlockY,
                                 gpu::Processor::BlockZ};
  SmallVector<gpu::Processor> blockOf(rank, gpu::Processor::Sequential);
  for (unsigned i = 0; i < rank && i < 3; ++i)
    blockOf[byCount[i]] = grid[i];

  // Tiling replaces `loop`.
  auto [blocks, threads] =
      scf::tileParallelLoop(loop, sizes, /*noMinMaxBounds=*/true);
  SmallVector<gpu::ParallelLoopDimMappingAttr> blockMapping, threadMapping;
  for (unsigned d = 0; d < rank; ++d) {
    blockMapping.push_back(mapTo(context, blockOf[d]));
    threadMapping.push_back(mapTo(context, threadOf[d]));
  }
  if (failed(gpu::setMappingAttr(blocks, blockMapping)) ||
      failed(gpu::setMappingAttr(threads, threadMapping)))
    return failure();
  // Loops nested inside a thread run sequentially in it.
  threads.getBody()->walk([&](scf::ParallelOp inner) {
    SmallVector<gpu::ParallelLoopDimMappingAttr> sequential(
        inner.getNumLoops(), mapTo(context, gpu::Processor::Sequential));
    (void)gpu::setMappingAttr(inner, sequential);
  });
  return success();
}

/// The node an op was lowered from (a NameLoc in its location), for
/// messages.
std::string describe(Operation *op) {
  std::string node;
  op->getLoc()->walk([&](Location loc) {
    if (auto name = dyn_cast<NameLoc>(loc)) {
      node = "node '" + name.getName().str() + "'";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!node.empty())
    return node;
  std::string text;
  llvm::raw_string_ostream os(text);
  op->getLoc().print(os);
  return text;
}

struct GpuMapLoopsPass : placer::impl::GpuMapLoopsBase<GpuMapLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration())
      return;
    if (blockSize < 1 || blockSize > 1024) {
      func.emitError("--placer-gpu-map-loops: block-size must be in [1, "
                     "1024], got ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    // Innermost loops first (post-order): an inner loop's promoted load and
    // store are the outer loop's to promote next.
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      promoteAccumulator(rewriter, loop);
    OpBuilder b(&getContext());
    for (Block &block : func.getBody())
      wrapDeviceWork(b, block);
    for (scf::ParallelOp loop :
         llvm::to_vector(func.getOps<scf::ParallelOp>()))
      if (failed(tileAndMap(loop, blockSize))) {
        loop.emitError("cannot map this loop to GPU blocks and threads");
        return signalPassFailure();
      }

    RewritePatternSet patterns(&getContext());
    populateParallelLoopToGPUPatterns(patterns);
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    configureParallelLoopToGPULegality(target);
    if (failed(applyPartialConversion(func, target, std::move(patterns))))
      return signalPassFailure();
    finalizeParallelLoopToGPUConversion(func);
    func.walk([](gpu::LaunchOp launch) {
      launch->removeAttr("SCFToGPU_visited");
    });

    // The host only launches, copies and calls: a load or store left
    // outside a launch would read device memory on the host.
    std::vector<std::string> nodes;
    func.walk([&](Operation *op) {
      if (op->getParentOfType<gpu::LaunchOp>() ||
          !isa<memref::LoadOp, memref::StoreOp, scf::ParallelOp>(op))
        return;
      std::string node = describe(op);
      if (!llvm::is_contained(nodes, node))
        nodes.push_back(node);
    });
    if (nodes.empty())
      return;
    InFlightDiagnostic diag =
        func.emitError("GPU code: the host would access device memory for ");
    for (auto [i, node] : llvm::enumerate(nodes))
      diag << (i ? ", " : "") << node;
    diag << " (no GPU lowering of that code)";
    signalPassFailure();
  }
};

} // namespace
