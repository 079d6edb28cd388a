//===- GraphCostModel.cpp - ONNX op formulas for graph.node ---------------===//
//
// Bytes from the node's types, FLOPs from its op's work rule in the op
// registry (lib/Conversion/GraphToLinalg/Work.cpp; docs/OpCoverage.md lists
// them).
//
//===----------------------------------------------------------------------===//

#include "placer/Analysis/CostModel.h"
#include "placer/Analysis/RowFusion.h"
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

//===----------------------------------------------------------------------===//
// Row kernels (RowFusion.h) over nodes
//===----------------------------------------------------------------------===//

/// A node that relabels its input 0 (Reshape, Squeeze, Identity...): a
/// view of all of it. (A slice is a view of part: what reads it reads
/// that part, not its input.)
bool isViewNode(Operation *op) {
  auto node = dyn_cast<NodeOp>(op);
  if (!node || node->getNumOperands() == 0 || node->getNumResults() != 1)
    return false;
  const OpEntry *entry = getOnnxOps().find(node);
  return entry && entry->work && entry->work->isViewFor(node) &&
         getTypeBytes(node->getOperand(0).getType()) ==
             getTypeBytes(node->getResult(0).getType());
}

Value lookThroughViewNodes(Value value) {
  return lookThroughViews(value, isViewNode);
}

/// The ops that read `value` directly or through view nodes.
void forEachNodeReader(Value value, llvm::function_ref<void(Operation *)> fn) {
  forEachUseThroughViews(value, isViewNode,
                         [&](OpOperand &use) { fn(use.getOwner()); });
}

int64_t countElements(ArrayRef<int64_t> dims) {
  int64_t count = 1;
  for (int64_t dim : dims)
    count *= dim;
  return count;
}

/// A node's fusion role from the op registry (None for subgraph nodes and
/// nodes without inputs or outputs).
FusionRole getNodeRole(Operation *op) {
  auto node = dyn_cast<NodeOp>(op);
  const OpEntry *entry = node ? getOnnxOps().find(node) : nullptr;
  if (!entry || node->getNumRegions() != 0 || node.getOutputs().empty() ||
      node.getInputs().empty())
    return {};
  return entry->getFusionRole(node);
}

/// The contraction whose epilogue `node` is: an elementwise node that alone
/// reads a contraction's (one) result, views looked through.
Operation *getEpilogueHost(Operation *node) {
  if (getNodeRole(node).kind != FusionKind::Elementwise)
    return nullptr;
  for (Value input : cast<NodeOp>(node).getInputs()) {
    Operation *def = lookThroughViewNodes(input).getDefiningOp();
    if (!isa_and_nonnull<NodeOp>(def) || def->getNumResults() != 1 ||
        def->getBlock() != node->getBlock() ||
        getNodeRole(def).kind != FusionKind::Contraction)
      continue;
    bool alone = true;
    forEachNodeReader(def->getResult(0),
                      [&](Operation *reader) { alone &= reader == node; });
    if (alone)
      return def;
  }
  return nullptr;
}

Operation *getNodeKernel(Operation *node);

/// A graph's nodes as RowFusion.h units, their roles from the op registry:
/// contractions and their epilogues are no row units.
class NodeFusionGraph : public RowFusionGraph {
public:
  Role classify(Operation *unit) const override {
    FusionRole fusion = getNodeRole(unit);
    if (fusion.kind == FusionKind::Contraction || getEpilogueHost(unit))
      return {};
    auto node = cast<NodeOp>(unit);
    auto in = dyn_cast<RankedTensorType>(node.getInputs()[0].getType());
    auto out = dyn_cast<RankedTensorType>(node.getOutputs()[0].getType());
    if (fusion.kind == FusionKind::None || !in || !out ||
        !in.hasStaticShape() || !out.hasStaticShape())
      return {};
    Role role;
    role.kind = fusion.kind;
    if (fusion.kind == FusionKind::RowReduction)
      role.rows = countElements(in.getShape().take_front(fusion.rowAxes));
    else
      role.shape.assign(out.getShape().begin(), out.getShape().end());
    return role;
  }
  bool isUnit(Operation *op) const override { return isa<NodeOp>(op); }
  Value lookThroughViews(Value value) const override {
    return lookThroughViewNodes(value);
  }
  void forEachReader(Value value,
                     llvm::function_ref<void(Operation *)> fn) const override {
    forEachNodeReader(value, fn);
  }
  Operation *getKernel(Operation *op) const override {
    return getNodeKernel(op);
  }
};

/// The node that launches the kernel `node` runs in: its contraction (an
/// epilogue), its row kernel's reduction, or itself.
Operation *getNodeKernel(Operation *node) {
  return KernelCache::lookup(node, [](Operation *node) {
    if (Operation *host = getEpilogueHost(node))
      return host;
    if (Operation *rowKernel = getRowKernel(NodeFusionGraph(), node))
      return rowKernel;
    return node;
  });
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
  if (rule && rule->isViewFor(node)) {
    work.isFree = true;
    return work;
  }

  // Bytes: every tensor operand read once, every result written once; in
  // a row kernel, only what comes from outside it and what leaves it.
  NodeFusionGraph graph;
  Operation *kernel = graph.getKernel(node);
  work.isFused = kernel != node.getOperation();
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
    if (graph.readsFromMemory(node, operand, kernel))
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
    if (!graph.staysInKernel(result, kernel))
      work.bytesWritten += *bytes;
  }

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
