//===- GraphCostModel.cpp - ONNX op formulas for graph.node ---------------===//
//
// Bytes from the node's types, FLOPs from its op's work rule in the op
// registry (lib/Conversion/GraphToLinalg/Work.cpp; docs/OpCoverage.md lists
// them).
//
//===----------------------------------------------------------------------===//

#include "placer/Analysis/CostModel.h"
#include "placer/Conversion/OnnxOps.h"
#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace placer;
using namespace placer::graph;

namespace {

/// The one user that owns a constant's bytes: shared weights count once, at
/// their first consumer in program order.
bool ownsConstant(NodeOp node, ConstantOp constant) {
  Block *block = constant->getBlock();
  Operation *first = nullptr;
  for (Operation *user : constant->getUsers()) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (ancestor && (!first || ancestor->isBeforeInBlock(first)))
      first = ancestor;
  }
  Operation *self = block->findAncestorOpInBlock(*node.getOperation());
  return first && first == self;
}

FailureOr<OpWork> estimateNodeWork(NodeOp node) {
  OpWork work;
  for (Value result : node.getOutputs()) {
    if (auto tensor = dyn_cast<TensorType>(result.getType())) {
      work.elementType = getTypeName(tensor.getElementType());
      break;
    }
  }

  StringRef op = node.getOpType();
  const OpEntry *entry = getOnnxOps().find(node);
  const WorkRule *rule = entry && entry->work ? &*entry->work : nullptr;
  if (rule && rule->kind == WorkKind::View) {
    work.isFree = true;
    return work;
  }

  // Bytes: every tensor operand read once, every result written once.
  llvm::SmallPtrSet<Operation *, 4> countedConstants;
  for (Value operand : node.getInputs()) {
    std::optional<int64_t> bytes = getTypeBytes(operand.getType());
    if (!bytes) {
      // A dynamic tensor is an error; sequences, maps and values of unknown
      // type have no size to model.
      if (isa<TensorType>(operand.getType())) {
        (void)requireStaticShape(node, operand, "an input");
        return failure();
      }
      return estimateGenericWork(node);
    }
    // Weights are initializers; the outputs of Constant nodes are small
    // computed values (shapes, scales), not parameters.
    if (auto constant = operand.getDefiningOp<ConstantOp>())
      if (!constant.getNode() && countedConstants.insert(constant).second &&
          ownsConstant(node, constant))
        work.paramBytes += *bytes;
    work.bytesRead += *bytes;
  }
  for (Value result : node.getOutputs()) {
    std::optional<int64_t> bytes = getTypeBytes(result.getType());
    if (!bytes)
      return node.emitError("cannot estimate the cost of node '")
             << node.getDisplayName() << "' (" << op << "): output has type "
             << result.getType()
             << ", not a static shape (bind symbolic dims on import with "
                "--dim NAME=VALUE)";
    work.outputBytes += *bytes;
  }
  work.bytesWritten = work.outputBytes;

  if (!rule || !rule->formula) {
    // Data movement costs its bytes; an op without a rule is not modelled.
    work.isModeled = rule != nullptr;
    if (rule && rule->kind == WorkKind::SparseRead &&
        node.getInputs().size() > 1) {
      // Only the gathered rows are read, not the whole table.
      std::optional<int64_t> indices =
          getTypeBytes(node.getInputs()[1].getType());
      work.bytesRead = indices.value_or(0) + work.outputBytes;
    }
    return work;
  }
  Flops flops = rule->formula(WorkArgs{node, rule->perElement});
  if (failed(flops))
    return failure();
  if (!*flops) {
    work.isModeled = false;
    return work;
  }
  work.flops = **flops;
  return work;
}

struct NodeCostModel
    : public CostOpInterface::ExternalModel<NodeCostModel, NodeOp> {
  FailureOr<OpWork> estimateWork(Operation *op) const {
    return estimateNodeWork(cast<NodeOp>(op));
  }
};

/// Constants are folded into their consumers, which own their bytes.
struct ConstantCostModel
    : public CostOpInterface::ExternalModel<ConstantCostModel, ConstantOp> {
  FailureOr<OpWork> estimateWork(Operation *op) const {
    OpWork work;
    work.isFree = true;
    auto constant = cast<ConstantOp>(op);
    bool consumed = llvm::any_of(constant->getUsers(), [](Operation *user) {
      return isa<NodeOp>(user) || user->getParentOfType<NodeOp>();
    });
    if (!consumed && !constant.getNode())
      work.paramBytes = getTypeBytes(constant.getType()).value_or(0);
    return work;
  }
};

struct NoneCostModel
    : public CostOpInterface::ExternalModel<NoneCostModel, NoneOp> {
  FailureOr<OpWork> estimateWork(Operation *) const {
    OpWork work;
    work.isFree = true;
    return work;
  }
};

} // namespace

void placer::registerCostModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, GraphDialect *) {
    NodeOp::attachInterface<NodeCostModel>(*context);
    ConstantOp::attachInterface<ConstantCostModel>(*context);
    NoneOp::attachInterface<NoneCostModel>(*context);
  });
  registerUpstreamCostModels(registry);
}

std::optional<double> placer::getBackwardFactor(Operation *op) {
  auto node = dyn_cast<NodeOp>(op);
  if (!node)
    return std::nullopt;
  const OpEntry *entry = getOnnxOps().find(node);
  return entry ? entry->backwardFactor : std::nullopt;
}
