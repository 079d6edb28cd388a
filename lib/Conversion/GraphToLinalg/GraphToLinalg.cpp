//===- GraphToLinalg.cpp - graph.node to linalg on tensors ----------------===//
//
// The pass checks the whole module first (op types with a lowering, static
// shapes), so a model with several problems gets one error listing them all
// and no half-lowered output. Then large constants become weight arguments,
// and the conversion driver replaces every node, in program order, by what
// its registry entry's lowering builds (an OpConversionPattern dispatching
// through the registry), small constants by arith.constant, and ONNX's
// unsigned integer types by signless ones (a TypeConverter; the lowerings
// read the declared types off the original node).
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
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"
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

/// Whether `constant` becomes a weight argument of its function rather than
/// an arith.constant: what does not hold its values inline, what is larger
/// than `inlineLimit` bytes, without `inlineWeights` every floating-point
/// initializer (so their bytes stay in the model's files), and what a
/// training step updates (--placer-build-training: weights and optimizer
/// state change between steps).
bool becomesArgument(ConstantOp constant, int64_t inlineLimit,
                     bool inlineWeights, const llvm::StringSet<> &updated) {
  auto type = cast<RankedTensorType>(getSignlessType(constant.getType()));
  int64_t bytes = type.getNumElements() *
                  graph::getElementByteSize(type.getElementType());
  bool parameter = !constant.getNode() && isa<FloatType>(type.getElementType());
  return !isa<ElementsAttr>(constant.getValue()) || bytes > inlineLimit ||
         (parameter && !inlineWeights) || updated.contains(constant.getName());
}

/// Turns the constants that become arguments (becomesArgument) into weight
/// arguments appended to the function, of the constant's declared type: the
/// signature conversion makes them signless with the other arguments. The
/// others stay for LowerConstant.
LogicalResult moveWeightsToArguments(func::FuncOp func, int64_t inlineLimit,
                                     bool inlineWeights) {
  llvm::StringSet<> updated;
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (auto name = func.getResultAttrOfType<StringAttr>(i, kUpdatesAttrName))
      updated.insert(name.getValue());
  SmallVector<ConstantOp> constants(func.getOps<ConstantOp>());
  for (ConstantOp constant : constants) {
    if (!becomesArgument(constant, inlineLimit, inlineWeights, updated))
      continue;
    Builder builder(constant.getContext());
    NamedAttrList weight;
    weight.set("name", constant.getNameAttr());
    weight.set("value", constant.getValue());
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(
            index, constant.getType(),
            builder.getDictionaryAttr(builder.getNamedAttr(
                kWeightAttrName, weight.getDictionary(builder.getContext()))),
            constant.getLoc())))
      return constant.emitError("cannot add a weight argument for '")
             << constant.getName() << "'";
    constant.replaceAllUsesWith(func.getArgument(index));
    constant.erase();
  }
  return success();
}

/// The arith.constant holding `constant`'s values (unsigned integers as
/// signless ones of the same bits).
Value buildInlineConstant(OpBuilder &builder, ConstantOp constant) {
  auto type = cast<RankedTensorType>(getSignlessType(constant.getType()));
  auto elements = cast<ElementsAttr>(constant.getValue());
  if (auto dense = dyn_cast<DenseElementsAttr>(elements);
      dense && dense.getType() != type)
    elements = dense.bitcast(type.getElementType());
  return arith::ConstantOp::create(builder, constant.getLoc(),
                                   cast<TypedAttr>(elements));
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

/// ONNX's unsigned integers lower to signless ones of the same width
/// (upstream arith and linalg take signless integers only); every other
/// type as it is. The conversion driver keeps each original value, with its
/// declared type, until the end: lowerings read the declared types off the
/// node (unsigned division, comparison, casts) and build on the converted
/// operands.
class SignlessTypeConverter : public TypeConverter {
public:
  SignlessTypeConverter() {
    addConversion([](Type type) { return getSignlessType(type); });
  }
};

/// What the lowering of a module's nodes shares.
struct LoweringState {
  /// Per function, each symbolic dim's size at run time (readSymbolSizes).
  DenseMap<Operation *, llvm::StringMap<Value>> symbolSizes;
  /// Subgraph values (block arguments and the results of the nodes inside)
  /// -> what they lowered to: the conversion replaces uses only at its end,
  /// and a subgraph lowers inside its node's pattern.
  IRMapping subgraphValues;
  /// The profile hooks when --profile is set.
  ProfileHooks *profile = nullptr;
};

/// `node`'s replacement for the conversion: one value per used output (an
/// unused output is dropped).
void replaceNode(ConversionPatternRewriter &rewriter, NodeOp node,
                 ArrayRef<Value> results) {
  SmallVector<SmallVector<Value>> replacements;
  for (unsigned i = 0; i < node.getNumResults(); ++i) {
    replacements.emplace_back();
    if (i < results.size() && results[i])
      replacements.back().push_back(results[i]);
  }
  rewriter.replaceOpWithMultiple(node, std::move(replacements));
}

FailureOr<SmallVector<Value>> lowerNode(ConversionPatternRewriter &rewriter,
                                        NodeOp node, ValueRange operands,
                                        LoweringState &state,
                                        ProfileHooks *profile);

/// Moves a subgraph's ops to `at`'s insertion point and lowers them there
/// (constants inline, nodes by their lowerings, nested subgraphs
/// recursively), its block arguments bound to `arguments`; returns what it
/// yields.
FailureOr<SmallVector<Value>>
lowerSubgraph(ConversionPatternRewriter &rewriter, OpBuilder &at,
              Region &region, ValueRange arguments, LoweringState &state) {
  Block &body = region.front();
  if (body.getNumArguments() != arguments.size())
    return region.getParentOp()->emitError("the subgraph takes ")
           << body.getNumArguments() << " inputs, given " << arguments.size();
  for (auto [arg, value] : llvm::zip(body.getArguments(), arguments)) {
    if (getSignlessType(arg.getType()) != value.getType() &&
        !isa<UnrankedTensorType>(arg.getType()))
      return region.getParentOp()->emitError("a subgraph input has type ")
             << arg.getType() << ", given " << value.getType();
    state.subgraphValues.map(arg, value);
    rewriter.replaceAllUsesWith(arg, value);
  }
  // A value of the subgraph, one from the scopes around it, or one of the
  // function's, in what it lowered to.
  auto lowered = [&](Value value) {
    if (Value mapped = state.subgraphValues.lookupOrNull(value))
      return mapped;
    return rewriter.getRemappedValue(value);
  };
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  OpBuilder::InsertionGuard guard(rewriter);
  for (Operation *op : ops)
    rewriter.moveOpBefore(op, at.getInsertionBlock(), at.getInsertionPoint());
  bool allLowered = true;
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      if (!isa<DenseElementsAttr>(constant.getValue())) {
        allLowered = false;
        constant.emitError("a subgraph constant must hold its values");
        continue;
      }
      Value value = buildInlineConstant(rewriter, constant);
      state.subgraphValues.map(constant.getResult(), value);
      rewriter.replaceOp(constant, value);
    } else if (auto node = dyn_cast<NodeOp>(op)) {
      SmallVector<Value> operands;
      for (Value input : node.getInputs())
        operands.push_back(lowered(input));
      FailureOr<SmallVector<Value>> results =
          lowerNode(rewriter, node, operands, state, /*profile=*/nullptr);
      if (failed(results)) {
        allLowered = false;
        continue;
      }
      for (auto [output, result] : llvm::zip(node.getOutputs(), *results))
        if (result)
          state.subgraphValues.map(output, result);
      replaceNode(rewriter, node, *results);
    }
  }
  if (!allLowered)
    return failure();
  SmallVector<Value> yielded;
  for (Value value : yield.getOperands())
    yielded.push_back(lowered(value));
  return yielded;
}

/// Lowers `node` on `operands` (its inputs, lowered) before it; returns one
/// value per output (null for an unused one), or fails after an error naming
/// the node.
FailureOr<SmallVector<Value>> lowerNode(ConversionPatternRewriter &rewriter,
                                        NodeOp node, ValueRange operands,
                                        LoweringState &state,
                                        ProfileHooks *profile) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(node);
  if (profile)
    profile->enter(rewriter, node);
  NodeLowering lowering{rewriter, node, SmallVector<Value>(operands)};
  // The node's own operands and results keep their declared types until
  // the conversion ends.
  for (Value input : node.getInputs())
    lowering.inputElementTypes.push_back(
        getElementTypeOrSelf(input.getType()));
  for (Value output : node.getOutputs())
    lowering.outputElementTypes.push_back(
        getElementTypeOrSelf(output.getType()));
  lowering.symbolSizes =
      &state.symbolSizes[node->getParentOfType<func::FuncOp>()];
  lowering.lowerRegion = [&](OpBuilder &at, Region &region,
                             ValueRange arguments) {
    return lowerSubgraph(rewriter, at, region, arguments, state);
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
  results->resize(node.getNumResults());
  for (auto [i, output] : llvm::enumerate(node.getOutputs())) {
    Value &result = (*results)[i];
    if (output.use_empty()) {
      result = nullptr;
      continue;
    }
    if (!result)
      return lowering.fail("output #" + Twine(i) + " is not produced");
    Type declared = getSignlessType(output.getType());
    // A lowering may know a dynamic dim statically (or the reverse): the
    // declared type is what the node's users take.
    if (result.getType() != declared &&
        tensor::CastOp::areCastCompatible(result.getType(), declared))
      result =
          tensor::CastOp::create(rewriter, node.getLoc(), declared, result);
    if (result.getType() != declared)
      return lowering.fail("the lowering of output #" + Twine(i) +
                           " has the wrong type");
  }
  if (profile)
    profile->exit(rewriter, node);
  return results;
}

/// A node of a function's body (those of subgraphs lower with their node).
class LowerNode : public OpConversionPattern<NodeOp> {
public:
  LowerNode(const TypeConverter &converter, MLIRContext *context,
            LoweringState &state)
      : OpConversionPattern(converter, context), state(state) {}

  LogicalResult
  matchAndRewrite(NodeOp node, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<SmallVector<Value>> results =
        lowerNode(rewriter, node, adaptor.getInputs(), state, state.profile);
    if (failed(results))
      return failure();
    replaceNode(rewriter, node, *results);
    return success();
  }

private:
  LoweringState &state;
};

/// A constant of a function's body that stays inline (moveWeightsToArguments
/// took the others).
struct LowerConstant : public OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConstantOp constant, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(constant, buildInlineConstant(rewriter, constant));
    return success();
  }
};

/// The run-time size of a symbolic dim read off an unsigned argument
/// (readSymbolSizes): the same dim of the signless one.
struct ConvertDim : public OpConversionPattern<tensor::DimOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tensor::DimOp dim, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::DimOp>(dim, adaptor.getSource(),
                                               adaptor.getIndex());
    return success();
  }
};

/// Unsigned integer arguments and results keep their declared type in
/// `graph.element_type`, for the runtime; the conversion makes the types
/// signless.
void recordUnsignedTypes(func::FuncOp func) {
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (getSignlessType(type) != type)
      func.setArgAttr(i, graph::attrs::kElementType,
                      TypeAttr::get(getElementTypeOrSelf(type)));
  for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
    if (getSignlessType(type) != type)
      func.setResultAttr(i, graph::attrs::kElementType,
                         TypeAttr::get(getElementTypeOrSelf(type)));
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

/// Replaces every node and inline constant, in program order, under the
/// conversion driver: function signatures and returns become signless, a
/// node by what its registry entry's lowering builds. A node that cannot be
/// lowered (an attribute combination no lowering handles) does not stop the
/// others: its pattern fails after naming it, the partial conversion leaves
/// it, and the pass reports every such node, then fails.
LogicalResult lowerNodes(ModuleOp module, LoweringState &state) {
  MLIRContext *context = module.getContext();
  SignlessTypeConverter converter;
  ConversionTarget target(*context);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
    return func.isDeclaration() ||
           converter.isSignatureLegal(func.getFunctionType());
  });
  target.addDynamicallyLegalOp<func::ReturnOp, tensor::DimOp>(
      [&](Operation *op) { return converter.isLegal(op); });
  // Unknown rather than illegal: a node whose lowering fails stays, and the
  // driver goes on to the others. The ops of a subgraph lower with their
  // node.
  target.addDynamicallyLegalOp<NodeOp, ConstantOp>(
      [](Operation *op) -> std::optional<bool> {
        if (isa<NodeOp>(op->getParentOp()))
          return true;
        return std::nullopt;
      });
  RewritePatternSet patterns(context);
  patterns.add<LowerNode>(converter, context, state);
  patterns.add<LowerConstant, ConvertDim>(converter, context);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  ConversionConfig config;
  // The lowerings build exactly the IR they mean to: nothing is folded.
  config.foldingMode = DialectConversionFoldingMode::Never;
  if (failed(applyPartialConversion(module, target, std::move(patterns),
                                    config)))
    return failure();
  bool allLowered = true;
  module.walk([&](NodeOp) {
    allLowered = false;
    return WalkResult::interrupt();
  });
  if (!allLowered)
    return failure();
  module.walk([](NoneOp none) {
    if (none->use_empty())
      none.erase();
  });
  return success();
}

struct LowerGraphToLinalgPass
    : public placer::impl::LowerGraphToLinalgBase<LowerGraphToLinalgPass> {
  using LowerGraphToLinalgBase::LowerGraphToLinalgBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkLowerable(module)))
      return signalPassFailure();
    ProfileHooks hooks(module);
    LoweringState state;
    if (profile)
      state.profile = &hooks;
    SmallVector<func::FuncOp> funcs;
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      if (!func.isDeclaration())
        funcs.push_back(func);
    for (func::FuncOp func : funcs) {
      nameResultDims(func);
      recordUnsignedTypes(func);
      readSymbolSizes(func, state.symbolSizes[func]);
      if (failed(moveWeightsToArguments(func, inlineLimit, inlineWeights)))
        return signalPassFailure();
    }
    if (failed(lowerNodes(module, state)))
      return signalPassFailure();
    for (func::FuncOp func : funcs)
      // Runners call public functions through their C interface.
      if (func.isPublic())
        func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      UnitAttr::get(&getContext()));
    if (profile)
      hooks.recordNames();
  }
};

} // namespace
