//===- TileAndVectorize.cpp - Register-tiled contractions -----------------===//
//
// Naive loops run a 512^3 matmul ~100x slower than register-tiled vector code
// (docs/Execution.md), while LLVM's own loop vectorizer already handles the
// elementwise and reduction loops well. So only contractions are rewritten
// here, on tensors before bufferization:
//
//   dynamic batch  --tile by 1-->  scf.for over static items
//   conv (NCHW, one group)  --im2col-->  contraction
//   contraction  --tile parallel dims-->  scf.for nest over (mTile x nTile)
//                --tile reduction dims-->  scf.for over kTile
//                --vectorize-->  vector.contract on a register block
//   accumulator read/write hoisted out of the reduction loop
//
// Tile sizes must divide the loop sizes (no masked or partial tiles); an op
// whose sizes admit no register tile is left to the loop lowering. With
// `library-calls`, static f32 convolutions and the products oneDNN takes
// are left alone: placer-cpu-library-calls makes them calls after
// bufferization.
//
//===----------------------------------------------------------------------===//

#include "GraphToLinalg/Utils.h"
#include "placer/Conversion/Buffers.h"
#include "placer/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace placer {
#define GEN_PASS_DEF_TILEANDVECTORIZE
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;

namespace {

/// The largest power of two up to `preferred` that divides `size`.
int64_t dividingTile(int64_t size, int64_t preferred) {
  int64_t tile = 1;
  while (tile * 2 <= preferred && size % (tile * 2) == 0)
    tile *= 2;
  return tile;
}

/// The loop of `dims` that `map` uses last (the fastest-moving one when
/// the operand is row-major), or nullopt when it uses none.
std::optional<unsigned> lastLoopIn(AffineMap map, ArrayRef<unsigned> dims) {
  for (AffineExpr expr : llvm::reverse(map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      if (llvm::is_contained(dims, dim.getPosition()))
        return dim.getPosition();
  return std::nullopt;
}

/// The loops of a contraction that the register block is built on.
struct BlockLoops {
  SmallVector<unsigned> parallel; // batch, m and n loops
  SmallVector<unsigned> reduction;
  unsigned column;             // the output's fastest loop: vector lanes
  std::optional<unsigned> row; // the fastest loop of the other side
  unsigned k;                  // the reduction loop stepped innermost
};

std::optional<BlockLoops> findBlockLoops(linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.empty())
    return std::nullopt;
  BlockLoops loops;
  llvm::append_range(loops.parallel, dims->batch);
  llvm::append_range(loops.parallel, dims->m);
  llvm::append_range(loops.parallel, dims->n);
  llvm::append_range(loops.reduction, dims->k);
  // The vector lanes run along the output's fastest loop, the rows along
  // the fastest of the other side's; the reduction steps along the first
  // input's fastest reduction loop.
  AffineMap outMap = op.getIndexingMapMatchingResult(op->getResult(0));
  std::optional<unsigned> column = lastLoopIn(outMap, loops.parallel);
  if (!column)
    return std::nullopt;
  loops.column = *column;
  loops.row = lastLoopIn(
      outMap, llvm::is_contained(dims->n, *column) ? dims->m : dims->n);
  loops.k = lastLoopIn(op.getMatchingIndexingMap(op.getDpsInputOperand(0)),
                       loops.reduction)
                .value_or(loops.reduction.back());
  return loops;
}

/// A 1x1 convolution with unit strides is a contraction over the channels
/// of the flattened image, (F x C) by (C x HW) per image: im2col would only
/// copy the input.
LogicalResult rewritePointwiseConv(RewriterBase &rewriter,
                                   linalg::Conv2DNchwFchwOp conv) {
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1],
        init = conv.getOutputs()[0];
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto isOne = [](const APInt &v) { return v.isOne(); };
  if (filterType.getDimSize(2) != 1 || filterType.getDimSize(3) != 1 ||
      !llvm::all_of(conv.getStrides().getValues<APInt>(), isOne) ||
      !llvm::all_of(conv.getDilations().getValues<APInt>(), isOne))
    return failure();
  Location loc = conv.getLoc();
  SmallVector<ReassociationIndices> image = {{0}, {1}, {2, 3}};
  Value x = tensor::CollapseShapeOp::create(rewriter, loc, input, image);
  Value w = tensor::CollapseShapeOp::create(
      rewriter, loc, filter, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  Value out = tensor::CollapseShapeOp::create(rewriter, loc, init, image);
  MLIRContext *context = rewriter.getContext();
  AffineExpr n, f, p, c;
  bindDims(context, n, f, p, c);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {f, c}, context),
                                 AffineMap::get(4, 0, {n, c, p}, context),
                                 AffineMap::get(4, 0, {n, f, p}, context)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto product = linalg::GenericOp::create(
      rewriter, loc, TypeRange{out.getType()}, ValueRange{w, x},
      ValueRange{out}, maps, iterators,
      // Half-precision operands widen to the accumulator's type, as the
      // convolution's own body does.
      placer::lowering::multiplyAdd);
  rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
      conv, init.getType(), product.getResult(0), image);
  return success();
}

/// Whether the inputs indexed by `column` hold more elements than the others.
bool columnOperandIsLarger(linalg::LinalgOp op, unsigned column) {
  int64_t withColumn = 0, without = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = cast<ShapedType>(input->get().getType());
    AffineMap map = op.getMatchingIndexingMap(input);
    (map.isFunctionOfDim(column) ? withColumn : without) += type.getNumElements();
  }
  return withColumn > without;
}

/// Static and with at least one iteration: upstream tiling and im2col
/// divide by loop extents (a zero-sized dim crashes them), and an op with
/// no iteration has nothing to speed up.
bool hasStaticNonEmptyLoops(linalg::LinalgOp op) {
  return !op.hasDynamicShape() &&
         !llvm::is_contained(op.getStaticLoopRanges(), 0);
}

/// `op` as an scf.forall over tiles of `tiles` (0: the loop stays whole).
LogicalResult tileAsForall(RewriterBase &rewriter, linalg::LinalgOp op,
                           ArrayRef<int64_t> tiles) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), tiles));
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(*op), options);
  if (failed(tiled))
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  return success();
}

bool isStaticTensorContraction(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op.hasOnlyProjectedPermutations() &&
         linalg::isaContractionOpInterface(op) && hasStaticNonEmptyLoops(op) &&
         op->getNumResults() == 1;
}

struct TileAndVectorizePass
    : placer::impl::TileAndVectorizeBase<TileAndVectorizePass> {
  using Base::Base;

  /// Whether placer-cpu-library-calls is to call the library for `op`.
  bool isLeftToLibrary(linalg::LinalgOp op) const {
    if (!libraryCalls || !hasStaticNonEmptyLoops(op))
      return false;
    if (!isa<linalg::Conv2DNchwFchwOp>(op))
      return placer::isLibraryContraction(op); // checks f32 (or bf16) itself
    return llvm::all_of(op->getOperandTypes(), [](Type type) {
      return cast<ShapedType>(type).getElementType().isF32();
    });
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    if (failed(peelBatchLoops(rewriter, func)))
      return signalPassFailure();
    if (im2col)
      convertConvolutions(rewriter, func);
    SmallVector<linalg::LinalgOp> worklist;
    func.walk([&](linalg::LinalgOp op) {
      if (isStaticTensorContraction(op) && !isLeftToLibrary(op))
        worklist.push_back(op);
    });
    while (!worklist.empty()) {
      linalg::LinalgOp op = worklist.pop_back_val();
      std::optional<BlockLoops> loops = findBlockLoops(op);
      if (!loops)
        continue;
      // A loop that the block does not divide is split in two contractions:
      // whole blocks, and a narrower remainder.
      if (std::optional<std::pair<unsigned, int64_t>> split =
              findSplit(op, *loops)) {
        rewriter.setInsertionPoint(op);
        auto [head, tail] = linalg::splitOp(
            rewriter, cast<TilingInterface>(op.getOperation()), split->first,
            rewriter.getIndexAttr(split->second));
        worklist.push_back(cast<linalg::LinalgOp>(head.getOperation()));
        worklist.push_back(cast<linalg::LinalgOp>(tail.getOperation()));
        continue;
      }
      if (failed(tileAndVectorize(rewriter, op, *loops)))
        return signalPassFailure();
    }
    cleanUp(func);
    // With the transfers folded into the loops' iter_args, the accumulator
    // can stay in registers across each reduction loop. (The loops are
    // found again: clean-up folds single-trip ones away.)
    func.walk([&](scf::ForOp loop) {
      hoistLoopInvariantSubsets(rewriter, cast<LoopLikeOpInterface>(*loop));
    });
    if (parallelElementwise && failed(splitOverThreads(rewriter, func)))
      return signalPassFailure();
    // The library overwrites a zero-filled output rather than adding to a
    // copy of shared zeros.
    if (libraryCalls)
      placer::giveFillsOwnBuffers(rewriter, func);
  }

  /// The number of parallel loops before `op`'s first reduction loop when
  /// all its reductions are innermost (a LayerNormalization's mean, a
  /// Softmax's sum over each row), else 0. Contractions are not counted: a
  /// product split by rows would be a library call per row.
  static int64_t getRowReductionLoops(linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp, linalg::ReduceOp>(op) ||
        op.getNumReductionLoops() == 0 || linalg::isaContractionOpInterface(op))
      return 0;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    int64_t rows = llvm::find(iterators, utils::IteratorType::reduction) -
                   iterators.begin();
    bool innermost =
        llvm::all_of(llvm::drop_begin(iterators, rows), [](auto t) {
          return t == utils::IteratorType::reduction;
        });
    return innermost ? rows : 0;
  }

  /// Elementwise ops, transposes, pooling and row reductions as an
  /// scf.forall over their two outermost loops (images and rows), so that
  /// they run on the threads too: with the convolutions and products in
  /// oneDNN on every thread, these ops were what stayed serial (ViT-B/16's
  /// LayerNormalizations, transposes and Softmax sums took as long on two
  /// threads as on one). Ops under 16K elements of work, or inside another
  /// parallel loop, stay as they are.
  LogicalResult splitOverThreads(IRRewriter &rewriter, func::FuncOp func) {
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<int64_t>>> split;
    func.walk([&](linalg::LinalgOp op) {
      bool pooling =
          isa<linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcSumOp,
              linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(op);
      // A transpose of an activation; those of the model's inputs and
      // weights, and any a convolution reads, stay ops: the library calls
      // read through them.
      auto transpose = dyn_cast<linalg::TransposeOp>(op.getOperation());
      bool computed = transpose && transpose.getInput().getDefiningOp() &&
                      !matchPattern(transpose.getInput(), m_Constant()) &&
                      llvm::none_of(transpose->getUsers(), [](Operation *user) {
                        return isa<linalg::ConvolutionOpInterface>(user);
                      });
      bool elementwise = (isa<linalg::GenericOp>(op) || computed) &&
                         op.getNumParallelLoops() == op.getNumLoops();
      int64_t rows = getRowReductionLoops(op);
      if (!(pooling || elementwise || rows > 0) ||
          !op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
          !hasStaticNonEmptyLoops(op) || op->getParentOfType<scf::ForallOp>())
        return;
      // oneDNN applies it as the convolution writes, on the threads.
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
          generic && libraryCalls && placer::isConvEpilogue(generic))
        return;
      SmallVector<int64_t> tiles(op.getNumLoops(), 0);
      if (rows > 0) {
        // Each row's reduction stays whole, in one thread's iteration.
        if (op.getStaticLoopRanges().size() == 0 ||
            ShapedType::getNumElements(op.getStaticLoopRanges()) < 16384)
          return;
        for (int64_t d = 0; d < std::min<int64_t>(2, rows); ++d)
          tiles[d] = 1;
        split.emplace_back(op, tiles);
        return;
      }
      auto type = cast<ShapedType>(op->getResult(0).getType());
      if (type.getRank() < 2 || type.getNumElements() < 16384)
        return;
      // The innermost output dimension stays whole (vector code); pooling's
      // outer loops are (image, channel or row), parallel.
      for (int64_t d = 0; d < std::min<int64_t>(2, type.getRank() - 1); ++d)
        tiles[d] = 1;
      split.emplace_back(op, tiles);
    });
    for (auto &[op, tiles] : split)
      if (failed(tileAsForall(rewriter, op, tiles)))
        return op->emitError("placer: cannot split this op over threads");
    return success();
  }

  /// Loops over batch items, each item's op then tiled like any static one:
  /// - a dynamic batch of a contraction or convolution (code compiled for
  ///   any size), whose op would otherwise stay a scalar loop nest;
  /// - the images of a static convolution batch: im2col of one image at a
  ///   time keeps its buffer in cache (ResNet-18 at batch 7: 0.64 s a run
  ///   with the batch's im2col, 0.47 s image by image).
  /// The loop is an scf.forall: its slices bufferize without the
  /// value-bounds analysis that the loop-carried slices of an scf.for need
  /// (37 s on a dynamic ResNet-18).
  LogicalResult peelBatchLoops(IRRewriter &rewriter, func::FuncOp func) {
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<int64_t>>> peeled;
    func.walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
          isLeftToLibrary(op))
        return;
      bool conv = isa<linalg::Conv2DNchwFchwOp>(op);
      if (!conv && !linalg::isaContractionOpInterface(op))
        return;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      SmallVector<int64_t> tiles(ranges.size(), 0);
      for (auto [d, range] : llvm::enumerate(ranges)) {
        if (!ShapedType::isDynamic(range))
          continue;
        // A dynamic reduction stays as it is (and so does the op).
        if (iterators[d] != utils::IteratorType::parallel)
          return;
        tiles[d] = 1;
      }
      // Loop 0 of a convolution is its batch. Not for a half-precision
      // one (into an f32 accumulator): its im2col loops inside the OpenMP
      // loop's alloca scope would leave that scope multi-block once
      // convert-scf-to-cf runs, which the op's verifier refuses.
      bool mixed = getElementTypeOrSelf(op->getOperand(0).getType()) !=
                   getElementTypeOrSelf(op->getResult(0).getType());
      if (conv && !mixed && !ShapedType::isDynamic(ranges[0]) &&
          ranges[0] > 1 && hasStaticNonEmptyLoops(op))
        tiles[0] = 1;
      if (llvm::any_of(tiles, [](int64_t t) { return t != 0; }))
        peeled.emplace_back(op, tiles);
    });
    for (auto &[op, tiles] : peeled)
      if (failed(tileAsForall(rewriter, op, tiles)))
        return op->emitError("placer: cannot loop over this op's batch");
    return success();
  }

  /// NCHW convolutions with one group become contractions: directly when
  /// they are pointwise, through im2col otherwise. Other convolutions keep
  /// their loops.
  void convertConvolutions(IRRewriter &rewriter, func::FuncOp func) {
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    func.walk([&](linalg::Conv2DNchwFchwOp conv) {
      if (hasStaticNonEmptyLoops(conv) && !isLeftToLibrary(conv))
        convs.push_back(conv);
    });
    for (linalg::Conv2DNchwFchwOp conv : convs) {
      rewriter.setInsertionPoint(conv);
      if (succeeded(rewritePointwiseConv(rewriter, conv)))
        continue;
      // Failure leaves the op untouched: the loop lowering handles it.
      (void)linalg::rewriteInIm2Col(rewriter, conv);
    }
  }

  /// The loop and split point that leave whole blocks before the split, or
  /// nullopt when the block fits.
  std::optional<std::pair<unsigned, int64_t>>
  findSplit(linalg::LinalgOp op, const BlockLoops &loops) {
    SmallVector<int64_t> sizes = op.getStaticLoopRanges();
    auto splitPoint = [&](unsigned loop,
                          int64_t tile) -> std::optional<std::pair<unsigned, int64_t>> {
      int64_t size = sizes[loop];
      if (size > tile)
        return size % tile ? std::optional(std::make_pair(loop, size - size % tile))
                           : std::nullopt;
      // A short loop keeps whole vectors: 17 columns are 16 + 1.
      int64_t head = llvm::bit_floor(static_cast<uint64_t>(size));
      if (head == size || head < 8)
        return std::nullopt;
      return std::make_pair(loop, head);
    };
    if (auto split = splitPoint(loops.column, nTile))
      return split;
    if (loops.row)
      return splitPoint(*loops.row, mTile);
    return std::nullopt;
  }

  /// Tiles `op` into (row x column) blocks of its output with an inner loop
  /// over the reduction, and vectorizes each block.
  LogicalResult tileAndVectorize(IRRewriter &rewriter, linalg::LinalgOp op,
                                 const BlockLoops &loops) {
    SmallVector<int64_t> sizes = op.getStaticLoopRanges();
    SmallVector<int64_t> parallelTiles(sizes.size(), 0),
        reductionTiles(sizes.size(), 0);
    for (unsigned d : loops.parallel)
      parallelTiles[d] = 1;
    for (unsigned d : loops.reduction)
      reductionTiles[d] = 1;
    parallelTiles[loops.column] = std::min<int64_t>(nTile, sizes[loops.column]);
    if (loops.row)
      parallelTiles[*loops.row] = std::min<int64_t>(mTile, sizes[*loops.row]);
    reductionTiles[loops.k] = dividingTile(sizes[loops.k], kTile);

    // The operand that the column blocks split (B of A x B) is re-read once
    // per row block, the other once per column block: stream the larger one
    // once, keeping each of its panels in cache while the other side loops.
    SmallVector<int64_t> order =
        llvm::to_vector(llvm::seq<int64_t>(0, sizes.size()));
    if (loops.row && *loops.row < loops.column &&
        columnOperandIsLarger(op, loops.column))
      std::swap(order[*loops.row], order[loops.column]);

    rewriter.setInsertionPoint(op);
    auto tileWith = [&](Operation *target, ArrayRef<int64_t> sizes,
                        ArrayRef<int64_t> interchange)
        -> FailureOr<scf::SCFTilingResult> {
      scf::SCFTilingOptions options;
      options.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
      options.setInterchange(interchange);
      return scf::tileUsingSCF(rewriter, cast<TilingInterface>(target),
                               options);
    };
    FailureOr<scf::SCFTilingResult> outer = tileWith(op, parallelTiles, order);
    if (failed(outer))
      return op->emitError("placer: cannot tile this contraction");
    rewriter.replaceOp(op, outer->replacements);
    Operation *block = outer->tiledOps.back();
    FailureOr<scf::SCFTilingResult> inner = tileWith(block, reductionTiles, {});
    if (failed(inner))
      return block->emitError("placer: cannot tile this contraction's reduction");
    rewriter.replaceOp(block, inner->replacements);
    Operation *kernel = inner->tiledOps.back();
    rewriter.setInsertionPoint(kernel);
    FailureOr<linalg::VectorizationResult> vectorized =
        linalg::vectorize(rewriter, kernel, /*inputVectorSizes=*/{},
                          /*inputScalableVecDims=*/{},
                          /*vectorizeNDExtract=*/false,
                          /*flatten1DDepthwiseConv=*/false,
                          /*assumeDynamicDimsMatchVecSizes=*/false,
                          /*createNamedContraction=*/true);
    if (failed(vectorized))
      return kernel->emitError("placer: cannot vectorize this contraction tile");
    rewriter.replaceOp(kernel, vectorized->replacements);
    return success();
  }

  /// Folds the transfers of the vectorized tiles into their slices and
  /// turns reduction-shaped code into contractions, as upstream's
  /// vectorize_children_and_apply_patterns does.
  void cleanUp(func::FuncOp func) {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    vector::populateVectorReductionToContractPatterns(patterns);
    vector::populateSinkVectorOpsPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, context);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, context);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    scf::ForOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
