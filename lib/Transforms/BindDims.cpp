//===- BindDims.cpp - Sizes for the symbolic dims of a module -------------===//
//
// A module imported without --dim runs on any size, but costs, memory and a
// placement need sizes. Binding is what import's --dim does, done later:
// the symbols name the dims (graph.dim_params on function inputs and
// outputs, output_dims on nodes), so every type they appear in gets the
// size, and the names bound are dropped.
//
//===----------------------------------------------------------------------===//

#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <set>

namespace placer {
#define GEN_PASS_DEF_BINDDIMS
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;
using namespace placer::graph;

namespace {

/// The names of a list of dims (one ArrayAttr of strings, "" unnamed).
void collectNames(ArrayAttr names, std::set<std::string> &into) {
  if (!names)
    return;
  for (Attribute name : names)
    if (auto text = dyn_cast<StringAttr>(name); text && !text.empty())
      into.insert(text.str());
}

/// `type` with each dim `names` binds set to its size; `names` then has
/// the bound entries cleared (null when none is left).
Type bindType(Type type, ArrayAttr &names,
              const llvm::StringMap<int64_t> &sizes) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !names || names.size() != size_t(ranked.getRank()))
    return type;
  SmallVector<int64_t> shape(ranked.getShape());
  SmallVector<Attribute> left;
  bool anyLeft = false;
  Builder builder(type.getContext());
  for (auto [d, name] : llvm::enumerate(names.getAsValueRange<StringAttr>())) {
    auto it = sizes.find(name);
    bool bound =
        !name.empty() && it != sizes.end() && ShapedType::isDynamic(shape[d]);
    if (bound)
      shape[d] = it->second;
    left.push_back(builder.getStringAttr(bound ? StringRef() : name));
    anyLeft |= !bound && !name.empty();
  }
  names = anyLeft ? builder.getArrayAttr(left) : ArrayAttr();
  return ranked.clone(shape);
}

/// NAME=VALUE entries as sizes, or an error naming the bad entry.
FailureOr<llvm::StringMap<int64_t>>
parseBindings(ModuleOp module, ArrayRef<std::string> bindings,
              const std::vector<std::string> &symbols) {
  llvm::StringMap<int64_t> sizes;
  for (const std::string &entry : bindings) {
    auto [name, value] = StringRef(entry).split('=');
    int64_t size = 0;
    if (name.empty() || value.getAsInteger(10, size) || size < 1)
      return mlir::emitError(module->getLoc(), "dims: '")
             << entry << "' is not NAME=VALUE with a positive size";
    if (!llvm::is_contained(symbols, name.str())) {
      InFlightDiagnostic diag =
          mlir::emitError(module->getLoc(), "dims: the module has no "
                                            "symbolic dim '")
          << name << "'";
      if (symbols.empty())
        diag << " (it has none)";
      else
        diag << " (it has: " << llvm::join(symbols, ", ") << ")";
      return diag;
    }
    if (!sizes.try_emplace(name, size).second)
      return mlir::emitError(module->getLoc(), "dims: '")
             << name << "' is given twice";
  }
  return sizes;
}

struct BindDimsPass : public placer::impl::BindDimsBase<BindDimsPass> {
  using BindDimsBase::BindDimsBase;

  void runOnOperation() override {
    if (failed(bindDims(getOperation(),
                        std::vector<std::string>(dims.begin(), dims.end()))))
      signalPassFailure();
  }
};

} // namespace

std::vector<std::string> placer::getSymbolicDims(ModuleOp module) {
  std::set<std::string> names;
  for (auto func : module.getOps<func::FuncOp>()) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      collectNames(func.getArgAttrOfType<ArrayAttr>(i, attrs::kDimParams),
                   names);
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      collectNames(func.getResultAttrOfType<ArrayAttr>(i, attrs::kDimParams),
                   names);
    func.walk([&](NodeOp node) {
      if (std::optional<ArrayAttr> outputs = node.getOutputDims())
        for (Attribute dims : *outputs)
          collectNames(cast<ArrayAttr>(dims), names);
    });
  }
  return std::vector<std::string>(names.begin(), names.end());
}

LogicalResult placer::bindDims(ModuleOp module,
                               ArrayRef<std::string> bindings) {
  if (bindings.empty())
    return success();
  FailureOr<llvm::StringMap<int64_t>> sizes =
      parseBindings(module, bindings, getSymbolicDims(module));
  if (failed(sizes))
    return failure();
  Builder builder(module.getContext());
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isDeclaration())
      continue;
    for (BlockArgument arg : func.getArguments()) {
      unsigned i = arg.getArgNumber();
      auto names = func.getArgAttrOfType<ArrayAttr>(i, attrs::kDimParams);
      arg.setType(bindType(arg.getType(), names, *sizes));
      if (names)
        func.setArgAttr(i, attrs::kDimParams, names);
      else
        func.removeArgAttr(i, attrs::kDimParams);
    }
    func.walk([&](NodeOp node) {
      std::optional<ArrayAttr> outputs = node.getOutputDims();
      if (!outputs)
        return;
      SmallVector<Attribute> left;
      bool anyLeft = false;
      for (auto [output, dims] : llvm::zip(node.getOutputs(), *outputs)) {
        auto names = cast<ArrayAttr>(dims);
        int64_t rank = names.size();
        output.setType(bindType(output.getType(), names, *sizes));
        anyLeft |= bool(names);
        left.push_back(names ? names
                             : builder.getArrayAttr(SmallVector<Attribute>(
                                   rank, builder.getStringAttr(""))));
      }
      if (anyLeft)
        node.setOutputDimsAttr(builder.getArrayAttr(left));
      else
        node.removeOutputDimsAttr();
    });
    // The results are what the body returns now.
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (unsigned i = 0; i < func.getNumResults(); ++i) {
      auto names = func.getResultAttrOfType<ArrayAttr>(i, attrs::kDimParams);
      bindType(func.getResultTypes()[i], names, *sizes);
      if (names)
        func.setResultAttr(i, attrs::kDimParams, names);
      else
        func.removeResultAttr(i, builder.getStringAttr(attrs::kDimParams));
    }
    func.setType(builder.getFunctionType(
        func.getBody().front().getArgumentTypes(), ret.getOperandTypes()));
  }
  return success();
}
