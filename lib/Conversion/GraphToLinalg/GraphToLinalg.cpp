//===- GraphToLinalg.cpp - graph.node to linalg on tensors ----------------===//
//
// The pass checks the whole module first (op types with a lowering, static
// shapes), so a model with several problems gets one error listing them all
// and no half-lowered output. Then, per function: constants become
// arith.constant or weight arguments, and every node is replaced, in program
// order, by what its lowering builds.
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/GraphToLinalg.h"
#include "Utils.h"
#include "placer/Conversion/Passes.h"
#include "placer/Dialect/Placer/PlacerDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSet.h"

namespace placer {
#define GEN_PASS_DEF_LOWERGRAPHTOLINALG
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;
using namespace placer::graph;

namespace {

bool isDefaultDomain(NodeOp node) {
  return node.getDomain().empty() || node.getDomain() == "ai.onnx";
}

/// The symbolic dims the arguments of `func` name (graph.dim_params): the
/// sizes a program with dynamic dims learns from its inputs.
llvm::StringSet<> getArgumentSymbols(func::FuncOp func) {
  llvm::StringSet<> symbols;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto dims =
            func.getArgAttrOfType<ArrayAttr>(i, graph::attrs::kDimParams))
      for (auto name : dims.getAsValueRange<StringAttr>())
        if (!name.empty())
          symbols.insert(name);
  return symbols;
}

/// Why a value of `type` cannot lower ("" when it can): the lowering takes
/// ranked tensors (and omitted optional inputs) only.
std::string describeUnlowerableType(Type type) {
  if (isa<NoneType, RankedTensorType>(type))
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "has type " << type << ": "
     << (isa<TensorType>(type) ? "a tensor of unknown rank"
                               : "sequences, optionals and maps do not lower");
  return text;
}

/// Why `node`'s operand or result types keep it from lowering, or "".
std::string checkValueTypes(NodeOp node) {
  for (auto [kind, values] :
       {std::make_pair("input", ValueRange(node.getInputs())),
        std::make_pair("output", ValueRange(node.getOutputs()))}) {
    for (auto [i, value] : llvm::enumerate(values)) {
      std::string why = describeUnlowerableType(value.getType());
      if (!why.empty())
        return (Twine(kind) + " #" + Twine(i) + " " + why).str();
    }
  }
  return "";
}

/// Why `node`'s dynamic dims keep it from lowering, or "" (its types are
/// tensors or none: checkValueTypes): dynamic dims where its lowering takes
/// none, or an output dim the input sizes do not determine.
std::string checkTypes(NodeOp node, const OpEntry *entry,
                       const llvm::StringSet<> &symbols) {
  auto isStatic = [](Value v) {
    auto ranked = dyn_cast<RankedTensorType>(v.getType());
    return !ranked || ranked.hasStaticShape();
  };
  if (llvm::all_of(node.getInputs(), isStatic) &&
      llvm::all_of(node.getOutputs(), isStatic))
    return "";
  if (entry && !entry->dynamicDims)
    return "dynamic dims, which its lowering does not take";
  std::optional<ArrayAttr> names = node.getOutputDims();
  for (auto [i, output] : llvm::enumerate(node.getOutputs())) {
    auto type = dyn_cast<RankedTensorType>(output.getType());
    if (!type || type.hasStaticShape())
      continue;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      StringRef name =
          names ? cast<StringAttr>(cast<ArrayAttr>((*names)[i])[d]).getValue()
                : StringRef();
      if (name.empty() || !symbols.contains(name))
        return ("output #" + Twine(i) + " dim " + Twine(d) +
                " is not a symbolic dim of the inputs")
            .str();
    }
  }
  return "";
}

/// One error for the whole module: every op type without a lowering (with
/// its nodes) and every node whose types keep it from lowering.
LogicalResult checkLowerable(ModuleOp module) {
  // Op type -> its nodes, in first-seen order.
  std::vector<std::pair<std::string, SmallVector<std::string>>> unsupported;
  SmallVector<std::string> badValues, badTypes;
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    for (auto [kind, types] :
         {std::make_pair("argument", func.getArgumentTypes()),
          std::make_pair("result", func.getResultTypes())})
      for (auto [i, type] : llvm::enumerate(types)) {
        std::string why = describeUnlowerableType(type);
        if (!why.empty())
          badValues.push_back("'@" + func.getName().str() + "' (" + kind +
                              " #" + std::to_string(i) + " " + why + ")");
      }
    llvm::StringSet<> symbols = getArgumentSymbols(func);
    func.walk([&](NodeOp node) {
      std::string type = node.getOpType().str();
      if (!isDefaultDomain(node))
        type = node.getDomain().str() + "." + type;
      const OpEntry *entry = getOnnxOps().find(node);
      if (entry && !entry->lower)
        entry = nullptr;
      if (!entry) {
        auto it = llvm::find_if(unsupported, [&](const auto &entry) {
          return entry.first == type;
        });
        if (it == unsupported.end())
          it = unsupported.insert(unsupported.end(), {type, {}});
        it->second.push_back(node.getDisplayName().str());
      }
      if (std::string why = checkValueTypes(node); !why.empty()) {
        badValues.push_back("'" + node.getDisplayName().str() + "' (" + type +
                            ": " + why + ")");
        return;
      }
      std::string why = checkTypes(node, entry, symbols);
      if (!why.empty())
        badTypes.push_back("'" + node.getDisplayName().str() + "' (" + type +
                           ": " + why + ")");
    });
  }
  if (unsupported.empty() && badValues.empty() && badTypes.empty())
    return success();
  InFlightDiagnostic error =
      mlir::emitError(module->getLoc(), "cannot lower to linalg:");
  if (!unsupported.empty()) {
    error << " no lowering for";
    bool first = true;
    for (auto &[type, nodes] : unsupported) {
      error << (first ? " " : "; ") << type << " (node"
            << (nodes.size() > 1 ? "s " : " ");
      llvm::interleave(
          nodes, [&](const std::string &n) { error << "'" << n << "'"; },
          [&] { error << ", "; });
      error << ")";
      first = false;
    }
    if (!badValues.empty() || !badTypes.empty())
      error << ";";
  }
  if (!badValues.empty()) {
    error << " values that do not lower at ";
    llvm::interleaveComma(badValues, error);
    if (!badTypes.empty())
      error << ";";
  }
  if (!badTypes.empty()) {
    error << " shapes that need binding (--dim NAME=VALUE on import) at node"
          << (badTypes.size() > 1 ? "s " : " ");
    llvm::interleaveComma(badTypes, error);
  }
  return failure();
}

/// Small constants become arith.constant; larger ones, and without
/// `inlineWeights` every floating-point initializer, become weight arguments
/// appended to the function, so their bytes stay in the model's files.
LogicalResult lowerConstants(func::FuncOp func, int64_t inlineLimit,
                             bool inlineWeights,
                             DenseMap<Value, Type> &declaredTypes) {
  SmallVector<ConstantOp> constants(func.getOps<ConstantOp>());
  // A training step's weights and optimizer state change between steps:
  // arguments, whatever their size (--placer-build-training).
  llvm::StringSet<> updated;
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (auto name = func.getResultAttrOfType<StringAttr>(i, kUpdatesAttrName))
      updated.insert(name.getValue());
  for (ConstantOp constant : constants) {
    auto type = cast<RankedTensorType>(getSignlessType(constant.getType()));
    int64_t bytes = type.getNumElements() *
                    graph::getElementByteSize(type.getElementType());
    auto elements = dyn_cast<ElementsAttr>(constant.getValue());
    OpBuilder builder(constant);
    bool parameter =
        !constant.getNode() && isa<FloatType>(type.getElementType());
    if (elements && bytes <= inlineLimit && (inlineWeights || !parameter) &&
        !updated.contains(constant.getName())) {
      auto dense = dyn_cast<DenseElementsAttr>(elements);
      if (dense && dense.getType() != type)
        elements = dense.bitcast(type.getElementType());
      Value value = arith::ConstantOp::create(builder, constant.getLoc(),
                                              cast<TypedAttr>(elements));
      if (type != constant.getType())
        declaredTypes[value] = constant.getType();
      constant.replaceAllUsesWith(value);
      constant.erase();
      continue;
    }
    NamedAttrList weight;
    weight.set("name", constant.getNameAttr());
    weight.set("value", constant.getValue());
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(
            index, type,
            builder.getDictionaryAttr(builder.getNamedAttr(
                kWeightAttrName, weight.getDictionary(builder.getContext()))),
            constant.getLoc())))
      return constant.emitError("cannot add a weight argument for '")
             << constant.getName() << "'";
    if (type != constant.getType())
      declaredTypes[func.getArgument(index)] = constant.getType();
    constant.replaceAllUsesWith(func.getArgument(index));
    constant.erase();
  }
  return success();
}

/// Calls to the profile hooks (declared once per module) around nodes.
class ProfileHooks {
public:
  explicit ProfileHooks(ModuleOp module) : module(module) {}

  /// Numbers `node`, records its name and calls `placer_profile_<hook>`.
  void enter(OpBuilder &builder, NodeOp node) {
    names.push_back(builder.getStringAttr(node.getDisplayName()));
    call(builder, node.getLoc(), "placer_profile_enter", names.size() - 1);
  }
  void exit(OpBuilder &builder, NodeOp node) {
    call(builder, node.getLoc(), "placer_profile_exit", names.size() - 1);
  }
  void recordNames() {
    module->setAttr(kProfileNodesAttrName,
                    ArrayAttr::get(module.getContext(), names));
  }

private:
  void call(OpBuilder &builder, Location loc, StringRef hook, int64_t node) {
    // Declared on first use; a module-wide symbol lookup per node would
    // make lowering quadratic in the model's size.
    if (!declared) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(module.getBody());
      auto type = builder.getFunctionType({builder.getI64Type()}, {});
      for (StringRef name : {"placer_profile_enter", "placer_profile_exit"})
        func::FuncOp::create(builder, loc, name, type).setPrivate();
      declared = true;
    }
    Value id = arith::ConstantOp::create(builder, loc,
                                         builder.getI64IntegerAttr(node));
    func::CallOp::create(builder, loc, hook, TypeRange{}, ValueRange{id});
  }

  ModuleOp module;
  SmallVector<Attribute> names;
  bool declared = false;
};

/// Lowers one node and replaces its outputs; fails after an error naming it.
/// What the lowering of one function's nodes shares: each lowered value's
/// declared type where it differs (unsigned integers), and each symbolic
/// dim's size at run time.
struct FunctionState {
  DenseMap<Value, Type> declaredTypes;
  llvm::StringMap<Value> symbolSizes;
};

LogicalResult lowerNode(NodeOp node, ProfileHooks *profile,
                        FunctionState &state);

/// Moves a subgraph's ops to `builder`'s insertion point and lowers them
/// there (constants inline, nodes by their lowerings, nested subgraphs
/// recursively), its block arguments replaced by `arguments`.
FailureOr<SmallVector<Value>> lowerSubgraph(OpBuilder &builder, Region &region,
                                            ValueRange arguments,
                                            FunctionState &state) {
  DenseMap<Value, Type> &declaredTypes = state.declaredTypes;
  Block &body = region.front();
  if (body.getNumArguments() != arguments.size())
    return region.getParentOp()->emitError("the subgraph takes ")
           << body.getNumArguments() << " inputs, given " << arguments.size();
  for (auto [arg, value] : llvm::zip(body.getArguments(), arguments)) {
    if (getSignlessType(arg.getType()) != value.getType() &&
        !isa<UnrankedTensorType>(arg.getType()))
      return region.getParentOp()->emitError("a subgraph input has type ")
             << arg.getType() << ", given " << value.getType();
    if (arg.getType() != value.getType())
      declaredTypes[value] = arg.getType();
    arg.replaceAllUsesWith(value);
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  Block *target = builder.getInsertionBlock();
  Block::iterator at = builder.getInsertionPoint();
  for (Operation *op : ops)
    op->moveBefore(target, at);
  bool lowered = true;
  for (Operation *op : ops) {
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto type = cast<RankedTensorType>(getSignlessType(constant.getType()));
      auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!elements) {
        lowered = false;
        constant.emitError("a subgraph constant must hold its values");
        continue;
      }
      if (elements.getType() != type)
        elements = elements.bitcast(type.getElementType());
      OpBuilder b(constant);
      Value value = arith::ConstantOp::create(b, constant.getLoc(), elements);
      if (type != constant.getType())
        declaredTypes[value] = constant.getType();
      constant.replaceAllUsesWith(value);
      constant.erase();
    } else if (auto node = dyn_cast<NodeOp>(op)) {
      lowered &= succeeded(lowerNode(node, nullptr, state));
    }
  }
  if (!lowered)
    return failure();
  return SmallVector<Value>(yield.getOperands());
}

LogicalResult lowerNode(NodeOp node, ProfileHooks *profile,
                        FunctionState &state) {
  DenseMap<Value, Type> &declaredTypes = state.declaredTypes;
  OpBuilder builder(node);
  if (profile)
    profile->enter(builder, node);
  NodeLowering lowering{
      builder, node,
      SmallVector<Value>(node.getInputs().begin(), node.getInputs().end())};
  for (Value input : node.getInputs())
    lowering.inputElementTypes.push_back(getElementTypeOrSelf(
        declaredTypes.lookup(input) ? declaredTypes.lookup(input)
                                    : input.getType()));
  for (Value output : node.getOutputs())
    lowering.outputElementTypes.push_back(
        getElementTypeOrSelf(output.getType()));
  lowering.symbolSizes = &state.symbolSizes;
  lowering.lowerRegion = [&](OpBuilder &at, Region &region,
                             ValueRange arguments) {
    return lowerSubgraph(at, region, arguments, state);
  };
  // Every lowering computes output #0 (the importer checks ONNX arity;
  // MLIR written by hand is not).
  if (node.getOutputs().empty())
    return lowering.fail("the node has no outputs");
  // checkLowerable made sure every node has a lowering.
  LoweringFn fn = getOnnxOps().find(node)->lower;
  FailureOr<SmallVector<Value>> results = fn(lowering);
  if (failed(results))
    return failure();
  for (auto [i, output] : llvm::enumerate(node.getOutputs())) {
    if (output.use_empty())
      continue;
    if (i >= results->size() || !(*results)[i])
      return lowering.fail("output #" + Twine(i) + " is not produced");
    Type declared = getSignlessType(output.getType());
    Value &result = (*results)[i];
    // A lowering may know a dynamic dim statically (or the reverse): the
    // declared type is what the node's users take.
    if (result.getType() != declared &&
        tensor::CastOp::areCastCompatible(result.getType(), declared))
      result = tensor::CastOp::create(builder, node.getLoc(), declared, result);
    if (result.getType() != declared)
      return lowering.fail("the lowering of output #" + Twine(i) +
                           " has the wrong type");
  }
  for (auto [i, output] : llvm::enumerate(node.getOutputs())) {
    if (output.use_empty())
      continue;
    if (output.getType() != (*results)[i].getType())
      declaredTypes[(*results)[i]] = output.getType();
    output.replaceAllUsesWith((*results)[i]);
  }
  if (profile)
    profile->exit(builder, node);
  node.erase();
  return success();
}

/// Lowers every node in program order. A node that cannot be lowered (an
/// attribute combination no lowering handles) does not stop the others: the
/// pass reports every such node, then fails.
LogicalResult lowerNodes(func::FuncOp func, ProfileHooks *profile,
                         FunctionState &state) {
  SmallVector<NodeOp> nodes(func.getOps<NodeOp>());
  bool allLowered = true;
  for (NodeOp node : nodes)
    allLowered &= succeeded(lowerNode(node, profile, state));
  if (!allLowered)
    return failure();
  for (NoneOp none : llvm::make_early_inc_range(func.getOps<NoneOp>()))
    if (none->use_empty())
      none.erase();
  return success();
}

/// Unsigned integer arguments and results become signless (upstream arith
/// and linalg take signless integers only); each keeps its declared type in
/// `graph.element_type` for the runtime, and in `declaredTypes` for the
/// lowerings (unsigned division, comparison, casts).
void makeSignless(func::FuncOp func, DenseMap<Value, Type> &declaredTypes) {
  SmallVector<Type> inputs, results;
  Builder builder(func.getContext());
  for (BlockArgument arg : func.getArguments()) {
    Type signless = getSignlessType(arg.getType());
    if (signless != arg.getType()) {
      func.setArgAttr(arg.getArgNumber(), graph::attrs::kElementType,
                      TypeAttr::get(getElementTypeOrSelf(arg.getType())));
      declaredTypes[arg] = arg.getType();
      arg.setType(signless);
    }
    inputs.push_back(signless);
  }
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    Type signless = getSignlessType(type);
    if (signless != type)
      func.setResultAttr(i, graph::attrs::kElementType,
                         TypeAttr::get(getElementTypeOrSelf(type)));
    results.push_back(signless);
  }
  func.setType(builder.getFunctionType(inputs, results));
}

/// Results with dynamic dims say which symbols they are (the runtime sizes
/// outputs by them): a function written without graph.dim_params on a
/// result takes the names of the node output it returns.
void nameResultDims(func::FuncOp func) {
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (!ret)
    return;
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    auto node = value.getDefiningOp<NodeOp>();
    if (!node || !node.getOutputDims() ||
        func.getResultAttr(i, graph::attrs::kDimParams))
      continue;
    func.setResultAttr(
        i, graph::attrs::kDimParams,
        (*node.getOutputDims())[cast<OpResult>(value).getResultNumber()]);
  }
}

/// The size of every symbolic dim, read at the function's entry off the
/// first argument that has it (the runtime checks that inputs agree).
void readSymbolSizes(func::FuncOp func, llvm::StringMap<Value> &sizes) {
  OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
  for (BlockArgument arg : func.getArguments()) {
    auto dims = func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(),
                                                 graph::attrs::kDimParams);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!dims || !type || dims.size() != size_t(type.getRank()))
      continue;
    for (auto [d, name] : llvm::enumerate(dims.getAsValueRange<StringAttr>()))
      if (!name.empty() && type.isDynamicDim(d) && !sizes.count(name))
        sizes[name] = tensor::DimOp::create(builder, arg.getLoc(), arg, d);
  }
}

struct LowerGraphToLinalgPass
    : public placer::impl::LowerGraphToLinalgBase<LowerGraphToLinalgPass> {
  using LowerGraphToLinalgBase::LowerGraphToLinalgBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkLowerable(module)))
      return signalPassFailure();
    ProfileHooks hooks(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isDeclaration())
        continue;
      FunctionState state;
      nameResultDims(func);
      makeSignless(func, state.declaredTypes);
      readSymbolSizes(func, state.symbolSizes);
      if (failed(lowerConstants(func, inlineLimit, inlineWeights,
                                state.declaredTypes)) ||
          failed(lowerNodes(func, profile ? &hooks : nullptr, state)))
        return signalPassFailure();
      // Runners call public functions through their C interface.
      if (func.isPublic())
        func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      UnitAttr::get(&getContext()));
    }
    if (profile)
      hooks.recordNames();
  }
};

} // namespace
