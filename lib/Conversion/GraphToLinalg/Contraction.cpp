//===- Contraction.cpp - MatMul, Gemm, Einsum -----------------------------===//
//
// MatMul, Gemm, Einsum: linalg contractions.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Support/DebugStringHelper.h"

using namespace mlir;
using namespace placer;
using namespace placer::lowering;

namespace {

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// A (.., m, k) x (.., k, n) contraction with numpy broadcasting of the
/// batch dimensions and ONNX's 1-D promotion rules.
} // namespace

Value placer::lowering::matmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                               RankedTensorType outType) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  // 1-D operands: promote to matrices, and reshape the result back at the end.
  // (Promotion adds static 1s: dynamic dims keep their order.)
  if (lhsType.getRank() == 1)
    lhs = reshapeTo(b, loc, lhs,
                    RankedTensorType::get({1, lhsType.getDimSize(0)},
                                          lhsType.getElementType()),
                    dynamicSizesOf(b, loc, lhs));
  if (rhsType.getRank() == 1)
    rhs = reshapeTo(b, loc, rhs,
                    RankedTensorType::get({rhsType.getDimSize(0), 1},
                                          rhsType.getElementType()),
                    dynamicSizesOf(b, loc, rhs));
  lhsType = cast<RankedTensorType>(lhs.getType());
  rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t batchRank = std::max(lhsType.getRank(), rhsType.getRank()) - 2;
  SmallVector<int64_t> fullShape;
  SmallVector<Value> dynamicSizes;
  // Dim `i` of `value` (an operand), static or read at run time.
  auto addDim = [&](Value value, int64_t i) {
    int64_t size = cast<RankedTensorType>(value.getType()).getDimSize(i);
    fullShape.push_back(size);
    if (ShapedType::isDynamic(size))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, value, i));
  };
  for (int64_t d = 0; d < batchRank; ++d) {
    auto dimOf = [&](RankedTensorType t) -> int64_t {
      int64_t i = d - (batchRank - (t.getRank() - 2));
      return i < 0 ? -1 : i;
    };
    int64_t l = dimOf(lhsType), r = dimOf(rhsType);
    // Broadcast: a static size other than 1 wins, then a dynamic one.
    auto rank = [](int64_t i, RankedTensorType t) {
      int64_t size = i < 0 ? 1 : t.getDimSize(i);
      return size == 1 ? 0 : ShapedType::isDynamic(size) ? 1 : 2;
    };
    if (rank(l, lhsType) >= rank(r, rhsType))
      addDim(l < 0 ? rhs : lhs, l < 0 ? r : l);
    else
      addDim(rhs, r);
  }
  addDim(lhs, lhsType.getRank() - 2);
  addDim(rhs, rhsType.getRank() - 1);
  Type outElement = outType.getElementType();
  Type accElement = getAccumulatorType(outElement);
  auto fullType = RankedTensorType::get(fullShape, accElement);
  Value init = filled(b, loc, fullType, 0.0, dynamicSizes);
  Value product;
  if (batchRank == 0) {
    product = linalg::MatmulOp::create(b, loc, TypeRange{fullType},
                                       ValueRange{lhs, rhs}, ValueRange{init})
                  .getResult(0);
  } else {
    // Loops: batch..., m, n, k.
    MLIRContext *context = b.getContext();
    unsigned numLoops = batchRank + 3;
    auto operandMap = [&](RankedTensorType t, unsigned rowLoop,
                          unsigned colLoop) {
      SmallVector<AffineExpr> exprs;
      int64_t offset = batchRank - (t.getRank() - 2);
      for (int64_t i = 0; i < t.getRank() - 2; ++i)
        exprs.push_back(t.getDimSize(i) == 1 && fullShape[offset + i] != 1
                            ? getAffineConstantExpr(0, context)
                            : getAffineDimExpr(offset + i, context));
      exprs.push_back(getAffineDimExpr(rowLoop, context));
      exprs.push_back(getAffineDimExpr(colLoop, context));
      return AffineMap::get(numLoops, 0, exprs, context);
    };
    SmallVector<AffineExpr> outExprs;
    for (unsigned i = 0; i < batchRank + 2; ++i)
      outExprs.push_back(getAffineDimExpr(i, context));
    SmallVector<AffineMap> maps = {
        operandMap(lhsType, batchRank, batchRank + 2),
        operandMap(rhsType, batchRank + 2, batchRank + 1),
        AffineMap::get(numLoops, 0, outExprs, context)};
    SmallVector<utils::IteratorType> iterators(numLoops,
                                               utils::IteratorType::parallel);
    iterators.back() = utils::IteratorType::reduction;
    product = linalg::GenericOp::create(b, loc, TypeRange{fullType},
                                        ValueRange{lhs, rhs}, ValueRange{init},
                                        maps, iterators, multiplyAdd)
                  .getResult(0);
  }
  product = roundTo(b, loc, product, outElement, dynamicSizes);
  return reshapeTo(b, loc, product, outType, dynamicSizes);
}

namespace {

Results lowerMatMul(NodeLowering &n) {
  if (!isFloat(n.getResultType()))
    return n.fail("only floating-point MatMul is lowered (MatMulInteger: "
                  "integers)");
  return single(matmul(n.builder, n.getLoc(), n.operands[0], n.operands[1],
                       n.getResultType()));
}

/// A' x B' for 2-D operands, transposes read through the indexing maps:
/// weights stored transposed (Linear layers, transB = 1) are not copied on
/// every run.
Value matmul2d(OpBuilder &b, Location loc, Value lhs, Value rhs, bool transA,
               bool transB, RankedTensorType outType) {
  MLIRContext *context = b.getContext();
  AffineExpr m = getAffineDimExpr(0, context),
             nDim = getAffineDimExpr(1, context),
             k = getAffineDimExpr(2, context);
  SmallVector<AffineMap> maps = {
      AffineMap::get(3, 0, transA ? ArrayRef{k, m} : ArrayRef{m, k}, context),
      AffineMap::get(3, 0, transB ? ArrayRef{nDim, k} : ArrayRef{k, nDim},
                     context),
      AffineMap::get(3, 0, {m, nDim}, context)};
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel,
                                                utils::IteratorType::parallel,
                                                utils::IteratorType::reduction};
  SmallVector<Value> sizes;
  if (outType.isDynamicDim(0))
    sizes.push_back(tensor::DimOp::create(b, loc, lhs, transA ? 1 : 0));
  if (outType.isDynamicDim(1))
    sizes.push_back(tensor::DimOp::create(b, loc, rhs, transB ? 0 : 1));
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, ValueRange{lhs, rhs},
             ValueRange{filled(b, loc, outType, 0.0, sizes)}, maps, iterators,
             multiplyAdd)
      .getResult(0);
}

/// The equation made explicit: an implicit output becomes the ellipsis
/// dimensions then the letters used once, sorted; every "..." becomes
/// letters the equation does not use, one per dimension it covers (aligned
/// from the right, as numpy broadcasts them).
FailureOr<std::string> explicitEquation(NodeLowering &n, std::string equation) {
  auto [lhs, rhs] = StringRef(equation).split("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != n.operands.size())
    return n.fail("the equation has " + Twine(terms.size()) +
                  " operand terms for " + Twine(n.operands.size()) + " inputs");
  std::string output = rhs.str();
  if (!StringRef(equation).contains("->")) {
    std::map<char, int> uses;
    for (StringRef term : terms)
      for (char c : term)
        if (std::isalpha(c))
          ++uses[c];
    output = lhs.contains("...") ? "..." : "";
    for (auto [c, count] : uses)
      if (count == 1)
        output += c;
  }
  if (!StringRef(equation).contains("..."))
    return lhs.str() + "->" + output;
  std::string fresh;
  for (char c = 'A'; c <= 'Z'; ++c)
    if (equation.find(c) == std::string::npos)
      fresh += c;
  // Each operand's ellipsis covers its rank minus its letters.
  SmallVector<int64_t> covered;
  int64_t widest = 0;
  for (auto [term, operand] : llvm::zip(terms, n.operands)) {
    int64_t letters =
        llvm::count_if(term, [](char c) { return std::isalpha(c); });
    int64_t dims =
        cast<RankedTensorType>(operand.getType()).getRank() - letters;
    if (dims < 0 || (dims > 0 && !term.contains("...")))
      return n.fail("term '" + term + "' does not match its operand's rank");
    covered.push_back(dims);
    widest = std::max(widest, dims);
  }
  if (widest > static_cast<int64_t>(fresh.size()))
    return n.fail("the ellipsis covers more dimensions than letters are free");
  // The ellipsis dimensions must agree (size-1 broadcasting is not lowered).
  SmallVector<int64_t> sizes(widest, -1);
  for (size_t k = 0; k < terms.size(); ++k) {
    size_t at = terms[k].find("...");
    if (at == StringRef::npos)
      continue;
    auto type = cast<RankedTensorType>(n.operands[k].getType());
    int64_t before = llvm::count_if(terms[k].take_front(at),
                                    [](char c) { return std::isalpha(c); });
    for (int64_t i = 0; i < covered[k]; ++i) {
      int64_t size = type.getDimSize(before + i);
      int64_t &slot = sizes[widest - covered[k] + i];
      if (slot != -1 && slot != size)
        return n.fail("ellipsis dimensions that broadcast are not lowered");
      slot = size;
    }
  }
  auto replace = [&](StringRef term, int64_t dims) {
    std::string text = term.str();
    size_t at = text.find("...");
    if (at != std::string::npos)
      text.replace(at, 3, fresh.substr(widest - dims, dims));
    return text;
  };
  std::string result;
  for (auto [i, term] : llvm::enumerate(terms))
    result += (i ? "," : "") + replace(term, covered[i]);
  return result + "->" + replace(output, widest);
}

/// Einsum: one loop per letter (the output's first, in
/// its order, then the summed ones), each operand read through the map of
/// its letters, the product of the operands summed into the output.
Results lowerEinsum(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  RankedTensorType outType = n.getResultType();
  if (!isFloat(outType))
    return n.fail("only floating-point Einsum is lowered");
  std::string equation;
  for (char c : n.getString("equation", ""))
    if (c != ' ')
      equation += c;
  FailureOr<std::string> expanded = explicitEquation(n, equation);
  if (failed(expanded))
    return failure();
  equation = *expanded;
  auto [lhs, rhs] = StringRef(equation).split("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  std::string output = rhs.str();
  std::string letters = output;
  for (StringRef term : terms)
    for (char c : term)
      if (letters.find(c) == std::string::npos)
        letters += c;
  if (!llvm::all_of(letters, [](char c) { return std::isalpha(c); }))
    return n.fail("the equation '" + equation +
                  "' has characters other than letters");
  if (static_cast<int64_t>(output.size()) != outType.getRank())
    return n.fail("the output term does not match the result's rank");
  MLIRContext *context = b.getContext();
  auto mapOf = [&](StringRef term) {
    SmallVector<AffineExpr> exprs;
    for (char c : term)
      exprs.push_back(getAffineDimExpr(letters.find(c), context));
    return AffineMap::get(letters.size(), 0, exprs, context);
  };
  SmallVector<AffineMap> maps;
  for (auto [term, operand] : llvm::zip(terms, n.operands)) {
    if (static_cast<int64_t>(term.size()) !=
        cast<RankedTensorType>(operand.getType()).getRank())
      return n.fail("term '" + term + "' does not match its operand's rank");
    maps.push_back(mapOf(term));
  }
  maps.push_back(mapOf(output));
  SmallVector<utils::IteratorType> iterators(letters.size(),
                                             utils::IteratorType::reduction);
  std::fill_n(iterators.begin(), output.size(), utils::IteratorType::parallel);
  return single(
      linalg::GenericOp::create(
          b, loc, TypeRange{outType}, n.operands,
          ValueRange{filled(b, loc, outType, 0.0)}, maps, iterators,
          [](OpBuilder &nb, Location l, ValueRange args) {
            Value product = args[0];
            for (Value arg : args.drop_front().drop_back())
              product = arith::MulFOp::create(nb, l, product, arg);
            linalg::YieldOp::create(
                nb, l,
                Value(arith::AddFOp::create(nb, l, args.back(), product)));
          })
          .getResult(0));
}

/// alpha * A' B' + beta * C, with C broadcast.
Results lowerGemm(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  RankedTensorType outType = n.getResultType();
  if (!isFloat(outType))
    return n.fail("only floating-point Gemm is lowered");
  // Half precision: the product, alpha, beta and C in f32, rounded once
  // (getAccumulatorType), as cuBLASLt's and oneDNN's bias epilogues round.
  Type storage = outType.getElementType();
  Type element = getAccumulatorType(storage);
  Value product =
      matmul2d(b, loc, n.operands[0], n.operands[1], n.getInt("transA", 0),
               n.getInt("transB", 0), outType.clone(element));
  double alpha = n.getFloat("alpha", 1.0f), beta = n.getFloat("beta", 1.0f);
  SmallVector<Value> inputs = {product};
  if (n.hasOperand(2) && beta != 0)
    inputs.push_back(n.operands[2]);
  if (alpha == 1 && inputs.size() == 1 && element == storage)
    return single(product);
  return single(elementwise(
      b, loc, inputs, outType, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value y = args[0];
        if (alpha != 1)
          y = arith::MulFOp::create(nb, l, y,
                                    scalarConstant(nb, l, element, alpha));
        if (args.size() > 1) {
          Value c = args[1];
          if (c.getType() != element)
            c = arith::ExtFOp::create(nb, l, element, c);
          if (beta != 1)
            c = arith::MulFOp::create(nb, l, c,
                                      scalarConstant(nb, l, element, beta));
          y = arith::AddFOp::create(nb, l, y, c);
        }
        if (element != storage)
          y = arith::TruncFOp::create(nb, l, storage, y);
        return y;
      }));
}

/// Det of [..., M, M]: per matrix, Gaussian elimination with partial
/// pivoting in scf.for loops; the determinant is the product of the pivots,
/// negated per row swap.
Results lowerDet(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto type = cast<RankedTensorType>(x.getType());
  RankedTensorType outType = n.getResultType();
  int64_t rank = type.getRank();
  if (rank < 2 || type.getDimSize(rank - 1) != type.getDimSize(rank - 2) ||
      !isFloat(outType))
    return n.fail("needs floating-point square matrices [..., M, M]");
  int64_t m = type.getDimSize(rank - 1);
  int64_t batch = type.getNumElements() / std::max<int64_t>(m * m, 1);
  Type f = type.getElementType();
  auto flatType = RankedTensorType::get({batch, m, m}, f);
  Value matrices = reshapeTo(b, loc, x, flatType);
  auto idx = [&](OpBuilder &ob, Location l, int64_t v) {
    return Value(arith::ConstantIndexOp::create(ob, l, v));
  };
  auto dets = RankedTensorType::get({batch}, f);
  auto outer = buildFor(
      b, loc, idx(b, loc, 0), idx(b, loc, batch),
      ValueRange{filled(b, loc, dets, 0)},
      [&](OpBuilder &ob, Location l, Value bi, ValueRange args) {
        // Copy of matrix bi, eliminated in place.
        SmallVector<OpFoldResult> offsets = {bi, ob.getIndexAttr(0),
                                             ob.getIndexAttr(0)};
        SmallVector<OpFoldResult> sizes = {
            ob.getIndexAttr(1), ob.getIndexAttr(m), ob.getIndexAttr(m)};
        SmallVector<OpFoldResult> ones(3, ob.getIndexAttr(1));
        Value a = tensor::ExtractSliceOp::create(
            ob, l, RankedTensorType::get({m, m}, f), matrices, offsets, sizes,
            ones);
        auto at = [&](OpBuilder &eb, Location el, Value t, Value i, Value j) {
          return Value(tensor::ExtractOp::create(eb, el, t, ValueRange{i, j}));
        };
        auto steps = buildFor(
            ob, l, idx(ob, l, 0), idx(ob, l, m),
            ValueRange{a, scalarConstant(ob, l, f, 1)},
            [&](OpBuilder &kb, Location kl, Value k, ValueRange state) {
              Value mat = state[0], det = state[1];
              // The pivot row: the largest |a[i, k]| for i >= k.
              auto search = buildFor(
                  kb, kl, k, idx(kb, kl, m),
                  ValueRange{k, scalarConstant(kb, kl, f, -1)},
                  [&](OpBuilder &sb, Location sl, Value i, ValueRange best) {
                    Value v =
                        math::AbsFOp::create(sb, sl, at(sb, sl, mat, i, k));
                    Value better = arith::CmpFOp::create(
                        sb, sl, arith::CmpFPredicate::OGT, v, best[1]);
                    return SmallVector<Value>{
                        arith::SelectOp::create(sb, sl, better, i, best[0]),
                        arith::SelectOp::create(sb, sl, better, v, best[1])};
                  });
              Value p = search[0];
              // Swap rows k and p (a no-op when equal).
              auto swapped = buildFor(
                  kb, kl, idx(kb, kl, 0), idx(kb, kl, m), ValueRange{mat},
                  [&](OpBuilder &wb, Location wl, Value j, ValueRange t) {
                    Value rowK = at(wb, wl, t[0], k, j),
                          rowP = at(wb, wl, t[0], p, j);
                    Value u = tensor::InsertOp::create(wb, wl, rowP, t[0],
                                                       ValueRange{k, j});
                    u = tensor::InsertOp::create(wb, wl, rowK, u,
                                                 ValueRange{p, j});
                    return SmallVector<Value>{u};
                  });
              mat = swapped[0];
              Value moved =
                  arith::CmpIOp::create(kb, kl, arith::CmpIPredicate::ne, p, k);
              Value pivot = at(kb, kl, mat, k, k);
              det = arith::MulFOp::create(kb, kl, det, pivot);
              det = arith::SelectOp::create(
                  kb, kl, moved, arith::NegFOp::create(kb, kl, det), det);
              // Eliminate below the pivot (a zero pivot: det is 0 already;
              // dividing by it only fills rows nothing reads into det).
              Value k1 = arith::AddIOp::create(kb, kl, k, idx(kb, kl, 1));
              auto eliminated = buildFor(
                  kb, kl, k1, idx(kb, kl, m), ValueRange{mat},
                  [&](OpBuilder &ib, Location il, Value i, ValueRange t) {
                    Value factor = arith::DivFOp::create(
                        ib, il, at(ib, il, t[0], i, k), pivot);
                    auto row = buildFor(
                        ib, il, k, idx(ib, il, m), ValueRange{t[0]},
                        [&](OpBuilder &jb, Location jl, Value j, ValueRange r) {
                          Value v = arith::SubFOp::create(
                              jb, jl, at(jb, jl, r[0], i, j),
                              arith::MulFOp::create(jb, jl, factor,
                                                    at(jb, jl, r[0], k, j)));
                          return SmallVector<Value>{tensor::InsertOp::create(
                              jb, jl, v, r[0], ValueRange{i, j})};
                        });
                    return SmallVector<Value>{row[0]};
                  });
              return SmallVector<Value>{eliminated[0], det};
            });
        return SmallVector<Value>{
            tensor::InsertOp::create(ob, l, steps[1], args[0], ValueRange{bi})
                .getResult()};
      });
  return single(reshapeTo(b, loc, outer[0], outType));
}

} // namespace

void placer::lowering::registerContractionOps(OpRegistry &r) {
  r.beginFamily(
      "Contractions",
      "MatMul: `linalg.matmul` (2-D) or a `linalg.generic` contraction with"
      " broadcast batch maps (N-D, 1-D promotion). Gemm: one contraction "
      "reading A and B through transposed maps (no copy of a transposed "
      "weight), alpha/beta/C in one generic. Einsum (ellipses as fresh "
      "letters; implicit or explicit output; repeated letters read "
      "diagonals): one "
      "`linalg.generic` with a loop per letter. Det: Gaussian elimination "
      "with partial pivoting in `scf.for` loops, per matrix.");
  // Megatron-LM's pair: column-parallel (B cut along its columns, each
  // device computes its columns of Y) feeds row-parallel (A's and B's
  // reduction axis cut, partial sums all-reduced). Batched products of
  // split attention heads (scores, context) cut their batch axis alike, and
  // grouped-query attention's (heads grouped under their shared key and
  // value head, [batch, kv heads, group, rows, cols]) the key-value heads. A
  // product of A's rows split (the transposed activations of a
  // row-parallel weight's gradient, Aᵀ dY) cuts its result's rows: that
  // gradient comes out cut as its weight is.
  r.add("MatMul", lowerMatMul)
      .computesIn(CastPolicy::Half)
      .work(work::matMul())
      .backward(2.0)
      .gradient(gradients::matmul)
      .fuses(fusion::contraction)
      .shard({"column", {kUnsplit, -1}, -1, Collective::None})
      .shard({"row", {-1, -2}, kUnsplit, Collective::AllReduce})
      .shard({"batch", {-3, -3}, -3, Collective::None})
      .shard({"groups", {-4, -4}, -4, Collective::None})
      .shard({"rows", {-2, kUnsplit}, -2, Collective::None});
  r.add("Gemm", lowerGemm)
      .computesIn(CastPolicy::Half)
      .work(work::gemm())
      .backward(2.0)
      .gradient(gradients::gemm)
      .shardBy(sharding::gemm)
      .fuses(fusion::gemm);
  r.add("Einsum", lowerEinsum).work(work::einsum()).backward(2.0);
  r.add("Det", lowerDet).work(work::determinant());
  r.allowDynamicDims({"MatMul", "Gemm"});
}
