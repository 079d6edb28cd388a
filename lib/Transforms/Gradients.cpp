//===- Gradients.cpp - Vector-Jacobian products of graph nodes ------------===//
//
// What the training passes share beside the gradient rules, which the op
// registry holds (lib/Conversion/GraphToLinalg/Gradients.cpp).
//
//===----------------------------------------------------------------------===//

#include "placer/Transforms/Gradients.h"
#include "placer/Analysis/CostModel.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace mlir;
using namespace placer;
using graph::NodeOp;

void placer::appendToNodeNames(graph::NodeOp node, StringRef suffix) {
  Builder b(node.getContext());
  node.setNameAttr(b.getStringAttr(node.getDisplayName() + suffix));
  SmallVector<Attribute> outputs;
  for (Attribute output : node.getOutputNames()) {
    StringRef name = cast<StringAttr>(output).getValue();
    outputs.push_back(
        b.getStringAttr(name.empty() ? std::string() : (name + suffix).str()));
  }
  node.setOutputNamesAttr(b.getArrayAttr(outputs));
}

llvm::StringSet<> placer::getUpdatedState(func::FuncOp func) {
  llvm::StringSet<> updated;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (auto name = func.getResultAttrOfType<StringAttr>(i, kUpdatesAttrName))
      updated.insert(name.getValue());
  return updated;
}

int64_t placer::getTrainedWeightBytes(Operation *op,
                                      const llvm::StringSet<> &updated) {
  if (op->hasAttr(kBackwardNodeAttrName))
    return 0;
  int64_t bytes = 0;
  for (Value operand : op->getOperands())
    if (auto constant = operand.getDefiningOp<graph::ConstantOp>();
        constant && updated.contains(constant.getName()))
      bytes += getTypeBytes(operand.getType()).value_or(0);
  return bytes;
}

FailureOr<int64_t> placer::getTrainingOpset(ModuleOp module, StringRef pass) {
  auto imports =
      module->getAttrOfType<DictionaryAttr>(graph::attrs::kOpsetImport);
  auto version =
      imports ? imports.getAs<IntegerAttr>(graph::attrs::kDefaultDomainKey)
              : IntegerAttr();
  if (!version || version.getInt() < 13)
    return mlir::emitError(module->getLoc())
           << pass << ": needs ONNX opset 13 or later (the module has "
           << (version ? std::to_string(version.getInt()) : "none") << ")";
  return version.getInt();
}
