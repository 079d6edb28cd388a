//===- Autocast.cpp - A float32 model computed in half precision ----------===//
//
// What PyTorch's autocast does at run time, done once on the graph: products
// and convolutions in bf16 or f16 (tensor cores), ops whose range or long
// sums need it in f32, everything else in the type its data arrives in. The
// op registry holds each op's policy (CastPolicy); ONNX's schemas say which
// operands and results carry an op's data type (Resize's scales never do).
// Casts are graph nodes, so placement prices them and the lowering needs
// nothing new; constants are converted here, once.
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/OnnxOps.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Graph/OpRegistry.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Twine.h"

namespace placer {
#define GEN_PASS_DEF_AUTOCAST
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;
using namespace placer::graph;

namespace {

bool hasElement(Value value, Type element) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getElementType() == element;
}

/// Rewrites one function body (see the pass description).
class Caster {
public:
  Caster(ModuleOp module, const OpRegistry &registry, FloatType half)
      : module(module), registry(registry), half(half),
        f32(Float32Type::get(module.getContext())) {}

  LogicalResult run(Block &body);

private:
  /// The policy `node` computes by: its registry entry's, f32 for nodes
  /// with subgraphs and ops ONNX's default domain does not define.
  CastPolicy getPolicy(NodeOp node) const;
  void visit(NodeOp node, const OnnxSchema *schema, CastPolicy policy);
  /// `value` in `element` (f32 or the half type): itself, a constant
  /// converted once, or a Cast node after its definition (one per value).
  Value castTo(Value value, Type element);
  Value castNode(Value value, Type element);
  Value convertConstant(ConstantOp constant);
  bool isWeightView(Value value, int depth = 4) const;
  void retype(Value result);

  ModuleOp module;
  const OpRegistry &registry;
  FloatType half;
  Type f32;
  llvm::DenseMap<std::pair<Value, Type>, Value> casts;
  llvm::DenseSet<Operation *> visited;
  SmallVector<Value> retyped;
  int counter = 0;
  LogicalResult status = success();
};

CastPolicy Caster::getPolicy(NodeOp node) const {
  if (node->getNumRegions() > 0)
    return CastPolicy::Float;
  const OpEntry *entry = registry.find(node);
  return entry ? entry->getCastPolicy() : CastPolicy::Follow;
}

Value Caster::castNode(Value value, Type element) {
  OpBuilder b(value.getContext());
  b.setInsertionPointAfterValue(value);
  std::string name = "autocast/" + std::to_string(counter++);
  OperationState state(value.getLoc(), NodeOp::getOperationName());
  state.addOperands(value);
  state.addTypes(cast<RankedTensorType>(value.getType()).clone(element));
  state.addAttribute("op_type", b.getStringAttr("Cast"));
  state.addAttribute("version", b.getI64IntegerAttr(13));
  state.addAttribute("name", b.getStringAttr(name));
  state.addAttribute("output_names", b.getStrArrayAttr({name}));
  int64_t to = element.isBF16()  ? onnx_dtype::kBfloat16
               : element.isF16() ? onnx_dtype::kFloat16
                                 : onnx_dtype::kFloat;
  state.addAttribute(
      "attrs",
      b.getDictionaryAttr({b.getNamedAttr("to", b.getI64IntegerAttr(to))}));
  Operation *node = b.create(state);
  visited.insert(node);
  return node->getResult(0);
}

Value Caster::convertConstant(ConstantOp constant) {
  // No data to convert (a shapes-only import): cast where it runs.
  if (!isa<DenseElementsAttr, DenseResourceElementsAttr, ExternalDataAttr>(
          constant.getValue()))
    return castNode(constant, half);
  std::vector<float> values(
      cast<RankedTensorType>(constant.getType()).getNumElements());
  if (llvm::Error error = readConstantBytes(
          module, constant.getValue(), constant.getName(),
          llvm::MutableArrayRef<char>(reinterpret_cast<char *>(values.data()),
                                      values.size() * sizeof(float)))) {
    constant.emitError("placer-autocast: cannot read constant '")
        << constant.getName() << "': " << llvm::toString(std::move(error));
    status = failure();
    return castNode(constant, half);
  }
  std::vector<uint16_t> bits(values.size());
  const llvm::fltSemantics &semantics = half.getFloatSemantics();
  for (size_t i = 0; i < values.size(); ++i) {
    llvm::APFloat value(values[i]);
    bool lost;
    value.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
    bits[i] = static_cast<uint16_t>(value.bitcastToAPInt().getZExtValue());
  }
  auto type = cast<RankedTensorType>(constant.getType()).clone(half);
  auto data = DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(reinterpret_cast<const char *>(bits.data()),
                           bits.size() * sizeof(uint16_t)));
  OpBuilder b(constant);
  b.setInsertionPointAfter(constant);
  // The converted weight keeps the initializer's name: the compiled
  // program's manifest lists it under that name, in half precision.
  auto converted =
      ConstantOp::create(b, constant.getLoc(), type, constant.getNameAttr(),
                         data, constant.getNodeAttr());
  return converted.getResult();
}

/// Whether `value` is a weight seen through ops of constants alone that
/// nothing else reads (a Linear layer's transposed weight, as exported
/// models have them; not an embedding's rows, which computed indices pick):
/// computed in half from a converted constant, it needs no cast at run
/// time. `depth` bounds the search.
bool Caster::isWeightView(Value value, int depth) const {
  if (value.getDefiningOp<ConstantOp>())
    return true;
  auto node = value.getDefiningOp<NodeOp>();
  if (!node || depth == 0 || node->getNumRegions() || !value.hasOneUse() ||
      node->getNumResults() != 1 ||
      !(node.getDomain().empty() ||
        node.getDomain() == attrs::kDefaultDomainKey))
    return false;
  std::optional<OnnxSchema> schema =
      getOnnxSchema(node.getOpType(), node.getVersion());
  const OpEntry *entry = registry.find(node);
  if (!schema || !schema->isTypedOutput(0) || !entry ||
      entry->getCastPolicy() != CastPolicy::Follow)
    return false;
  return llvm::all_of(node->getOperands(), [&](Value operand) {
    return isa<NoneType>(operand.getType()) || isWeightView(operand, depth - 1);
  });
}

Value Caster::castTo(Value value, Type element) {
  if (hasElement(value, element))
    return value;
  Value &cached = casts[{value, element}];
  if (cached)
    return cached;
  if (auto constant = value.getDefiningOp<ConstantOp>();
      constant && element == half)
    return cached = convertConstant(constant);
  if (auto node = value.getDefiningOp<NodeOp>();
      node && element == half && isWeightView(value)) {
    // Computed in half from its converted weights instead.
    std::optional<OnnxSchema> schema =
        getOnnxSchema(node.getOpType(), node.getVersion());
    for (unsigned i = 0; i < node->getNumOperands(); ++i)
      if (schema->isTypedInput(i) && hasElement(node->getOperand(i), f32))
        node->setOperand(i, castTo(node->getOperand(i), half));
    retype(value);
    return value;
  }
  Value cast = castNode(value, element);
  // The map may have grown since `cached` was taken.
  casts[{value, element}] = cast;
  return cast;
}

void Caster::retype(Value result) {
  result.setType(cast<RankedTensorType>(result.getType()).clone(half));
  retyped.push_back(result);
}

void Caster::visit(NodeOp node, const OnnxSchema *schema, CastPolicy policy) {
  // The operands and results that carry the op's data type.
  auto typedInput = [&](unsigned i) {
    return !schema || schema->isTypedInput(i);
  };
  auto typedOutput = [&](unsigned i) {
    return !schema || schema->isTypedOutput(i);
  };
  auto setOperand = [&](unsigned i, Type element) {
    node->setOperand(i, castTo(node->getOperand(i), element));
  };
  unsigned numInputs = node->getNumOperands();
  switch (policy) {
  case CastPolicy::Half:
    for (unsigned i = 0; i < numInputs; ++i)
      if (typedInput(i) && hasElement(node->getOperand(i), f32))
        setOperand(i, half);
    for (OpResult result : node->getResults())
      if (typedOutput(result.getResultNumber()) && hasElement(result, f32))
        retype(result);
    return;
  case CastPolicy::Float:
    for (unsigned i = 0; i < numInputs; ++i)
      if (hasElement(node->getOperand(i), half))
        setOperand(i, f32);
    return;
  case CastPolicy::Follow:
    break;
  }
  // An op with no output of its inputs' type (Cast, Shape) keeps its types.
  if (!schema || !schema->typedOutputs)
    return;
  bool anyHalf = false, computedF32 = false;
  for (unsigned i = 0; i < numInputs; ++i) {
    Value operand = node->getOperand(i);
    if (!typedInput(i))
      continue;
    anyHalf |= hasElement(operand, half);
    computedF32 |=
        hasElement(operand, f32) && !operand.getDefiningOp<ConstantOp>();
  }
  if (!anyHalf)
    return;
  // Only ops of an f32 model change: their typed results are f32.
  for (OpResult result : node->getResults())
    if (typedOutput(result.getResultNumber()) &&
        isa<RankedTensorType>(result.getType()) && !hasElement(result, f32))
      return;
  Type element = computedF32 ? f32 : Type(half);
  for (unsigned i = 0; i < numInputs; ++i)
    if (typedInput(i) && isa<RankedTensorType>(node->getOperand(i).getType()) &&
        (hasElement(node->getOperand(i), f32) ||
         hasElement(node->getOperand(i), half)))
      setOperand(i, element);
  if (!computedF32)
    for (OpResult result : node->getResults())
      if (typedOutput(result.getResultNumber()) && hasElement(result, f32))
        retype(result);
}

LogicalResult Caster::run(Block &body) {
  SmallVector<NodeOp> nodes(body.getOps<NodeOp>());
  for (NodeOp node : nodes) {
    if (visited.contains(node))
      continue;
    visited.insert(node);
    std::optional<OnnxSchema> schema;
    if (node.getDomain().empty() ||
        node.getDomain() == attrs::kDefaultDomainKey)
      schema = getOnnxSchema(node.getOpType(), node.getVersion());
    CastPolicy policy = schema ? getPolicy(node) : CastPolicy::Float;
    visit(node, schema ? &*schema : nullptr, policy);
  }
  // Whatever else reads a value now in half precision (the return, a
  // transfer, a subgraph's op through its captures) reads it in f32.
  for (Value value : retyped) {
    SmallVector<OpOperand *> others;
    for (OpOperand &use : value.getUses())
      if (!visited.contains(use.getOwner()))
        others.push_back(&use);
    for (OpOperand *use : others)
      use->set(castTo(value, f32));
  }
  // A weight read only in half precision is stored only so; one read in
  // f32 too keeps its name, and its half copy is named apart (weights are
  // found by name).
  for (auto &[key, converted] : casts) {
    auto constant = key.first.getDefiningOp<ConstantOp>();
    auto copy = converted.getDefiningOp<ConstantOp>();
    if (!constant || !copy)
      continue;
    if (constant->use_empty())
      constant->erase();
    else
      copy.setName(
          (copy.getName() + "/" + (half.isBF16() ? "bf16" : "f16")).str());
  }
  return status;
}

struct AutocastPass : placer::impl::AutocastBase<AutocastPass> {
  using AutocastBase::AutocastBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    FloatType half;
    if (type == "bf16")
      half = BFloat16Type::get(context);
    else if (type == "f16")
      half = Float16Type::get(context);
    if (!half) {
      module.emitError("placer-autocast: type must be bf16 or f16, not '")
          << type << "'";
      return signalPassFailure();
    }
    // Once per module: a second run in the same type changes nothing, one
    // in another would mix them.
    if (auto done = module->getAttrOfType<TypeAttr>(kPrecisionAttrName)) {
      if (done.getValue() == half)
        return;
      module.emitError("placer-autocast: the module computes in ")
          << done.getValue() << " already, not " << half;
      return signalPassFailure();
    }
    const OpRegistry &registry = getOnnxOps();
    SmallVector<func::FuncOp> funcs;
    module.walk([&](func::FuncOp func) {
      if (!func.isDeclaration())
        funcs.push_back(func);
    });
    for (func::FuncOp func : funcs) {
      Caster caster(module, registry, half);
      if (failed(caster.run(func.getBody().front())))
        return signalPassFailure();
    }
    module->setAttr(kPrecisionAttrName, TypeAttr::get(half));
  }
};

} // namespace
