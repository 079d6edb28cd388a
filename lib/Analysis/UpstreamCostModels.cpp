//===- UpstreamCostModels.cpp - Costs of linalg, tosa, tensor, arith, math -===//
//
// External CostOpInterface models for the upstream dialects that other
// stacks hand over (IREE, torch-mlir, onnx-mlir, TOSA flows). They count
// what the graph dialect's ONNX formulas count (a multiply-add is 2 FLOPs,
// a transcendental function 4) so that a model placed after
// `--placer-lower-graph-to-linalg` costs what it cost before;
// docs/CostModel.md ("Upstream dialects") lists the rules.
//
//===----------------------------------------------------------------------===//

#include "placer/Analysis/CostModel.h"
#include "placer/Analysis/RowFusion.h"
#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringMap.h"

#include <numeric>

using namespace mlir;
using namespace placer;

namespace {

/// In double: an iteration domain of static but huge dims must not
/// overflow (a FLOP count is a double anyway).
double product(ArrayRef<int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), 1.0,
                         std::multiplies<double>());
}

//===----------------------------------------------------------------------===//
// Scalar ops: what one element costs
//===----------------------------------------------------------------------===//

/// FLOPs of one application of a scalar op, as the graph dialect counts
/// them: 1 for arithmetic, comparisons and selects, 4 for transcendental
/// functions (their polynomial evaluation), 0 for casts, constants and
/// index computations, which move or relabel bits.
double getScalarFlops(Operation *op) {
  static const llvm::StringMap<double> table = [] {
    llvm::StringMap<double> flops;
    for (StringRef name :
         {"arith.constant", "arith.index_cast", "arith.index_castui",
          "arith.extf", "arith.truncf", "arith.extsi", "arith.extui",
          "arith.trunci", "arith.sitofp", "arith.uitofp", "arith.fptosi",
          "arith.fptoui", "arith.bitcast", "linalg.index", "linalg.yield",
          "tensor.yield", "ub.poison"})
      flops[name] = 0;
    for (StringRef name :
         {"math.exp", "math.exp2", "math.expm1", "math.log", "math.log2",
          "math.log10", "math.log1p", "math.powf", "math.fpowi", "math.ipowi",
          "math.sqrt", "math.rsqrt", "math.cbrt", "math.tanh", "math.erf",
          "math.erfc", "math.sin", "math.cos", "math.tan", "math.asin",
          "math.acos", "math.atan", "math.atan2", "math.sinh", "math.cosh",
          "math.asinh", "math.acosh", "math.atanh"})
      flops[name] = 4;
    flops["math.fma"] = 2;
    return flops;
  }();
  auto it = table.find(op->getName().getStringRef());
  return it == table.end() ? 1.0 : it->second;
}

//===----------------------------------------------------------------------===//
// Shapes, bytes and weights
//===----------------------------------------------------------------------===//

/// A weight: a function argument marked as one (`graph.weight`, what
/// Placer's own lowering writes) or the result of a non-scalar constant.
bool isWeight(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    return func && arg.getOwner()->isEntryBlock() &&
           func.getArgAttr(arg.getArgNumber(), graph::attrs::kWeight);
  }
  Operation *def = value.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>() &&
         isa<ShapedType>(value.getType());
}

/// Whether `op` is the first reader of the weight `value` in program order:
/// shared weights count once, at their first consumer.
bool ownsWeight(Operation *op, Value value) {
  Block *block = op->getBlock();
  Operation *first = nullptr;
  for (Operation *user : value.getUsers()) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (ancestor && (!first || ancestor->isBeforeInBlock(first)))
      first = ancestor;
  }
  return first == op;
}

/// The bytes an op moves: each operand in `reads` read once (an operand
/// given twice, twice), each result written once, and the weights among
/// the operands it owns (once each). Failure after
/// an error when a tensor has a dynamic shape.
FailureOr<OpWork> countBytes(Operation *op, ValueRange reads) {
  OpWork work;
  llvm::SmallPtrSet<Value, 4> counted;
  for (Value value : reads) {
    std::optional<int64_t> bytes = getValueBytes(value.getType());
    if (!bytes)
      return emitShapeError(op, "an operand", value.getType());
    work.bytesRead += *bytes;
    if (isWeight(value) && counted.insert(value).second &&
        ownsWeight(op, value))
      work.paramBytes += *bytes;
  }
  for (Value result : op->getResults()) {
    std::optional<int64_t> bytes = getValueBytes(result.getType());
    if (!bytes)
      return emitShapeError(op, "a result", result.getType());
    work.outputBytes += *bytes;
    if (auto shaped = dyn_cast<ShapedType>(result.getType()))
      work.elementType = getTypeName(shaped.getElementType());
  }
  work.bytesWritten = work.outputBytes;
  return work;
}

/// Every operand read once, after checking that all have sizes.
FailureOr<OpWork> countBytes(Operation *op) {
  if (failed(checkStaticShapes(op)))
    return failure();
  return countBytes(op, op->getOperands());
}

/// A view or metadata op: no kernel, no bytes. Dynamic results still fail.
FailureOr<OpWork> freeWork(Operation *op) {
  for (OpResult result : op->getResults())
    if (!getValueBytes(result.getType()))
      return emitShapeError(
          op, "result #" + std::to_string(result.getResultNumber()),
          result.getType());
  OpWork work;
  work.isFree = true;
  return work;
}

//===----------------------------------------------------------------------===//
// linalg: every structured op from the LinalgOp interface
//===----------------------------------------------------------------------===//

/// An init built from scalars alone (a fill of a constant) that only linalg
/// ops read, as the init they overwrite or accumulate into: it runs inside
/// their kernels.
bool isScalarInit(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && !op->use_empty() &&
         llvm::none_of(linalgOp.getDpsInputs(),
                       [](Value v) { return isa<ShapedType>(v.getType()); }) &&
         llvm::all_of(op->getUses(), [](OpOperand &use) {
           auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner());
           return consumer && consumer.isDpsInit(&use);
         });
}

//===----------------------------------------------------------------------===//
// Kernels: one launch per source op
//===----------------------------------------------------------------------===//

/// Reshapes of tensors relabel the same data.
bool isView(Operation *op) {
  return isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::CastOp,
             tensor::ReshapeOp>(op);
}

/// The ops that run a kernel at the lowered level: linalg ops and tensor
/// data movement (views, empties and inits launch nothing).
bool isKernelOp(Operation *op) {
  return isa<linalg::LinalgOp, tensor::PadOp, tensor::ConcatOp,
             tensor::InsertSliceOp, tensor::GatherOp, tensor::ScatterOp>(op);
}

/// `value` with the views that produced it looked through.
Value stripViews(Value value) { return lookThroughViews(value, isView); }

/// The uses of `value`, directly or through views.
void forEachUse(Value value, llvm::function_ref<void(OpOperand &)> fn) {
  forEachUseThroughViews(value, isView, fn);
}

bool reducesInKernel(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0;
}

RowFusionGraph::Role classifyStructure(Operation *op);

/// The contraction or convolution a backend fuses `op` into by structure
/// alone, whatever the locations say (IR printed without debug info and
/// parsed again has one location per line): a tensor.pad it alone reads
/// (the padding of a convolution), or the elementwise op that alone reads
/// its result, views looked through (its bias add: the epilogue cuDNN,
/// cuBLASLt and oneDNN apply in the same call). One epilogue op only, as
/// at the graph level (FusionKind::Contraction).
Operation *getStructuralRoot(Operation *op) {
  // A chain of insert_slices into one tensor (a concatenation) is one copy
  // kernel, launched by its first.
  if (auto head = dyn_cast<tensor::InsertSliceOp>(op)) {
    while (auto before = head.getDest().getDefiningOp<tensor::InsertSliceOp>()) {
      if (!before->hasOneUse())
        break;
      head = before;
    }
    return head;
  }
  if (isa<tensor::PadOp>(op)) {
    // Read by one convolution alone, views looked through (a grouped one
    // reads it reshaped).
    Operation *reader = nullptr;
    bool alone = true;
    forEachUse(op->getResult(0), [&](OpOperand &use) {
      alone &= !reader || reader == use.getOwner();
      reader = use.getOwner();
    });
    return alone && reducesInKernel(reader) ? reader : op;
  }
  if (classifyStructure(op).kind != FusionKind::Elementwise)
    return op;
  for (Value input : cast<linalg::LinalgOp>(op).getDpsInputs()) {
    Value source = stripViews(input);
    Operation *def = source.getDefiningOp();
    if (!reducesInKernel(def) || def->getNumResults() != 1)
      continue;
    bool alone = true;
    forEachUse(source, [&](OpOperand &use) { alone &= use.getOwner() == op; });
    if (alone)
      return def;
  }
  return op;
}

/// The kernel and view ops connected to `op` through values that share its
/// location (`op` alone for an unknown location).
llvm::SmallSetVector<Operation *, 8> getLocationGroup(Operation *op) {
  llvm::SmallSetVector<Operation *, 8> group;
  group.insert(op);
  Location loc = op->getLoc();
  if (isa<UnknownLoc>(loc))
    return group;
  Block *block = op->getBlock();
  SmallVector<Operation *> work{op};
  auto visit = [&](Operation *other) {
    if (other && other->getBlock() == block && other->getLoc() == loc &&
        (isKernelOp(other) || isView(other)) && group.insert(other))
      work.push_back(other);
  };
  while (!work.empty()) {
    Operation *current = work.pop_back_val();
    for (Value operand : current->getOperands())
      visit(operand.getDefiningOp());
    for (Operation *user : current->getUsers())
      visit(user);
  }
  return group;
}

/// The op that launches the kernel of `op`'s source op. A lowering emits
/// several ops for one source op (an ONNX Conv becomes a pad, a fill, a
/// convolution and a bias add; a LayerNormalization two reductions and
/// their elementwise steps) and gives them all the source op's location;
/// a runtime runs that source op as one kernel. So ops with one known
/// location, connected through their values, are one kernel, launched by
/// its first op with reduction loops (the heavy one), else its first op.
/// An op its location groups with nothing (a node lowered to one op,
/// hand-written IR, IR printed without debug info: one location a line)
/// joins the contraction whose epilogue or padding it is
/// (getStructuralRoot), as a bias Add node joins its MatMul at the graph
/// level.
Operation *getKernelRoot(Operation *op) {
  llvm::SmallSetVector<Operation *, 8> group = getLocationGroup(op);
  if (group.size() == 1) {
    Operation *root = getStructuralRoot(op);
    return root == op ? op : getKernelRoot(root);
  }
  Operation *root = nullptr;
  bool rootReduces = false;
  for (Operation *member : group) {
    if (isView(member) || isScalarInit(member))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(member);
    bool reduces = linalgOp && linalgOp.getNumReductionLoops() > 0;
    if (!root || (reduces && !rootReduces) ||
        (reduces == rootReduces && member->isBeforeInBlock(root))) {
      root = member;
      rootReduces = reduces;
    }
  }
  return root ? root : op;
}

//===----------------------------------------------------------------------===//
// Row kernels: reductions with their elementwise neighbours
//===----------------------------------------------------------------------===//

/// An input map that broadcasts and does not permute: its results are
/// loop dims in increasing order, or the constant 0 (a size-1 axis).
bool isBroadcastMap(AffineMap map) {
  int64_t last = -1;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      if (static_cast<int64_t>(dim.getPosition()) <= last)
        return false;
      last = dim.getPosition();
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (!constant || constant.getValue() != 0)
      return false;
  }
  return true;
}

/// The fusion role of one linalg op by its structure (RowFusion.h): an
/// elementwise op (parallel loops, a broadcasting read of each input, an
/// identity write, scalar arithmetic only), or a row reduction (one input
/// read whole, its trailing loops reduced into an output indexed by the
/// leading ones). What a graph node's role says of its lowering.
RowFusionGraph::Role classifyStructure(Operation *op) {
  RowFusionGraph::Role role;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
      op->getNumResults() != 1 || op->getNumRegions() != 1 ||
      !linalg::hasOnlyScalarElementwiseOp(op->getRegion(0)))
    return role;
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> loops = linalgOp.getStaticLoopRanges();
  if (!resultType || !resultType.hasStaticShape() ||
      llvm::any_of(loops, ShapedType::isDynamic))
    return role;
  unsigned numLoops = linalgOp.getNumLoops();
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  AffineMap initMap = maps.back();
  if (linalgOp.getNumReductionLoops() == 0) {
    if (!initMap.isIdentity())
      return role;
    for (OpOperand *input : linalgOp.getDpsInputOperands())
      if (!isBroadcastMap(linalgOp.getMatchingIndexingMap(input)))
        return role;
    role.kind = FusionKind::Elementwise;
    role.shape.assign(resultType.getShape().begin(),
                      resultType.getShape().end());
    return role;
  }
  // A reduction: one input read whole, the reduced loops last.
  SmallVector<OpOperand *> inputs;
  for (OpOperand *input : linalgOp.getDpsInputOperands())
    if (isa<ShapedType>(input->get().getType()))
      inputs.push_back(input);
  if (inputs.size() != 1 ||
      !linalgOp.getMatchingIndexingMap(inputs[0]).isIdentity())
    return role;
  unsigned parallel = linalgOp.getNumParallelLoops();
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  for (unsigned d = 0; d < numLoops; ++d)
    if ((d < parallel) != (iterators[d] == utils::IteratorType::parallel))
      return role;
  // The output indexed by the leading loops: d0, ..., d(parallel - 1).
  if (parallel == numLoops || initMap.getNumResults() != parallel)
    return role;
  for (unsigned d = 0; d < parallel; ++d)
    if (initMap.getResult(d) != getAffineDimExpr(d, op->getContext()))
      return role;
  role.kind = FusionKind::RowReduction;
  role.rows =
      static_cast<int64_t>(product(ArrayRef(loops).take_front(parallel)));
  return role;
}

/// A lowered module's units for RowFusion.h: its kernel ops, with views
/// looked through. An op that runs inside a contraction's or a
/// convolution's kernel (its location group or structural root) is no row
/// unit.
class LoweredFusionGraph : public RowFusionGraph {
public:
  Role classify(Operation *unit) const override {
    for (Operation *member : getLocationGroup(unit))
      if (!isView(member) && member != unit &&
          classifyStructure(member).kind == FusionKind::None)
        return {};
    Operation *root = getKernelRoot(unit);
    if (root != unit && classifyStructure(root).kind == FusionKind::None)
      return {};
    return classifyStructure(unit);
  }
  bool isUnit(Operation *op) const override { return isKernelOp(op); }
  Value lookThroughViews(Value value) const override {
    return stripViews(value);
  }
  void forEachReader(Value value,
                     llvm::function_ref<void(Operation *)> fn) const override {
    forEachUse(value, [&](OpOperand &use) { fn(use.getOwner()); });
  }
  Operation *getKernel(Operation *op) const override;
  /// A fill of a constant is an accumulator's start, set in registers; an
  /// empty tensor holds nothing to read.
  bool isFreeRead(Value value) const override {
    Operation *def = value.getDefiningOp();
    return def && (isScalarInit(def) || isa<tensor::EmptyOp>(def));
  }
};

/// The op that launches the kernel `op` runs in: its row kernel's
/// reduction, else its location group's or structural root.
Operation *LoweredFusionGraph::getKernel(Operation *op) const {
  return KernelCache::lookup(op, [this](Operation *op) {
    if (Operation *rowKernel = getRowKernel(*this, op))
      return rowKernel;
    return getKernelRoot(op);
  });
}

/// The bytes of `op`'s kernel share: the `reads` it takes from memory and
/// the results that leave the kernel.
FailureOr<OpWork> countKernelBytes(Operation *op, ValueRange reads) {
  LoweredFusionGraph graph;
  Operation *kernel = graph.getKernel(op);
  SmallVector<Value> fromMemory;
  for (Value value : reads)
    if (graph.readsFromMemory(op, value, kernel))
      fromMemory.push_back(value);
  FailureOr<OpWork> work = countBytes(op, fromMemory);
  if (failed(work))
    return failure();
  // Weights are owned by their first reader, wherever it reads them from
  // and through whatever views (a grouped convolution reads its filter
  // reshaped).
  work->paramBytes = 0;
  llvm::SmallPtrSet<Value, 4> counted;
  for (Value value : reads) {
    Value weight = stripViews(value);
    if (!isWeight(weight) || !counted.insert(weight).second)
      continue;
    Operation *first = nullptr;
    forEachUse(weight, [&](OpOperand &use) {
      Operation *reader =
          op->getBlock()->findAncestorOpInBlock(*use.getOwner());
      if (reader && (!first || reader->isBeforeInBlock(first)))
        first = reader;
    });
    if (first == op)
      work->paramBytes += getValueBytes(weight.getType()).value_or(0);
  }
  for (Value result : op->getResults())
    if (graph.staysInKernel(result, kernel))
      work->bytesWritten -= getValueBytes(result.getType()).value_or(0);
  work->isFused = kernel != op;
  return work;
}

FailureOr<OpWork> estimateLinalgWork(linalg::LinalgOp op) {
  Operation *operation = op.getOperation();
  if (failed(checkStaticShapes(operation)))
    return failure();
  SmallVector<int64_t> loops = op.getStaticLoopRanges();
  if (llvm::any_of(loops, ShapedType::isDynamic))
    return operation->emitError("cannot estimate the cost of '")
           << operation->getName() << "': its loop ranges are not static";

  // Reads: the inputs, and the inits whose values the payload uses (a
  // matmul accumulates into its init; a map overwrites it).
  SmallVector<Value> reads;
  for (OpOperand *input : op.getDpsInputOperands())
    reads.push_back(input->get());
  for (OpOperand &init : op.getDpsInitsMutable())
    if (op.payloadUsesValueFromOperand(&init))
      reads.push_back(init.get());

  FailureOr<OpWork> work = op.hasPureTensorSemantics()
                               ? countKernelBytes(operation, reads)
                               : countBytes(operation, reads);
  if (failed(work))
    return failure();
  if (!op.hasPureTensorSemantics()) {
    // On buffers the inits are the outputs.
    for (Value init : op.getDpsInits())
      work->bytesWritten += getValueBytes(init.getType()).value_or(0);
    work->outputBytes = work->bytesWritten;
  }
  double perPoint = 0;
  for (Operation &payload : op.getBlock()->without_terminator())
    perPoint += getScalarFlops(&payload);
  work->flops = perPoint * product(loops);
  work->coversRegions = true;
  return work;
}

struct LinalgCostModel
    : public CostOpInterface::FallbackModel<LinalgCostModel> {
  FailureOr<OpWork> estimateWork(Operation *op) const {
    FailureOr<OpWork> work = estimateLinalgWork(cast<linalg::LinalgOp>(op));
    if (succeeded(work) && work->flops == 0 && isScalarInit(op))
      work->isFree = true;
    return work;
  }
};

//===----------------------------------------------------------------------===//
// tensor: views are free, the rest moves bytes
//===----------------------------------------------------------------------===//

struct TensorViewCostModel
    : public CostOpInterface::FallbackModel<TensorViewCostModel> {
  FailureOr<OpWork> estimateWork(Operation *op) const { return freeWork(op); }
};

struct TensorMoveCostModel
    : public CostOpInterface::FallbackModel<TensorMoveCostModel> {
  FailureOr<OpWork> estimateWork(Operation *op) const {
    if (failed(checkStaticShapes(op)))
      return failure();
    FailureOr<OpWork> work = isKernelOp(op)
                                 ? countKernelBytes(op, op->getOperands())
                                 : countBytes(op, op->getOperands());
    if (failed(work))
      return failure();
    work->coversRegions = true; // a pad's or generate's yield computes nothing
    return work;
  }
};

//===----------------------------------------------------------------------===//
// arith and math: elementwise on tensors, free on scalars
//===----------------------------------------------------------------------===//

struct ElementwiseCostModel
    : public CostOpInterface::FallbackModel<ElementwiseCostModel> {
  FailureOr<OpWork> estimateWork(Operation *op) const {
    auto tensor = op->getNumResults() == 1
                      ? dyn_cast<ShapedType>(op->getResult(0).getType())
                      : ShapedType();
    // Constants fold into their readers, which own their bytes; scalar
    // arithmetic (sizes, indices) costs nothing worth modelling.
    if (!tensor || op->hasTrait<OpTrait::ConstantLike>())
      return freeWork(op);
    FailureOr<OpWork> work = countBytes(op);
    if (failed(work))
      return failure();
    work->flops = getScalarFlops(op) * product(tensor.getShape());
    return work;
  }
};

//===----------------------------------------------------------------------===//
// tosa: one rule per op, as for ONNX
//===----------------------------------------------------------------------===//

/// How a TOSA op is costed: FLOPs from a formula over its shapes, or none.
struct TosaRule {
  enum Kind { View, DataMovement, SparseRead, Compute } kind = Compute;
  /// FLOPs from the op (its shapes are static when this runs).
  double (*formula)(Operation *, double perElement) = nullptr;
  double perElement = 0;
};

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

double perOutputElement(Operation *op, double perElement) {
  return perElement * product(shapeOf(op->getResult(0)));
}

double perInputElement(Operation *op, double perElement) {
  return perElement * product(shapeOf(op->getOperand(0)));
}

/// conv2d / conv3d (weights [O, kernel..., I]): each output element is
/// kernel x I multiply-adds, plus the bias add.
double tosaConvolution(Operation *op, double) {
  double out = product(shapeOf(op->getResult(0)));
  double macs = out * product(shapeOf(op->getOperand(1)).drop_front());
  return 2 * macs + out;
}

/// depthwise_conv2d (weights [KH, KW, C, M]): KH x KW per output element.
double tosaDepthwise(Operation *op, double) {
  ArrayRef<int64_t> weight = shapeOf(op->getOperand(1));
  double out = product(shapeOf(op->getResult(0)));
  return 2 * out * weight[0] * weight[1] + out;
}

/// transpose_conv2d (weights [O, KH, KW, I]): each input element scatters
/// into O x KH x KW outputs.
double tosaTransposeConv(Operation *op, double) {
  ArrayRef<int64_t> weight = shapeOf(op->getOperand(1));
  double macs = product(shapeOf(op->getOperand(0))) *
                weight[0] * weight[1] * weight[2];
  return 2 * macs + product(shapeOf(op->getResult(0)));
}

/// matmul [N, H, C] x [N, C, W]: C multiply-adds per output element.
double tosaMatmul(Operation *op, double) {
  return 2.0 * product(shapeOf(op->getResult(0))) *
         shapeOf(op->getOperand(0)).back();
}

/// Pooling: one combine per output element and kernel position.
double tosaPool(Operation *op, double) {
  auto kernel = op->getAttrOfType<DenseI64ArrayAttr>("kernel");
  return product(shapeOf(op->getResult(0))) *
         (kernel ? product(kernel.asArrayRef()) : 1);
}

const llvm::StringMap<TosaRule> &tosaRules() {
  static const llvm::StringMap<TosaRule> rules = [] {
    llvm::StringMap<TosaRule> table;
    auto add = [&](std::initializer_list<StringRef> ops, TosaRule rule) {
      for (StringRef op : ops)
        table[("tosa." + op).str()] = rule;
    };
    auto compute = [](double (*formula)(Operation *, double),
                      double perElement = 0) {
      return TosaRule{TosaRule::Compute, formula, perElement};
    };
    add({"reshape", "identity", "const", "const_shape"}, {TosaRule::View});
    add({"gather"}, {TosaRule::SparseRead});
    add({"concat", "pad", "reverse", "slice", "tile", "transpose", "scatter",
         "resize", "cast", "table"},
        {TosaRule::DataMovement});
    add({"add", "sub", "mul", "intdiv", "maximum", "minimum", "abs", "negate",
         "reciprocal", "ceil", "floor", "clamp", "select", "equal", "greater",
         "greater_equal", "bitwise_and", "bitwise_or", "bitwise_xor",
         "bitwise_not", "logical_and", "logical_or", "logical_xor",
         "logical_not", "logical_left_shift", "logical_right_shift",
         "arithmetic_right_shift", "clz"},
        compute(perOutputElement, 1));
    // A rescale multiplies, shifts and rounds.
    add({"rescale"}, compute(perOutputElement, 2));
    add({"exp", "log", "pow", "rsqrt", "tanh", "sigmoid", "erf", "sin", "cos"},
        compute(perOutputElement, 4));
    add({"reduce_sum", "reduce_max", "reduce_min", "reduce_product",
         "reduce_all", "reduce_any", "argmax"},
        compute(perInputElement, 1));
    add({"conv2d", "conv3d"}, compute(tosaConvolution));
    add({"depthwise_conv2d"}, compute(tosaDepthwise));
    add({"transpose_conv2d"}, compute(tosaTransposeConv));
    add({"matmul"}, compute(tosaMatmul));
    add({"avg_pool2d", "max_pool2d"}, compute(tosaPool));
    return table;
  }();
  return rules;
}

struct TosaCostModel : public CostOpInterface::FallbackModel<TosaCostModel> {
  FailureOr<OpWork> estimateWork(Operation *op) const {
    const TosaRule &rule = tosaRules().find(op->getName().getStringRef())->second;
    if (rule.kind == TosaRule::View)
      return freeWork(op);
    FailureOr<OpWork> work = countBytes(op);
    if (failed(work))
      return failure();
    if (rule.kind == TosaRule::SparseRead)
      // Only the gathered rows are read, not the whole table.
      work->bytesRead = getValueBytes(op->getOperand(1).getType()).value_or(0) +
                        work->outputBytes;
    if (rule.formula)
      work->flops = rule.formula(op, rule.perElement);
    return work;
  }
};

template <typename... Ops>
bool isOneOf(OperationName name) {
  return ((name.getTypeID() == TypeID::get<Ops>()) || ...);
}

/// Attaches `Model` to every registered op of `dialect` that `accepts`.
template <typename Model>
void attachToOps(MLIRContext *context, Dialect *dialect,
                 llvm::function_ref<bool(RegisteredOperationName)> accepts) {
  for (RegisteredOperationName name : context->getRegisteredOperations())
    if (&name.getDialect() == dialect && !name.hasInterface<CostOpInterface>() &&
        accepts(name))
      name.attachInterface<Model>();
}

} // namespace

void placer::registerUpstreamCostModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *d) {
    attachToOps<LinalgCostModel>(context, d, [](RegisteredOperationName name) {
      return name.hasInterface<linalg::LinalgOp>();
    });
  });
  registry.addExtension(+[](MLIRContext *context, tosa::TosaDialect *d) {
    attachToOps<TosaCostModel>(context, d, [](RegisteredOperationName name) {
      return tosaRules().contains(name.getStringRef());
    });
  });
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *d) {
    attachToOps<TensorViewCostModel>(
        context, d, [](RegisteredOperationName name) {
          return isOneOf<tensor::EmptyOp, tensor::ExpandShapeOp,
                         tensor::CollapseShapeOp, tensor::CastOp,
                         tensor::ReshapeOp, tensor::BitcastOp, tensor::DimOp,
                         tensor::RankOp, tensor::ExtractSliceOp>(name);
        });
    attachToOps<TensorMoveCostModel>(
        context, d, [](RegisteredOperationName name) {
          return isOneOf<tensor::PadOp, tensor::ConcatOp,
                         tensor::InsertSliceOp, tensor::SplatOp,
                         tensor::GatherOp, tensor::ScatterOp,
                         tensor::FromElementsOp, tensor::GenerateOp,
                         tensor::ExtractOp, tensor::InsertOp>(name);
        });
  });
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *d) {
    attachToOps<ElementwiseCostModel>(context, d, [](RegisteredOperationName n) {
      return n.hasTrait<OpTrait::Elementwise>() ||
             n.hasTrait<OpTrait::ConstantLike>();
    });
  });
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *d) {
    attachToOps<ElementwiseCostModel>(context, d, [](RegisteredOperationName n) {
      return n.hasTrait<OpTrait::Elementwise>();
    });
  });
}
