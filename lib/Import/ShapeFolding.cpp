//===- ShapeFolding.cpp - Static shapes through shape arithmetic ----------===//
//
// Static shapes through the shape arithmetic of exported models: the op
// registry's folders (lib/Conversion/GraphToLinalg/Folders.cpp) evaluate the
// small tensors the importer knows, read here from ONNX protos; everything
// else is left to ONNX's own inference.
//
//===----------------------------------------------------------------------===//

#include "ShapeFolding.h"

#include "placer/Conversion/OnnxOps.h"

#include "llvm/ADT/STLExtras.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

using namespace placer::detail;
using onnx::TensorProto;

namespace {

constexpr int64_t kMaxElements = placer::kMaxKnownElements;

using Dims = std::vector<int64_t>;

bool isComputableType(int32_t type) {
  switch (type) {
  case TensorProto::FLOAT: case TensorProto::DOUBLE:
  case TensorProto::INT64: case TensorProto::INT32: case TensorProto::INT16:
  case TensorProto::INT8: case TensorProto::UINT8: case TensorProto::UINT16:
  case TensorProto::UINT32: case TensorProto::UINT64: case TensorProto::BOOL:
    return true;
  default:
    return false;
  }
}

/// A node's ONNX attributes, as the registry's folders read them.
class ProtoAttributes final : public placer::FoldAttributes {
public:
  explicit ProtoAttributes(const onnx::NodeProto &node) : node(node) {}

  bool has(llvm::StringRef name) const override { return find(name); }
  std::optional<int64_t> getInt(llvm::StringRef name) const override {
    const onnx::AttributeProto *attr = find(name);
    if (!attr)
      return std::nullopt;
    return attr->i();
  }
  std::optional<Dims> getInts(llvm::StringRef name) const override {
    const onnx::AttributeProto *attr = find(name);
    if (!attr)
      return std::nullopt;
    return Dims(attr->ints().begin(), attr->ints().end());
  }
  std::optional<KnownTensor> getTensor(llvm::StringRef name) const override {
    const onnx::AttributeProto *attr = find(name);
    if (!attr || !attr->has_t())
      return std::nullopt;
    return readKnownTensor(attr->t());
  }

private:
  const onnx::AttributeProto *find(llvm::StringRef name) const {
    for (const auto &attr : node.attribute())
      if (attr.name() == name)
        return &attr;
    return nullptr;
  }
  const onnx::NodeProto &node;
};

/// Evaluates `node` (opset `version`) when its op's registry entry has a
/// folder and the inputs it needs are known; nothing otherwise.
std::optional<std::vector<KnownTensor>>
evaluate(const onnx::NodeProto &node, int64_t version,
         const std::vector<const KnownTensor *> &in,
         const std::vector<const Dims *> &shapes) {
  const placer::OpEntry *entry =
      placer::getOnnxOps().find(node.op_type(), version);
  if (!entry || !entry->fold)
    return std::nullopt;
  ProtoAttributes attributes(node);
  placer::FoldArgs args{in, shapes, attributes};
  size_t needed = entry->fold->knownInputs == placer::FoldRule::kAllInputs
                      ? std::max<size_t>(in.size(), 1)
                      : entry->fold->knownInputs;
  for (size_t i = 0; i < needed; ++i)
    if (!args.known(i))
      return std::nullopt;
  std::optional<KnownTensor> result = entry->fold->fold(args);
  if (!result || result->numElements() > kMaxElements)
    return std::nullopt;
  return std::vector<KnownTensor>{std::move(*result)};
}

TensorProto toProto(const KnownTensor &t, const std::string &name) {
  TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(t.dataType);
  for (int64_t d : t.dims)
    proto.add_dims(d);
  switch (t.dataType) {
  case TensorProto::FLOAT:
    for (double v : t.floats)
      proto.add_float_data(static_cast<float>(v));
    break;
  case TensorProto::DOUBLE:
    for (double v : t.floats)
      proto.add_double_data(v);
    break;
  case TensorProto::INT64:
    for (int64_t v : t.ints)
      proto.add_int64_data(v);
    break;
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    for (int64_t v : t.ints)
      proto.add_uint64_data(static_cast<uint64_t>(v));
    break;
  default: // the int32_data family
    for (int64_t v : t.ints)
      proto.add_int32_data(static_cast<int32_t>(v));
    break;
  }
  return proto;
}

std::optional<Dims> staticShape(const onnx::TypeProto &type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape())
    return std::nullopt;
  Dims dims;
  for (const auto &dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0)
      return std::nullopt;
    dims.push_back(dim.dim_value());
  }
  return dims;
}

bool hasSubgraph(const onnx::NodeProto &node) {
  for (const auto &attr : node.attribute())
    if (attr.has_g() || attr.graphs_size())
      return true;
  return false;
}

bool graphHasDynamicTypes(const onnx::GraphProto &graph) {
  auto dynamic = [](const onnx::ValueInfoProto &v) {
    return v.type().has_tensor_type() && !staticShape(v.type());
  };
  return std::any_of(graph.value_info().begin(), graph.value_info().end(),
                     dynamic) ||
         std::any_of(graph.output().begin(), graph.output().end(), dynamic);
}

} // namespace

std::optional<KnownTensor>
placer::detail::readKnownTensor(const TensorProto &tensor) {
  if (!isComputableType(tensor.data_type()) ||
      tensor.data_location() == TensorProto::EXTERNAL)
    return std::nullopt;
  KnownTensor t;
  t.dataType = tensor.data_type();
  t.dims.assign(tensor.dims().begin(), tensor.dims().end());
  for (int64_t d : t.dims)
    if (d < 0 || d > kMaxElements)
      return std::nullopt;
  int64_t n = t.numElements();
  if (n > kMaxElements)
    return std::nullopt;

  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    auto read = [&](auto sample) -> bool {
      using T = decltype(sample);
      if (static_cast<int64_t>(raw.size()) != n * static_cast<int64_t>(sizeof(T)))
        return false;
      for (int64_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
        if (std::is_floating_point_v<T>)
          t.floats.push_back(static_cast<double>(v));
        else
          t.ints.push_back(static_cast<int64_t>(v));
      }
      return true;
    };
    bool ok = false;
    switch (t.dataType) {
    case TensorProto::FLOAT: ok = read(float()); break;
    case TensorProto::DOUBLE: ok = read(double()); break;
    case TensorProto::INT64: ok = read(int64_t()); break;
    case TensorProto::INT32: ok = read(int32_t()); break;
    case TensorProto::INT16: ok = read(int16_t()); break;
    case TensorProto::INT8: ok = read(int8_t()); break;
    case TensorProto::UINT8: case TensorProto::BOOL: ok = read(uint8_t()); break;
    case TensorProto::UINT16: ok = read(uint16_t()); break;
    case TensorProto::UINT32: ok = read(uint32_t()); break;
    case TensorProto::UINT64: ok = read(uint64_t()); break;
    }
    return ok ? std::optional<KnownTensor>(t) : std::nullopt;
  }

  switch (t.dataType) {
  case TensorProto::FLOAT:
    t.floats.assign(tensor.float_data().begin(), tensor.float_data().end());
    break;
  case TensorProto::DOUBLE:
    t.floats.assign(tensor.double_data().begin(), tensor.double_data().end());
    break;
  case TensorProto::INT64:
    t.ints.assign(tensor.int64_data().begin(), tensor.int64_data().end());
    break;
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    for (uint64_t v : tensor.uint64_data())
      t.ints.push_back(static_cast<int64_t>(v));
    break;
  default:
    t.ints.assign(tensor.int32_data().begin(), tensor.int32_data().end());
    break;
  }
  int64_t count = t.isFloat() ? t.floats.size() : t.ints.size();
  return count == n ? std::optional<KnownTensor>(t) : std::nullopt;
}

std::optional<std::vector<KnownTensor>> placer::detail::evaluateNode(
    const onnx::NodeProto &node, const std::vector<const KnownTensor *> &inputs,
    const std::vector<const Dims *> &shapes, int64_t opset) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return std::nullopt;
  auto result = evaluate(node, opset, inputs, shapes);
  if (!result || result->size() != static_cast<size_t>(node.output_size()))
    return std::nullopt;
  return result;
}

void placer::detail::refineShapesByFolding(
    onnx::ModelProto &model, const onnx::ISchemaRegistry &schemas) {
  onnx::GraphProto &graph = *model.mutable_graph();
  if (!graphHasDynamicTypes(graph))
    return;
  std::map<std::string, int> opsets;
  for (const auto &opset : model.opset_import())
    opsets[opset.domain()] = static_cast<int>(opset.version());

  // The best type known for every value, filled in node order.
  std::unordered_map<std::string, onnx::TypeProto> types;
  for (auto *list : {&graph.input(), &graph.value_info(), &graph.output()})
    for (const auto &v : *list)
      types[v.name()] = v.type();
  std::unordered_map<std::string, KnownTensor> known;
  std::unordered_map<std::string, TensorProto> knownProtos;
  for (const TensorProto &init : graph.initializer()) {
    onnx::TypeProto &type = types[init.name()];
    type.mutable_tensor_type()->set_elem_type(init.data_type());
    auto *shape = type.mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t d : init.dims())
      shape->add_dim()->set_dim_value(d);
    if (auto t = readKnownTensor(init))
      known.emplace(init.name(), std::move(*t));
  }

  auto recordKnown = [&](const std::string &name, KnownTensor value) {
    onnx::TypeProto &type = types[name];
    type.Clear();
    type.mutable_tensor_type()->set_elem_type(value.dataType);
    auto *shape = type.mutable_tensor_type()->mutable_shape();
    for (int64_t d : value.dims)
      shape->add_dim()->set_dim_value(d);
    knownProtos[name] = toProto(value, name);
    known[name] = std::move(value);
  };

  // One pass in topological order (the importer sorted the nodes): each
  // node's inputs are final when it is reached.
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    if (hasSubgraph(node))
      continue; // ONNX's own inference handled its subgraphs
    std::vector<const KnownTensor *> inputs;
    std::vector<Dims> staticShapes(node.input_size());
    std::vector<const Dims *> shapes;
    for (int i = 0; i < node.input_size(); ++i) {
      const std::string &name = node.input(i);
      auto k = known.find(name);
      inputs.push_back(k == known.end() ? nullptr : &k->second);
      auto t = types.find(name);
      std::optional<Dims> s;
      if (t != types.end())
        s = staticShape(t->second);
      if (s)
        staticShapes[i] = *s;
      shapes.push_back(s ? &staticShapes[i] : nullptr);
    }
    auto opset = opsets.find(node.domain());
    if (auto outputs =
            evaluateNode(node, inputs, shapes,
                         opset == opsets.end() ? INT32_MAX : opset->second)) {
      for (int o = 0; o < node.output_size(); ++o)
        recordKnown(node.output(o), std::move((*outputs)[o]));
      continue;
    }

    // Not foldable: run the op's ONNX inference function, now with the
    // folded values as constant inputs.
    if (opset == opsets.end())
      continue;
    const onnx::OpSchema *schema =
        schemas.GetSchema(node.op_type(), opset->second, node.domain());
    if (!schema || !schema->has_type_and_shape_inference_function())
      continue;
    std::unordered_map<std::string, onnx::TypeProto *> inputTypes;
    std::unordered_map<std::string, const TensorProto *> inputData;
    for (const std::string &name : node.input()) {
      if (auto t = types.find(name); t != types.end())
        inputTypes[name] = &t->second;
      if (auto d = knownProtos.find(name); d != knownProtos.end())
        inputData[name] = &d->second;
    }
    onnx::shape_inference::InferenceContextImpl context(node, inputTypes,
                                                        inputData, {});
    try {
      schema->GetTypeAndShapeInferenceFunction()(context);
    } catch (const std::exception &) {
      continue; // keep the types ONNX's whole-graph inference gave
    }
    for (int o = 0; o < node.output_size(); ++o) {
      const onnx::TypeProto &inferred = *context.getOutputType(o);
      if (node.output(o).empty() ||
          inferred.value_case() == onnx::TypeProto::VALUE_NOT_SET)
        continue;
      auto [it, inserted] = types.try_emplace(node.output(o), inferred);
      if (inserted)
        continue;
      try {
        onnx::shape_inference::mergeShapesAndTypes(inferred, &it->second);
      } catch (const std::exception &) {
        // A conflict with the declared type: the declaration stands.
      }
    }
  }

  // Write the refined types back: graph outputs in place, everything else
  // (but inputs and initializers) as value_info.
  std::set<std::string> skip;
  for (const auto &v : graph.input())
    skip.insert(v.name());
  for (const auto &t : graph.initializer())
    skip.insert(t.name());
  for (auto &v : *graph.mutable_output()) {
    if (auto it = types.find(v.name()); it != types.end())
      *v.mutable_type() = it->second;
    skip.insert(v.name());
  }
  graph.clear_value_info();
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &out : node.output()) {
      auto it = types.find(out);
      if (out.empty() || skip.count(out) || it == types.end())
        continue;
      auto *info = graph.add_value_info();
      info->set_name(out);
      *info->mutable_type() = it->second;
    }
}
