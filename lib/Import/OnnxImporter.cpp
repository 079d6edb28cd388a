//===- OnnxImporter.cpp - ONNX model to the graph dialect -----------------===//
//
// This file is compiled with exceptions: ONNX's schema registry and shape
// inference throw. Every ONNX or protobuf failure is caught here and becomes
// an MLIR diagnostic; nothing escapes into MLIR code.
//
// The import runs in stages, each of which may stop with errors:
//   parse -> bind dims / input shapes -> ONNX shape inference ->
//   per graph: check names, sort nodes topologically -> build ops.
//
//===----------------------------------------------------------------------===//

#include "placer/Import/OnnxImporter.h"

#include "InferenceGuards.h"
#include "ShapeFolding.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Support/Graph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/stubs/logging.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cstring>
#include <fcntl.h>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <unistd.h>

using namespace mlir;
using namespace placer;
using namespace placer::graph;

namespace {

/// Silences protobuf's own logging while it parses untrusted bytes: its
/// messages would duplicate, without context, the diagnostic we emit.
class ProtobufLogSilencer {
public:
  ProtobufLogSilencer() : previous(google::protobuf::SetLogHandler(&ignore)) {}
  ~ProtobufLogSilencer() { google::protobuf::SetLogHandler(previous); }

private:
  static void ignore(google::protobuf::LogLevel, const char *, int,
                     const std::string &) {}
  google::protobuf::LogHandler *previous;
};

std::string describeNode(const onnx::NodeProto &node) {
  std::string text = "node '";
  text += node.name().empty() ? (node.output_size() ? node.output(0) : "")
                              : node.name();
  text += "' (";
  if (!node.domain().empty())
    text += node.domain() + ".";
  text += node.op_type() + ")";
  return text;
}

template <typename T> void appendBytes(std::string &out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

/// Visits every TypeProto of a graph and its subgraphs that describes a
/// value (inputs, outputs, value_info).
template <typename Fn> void forEachValueType(onnx::GraphProto &graph, Fn fn) {
  for (auto *list : {graph.mutable_input(), graph.mutable_output(),
                     graph.mutable_value_info()})
    for (onnx::ValueInfoProto &info : *list)
      fn(*info.mutable_type());
  for (onnx::NodeProto &node : *graph.mutable_node())
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (attr.has_g())
        forEachValueType(*attr.mutable_g(), fn);
      for (onnx::GraphProto &g : *attr.mutable_graphs())
        forEachValueType(g, fn);
    }
}

/// Every shape in `type`, including those nested in sequences and optionals.
template <typename Fn> void forEachShape(onnx::TypeProto &type, Fn fn) {
  switch (type.value_case()) {
  case onnx::TypeProto::kTensorType:
    if (type.tensor_type().has_shape())
      fn(*type.mutable_tensor_type()->mutable_shape());
    break;
  case onnx::TypeProto::kSequenceType:
    forEachShape(*type.mutable_sequence_type()->mutable_elem_type(), fn);
    break;
  case onnx::TypeProto::kOptionalType:
    forEachShape(*type.mutable_optional_type()->mutable_elem_type(), fn);
    break;
  case onnx::TypeProto::kMapType:
    forEachShape(*type.mutable_map_type()->mutable_value_type(), fn);
    break;
  default:
    break;
  }
}

class Importer {
public:
  Importer(MLIRContext *context, StringRef fileName, StringRef modelDir,
           const OnnxImportOptions &options)
      : context(context), builder(context), fileName(fileName.str()),
        modelDir(modelDir.str()), options(options) {}

  OwningOpRef<ModuleOp> run(onnx::ModelProto &model);

private:
  //===--- Diagnostics ----------------------------------------------------===//
  Location fileLoc() {
    return FileLineColLoc::get(context, fileName, /*line=*/0, /*column=*/0);
  }
  InFlightDiagnostic error() { return emitError(fileLoc()); }
  InFlightDiagnostic error(const onnx::NodeProto &node) {
    return emitError(fileLoc()) << describeNode(node) << ": ";
  }
  Location nodeLoc(const onnx::NodeProto &node) {
    StringRef name = node.name();
    if (name.empty() && node.output_size())
      name = node.output(0);
    return NameLoc::get(StringAttr::get(context, name));
  }

  //===--- Stages before building IR --------------------------------------===//
  LogicalResult checkModel(const onnx::ModelProto &model);
  /// Reports the nodes whose inference the guards refused
  /// (InferenceGuards.h); `ranks` are those of the enclosing graphs.
  LogicalResult checkInferenceGuards(const onnx::GraphProto &graph,
                                     llvm::StringMap<int> ranks = {});
  LogicalResult applyDimBindings(onnx::GraphProto &graph);
  LogicalResult checkSchemas(const onnx::GraphProto &graph);
  LogicalResult inferShapes(onnx::ModelProto &model);
  void forgetForeignDimParams(onnx::GraphProto &graph);
  /// The symbolic dims the graph's inputs define: the only names that node
  /// outputs record (output_dims); ONNX inference's own ("unk__0") and a
  /// subgraph's mean nothing to a runtime.
  std::set<std::string> inputSymbols;

  //===--- Types, tensors, attributes -------------------------------------===//
  Type convertType(const onnx::TypeProto &type, StringRef valueName);
  Attribute convertTensor(onnx::TensorProto &tensor, StringRef what,
                          bool allowExternal);
  ElementsAttr convertInlineTensor(onnx::TensorProto &tensor,
                                   RankedTensorType type, StringRef what);
  Attribute convertExternalTensor(const onnx::TensorProto &tensor,
                                  RankedTensorType type, StringRef what);
  FailureOr<NamedAttribute> convertAttribute(onnx::AttributeProto &attr,
                                             const onnx::NodeProto &node);

  //===--- Building IR ----------------------------------------------------===//
  FailureOr<std::vector<int>> sortNodes(const onnx::GraphProto &graph,
                                        const llvm::StringSet<> &defined);
  LogicalResult sortGraph(onnx::GraphProto &graph,
                          const llvm::StringSet<> &outer);
  LogicalResult importGraphBody(onnx::GraphProto &graph, Block &block,
                                SmallVectorImpl<Value> &outputs);
  LogicalResult
  importNode(onnx::NodeProto &node,
             const llvm::StringMap<const onnx::TypeProto *> &types);
  LogicalResult importConstantNode(onnx::NodeProto &node);
  LogicalResult importInitializer(onnx::TensorProto &tensor);
  Value lookup(StringRef name);
  Value getNoneValue();
  void checkSchema(const onnx::NodeProto &node, bool &failed);
  void reportDynamicShapes(ModuleOp module);

  MLIRContext *context;
  OpBuilder builder;
  std::string fileName;
  std::string modelDir;
  const OnnxImportOptions &options;

  std::map<std::string, int64_t> opsets;
  /// Visible values, innermost graph last: subgraphs see their outer scopes.
  std::vector<llvm::StringMap<Value>> scopes;
  /// The `graph.none` value of each block, created on first use.
  llvm::DenseMap<Block *, Value> noneValues;
  std::set<std::string> unknownOps;
  std::set<std::string> unknownAttributes;
  bool usesExternalData = false;
};

} // namespace

//===----------------------------------------------------------------------===//
// Checks before building IR
//===----------------------------------------------------------------------===//

LogicalResult Importer::checkModel(const onnx::ModelProto &model) {
  if (model.ir_version() <= 0 || !model.has_graph())
    return error() << "not an ONNX model: "
                   << (model.ir_version() <= 0 ? "no ir_version" : "no graph");
  for (const onnx::OperatorSetIdProto &opset : model.opset_import()) {
    if (opset.version() <= 0)
      return error() << "opset_import of domain '" << opset.domain()
                     << "' has invalid version " << opset.version();
    opsets[opset.domain()] = opset.version();
  }
  // IR version 3 and older models may omit opset_import: ONNX then means 1.
  if (model.opset_import_size() == 0)
    opsets[""] = 1;
  // ONNX's shape inference dereferences every graph input's type.
  for (const onnx::ValueInfoProto &input : model.graph().input())
    if (input.type().value_case() == onnx::TypeProto::VALUE_NOT_SET)
      return error() << "graph input '" << input.name() << "' has no type";
  // Newer ops are still imported (by their newest schema this library
  // knows), but their attributes and types cannot be checked: say so.
  int known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance()
                  .Map()
                  .at(onnx::ONNX_DOMAIN)
                  .second;
  for (const char *domain : {"", "ai.onnx"})
    if (auto it = opsets.find(domain); it != opsets.end() && it->second > known)
      emitWarning(fileLoc())
          << "the model uses opset " << it->second
          << " of the default ONNX domain, but the ONNX library of this "
             "importer knows opsets up to "
          << known
          << ": its ops are read with the newest schemas known and may be "
             "checked wrongly";
  return success();
}

LogicalResult Importer::applyDimBindings(onnx::GraphProto &graph) {
  llvm::StringSet<> seenParams;
  for (auto &[name, value] : options.dimBindings) {
    bool used = false;
    forEachValueType(graph, [&](onnx::TypeProto &type) {
      forEachShape(type, [&](onnx::TensorShapeProto &shape) {
        for (onnx::TensorShapeProto::Dimension &dim : *shape.mutable_dim()) {
          if (dim.has_dim_param() && dim.dim_param() == name) {
            dim.set_dim_value(value);
            used = true;
          }
        }
      });
    });
    if (!used) {
      std::set<std::string> params;
      forEachValueType(graph, [&](onnx::TypeProto &type) {
        forEachShape(type, [&](onnx::TensorShapeProto &shape) {
          for (const auto &dim : shape.dim())
            if (dim.has_dim_param())
              params.insert(dim.dim_param());
        });
      });
      auto diag = error() << "--dim " << name
                          << ": the model has no symbolic dim of that name";
      diag << (params.empty() ? " (it has none)" : " (it has: ");
      llvm::interleaveComma(params, diag);
      if (!params.empty())
        diag << ")";
      return failure();
    }
  }

  std::set<std::string> initializers;
  for (const onnx::TensorProto &init : graph.initializer())
    initializers.insert(init.name());
  for (auto &[name, dims] : options.inputShapes) {
    auto it = llvm::find_if(graph.input(), [&](const onnx::ValueInfoProto &v) {
      return v.name() == name && !initializers.count(v.name());
    });
    if (it == graph.input().end()) {
      auto diag = error() << "--input-shape " << name
                          << ": the graph has no input of that name (inputs: ";
      llvm::interleaveComma(
          llvm::make_filter_range(graph.input(),
                                  [&](const onnx::ValueInfoProto &v) {
                                    return !initializers.count(v.name());
                                  }),
          diag, [&](const onnx::ValueInfoProto &v) { diag << v.name(); });
      diag << ")";
      return failure();
    }
    auto &input = *graph.mutable_input(it - graph.input().begin());
    if (!input.type().has_tensor_type())
      return error() << "--input-shape " << name << ": input is not a tensor";
    onnx::TensorShapeProto *shape =
        input.mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t dim : dims)
      shape->add_dim()->set_dim_value(dim);
  }
  // The shapes the model declares for other values were computed from the
  // old input shapes: inference recomputes them (a stale one would
  // contradict it).
  if (!options.inputShapes.empty())
    for (auto *values : {graph.mutable_value_info(), graph.mutable_output()})
      for (onnx::ValueInfoProto &value : *values)
        if (value.type().has_tensor_type())
          value.mutable_type()->mutable_tensor_type()->clear_shape();
  forgetForeignDimParams(graph);
  return success();
}

/// A symbolic dim means something to a runtime only when a graph input
/// defines it: exporters also name the dims of other values (torch's
/// "Addy_dim_1" for what is the input's "seq"), and ONNX's inference keeps a
/// declared name over the one it infers. Those names are dropped before
/// inference, which names the dims it can relate to the inputs.
void Importer::forgetForeignDimParams(onnx::GraphProto &graph) {
  std::set<std::string> &defined = inputSymbols;
  for (const onnx::ValueInfoProto &input : graph.input())
    if (input.type().has_tensor_type())
      for (const auto &dim : input.type().tensor_type().shape().dim())
        if (dim.has_dim_param())
          defined.insert(dim.dim_param());
  auto forget = [&](onnx::TypeProto &type) {
    forEachShape(type, [&](onnx::TensorShapeProto &shape) {
      for (onnx::TensorShapeProto::Dimension &dim : *shape.mutable_dim())
        if (dim.has_dim_param() && !defined.count(dim.dim_param()))
          dim.clear_dim_param();
    });
  };
  for (auto *values : {graph.mutable_value_info(), graph.mutable_output()})
    for (onnx::ValueInfoProto &value : *values)
      forget(*value.mutable_type());
}

namespace {
/// A node after inference: ranks from the types the graph (and the graphs
/// around it) declare or ONNX inferred.
class GraphView final : public placer::detail::GuardedNode {
public:
  GraphView(const onnx::NodeProto &node, const llvm::StringMap<int> &ranks)
      : node(node), ranks(ranks) {}
  const std::string &opType() const override { return node.op_type(); }
  size_t numInputs() const override { return node.input_size(); }
  std::string inputName(size_t index) const override {
    return node.input(index);
  }
  std::optional<int> inputRank(size_t index) const override {
    auto it = ranks.find(node.input(index));
    return it == ranks.end() ? std::nullopt : std::optional(it->second);
  }
  const onnx::AttributeProto *
  attribute(const std::string &name) const override {
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.name() == name)
        return &attr;
    return nullptr;
  }

private:
  const onnx::NodeProto &node;
  const llvm::StringMap<int> &ranks;
};
} // namespace

/// Every node, subgraphs' included, against its schema (checkSchema:
/// input and output counts, attribute kinds, required attributes) before
/// any inference function sees it: ONNX's functions assume what the schema
/// states, and some crash otherwise (the opset-8 Scan family without its
/// body). One error per violation, naming the node.
LogicalResult Importer::checkSchemas(const onnx::GraphProto &graph) {
  bool failed = false;
  for (const onnx::NodeProto &node : graph.node()) {
    checkSchema(node, failed);
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        failed |= mlir::failed(checkSchemas(attr.g()));
      for (const onnx::GraphProto &body : attr.graphs())
        failed |= mlir::failed(checkSchemas(body));
    }
  }
  return success(!failed);
}

LogicalResult Importer::checkInferenceGuards(const onnx::GraphProto &graph,
                                             llvm::StringMap<int> ranks) {
  auto record = [&](const onnx::ValueInfoProto &v) {
    if (std::optional<int> rank = placer::detail::getRank(v.type()))
      ranks[v.name()] = *rank;
  };
  llvm::for_each(graph.input(), record);
  llvm::for_each(graph.value_info(), record);
  llvm::for_each(graph.output(), record);
  for (const onnx::TensorProto &t : graph.initializer())
    ranks[t.name()] = t.dims_size();
  bool ok = true;
  for (const onnx::NodeProto &node : graph.node()) {
    if (node.domain().empty() || node.domain() == "ai.onnx")
      for (const std::string &violation :
           placer::detail::checkInferenceGuard(GraphView(node, ranks))) {
        error(node) << violation;
        ok = false;
      }
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        ok &= succeeded(checkInferenceGuards(attr.g(), ranks));
      for (const onnx::GraphProto &body : attr.graphs())
        ok &= succeeded(checkInferenceGuards(body, ranks));
    }
  }
  return success(ok);
}

LogicalResult Importer::inferShapes(onnx::ModelProto &model) {
  // Node-level inference errors are not fatal (error_mode 0): an op ONNX
  // cannot infer keeps the types the model declares. Data propagation
  // carries shape arithmetic (Shape -> Gather -> Concat -> Reshape) through.
  onnx::ShapeInferenceOptions inferenceOptions(/*check_type=*/false,
                                               /*error_mode=*/0,
                                               /*data_prop=*/true);
  try {
    // Guarded schemas: ONNX's own functions crash on some malformed nodes.
    const onnx::ISchemaRegistry &schemas = placer::detail::getGuardedSchemas();
    onnx::shape_inference::InferShapes(model, &schemas, inferenceOptions);
    placer::detail::refineShapesByFolding(model, schemas);
  } catch (const std::exception &e) {
    // A type the model declares that contradicts what its producer computes
    // is a damaged model (later stages would trust the declaration).
    std::string what = e.what();
    if (what.find("existing") != std::string::npos)
      return error() << "a declared type contradicts ONNX's shape inference: "
                     << what;
    emitWarning(fileLoc()) << "ONNX shape inference stopped: " << what
                           << "; values it did not reach keep their declared "
                              "types";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Types, tensors and attributes
//===----------------------------------------------------------------------===//

Type Importer::convertType(const onnx::TypeProto &type, StringRef valueName) {
  switch (type.value_case()) {
  case onnx::TypeProto::kTensorType: {
    const auto &tensor = type.tensor_type();
    Type element = getElementTypeForOnnx(context, tensor.elem_type());
    if (!element) {
      if (tensor.elem_type() == 0)
        return UnknownType::get(context);
      error() << "value '" << valueName << "' has unsupported element type "
              << tensor.elem_type();
      return {};
    }
    if (!tensor.has_shape())
      return UnrankedTensorType::get(element);
    SmallVector<int64_t> dims;
    for (const auto &dim : tensor.shape().dim()) {
      if (!dim.has_dim_value()) {
        dims.push_back(ShapedType::kDynamic);
        continue;
      }
      if (dim.dim_value() < 0) {
        error() << "value '" << valueName << "' has negative dim "
                << dim.dim_value();
        return {};
      }
      dims.push_back(dim.dim_value());
    }
    if (!getTensorBytes(dims, element)) {
      error() << "value '" << valueName << "' has a shape of more than "
              << kMaxTensorBytes << " bytes";
      return {};
    }
    return RankedTensorType::get(dims, element);
  }
  case onnx::TypeProto::kSequenceType: {
    if (!type.sequence_type().has_elem_type())
      return SequenceType::get(context, UnknownType::get(context));
    Type element = convertType(type.sequence_type().elem_type(), valueName);
    return element ? SequenceType::get(context, element) : Type();
  }
  case onnx::TypeProto::kOptionalType: {
    if (!type.optional_type().has_elem_type())
      return OptionalType::get(context, UnknownType::get(context));
    Type element = convertType(type.optional_type().elem_type(), valueName);
    return element ? OptionalType::get(context, element) : Type();
  }
  case onnx::TypeProto::kMapType: {
    Type key = getElementTypeForOnnx(context, type.map_type().key_type());
    Type value = convertType(type.map_type().value_type(), valueName);
    if (!key || !value) {
      error() << "value '" << valueName << "' has an unsupported map type";
      return {};
    }
    return MapType::get(context, key, value);
  }
  case onnx::TypeProto::kSparseTensorType:
    error() << "value '" << valueName
            << "' is a sparse tensor, which Placer does not support";
    return {};
  default:
    return UnknownType::get(context);
  }
}

/// Moves the bytes of `data` into a resource blob: the attribute owns them
/// from now on, and nothing is copied.
static ElementsAttr makeResource(RankedTensorType type, StringRef key,
                                 std::unique_ptr<std::string> data) {
  int64_t elementBytes = getElementByteSize(type.getElementType());
  size_t alignment = llvm::PowerOf2Ceil(std::max<int64_t>(1, elementBytes));
  alignment = std::min<size_t>(alignment, alignof(std::max_align_t));
  if (!llvm::isAddrAligned(llvm::Align(alignment), data->data())) {
    return DenseResourceElementsAttr::get(
        type, key,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(
            ArrayRef<char>(data->data(), data->size()), alignment));
  }
  ArrayRef<char> bytes(data->data(), data->size());
  std::string *owned = data.release();
  AsmResourceBlob blob(
      bytes, alignment, [owned](void *, size_t, size_t) { delete owned; },
      /*dataIsMutable=*/false);
  return DenseResourceElementsAttr::get(type, key, std::move(blob));
}

Attribute Importer::convertTensor(onnx::TensorProto &tensor, StringRef what,
                                  bool allowExternal) {
  Type element = getElementTypeForOnnx(context, tensor.data_type());
  if (!element) {
    error() << what << " has unsupported data type " << tensor.data_type();
    return {};
  }
  SmallVector<int64_t> dims;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0) {
      error() << what << " has negative dim " << dim;
      return {};
    }
    dims.push_back(dim);
  }
  if (!getTensorBytes(dims, element)) {
    error() << what << " has a shape of more than " << kMaxTensorBytes
            << " bytes";
    return {};
  }
  auto type = RankedTensorType::get(dims, element);
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    if (!allowExternal) {
      error() << what
              << " stores its data externally, which is only "
                 "supported for initializers";
      return {};
    }
    return convertExternalTensor(tensor, type, what);
  }
  return convertInlineTensor(tensor, type, what);
}

Attribute Importer::convertExternalTensor(const onnx::TensorProto &tensor,
                                          RankedTensorType type,
                                          StringRef what) {
  int64_t elementBytes = getElementByteSize(type.getElementType());
  if (elementBytes == 0) {
    error() << what << " is a string tensor with external data";
    return {};
  }
  int64_t expected = type.getNumElements() * elementBytes;
  std::string location;
  int64_t offset = 0, length = expected;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    StringRef key = entry.key(), value = entry.value();
    if (key == "location") {
      location = entry.value();
    } else if (key == "offset" || key == "length") {
      int64_t parsed;
      if (value.getAsInteger(10, parsed) || parsed < 0) {
        error() << what << ": external data " << key << " '" << value
                << "' is not a non-negative integer";
        return {};
      }
      (key == "offset" ? offset : length) = parsed;
    }
  }
  if (location.empty()) {
    error() << what << ": external data has no location";
    return {};
  }
  if (llvm::sys::path::is_absolute(location) ||
      llvm::is_contained(llvm::make_range(llvm::sys::path::begin(location),
                                          llvm::sys::path::end(location)),
                         "..")) {
    error() << what << ": external data location '" << location
            << "' is not inside the model's directory";
    return {};
  }
  if (length != expected) {
    error() << what << ": external data length " << length << " but " << type
            << " needs " << expected << " bytes";
    return {};
  }
  usesExternalData = true;
  if (!options.shapesOnly) {
    SmallString<256> path(modelDir);
    llvm::sys::path::append(path, location);
    uint64_t size;
    if (llvm::sys::fs::file_size(path, size)) {
      error() << what << ": external data file '" << path
              << "' is missing (use --shapes-only to import without weights)";
      return {};
    }
    if (static_cast<uint64_t>(offset) + length > size) {
      error() << what << ": external data file '" << path << "' has " << size
              << " bytes, fewer than offset " << offset << " + length "
              << length;
      return {};
    }
  }
  return ExternalDataAttr::get(context, location, offset, length);
}

ElementsAttr Importer::convertInlineTensor(onnx::TensorProto &tensor,
                                           RankedTensorType type,
                                           StringRef what) {
  int64_t numElements = type.getNumElements();
  Type element = type.getElementType();

  if (isa<StringType>(element)) {
    if (tensor.string_data_size() != numElements) {
      error() << what << " has " << tensor.string_data_size()
              << " strings but its shape holds " << numElements;
      return {};
    }
    SmallVector<StringRef> strings(tensor.string_data().begin(),
                                   tensor.string_data().end());
    return DenseStringElementsAttr::get(type, strings);
  }

  int64_t elementBytes = getElementByteSize(element);
  int64_t expectedBytes = numElements * elementBytes;
  auto data = std::make_unique<std::string>();
  if (tensor.has_raw_data()) {
    if (static_cast<int64_t>(tensor.raw_data().size()) != expectedBytes) {
      error() << what << " has " << tensor.raw_data().size()
              << " bytes of raw data but " << type << " needs "
              << expectedBytes;
      return {};
    }
    data.reset(tensor.release_raw_data());
  } else {
    // The typed fields: each ONNX type has one, some shared (onnx.proto).
    // Nothing is reserved from the declared shape: a hostile model declares
    // any size, and only the data it really holds is read.
    int32_t dataType = tensor.data_type();
    int64_t count = 0;
    auto fromInt32 = [&](auto narrow) {
      count = tensor.int32_data_size();
      for (int32_t v : tensor.int32_data())
        appendBytes(*data, static_cast<decltype(narrow)>(v));
    };
    switch (dataType) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::COMPLEX64:
      count = tensor.float_data_size();
      for (float v : tensor.float_data())
        appendBytes(*data, v);
      break;
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::COMPLEX128:
      count = tensor.double_data_size();
      for (double v : tensor.double_data())
        appendBytes(*data, v);
      break;
    case onnx::TensorProto::INT64:
      count = tensor.int64_data_size();
      for (int64_t v : tensor.int64_data())
        appendBytes(*data, v);
      break;
    case onnx::TensorProto::UINT32:
      count = tensor.uint64_data_size();
      for (uint64_t v : tensor.uint64_data())
        appendBytes(*data, static_cast<uint32_t>(v));
      break;
    case onnx::TensorProto::UINT64:
      count = tensor.uint64_data_size();
      for (uint64_t v : tensor.uint64_data())
        appendBytes(*data, v);
      break;
    case onnx::TensorProto::INT32:
      fromInt32(int32_t());
      break;
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
      fromInt32(uint16_t());
      break;
    default: // INT8, UINT8, BOOL
      fromInt32(uint8_t());
      break;
    }
    int64_t perElement = isa<ComplexType>(element) ? 2 : 1;
    if (count != numElements * perElement) {
      error() << what << " has " << count << " values but its shape holds "
              << numElements;
      return {};
    }
  }

  if (expectedBytes > options.inlineBytesLimit) {
    std::string key = tensor.name().empty() ? "tensor" : tensor.name();
    return makeResource(type, key, std::move(data));
  }
  if (element.isInteger(1)) {
    SmallVector<bool> values(data->begin(), data->end());
    return DenseElementsAttr::get(type, values);
  }
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(data->data(), data->size()));
}

/// Older models leave AttributeProto.type unset; the field that holds the
/// value tells the kind.
static onnx::AttributeProto::AttributeType
attributeKind(const onnx::AttributeProto &attr) {
  using A = onnx::AttributeProto;
  if (attr.type() != A::UNDEFINED)
    return attr.type();
  if (attr.has_f())
    return A::FLOAT;
  if (attr.has_i())
    return A::INT;
  if (attr.has_s())
    return A::STRING;
  if (attr.has_t())
    return A::TENSOR;
  if (attr.has_g())
    return A::GRAPH;
  if (attr.has_tp())
    return A::TYPE_PROTO;
  if (attr.floats_size())
    return A::FLOATS;
  if (attr.ints_size())
    return A::INTS;
  if (attr.strings_size())
    return A::STRINGS;
  if (attr.tensors_size())
    return A::TENSORS;
  if (attr.graphs_size())
    return A::GRAPHS;
  if (attr.type_protos_size())
    return A::TYPE_PROTOS;
  return A::UNDEFINED;
}

FailureOr<NamedAttribute>
Importer::convertAttribute(onnx::AttributeProto &attr,
                           const onnx::NodeProto &node) {
  using A = onnx::AttributeProto;
  auto name = StringAttr::get(context, attr.name());
  std::string what = describeNode(node) + " attribute '" + attr.name() + "'";
  auto named = [&](Attribute value) -> FailureOr<NamedAttribute> {
    if (!value)
      return failure();
    return NamedAttribute(name, value);
  };
  switch (attributeKind(attr)) {
  case A::INT:
    return named(builder.getI64IntegerAttr(attr.i()));
  case A::FLOAT:
    return named(builder.getF32FloatAttr(attr.f()));
  case A::STRING:
    return named(builder.getStringAttr(attr.s()));
  case A::INTS:
    return named(builder.getDenseI64ArrayAttr(
        SmallVector<int64_t>(attr.ints().begin(), attr.ints().end())));
  case A::FLOATS:
    return named(builder.getDenseF32ArrayAttr(
        SmallVector<float>(attr.floats().begin(), attr.floats().end())));
  case A::STRINGS: {
    SmallVector<Attribute> strings;
    for (const std::string &s : attr.strings())
      strings.push_back(builder.getStringAttr(s));
    return named(builder.getArrayAttr(strings));
  }
  case A::TENSOR:
    return named(convertTensor(*attr.mutable_t(), what, false));
  case A::TENSORS: {
    SmallVector<Attribute> tensors;
    for (onnx::TensorProto &t : *attr.mutable_tensors()) {
      Attribute tensor = convertTensor(t, what, false);
      if (!tensor)
        return failure();
      tensors.push_back(tensor);
    }
    return named(builder.getArrayAttr(tensors));
  }
  case A::TYPE_PROTO: {
    Type type = convertType(attr.tp(), what);
    return named(type ? TypeAttr::get(type) : Attribute());
  }
  case A::TYPE_PROTOS: {
    SmallVector<Attribute> types;
    for (const onnx::TypeProto &tp : attr.type_protos()) {
      Type type = convertType(tp, what);
      if (!type)
        return failure();
      types.push_back(TypeAttr::get(type));
    }
    return named(builder.getArrayAttr(types));
  }
  case A::GRAPH:
    llvm_unreachable("graph attributes become regions");
  case A::GRAPHS:
  case A::SPARSE_TENSOR:
  case A::SPARSE_TENSORS:
    error(node) << "attribute '" << attr.name() << "' is of kind "
                << A::AttributeType_Name(attr.type())
                << ", which Placer does not support";
    return failure();
  default:
    error(node) << "attribute '" << attr.name() << "' has no value";
    return failure();
  }
}

void Importer::checkSchema(const onnx::NodeProto &node, bool &failed) {
  auto opset = opsets.find(node.domain());
  const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
      node.op_type(), static_cast<int>(opset->second), node.domain());
  if (!schema) {
    unknownOps.insert(node.domain().empty()
                          ? node.op_type()
                          : node.domain() + "." + node.op_type());
    return;
  }
  // Lowerings and cost rules index a node's operands and results by the
  // schema's arity.
  auto checkArity = [&](const char *what, int count, int min, int max) {
    if (count >= min && count <= max)
      return;
    auto diag = error(node);
    diag << "has " << count << " " << what << "s but " << node.op_type() << "-"
         << schema->SinceVersion() << " takes ";
    if (max == std::numeric_limits<int>::max())
      diag << "at least " << min;
    else if (min == max)
      diag << min;
    else
      diag << min << " to " << max;
    failed = true;
  };
  checkArity("input", node.input_size(), schema->min_input(),
             schema->max_input());
  checkArity("output", node.output_size(), schema->min_output(),
             schema->max_output());
  // An empty name leaves an optional input out; a required one (Single, or
  // the first of a variadic list that needs one) cannot be left out, and no
  // lowering or cost rule is asked to read it.
  const auto &formals = schema->inputs();
  for (int i = 0; i < node.input_size(); ++i) {
    if (!node.input(i).empty() || formals.empty())
      continue;
    const auto &formal = formals[std::min<size_t>(i, formals.size() - 1)];
    bool optional =
        formal.GetOption() == onnx::OpSchema::FormalParameterOption::Optional ||
        (formal.GetOption() ==
             onnx::OpSchema::FormalParameterOption::Variadic &&
         i >= schema->min_input());
    if (optional)
      continue;
    error(node) << "required input #" << i << " ('" << formal.GetName()
                << "') of " << node.op_type() << "-" << schema->SinceVersion()
                << " is empty";
    failed = true;
  }
  const auto &expected = schema->attributes();
  for (const onnx::AttributeProto &attr : node.attribute()) {
    auto it = expected.find(attr.name());
    if (it == expected.end()) {
      if (!attr.ref_attr_name().empty())
        continue;
      unknownAttributes.insert(node.op_type() + "." + attr.name());
      continue;
    }
    auto kind = attributeKind(attr);
    if (kind != it->second.type) {
      error(node) << "attribute '" << attr.name() << "' is "
                  << onnx::AttributeProto::AttributeType_Name(kind) << " but "
                  << node.op_type() << "-" << schema->SinceVersion()
                  << " expects "
                  << onnx::AttributeProto::AttributeType_Name(it->second.type);
      failed = true;
    }
  }
  for (const auto &[attrName, attrSpec] : expected) {
    if (!attrSpec.required)
      continue;
    if (llvm::none_of(node.attribute(), [&](const onnx::AttributeProto &a) {
          return a.name() == attrName;
        })) {
      error(node) << "misses required attribute '" << attrName << "'";
      failed = true;
    }
  }
}

//===----------------------------------------------------------------------===//
// Graph structure
//===----------------------------------------------------------------------===//

/// Names a graph reads from enclosing scopes: used by its nodes (or their
/// subgraphs) but defined by none of its inputs, initializers or nodes.
static void collectOuterReads(const onnx::GraphProto &graph,
                              std::set<std::string> &reads) {
  std::set<std::string> local;
  for (const auto &v : graph.input())
    local.insert(v.name());
  for (const auto &t : graph.initializer())
    local.insert(t.name());
  for (const auto &n : graph.node())
    for (const auto &o : n.output())
      local.insert(o);
  std::set<std::string> used;
  for (const auto &n : graph.node()) {
    for (const auto &i : n.input())
      used.insert(i);
    for (const auto &attr : n.attribute()) {
      if (attr.has_g())
        collectOuterReads(attr.g(), used);
      for (const auto &g : attr.graphs())
        collectOuterReads(g, used);
    }
  }
  for (const auto &o : graph.output())
    used.insert(o.name());
  for (const std::string &name : used)
    if (!name.empty() && !local.count(name))
      reads.insert(name);
}

FailureOr<std::vector<int>>
Importer::sortNodes(const onnx::GraphProto &graph,
                    const llvm::StringSet<> &defined) {
  int numNodes = graph.node_size();
  llvm::StringMap<int> producer;
  llvm::StringSet<> graphLevel = defined;
  for (const auto &v : graph.input())
    graphLevel.insert(v.name());
  for (const auto &t : graph.initializer())
    graphLevel.insert(t.name());

  bool failed = false;
  for (int i = 0; i < numNodes; ++i) {
    const onnx::NodeProto &node = graph.node(i);
    if (!opsets.count(node.domain())) {
      error(node) << "uses domain '" << node.domain()
                  << "', which the model's opset_import does not list";
      failed = true;
    }
    for (const std::string &out : node.output()) {
      if (out.empty())
        continue;
      auto [it, inserted] = producer.try_emplace(out, i);
      if (!inserted) {
        error(node) << "output '" << out << "' is already produced by "
                    << describeNode(graph.node(it->second));
        failed = true;
      } else if (graphLevel.contains(out)) {
        error(node) << "output '" << out
                    << "' redefines a graph input or initializer";
        failed = true;
      }
    }
  }
  if (failed)
    return failure();

  // Dependencies: explicit inputs, plus what subgraphs read from this graph.
  SuccessorLists users(numNodes);
  for (int i = 0; i < numNodes; ++i) {
    const onnx::NodeProto &node = graph.node(i);
    std::set<std::string> reads(node.input().begin(), node.input().end());
    for (const auto &attr : node.attribute()) {
      if (attr.has_g())
        collectOuterReads(attr.g(), reads);
      for (const auto &g : attr.graphs())
        collectOuterReads(g, reads);
    }
    for (const std::string &name : reads) {
      if (name.empty())
        continue;
      auto it = producer.find(name);
      if (it != producer.end()) {
        users[it->second].push_back(i);
      } else if (!graphLevel.contains(name)) {
        error(node) << "input '" << name
                    << "' is not produced by any node, graph input or "
                       "initializer";
        failed = true;
      }
    }
  }
  for (const auto &out : graph.output())
    if (!producer.count(out.name()) && !graphLevel.contains(out.name())) {
      error() << "graph output '" << out.name() << "' is never produced";
      failed = true;
    }
  if (failed)
    return failure();

  // The earliest ready node first: a sorted graph keeps its order and the
  // result is deterministic.
  std::vector<int> order = topologicalOrder(users);
  if (static_cast<int>(order.size()) != numNodes) {
    std::vector<char> sorted(numNodes, 0);
    for (int i : order)
      sorted[i] = 1;
    int stuck = 0;
    while (sorted[stuck])
      ++stuck;
    error(graph.node(stuck)) << "is part of a cycle: the graph is not a DAG";
    return failure();
  }
  return order;
}

/// Checks names and puts the nodes of `graph` and of all its subgraphs in
/// topological order, in place: ONNX shape inference needs that order too.
LogicalResult Importer::sortGraph(onnx::GraphProto &graph,
                                  const llvm::StringSet<> &outer) {
  FailureOr<std::vector<int>> order = sortNodes(graph, outer);
  if (failed(order))
    return failure();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  sorted.Reserve(graph.node_size());
  for (int index : *order)
    sorted.Add()->Swap(graph.mutable_node(index));
  graph.mutable_node()->Swap(&sorted);

  llvm::StringSet<> visible = outer;
  for (const auto &v : graph.input())
    visible.insert(v.name());
  for (const auto &t : graph.initializer())
    visible.insert(t.name());
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    // A subgraph sees the values defined before its node; a later one would
    // be a dependency the sort has already ruled out.
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (attr.has_g() && failed(sortGraph(*attr.mutable_g(), visible)))
        return failure();
      for (onnx::GraphProto &g : *attr.mutable_graphs())
        if (failed(sortGraph(g, visible)))
          return failure();
    }
    for (const std::string &out : node.output())
      visible.insert(out);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Building IR
//===----------------------------------------------------------------------===//

Value Importer::lookup(StringRef name) {
  for (auto &scope : llvm::reverse(scopes)) {
    auto it = scope.find(name);
    if (it != scope.end())
      return it->second;
  }
  return {};
}

Value Importer::getNoneValue() {
  Block *block = builder.getInsertionBlock();
  Value &none = noneValues[block];
  if (!none) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(block);
    none =
        NoneOp::create(builder, builder.getUnknownLoc(), builder.getNoneType())
            .getResult();
  }
  return none;
}

LogicalResult Importer::importInitializer(onnx::TensorProto &tensor) {
  if (tensor.name().empty())
    return error() << "an initializer has no name";
  Attribute value =
      convertTensor(tensor, "initializer '" + tensor.name() + "'", true);
  if (!value)
    return failure();
  auto type = cast<RankedTensorType>(
      isa<ElementsAttr>(value)
          ? cast<ElementsAttr>(value).getShapedType()
          : RankedTensorType::get(
                SmallVector<int64_t>(tensor.dims().begin(),
                                     tensor.dims().end()),
                getElementTypeForOnnx(context, tensor.data_type())));
  auto op = ConstantOp::create(
      builder, NameLoc::get(builder.getStringAttr(tensor.name())), type,
      tensor.name(), value, /*node=*/nullptr);
  scopes.back()[tensor.name()] = op.getResult();
  return success();
}

LogicalResult Importer::importConstantNode(onnx::NodeProto &node) {
  if (node.output_size() != 1 || node.output(0).empty() ||
      node.attribute_size() != 1)
    return error(node) << "a Constant needs exactly one output and one "
                          "value attribute";
  onnx::AttributeProto &attr = *node.mutable_attribute(0);
  // Every value_* form becomes the tensor it stands for.
  onnx::TensorProto tensor;
  StringRef kind = attr.name();
  if (kind == "value") {
    tensor.Swap(attr.mutable_t());
  } else if (kind == "value_float") {
    tensor.set_data_type(onnx::TensorProto::FLOAT);
    tensor.add_float_data(attr.f());
  } else if (kind == "value_floats") {
    tensor.set_data_type(onnx::TensorProto::FLOAT);
    tensor.add_dims(attr.floats_size());
    *tensor.mutable_float_data() = attr.floats();
  } else if (kind == "value_int") {
    tensor.set_data_type(onnx::TensorProto::INT64);
    tensor.add_int64_data(attr.i());
  } else if (kind == "value_ints") {
    tensor.set_data_type(onnx::TensorProto::INT64);
    tensor.add_dims(attr.ints_size());
    *tensor.mutable_int64_data() = attr.ints();
  } else if (kind == "value_string") {
    tensor.set_data_type(onnx::TensorProto::STRING);
    tensor.add_string_data(attr.s());
  } else if (kind == "value_strings") {
    tensor.set_data_type(onnx::TensorProto::STRING);
    tensor.add_dims(attr.strings_size());
    *tensor.mutable_string_data() = attr.strings();
  } else {
    return error(node) << "Constant attribute '" << attr.name()
                       << "' is not supported";
  }
  tensor.set_name(node.output(0));
  Attribute value = convertTensor(tensor, describeNode(node), false);
  if (!value)
    return failure();
  auto elements = cast<ElementsAttr>(value);
  auto op = ConstantOp::create(
      builder, nodeLoc(node), cast<RankedTensorType>(elements.getShapedType()),
      node.output(0), elements, builder.getStringAttr(node.name()));
  scopes.back()[node.output(0)] = op.getResult();
  return success();
}

/// The symbolic dim names of a tensor type ("" for the other dims), or
/// null when it has none.
static ArrayAttr getDimParams(Builder &builder, const onnx::TypeProto &type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape())
    return {};
  SmallVector<Attribute> params;
  bool any = false;
  for (const auto &dim : type.tensor_type().shape().dim()) {
    any |= dim.has_dim_param();
    params.push_back(builder.getStringAttr(dim.dim_param()));
  }
  return any ? builder.getArrayAttr(params) : ArrayAttr();
}

/// Each output's dim names when one has a symbolic dim (NodeOp's
/// output_dims), else null.
static ArrayAttr
getOutputDims(Builder &builder, const onnx::NodeProto &node,
              const llvm::StringMap<const onnx::TypeProto *> &types,
              const std::set<std::string> &symbols) {
  SmallVector<Attribute> perOutput;
  bool any = false;
  for (const std::string &name : node.output()) {
    auto it = name.empty() ? types.end() : types.find(name);
    // Names go with ranked tensor types only (see convertType).
    bool ranked = it != types.end() && it->second->has_tensor_type() &&
                  it->second->tensor_type().has_shape() &&
                  it->second->tensor_type().elem_type() != 0;
    ArrayAttr dims = ranked ? getDimParams(builder, *it->second) : ArrayAttr();
    if (dims) {
      SmallVector<Attribute> known;
      bool kept = false;
      for (auto name : dims.getAsValueRange<StringAttr>()) {
        bool keep = symbols.count(name.str()) > 0;
        known.push_back(builder.getStringAttr(keep ? name : ""));
        kept |= keep;
      }
      dims = kept ? builder.getArrayAttr(known) : ArrayAttr();
    }
    any |= bool(dims);
    if (!dims) {
      // Fixed dims: as many empty names as the type has dims.
      SmallVector<Attribute> empty;
      if (ranked)
        empty.assign(it->second->tensor_type().shape().dim_size(),
                     builder.getStringAttr(""));
      dims = builder.getArrayAttr(empty);
    }
    perOutput.push_back(dims);
  }
  return any ? builder.getArrayAttr(perOutput) : ArrayAttr();
}

LogicalResult
Importer::importNode(onnx::NodeProto &node,
                     const llvm::StringMap<const onnx::TypeProto *> &types) {
  bool schemaFailed = false;
  checkSchema(node, schemaFailed);
  if (schemaFailed)
    return failure();
  if (node.domain().empty() && node.op_type() == "Constant")
    return importConstantNode(node);

  SmallVector<Value> inputs;
  for (const std::string &name : node.input()) {
    Value input = name.empty() ? getNoneValue() : lookup(name);
    // Every input has a producer (checked before import): no value means
    // its producer failed to import, which has reported why.
    if (!input)
      return failure();
    inputs.push_back(input);
  }

  SmallVector<Type> resultTypes;
  SmallVector<Attribute> outputNames;
  for (const std::string &name : node.output()) {
    outputNames.push_back(builder.getStringAttr(name));
    if (name.empty()) {
      resultTypes.push_back(builder.getNoneType());
      continue;
    }
    auto it = types.find(name);
    Type type = it == types.end() ? UnknownType::get(context)
                                  : convertType(*it->second, name);
    if (!type)
      return failure();
    resultTypes.push_back(type);
  }

  SmallVector<NamedAttribute> attributes;
  SmallVector<onnx::AttributeProto *> graphAttrs;
  for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
    if (attributeKind(attr) == onnx::AttributeProto::GRAPH) {
      graphAttrs.push_back(&attr);
      continue;
    }
    FailureOr<NamedAttribute> converted = convertAttribute(attr, node);
    if (failed(converted))
      return failure();
    attributes.push_back(*converted);
  }

  SmallVector<Attribute> subgraphNames;
  for (onnx::AttributeProto *attr : graphAttrs)
    subgraphNames.push_back(builder.getStringAttr(attr->name()));

  OperationState state(nodeLoc(node), NodeOp::getOperationName());
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  state.addAttribute("op_type", builder.getStringAttr(node.op_type()));
  if (!node.domain().empty())
    state.addAttribute("domain", builder.getStringAttr(node.domain()));
  state.addAttribute("version",
                     builder.getI64IntegerAttr(opsets.at(node.domain())));
  if (!node.name().empty())
    state.addAttribute("name", builder.getStringAttr(node.name()));
  state.addAttribute("output_names", builder.getArrayAttr(outputNames));
  if (!attributes.empty())
    state.addAttribute("attrs", builder.getDictionaryAttr(attributes));
  if (!subgraphNames.empty())
    state.addAttribute("subgraphs", builder.getArrayAttr(subgraphNames));
  if (ArrayAttr outputDims = getOutputDims(builder, node, types, inputSymbols))
    state.addAttribute("output_dims", outputDims);
  for (size_t i = 0; i < graphAttrs.size(); ++i)
    state.addRegion();
  Operation *op = builder.create(state);

  for (auto [attr, region] : llvm::zip(graphAttrs, op->getRegions())) {
    onnx::GraphProto &subgraph = *attr->mutable_g();
    Block *block = new Block();
    region.push_back(block);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(block);
    scopes.emplace_back();
    SmallVector<Attribute> inputNames, outputNamesAttr;
    for (const onnx::ValueInfoProto &input : subgraph.input()) {
      Type type = convertType(input.type(), input.name());
      if (!type)
        return failure();
      scopes.back()[input.name()] = block->addArgument(
          type, NameLoc::get(builder.getStringAttr(input.name())));
      inputNames.push_back(builder.getStringAttr(input.name()));
    }
    SmallVector<Value> yielded;
    if (failed(importGraphBody(subgraph, *block, yielded)))
      return failure();
    for (const onnx::ValueInfoProto &output : subgraph.output())
      outputNamesAttr.push_back(builder.getStringAttr(output.name()));
    YieldOp::create(builder, nodeLoc(node), yielded, subgraph.name(),
                    builder.getArrayAttr(inputNames),
                    builder.getArrayAttr(outputNamesAttr));
    scopes.pop_back();
  }

  for (auto [name, result] : llvm::zip(node.output(), op->getResults()))
    if (!name.empty())
      scopes.back()[name] = result;
  return success();
}

LogicalResult Importer::importGraphBody(onnx::GraphProto &graph, Block &block,
                                        SmallVectorImpl<Value> &outputs) {
  for (onnx::TensorProto &tensor : *graph.mutable_initializer())
    if (failed(importInitializer(tensor)))
      return failure();

  // Inputs first, value_info, then outputs: later entries describe a value
  // more precisely after shape inference merged into them.
  llvm::StringMap<const onnx::TypeProto *> types;
  for (const auto &v : graph.input())
    types[v.name()] = &v.type();
  for (const auto &v : graph.value_info())
    types[v.name()] = &v.type();
  for (const auto &v : graph.output())
    types[v.name()] = &v.type();

  bool failedAny = false;
  for (onnx::NodeProto &node : *graph.mutable_node())
    if (failed(importNode(node, types)))
      failedAny = true; // keep going: report every bad node at once
  if (failedAny)
    return failure();

  for (const onnx::ValueInfoProto &out : graph.output())
    outputs.push_back(lookup(out.name()));
  return success();
}

void Importer::reportDynamicShapes(ModuleOp module) {
  int64_t dynamicValues = 0;
  auto count = [&](Value value) {
    if (auto shaped = dyn_cast<ShapedType>(value.getType()))
      dynamicValues += !shaped.hasStaticShape();
  };
  module.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        llvm::for_each(block.getArguments(), count);
    llvm::for_each(op->getResults(), count);
  });
  if (dynamicValues == 0)
    return;
  std::set<std::string> params;
  module.walk([&](func::FuncOp func) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto dims = func.getArgAttrOfType<ArrayAttr>(i, attrs::kDimParams))
        for (Attribute dim : dims)
          if (!cast<StringAttr>(dim).getValue().empty())
            params.insert(cast<StringAttr>(dim).str());
  });
  // Not an error: the native code runs on any size. Costs and placement
  // need sizes, and an unnamed dim only ever gets one from --dim.
  auto diag = emitRemark(fileLoc())
              << dynamicValues << " values keep dynamic dims";
  if (!params.empty()) {
    diag << "; unbound symbolic dims of the inputs: ";
    llvm::interleaveComma(params, diag);
    diag << " (ops that take dynamic dims compile once for any size; "
            "costs and placement need sizes: --dim NAME=VALUE here, or "
            "dims=NAME=VALUE when estimating costs)";
  }
}

OwningOpRef<ModuleOp> Importer::run(onnx::ModelProto &model) {
  context->loadDialect<GraphDialect, func::FuncDialect>();
  if (failed(checkModel(model)))
    return {};
  onnx::GraphProto &graph = *model.mutable_graph();
  if (failed(sortGraph(graph, {})) || failed(applyDimBindings(graph)))
    return {};
  if (failed(checkSchemas(graph)) || failed(inferShapes(model)) ||
      failed(checkInferenceGuards(graph)))
    return {};

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc());
  builder.setInsertionPointToEnd(module->getBody());

  // Graph inputs that also have an initializer are constants with a default
  // (IR version < 4): they become constants and are listed on the function.
  std::set<std::string> initializerNames;
  for (const auto &t : graph.initializer())
    initializerNames.insert(t.name());
  SmallVector<const onnx::ValueInfoProto *> inputs;
  SmallVector<Attribute> overridable;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializerNames.count(input.name()))
      overridable.push_back(builder.getStringAttr(input.name()));
    else
      inputs.push_back(&input);
  }

  SmallVector<Type> argTypes;
  for (const onnx::ValueInfoProto *input : inputs) {
    Type type = convertType(input->type(), input->name());
    if (!type)
      return {};
    argTypes.push_back(type);
  }
  auto func = func::FuncOp::create(builder, fileLoc(), "main_graph",
                                   builder.getFunctionType(argTypes, {}));
  if (!graph.name().empty())
    func->setAttr(attrs::kGraphName, builder.getStringAttr(graph.name()));
  if (!overridable.empty())
    func->setAttr("graph.input_initializers",
                  builder.getArrayAttr(overridable));
  Block *entry = func.addEntryBlock();
  scopes.emplace_back();
  for (auto [index, input] : llvm::enumerate(inputs)) {
    func.setArgAttr(index, attrs::kValueName,
                    builder.getStringAttr(input->name()));
    if (ArrayAttr dims = getDimParams(builder, input->type()))
      func.setArgAttr(index, attrs::kDimParams, dims);
    scopes.back()[input->name()] = entry->getArgument(index);
  }

  builder.setInsertionPointToStart(entry);
  SmallVector<Value> outputs;
  if (failed(importGraphBody(graph, *entry, outputs)))
    return {};
  func::ReturnOp::create(builder, fileLoc(), outputs);
  func.setFunctionType(
      builder.getFunctionType(argTypes, ValueRange(outputs).getTypes()));
  for (auto [index, output] : llvm::enumerate(graph.output())) {
    func.setResultAttr(index, attrs::kValueName,
                       builder.getStringAttr(output.name()));
    if (ArrayAttr dims = getDimParams(builder, output.type()))
      func.setResultAttr(index, attrs::kDimParams, dims);
  }

  // Module attributes: what an export needs to write the model back.
  SmallVector<NamedAttribute> opsetAttrs;
  for (auto &[domain, version] : opsets)
    opsetAttrs.emplace_back(
        builder.getStringAttr(domain.empty()
                                  ? StringRef(attrs::kDefaultDomainKey)
                                  : StringRef(domain)),
        builder.getI64IntegerAttr(version));
  (*module)->setAttr(attrs::kIrVersion,
                     builder.getI64IntegerAttr(model.ir_version()));
  (*module)->setAttr(attrs::kOpsetImport,
                     builder.getDictionaryAttr(opsetAttrs));
  if (!model.producer_name().empty())
    (*module)->setAttr(attrs::kProducerName,
                       builder.getStringAttr(model.producer_name()));
  if (!model.producer_version().empty())
    (*module)->setAttr(attrs::kProducerVersion,
                       builder.getStringAttr(model.producer_version()));
  if (usesExternalData)
    (*module)->setAttr(attrs::kModelDir, builder.getStringAttr(modelDir));

  if (!unknownOps.empty()) {
    auto diag = emitWarning(fileLoc())
                << "op types unknown to ONNX 1.12 imported as opaque nodes: ";
    llvm::interleaveComma(unknownOps, diag);
  }
  if (!unknownAttributes.empty()) {
    auto diag = emitWarning(fileLoc())
                << "attributes the ONNX schema does not define: ";
    llvm::interleaveComma(unknownAttributes, diag);
  }
  reportDynamicShapes(*module);

  if (failed(verify(*module)))
    return {};
  return module;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

static OwningOpRef<ModuleOp> importParsed(onnx::ModelProto &model,
                                          StringRef name, StringRef modelDir,
                                          MLIRContext *context,
                                          const OnnxImportOptions &options) {
  Importer importer(context, name, modelDir, options);
  try {
    return importer.run(model);
  } catch (const std::exception &e) {
    emitError(FileLineColLoc::get(context, name, 0, 0))
        << "ONNX failed while importing: " << e.what();
    return {};
  }
}

OwningOpRef<ModuleOp>
placer::importOnnxBuffer(StringRef bytes, StringRef bufferName,
                         StringRef modelDir, MLIRContext *context,
                         const OnnxImportOptions &options) {
  onnx::ModelProto model;
  {
    ProtobufLogSilencer silence;
    if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
        !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      emitError(FileLineColLoc::get(context, bufferName, 0, 0))
          << "not a valid ONNX model: the protobuf is truncated or corrupt";
      return {};
    }
  }
  return importParsed(model, bufferName, modelDir, context, options);
}

OwningOpRef<ModuleOp> placer::importOnnxFile(StringRef path,
                                             MLIRContext *context,
                                             const OnnxImportOptions &options) {
  auto loc = FileLineColLoc::get(context, path, 0, 0);
  uint64_t size = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(path, size)) {
    emitError(loc) << "cannot read model: " << ec.message();
    return {};
  }
  if (size > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
    emitError(loc) << "model is " << size
                   << " bytes, over protobuf's 2 GiB limit: save its weights "
                      "as external data";
    return {};
  }
  int fd = ::open(path.str().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    emitError(loc) << "cannot open model: " << std::strerror(errno);
    return {};
  }
  // Parse straight from the file: reading it into memory first would double
  // the peak memory for models with inline weights.
  onnx::ModelProto model;
  bool parsed;
  {
    ProtobufLogSilencer silence;
    parsed = model.ParseFromFileDescriptor(fd);
  }
  ::close(fd);
  if (!parsed) {
    emitError(loc)
        << "not a valid ONNX model: the protobuf is truncated or corrupt";
    return {};
  }
  SmallString<256> dir(path);
  llvm::sys::fs::make_absolute(dir);
  llvm::sys::path::remove_filename(dir);
  return importParsed(model, path, dir, context, options);
}
