//===- AccumulateMicrobatches.cpp - Gradient accumulation in a step -------===//
//
// --placer-accumulate-microbatches turns a training step over one
// microbatch into a step over M of them: the inputs grow M times along
// their first axis, the forward and backward nodes run once per slice, and
// the optimizer's nodes read the mean of the slices' gradients. Since every
// loss --placer-build-training makes is a mean over equal slices, the mean
// of the slices' gradients is the whole batch's gradient, whatever the
// optimizer does with it (Adam squares it: averaging the updates instead
// would be wrong). docs/Training.md.
//
//===----------------------------------------------------------------------===//

#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Transforms/Gradients.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace placer {
#define GEN_PASS_DEF_ACCUMULATEMICROBATCHES
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;
using graph::NodeOp;

namespace {

constexpr llvm::StringLiteral kPass = "placer-accumulate-microbatches";

bool isOptimizerNode(Operation *op) {
  return isa<NodeOp>(op) && op->hasAttr(kOptimizerNodeAttrName);
}

/// Ops every microbatch shares: weights, constants, absent operands.
bool isShared(Operation *op) {
  return isa<graph::ConstantOp, graph::NoneOp>(op);
}

/// `name` of microbatch `m`: node and output names stay unique.
std::string microbatchName(StringRef name, int64_t m) {
  return (name + "/mb" + Twine(m)).str();
}

void renameForMicrobatch(NodeOp node, int64_t m) {
  Builder b(node.getContext());
  node.setNameAttr(b.getStringAttr(microbatchName(node.getDisplayName(), m)));
  SmallVector<Attribute> outputs;
  for (Attribute output : node.getOutputNames()) {
    StringRef name = cast<StringAttr>(output).getValue();
    outputs.push_back(b.getStringAttr(name.empty() ? std::string()
                                                   : microbatchName(name, m)));
  }
  node.setOutputNamesAttr(b.getArrayAttr(outputs));
}

/// The step's graph function: the module's one function with a body.
FailureOr<func::FuncOp> getStepFunction(ModuleOp module) {
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      funcs.push_back(func);
  if (funcs.size() != 1)
    return module.emitError()
           << kPass << ": the module must hold one graph function, not "
           << funcs.size();
  return funcs.front();
}

/// An input's graph name, else "input<N>".
std::string inputName(func::FuncOp func, unsigned index) {
  if (auto name = func.getArgAttrOfType<StringAttr>(index, "graph.name"))
    return name.getValue().str();
  return "input" + std::to_string(index);
}

struct AccumulateMicrobatchesPass
    : placer::impl::AccumulateMicrobatchesBase<AccumulateMicrobatchesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(accumulateMicrobatches(getOperation(), microbatches)))
      signalPassFailure();
  }
};

} // namespace

LogicalResult placer::accumulateMicrobatches(ModuleOp module,
                                             int64_t microbatches) {
  if (microbatches < 1)
    return module.emitError()
           << kPass << ": microbatches must be at least 1, not "
           << microbatches;
  if (microbatches == 1)
    return success();
  FailureOr<func::FuncOp> found = getStepFunction(module);
  if (failed(found))
    return failure();
  func::FuncOp func = *found;
  FailureOr<int64_t> opset = getTrainingOpset(module, kPass);
  if (failed(opset))
    return failure();
  Block &body = func.getBody().front();
  Operation *ret = body.getTerminator();

  // Each input must split into M equal slices along its first axis.
  SmallVector<Type> argTypes;
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() == 0 ||
        ShapedType::isDynamic(type.getDimSize(0)))
      return func.emitError()
             << kPass << ": input '" << inputName(func, arg.getArgNumber())
             << "' has no static first axis to split into microbatches ("
             << arg.getType() << ")";
    SmallVector<int64_t> shape(type.getShape());
    shape[0] *= microbatches;
    argTypes.push_back(type.clone(shape));
  }

  // What runs once per microbatch: everything but the shared constants
  // and the optimizer's nodes, which must not feed it.
  SmallVector<Operation *> replicated, optimizer;
  for (Operation &op : body.without_terminator()) {
    if (isShared(&op))
      continue;
    (isOptimizerNode(&op) ? optimizer : replicated).push_back(&op);
  }
  if (optimizer.empty())
    return func.emitError()
           << kPass << ": not a training step: no node is marked '"
           << kOptimizerNodeAttrName << "' (run --placer-build-training first)";
  llvm::DenseSet<Operation *> isReplicated(replicated.begin(),
                                           replicated.end());
  for (Operation *op : replicated)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp(); def && isOptimizerNode(def))
        return op->emitError()
               << kPass << ": reads the optimizer's result "
               << cast<NodeOp>(def).getDisplayName()
               << ": the update must come after the backward pass";

  // Values of one microbatch that the rest of the step reads: gradients
  // (the optimizer) and the loss (the results).
  llvm::SetVector<Value> crossing;
  auto collect = [&](Operation *reader) {
    for (Value operand : reader->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && isReplicated.contains(def))
        crossing.insert(operand);
  };
  for (Operation *op : optimizer)
    collect(op);
  collect(ret);
  for (Value value : crossing) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      return value.getDefiningOp()->emitError()
             << kPass << ": averages floating-point gradients and losses, not "
             << value.getType();
  }

  // Constants first, so that the copies, placed before the optimizer, see
  // every one they read.
  Operation *firstUnshared =
      &*llvm::find_if(body, [](Operation &op) { return !isShared(&op); });
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
    if (isShared(&op) && firstUnshared->isBeforeInBlock(&op))
      op.moveBefore(firstUnshared);

  // The copies, one microbatch after the other, before the optimizer.
  OpBuilder b(optimizer.front());
  Location loc = func.getLoc();
  SmallVector<IRMapping> copies(microbatches);
  for (int64_t m = 0; m < microbatches; ++m) {
    IRMapping &mapping = copies[m];
    for (BlockArgument arg : body.getArguments()) {
      auto type = cast<RankedTensorType>(arg.getType());
      int64_t rows = type.getDimSize(0);
      GradientBuilder slicer(
          b, loc, *opset,
          microbatchName(inputName(func, arg.getArgNumber()), m), IntegerAttr(),
          StepPhase::Forward);
      Value slice =
          slicer.node("Slice",
                      {arg, slicer.int64s({m * rows}),
                       slicer.int64s({(m + 1) * rows}), slicer.int64s({0})},
                      type);
      mapping.map(arg, slice);
    }
    for (Operation *op : replicated) {
      Operation *copy = b.clone(*op, mapping);
      if (auto node = dyn_cast<NodeOp>(copy))
        renameForMicrobatch(node, m);
    }
  }

  // Each crossing value's mean over the microbatches, in its producer's
  // phase and colour class, replaces it outside the copies.
  for (Value value : crossing) {
    Operation *def = value.getDefiningOp();
    auto colorClass = def->getAttrOfType<IntegerAttr>(kColorClassAttrName);
    StepPhase phase = def->hasAttr(kBackwardNodeAttrName) ? StepPhase::Backward
                                                          : StepPhase::Forward;
    std::string name = isa<NodeOp>(def)
                           ? cast<NodeOp>(def).getDisplayName().str()
                           : def->getName().getStringRef().str();
    GradientBuilder mean(b, def->getLoc(), *opset, name + "/mean", colorClass,
                         phase);
    Type type = value.getType();
    Value sum = copies[0].lookup(value);
    for (int64_t m = 1; m < microbatches; ++m)
      sum = mean.node("Add", {sum, copies[m].lookup(value)}, type);
    Value average =
        mean.node("Mul", {sum, mean.scalar(1.0 / microbatches, type)}, type);
    value.replaceUsesWithIf(average, [&](OpOperand &use) {
      return !isReplicated.contains(use.getOwner());
    });
  }
  for (Operation *op : llvm::reverse(replicated))
    op->erase();

  for (auto [arg, type] : llvm::zip(body.getArguments(), argTypes))
    arg.setType(type);
  func.setType(
      FunctionType::get(func.getContext(), argTypes, func.getResultTypes()));
  return success();
}
