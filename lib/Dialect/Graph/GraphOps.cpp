//===- GraphOps.cpp - Verifiers and helpers of the graph ops --------------===//
#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace placer::graph;

#define GET_OP_CLASSES
#include "placer/Dialect/Graph/GraphOps.cpp.inc"

//===----------------------------------------------------------------------===//
// NodeOp
//===----------------------------------------------------------------------===//

/// An SSA name hint for an ONNX tensor name: characters MLIR identifiers
/// cannot hold become '_' (the printer would hex-escape them: "a/b" would
/// read "a2Fb").
static std::string ssaNameHint(StringRef name) {
  std::string hint = name.str();
  for (char &c : hint)
    if (!llvm::isAlnum(c) && c != '_' && c != '.' && c != '$' && c != '-')
      c = '_';
  return hint;
}

StringRef NodeOp::getDisplayName() {
  if (!getName().empty())
    return getName();
  for (Attribute name : getOutputNames())
    if (!cast<StringAttr>(name).getValue().empty())
      return cast<StringAttr>(name).getValue();
  return getOpType();
}

void NodeOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  // ONNX tensor names make the printed IR readable; the printer sanitizes
  // and uniquifies them.
  for (auto [result, name] : llvm::zip(getOutputs(), getOutputNames())) {
    StringRef text = cast<StringAttr>(name).getValue();
    if (!text.empty())
      setNameFn(result, ssaNameHint(text));
  }
}

/// Every static tensor the dialect holds has at most kMaxTensorBytes.
static LogicalResult verifyTensorSizes(Operation *op) {
  auto check = [&](Value value, StringRef what,
                   unsigned index) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || getTensorBytes(type.getShape(), type.getElementType()))
      return success();
    return op->emitOpError() << what << " #" << index << " of type " << type
                             << " holds more than " << kMaxTensorBytes
                             << " bytes";
  };
  for (OpOperand &operand : op->getOpOperands())
    if (failed(check(operand.get(), "operand", operand.getOperandNumber())))
      return failure();
  for (OpResult result : op->getResults())
    if (failed(check(result, "result", result.getResultNumber())))
      return failure();
  return success();
}

/// A value's dim names (output_dims, graph.dim_params): "" or the symbol
/// of a dynamic dim, one per dim of a ranked tensor; none for other types.
static LogicalResult verifyDimNames(Operation *op, Type type, ArrayAttr names,
                                    const Twine &what) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return names.empty() ? success()
                         : op->emitOpError() << what << " of type " << type
                                             << " cannot have dim names";
  if (names.size() != static_cast<size_t>(ranked.getRank()))
    return op->emitOpError() << what << " has rank " << ranked.getRank()
                             << " but " << names.size() << " dim names";
  for (auto [dim, name] : llvm::enumerate(names)) {
    auto text = dyn_cast<StringAttr>(name);
    if (!text)
      return op->emitOpError()
             << what << ": dim name #" << dim << " is not a string";
    if (!text.getValue().empty() && !ranked.isDynamicDim(dim))
      return op->emitOpError()
             << what << ": dim " << dim << " is fixed but named '"
             << text.getValue() << "'";
  }
  return success();
}

LogicalResult NodeOp::verify() {
  if (getOpType().empty())
    return emitOpError("has an empty op_type");
  if (failed(verifyTensorSizes(*this)))
    return failure();
  if (getOutputNames().size() != getOutputs().size())
    return emitOpError("has ")
           << getOutputs().size() << " results but "
           << getOutputNames().size() << " output_names";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(getOutputs(), getOutputNames()))) {
    auto [result, name] = pair;
    bool absent = cast<StringAttr>(name).getValue().empty();
    if (absent != isa<NoneType>(result.getType()))
      return emitOpError("output #")
             << index
             << (absent ? " has no name but is not of type none"
                        : " is named but has type none");
  }

  // ONNX's schema says which inputs may be left out: a lowering or cost
  // rule reads a required one as a tensor.
  if (getDomain().empty() || getDomain() == attrs::kDefaultDomainKey) {
    if (std::optional<OnnxSchema> arity =
            getOnnxSchema(getOpType(), getVersion())) {
      auto inputs = getInputs();
      for (unsigned i = 0; i < inputs.size(); ++i)
        if (arity->isRequired(i) && isa<NoneType>(inputs[i].getType()))
          return emitOpError("leaves out required input #")
                 << i << " of " << getOpType() << "-" << arity->sinceVersion
                 << " (graph.none)";
      if (static_cast<int64_t>(inputs.size()) < arity->minInputs)
        return emitOpError("has ")
               << inputs.size() << " inputs but " << getOpType() << "-"
               << arity->sinceVersion << " takes at least " << arity->minInputs;
    }
  }

  for (NamedAttribute attr : getAttrs()) {
    if (!isOnnxAttributeValue(attr.getValue()))
      return emitOpError("attribute '")
             << attr.getName().getValue()
             << "' is not of a kind an ONNX attribute maps to: "
             << attr.getValue();
  }

  size_t numSubgraphs = getSubgraphs() ? getSubgraphs()->size() : 0;
  if (numSubgraphs != getBodies().size())
    return emitOpError("has ") << getBodies().size() << " regions but "
                               << numSubgraphs << " names in 'subgraphs'";
  llvm::StringSet<> seen;
  if (auto subgraphs = getSubgraphs()) {
    for (Attribute name : *subgraphs) {
      StringRef text = cast<StringAttr>(name).getValue();
      if (!seen.insert(text).second)
        return emitOpError("names subgraph '") << text << "' twice";
      if (getAttrs().contains(text))
        return emitOpError("has '") << text
                                    << "' both as an attribute and a subgraph";
    }
  }
  for (Region &body : getBodies())
    if (body.empty())
      return emitOpError("has an empty subgraph region");
  if (std::optional<ArrayAttr> dims = getOutputDims()) {
    if (dims->size() != getOutputs().size())
      return emitOpError("has ") << getOutputs().size() << " results but "
                                 << dims->size() << " entries in 'output_dims'";
    for (auto [index, pair] : llvm::enumerate(llvm::zip(getOutputs(), *dims)))
      if (failed(verifyDimNames(*this, std::get<0>(pair).getType(),
                                cast<ArrayAttr>(std::get<1>(pair)),
                                "output #" + Twine(index))))
        return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

void ConstantOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), ssaNameHint(getName()));
}

LogicalResult ConstantOp::verify() {
  if (getName().empty())
    return emitOpError("has an empty tensor name");
  if (failed(verifyTensorSizes(*this)))
    return failure();
  auto type = cast<RankedTensorType>(getResult().getType());
  if (auto elements = dyn_cast<ElementsAttr>(getValue())) {
    if (elements.getShapedType() != type)
      return emitOpError("value of type ")
             << elements.getShapedType() << " does not match result type "
             << type;
    return success();
  }
  if (auto external = dyn_cast<ExternalDataAttr>(getValue())) {
    int64_t elementBytes = getElementByteSize(type.getElementType());
    if (elementBytes == 0)
      return emitOpError("holds ") << type.getElementType()
                                   << " elements, which cannot be external";
    if (external.getLocation().empty())
      return emitOpError("external data has an empty location");
    if (external.getOffset() < 0)
      return emitOpError("external data has negative offset ")
             << external.getOffset();
    int64_t expected = *getTensorBytes(type.getShape(), type.getElementType());
    if (external.getLength() != expected)
      return emitOpError("external data has length ")
             << external.getLength() << " but " << type << " needs "
             << expected << " bytes";
    return success();
  }
  return emitOpError("value must be an ElementsAttr or #graph.external, got ")
         << getValue();
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

LogicalResult YieldOp::verify() {
  Block *block = getOperation()->getBlock();
  if (getInputNames().size() != block->getNumArguments())
    return emitOpError("names ")
           << getInputNames().size() << " subgraph inputs but the region has "
           << block->getNumArguments() << " arguments";
  if (getOutputNames().size() != getValues().size())
    return emitOpError("names ")
           << getOutputNames().size() << " subgraph outputs but yields "
           << getValues().size() << " values";
  return success();
}
