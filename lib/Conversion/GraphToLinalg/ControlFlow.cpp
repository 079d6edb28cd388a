//===- ControlFlow.cpp - If, Scan and Loop as scf -------------------------===//
//
// A subgraph's ops move into the scf op's region and are lowered there like
// any other node (NodeLowering::lowerRegion), so nested control flow works
// the same way. If becomes scf.if on the condition's element; Scan an
// scf.for over the scanned axis that carries the states and the stacked
// scan outputs; Loop an scf.while.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Support/DebugStringHelper.h"

using namespace mlir;
using namespace placer;
using namespace placer::lowering;

namespace {

/// The values a branch yields, checked against the node's output types.
LogicalResult yieldBranch(NodeLowering &n, OpBuilder &b, Location loc,
                          Region *region, StringRef name) {
  FailureOr<SmallVector<Value>> values = n.lowerRegion(b, *region, {});
  if (failed(values))
    return failure();
  if (values->size() != n.node.getOutputs().size())
    return n.fail(name + " yields " + Twine(values->size()) + " values for " +
                  Twine(n.node.getOutputs().size()) + " outputs");
  for (auto [i, value] : llvm::enumerate(*values))
    if (value.getType() != n.getResultType(i))
      return n.fail(name + " yields " + debugString(value.getType()) +
                    " for output #" + Twine(i) + " of type " +
                    debugString(n.getResultType(i)));
  scf::YieldOp::create(b, loc, *values);
  return success();
}

Results lowerIf(NodeLowering &n) {
  Region *thenRegion = n.getSubgraph("then_branch");
  Region *elseRegion = n.getSubgraph("else_branch");
  if (!thenRegion || !elseRegion)
    return n.fail("needs then_branch and else_branch");
  auto condType = cast<RankedTensorType>(n.operands[0].getType());
  if (condType.getNumElements() != 1)
    return n.fail("the condition must hold one element");
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value cond = extractScalar(b, loc, n.operands[0], b.getI1Type());
  SmallVector<Type> types;
  for (unsigned i = 0; i < n.node.getOutputs().size(); ++i)
    types.push_back(n.getResultType(i));
  auto ifOp = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  for (auto [region, block, name] :
       {std::tuple{thenRegion, ifOp.thenBlock(), StringRef("then_branch")},
        std::tuple{elseRegion, ifOp.elseBlock(), StringRef("else_branch")}}) {
    OpBuilder inner = OpBuilder::atBlockEnd(block);
    if (failed(yieldBranch(n, inner, loc, region, name)))
      return failure();
  }
  return SmallVector<Value>(ifOp.getResults());
}

/// Scan (opset 9+; opset 8's batch axis of size 1): N states carried, M
/// inputs scanned along their axis (forward or reverse), K outputs stacked
/// along theirs.
template <bool batched> Results lowerScan(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Region *body = n.getSubgraph("body");
  if (!body)
    return n.fail("needs a body");
  SmallVector<Value> inputs(n.operands);
  if (batched) {
    if (n.hasOperand(0))
      return n.fail("sequence_lens is not lowered");
    inputs.erase(inputs.begin());
  }
  int64_t scanned = n.getInt("num_scan_inputs", 0);
  int64_t states = static_cast<int64_t>(inputs.size()) - scanned;
  int64_t outputs = n.node.getOutputs().size();
  if (scanned < 1 || states < 0 || outputs < states)
    return n.fail("num_scan_inputs does not fit the inputs");
  auto allZero = [&](StringRef name) {
    std::optional<SmallVector<int64_t>> values = n.getInts(name);
    return !values || llvm::all_of(*values, [](int64_t v) { return v == 0; });
  };
  if (!allZero("scan_input_axes") || !allZero("scan_output_axes") ||
      !allZero("scan_output_directions"))
    return n.fail("only scans along axis 0 with forward outputs are lowered");
  SmallVector<int64_t> directions =
      n.getInts(batched ? "directions" : "scan_input_directions")
          .value_or(SmallVector<int64_t>(scanned, 0));
  // Drop opset 8's batch axis (size 1).
  auto unbatch = [&](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    if (!batched)
      return v;
    return reshapeTo(b, loc, v,
                     RankedTensorType::get(type.getShape().drop_front(),
                                           type.getElementType()));
  };
  for (Value v : inputs)
    if (batched && cast<RankedTensorType>(v.getType()).getDimSize(0) != 1)
      return n.fail("opset-8 Scan with a batch larger than 1 is not lowered");
  SmallVector<Value> carried;
  for (int64_t i = 0; i < states; ++i)
    carried.push_back(unbatch(inputs[i]));
  SmallVector<Value> sequences;
  for (int64_t i = states; i < static_cast<int64_t>(inputs.size()); ++i)
    sequences.push_back(unbatch(inputs[i]));
  int64_t steps = cast<RankedTensorType>(sequences[0].getType()).getDimSize(0);
  for (int64_t k = states; k < outputs; ++k) {
    RankedTensorType type = n.getResultType(k);
    if (batched)
      type = RankedTensorType::get(type.getShape().drop_front(),
                                   type.getElementType());
    carried.push_back(filled(b, loc, type, 0));
  }
  auto c = [&](OpBuilder &ob, Location l, int64_t v) {
    return Value(arith::ConstantIndexOp::create(ob, l, v));
  };
  LogicalResult status = success();
  auto loop = scf::ForOp::create(
      b, loc, c(b, loc, 0), c(b, loc, steps), c(b, loc, 1), carried,
      [&](OpBuilder &lb, Location l, Value t, ValueRange args) {
        SmallVector<Value> arguments(args.take_front(states));
        for (auto [i, sequence] : llvm::enumerate(sequences)) {
          auto type = cast<RankedTensorType>(sequence.getType());
          Value at = t;
          if (i < directions.size() && directions[i])
            at = arith::SubIOp::create(lb, l, c(lb, l, steps - 1), t);
          SmallVector<OpFoldResult> offsets(type.getRank(), lb.getIndexAttr(0));
          SmallVector<OpFoldResult> sizes,
              ones(type.getRank(), lb.getIndexAttr(1));
          offsets[0] = at;
          sizes.push_back(lb.getIndexAttr(1));
          for (int64_t d = 1; d < type.getRank(); ++d)
            sizes.push_back(lb.getIndexAttr(type.getDimSize(d)));
          auto sliceType = RankedTensorType::get(type.getShape().drop_front(),
                                                 type.getElementType());
          arguments.push_back(tensor::ExtractSliceOp::create(
              lb, l, sliceType, sequence, offsets, sizes, ones));
        }
        FailureOr<SmallVector<Value>> yielded =
            n.lowerRegion(lb, *body, arguments);
        if (failed(yielded) ||
            static_cast<int64_t>(yielded->size()) != outputs) {
          if (succeeded(yielded))
            (void)n.fail("the body yields " + Twine(yielded->size()) +
                         " values for " + Twine(outputs) + " outputs");
          status = failure();
          scf::YieldOp::create(lb, l, args);
          return;
        }
        SmallVector<Value> next(yielded->begin(), yielded->begin() + states);
        for (int64_t k = 0; k < outputs - states; ++k)
          next.push_back(
              insertRow(lb, l, (*yielded)[states + k], args[states + k], t));
        scf::YieldOp::create(lb, l, next);
      });
  if (failed(status))
    return failure();
  SmallVector<Value> results;
  for (int64_t k = 0; k < outputs; ++k) {
    Value v = loop.getResult(k);
    results.push_back(batched ? reshapeTo(b, loc, v, n.getResultType(k)) : v);
  }
  return results;
}

/// Loop as scf.while: it runs while the condition holds, fewer than M
/// iterations have run (when M is given) and the scan outputs have room
/// (their static length, when there are any), carrying the iteration
/// number, the condition, the loop-carried values and the stacked scan
/// outputs. The body's iteration number and condition are rank-0 tensors.
Results lowerLoop(NodeLowering &n) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Region *body = n.getSubgraph("body");
  if (!body)
    return n.fail("needs a body");
  int64_t carried = static_cast<int64_t>(n.operands.size()) - 2;
  int64_t outputs = n.node.getOutputs().size();
  int64_t scans = outputs - carried;
  if (carried < 0 || scans < 0)
    return n.fail("the outputs do not match the loop-carried inputs");
  if (!n.hasOperand(0) && !n.hasOperand(1) && scans == 0)
    return n.fail("a Loop without trip count, condition or scan outputs "
                  "never ends");
  Value trips = n.hasOperand(0) ? extractI64(b, loc, n.operands[0]) : Value();
  Value go =
      n.hasOperand(1)
          ? extractScalar(b, loc, n.operands[1], b.getI1Type())
          : Value(arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  int64_t room = std::numeric_limits<int64_t>::max();
  SmallVector<Value> inits = {
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0)), go};
  for (int64_t i = 0; i < carried; ++i)
    inits.push_back(n.operands[2 + i]);
  for (int64_t k = carried; k < outputs; ++k) {
    RankedTensorType type = n.getResultType(k);
    if (type.getRank() < 1)
      return n.fail("a scan output must have the iteration axis");
    room = std::min(room, type.getDimSize(0));
    inits.push_back(filled(b, loc, type, 0));
  }
  SmallVector<Type> types;
  for (Value v : inits)
    types.push_back(v.getType());
  LogicalResult status = success();
  auto loop = scf::WhileOp::create(
      b, loc, types, inits,
      [&](OpBuilder &cb, Location cl, ValueRange args) {
        Value keep = args[1];
        if (trips)
          keep = arith::AndIOp::create(
              cb, cl, keep,
              arith::CmpIOp::create(cb, cl, arith::CmpIPredicate::slt, args[0],
                                    trips));
        if (scans > 0)
          keep = arith::AndIOp::create(
              cb, cl, keep,
              arith::CmpIOp::create(cb, cl, arith::CmpIPredicate::slt, args[0],
                                    arith::ConstantOp::create(
                                        cb, cl, cb.getI64IntegerAttr(room))));
        scf::ConditionOp::create(cb, cl, keep, args);
      },
      [&](OpBuilder &lb, Location l, ValueRange args) {
        auto scalarTensor = [&](Value v) {
          return Value(tensor::FromElementsOp::create(
              lb, l, RankedTensorType::get({}, v.getType()), ValueRange{v}));
        };
        SmallVector<Value> arguments = {scalarTensor(args[0]),
                                        scalarTensor(args[1])};
        for (int64_t i = 0; i < carried; ++i)
          arguments.push_back(args[2 + i]);
        FailureOr<SmallVector<Value>> yielded =
            n.lowerRegion(lb, *body, arguments);
        if (failed(yielded) ||
            static_cast<int64_t>(yielded->size()) != 1 + carried + scans) {
          if (succeeded(yielded))
            (void)n.fail("the body yields " + Twine(yielded->size()) +
                         " values, expected " + Twine(1 + carried + scans));
          status = failure();
          scf::YieldOp::create(lb, l, args);
          return;
        }
        Value next = extractScalar(lb, l, (*yielded)[0], lb.getI1Type());
        SmallVector<Value> results = {
            arith::AddIOp::create(
                lb, l, args[0],
                arith::ConstantOp::create(lb, l, lb.getI64IntegerAttr(1))),
            next};
        for (int64_t i = 0; i < carried; ++i) {
          if ((*yielded)[1 + i].getType() != args[2 + i].getType()) {
            (void)n.fail("loop-carried value #" + Twine(i) + " changes type");
            status = failure();
            scf::YieldOp::create(lb, l, args);
            return;
          }
          results.push_back((*yielded)[1 + i]);
        }
        Value at =
            arith::IndexCastOp::create(lb, l, lb.getIndexType(), args[0]);
        for (int64_t k = 0; k < scans; ++k)
          results.push_back(insertRow(lb, l, (*yielded)[1 + carried + k],
                                      args[2 + carried + k], at));
        scf::YieldOp::create(lb, l, results);
      });
  if (failed(status))
    return failure();
  return SmallVector<Value>(loop.getResults().drop_front(2));
}

} // namespace

void placer::lowering::registerControlFlowOps(OpRegistry &r) {
  r.beginFamily(
      "Control flow",
      "A subgraph's ops move into the scf op's region and are lowered there "
      "like any node, nested subgraphs included. If: `scf.if` on the "
      "condition's element (both branches of the node's static output "
      "types). Scan: an `scf.for` over axis 0 of the scanned inputs (forward "
      "or reverse) carrying the states and the stacked outputs; opset 8's "
      "batch axis of size 1. Loop: an `scf.while` carrying the iteration "
      "number, the condition, the loop-carried values and the stacked scan "
      "outputs, running while the condition holds, under the trip count "
      "and within the scan outputs' static length.");
  r.add("If", lowerIf).work(WorkRule::view());
  // Opset 8's Scan is batched ([batch, seq, ...], sequence_lens first).
  r.add("Scan", lowerScan<true>).work(WorkRule::view());
  r.add("Scan", lowerScan<false>, 9);
  r.add("Loop", lowerLoop).work(WorkRule::view());

  // Known to the cost model and placement; no lowering yet.
  r.add("ConcatFromSequence", nullptr).work(WorkRule::dataMovement());
  r.add("SequenceAt", nullptr).work(WorkRule::dataMovement());
  r.add("SequenceConstruct", nullptr).work(WorkRule::dataMovement());
  r.add("SequenceInsert", nullptr).work(WorkRule::dataMovement());
  r.add("SplitToSequence", nullptr).work(WorkRule::dataMovement());
  r.add("Optional", nullptr).work(WorkRule::view());
  r.add("OptionalGetElement", nullptr).work(WorkRule::view());
}
