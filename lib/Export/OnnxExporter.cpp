//===- OnnxExporter.cpp - The graph dialect back to ONNX ------------------===//
//
// The inverse of the importer. Value names come from where the importer put
// them (argument/result attributes, `output_names`, constant names, yield
// name lists); values without one get a fresh unique name.
//
//===----------------------------------------------------------------------===//

#include "placer/Export/OnnxExporter.h"
#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/StringSet.h"

#include <onnx/onnx_pb.h>

#include <limits>

using namespace mlir;
using namespace placer;
using namespace placer::graph;

namespace {

class Exporter {
public:
  explicit Exporter(func::FuncOp func) : func(func) {}
  LogicalResult run(onnx::ModelProto &model);

private:
  LogicalResult exportBlock(Block &block, onnx::GraphProto &graph);
  LogicalResult exportNode(NodeOp node, onnx::GraphProto &graph);
  LogicalResult exportConstant(ConstantOp op, onnx::GraphProto &graph);
  LogicalResult exportTensor(Operation *op, Attribute value,
                             onnx::TensorProto &tensor);
  LogicalResult exportType(Operation *op, Type type, ArrayAttr dimParams,
                           onnx::TypeProto &proto);
  LogicalResult exportAttribute(NodeOp node, NamedAttribute attr,
                                onnx::AttributeProto &proto);
  void addValueInfo(Value value, onnx::GraphProto &graph);
  void setName(Value value, StringRef name);
  std::string nameOf(Value value);

  func::FuncOp func;
  llvm::DenseMap<Value, std::string> names;
  llvm::StringSet<> usedNames;
  unsigned nextFreshName = 0;
};

} // namespace

void Exporter::setName(Value value, StringRef name) {
  names[value] = name.str();
  usedNames.insert(name);
}

std::string Exporter::nameOf(Value value) {
  if (isa<NoneType>(value.getType()))
    return "";
  auto it = names.find(value);
  if (it != names.end())
    return it->second;
  std::string fresh;
  do {
    fresh = "placer_value_" + std::to_string(nextFreshName++);
  } while (usedNames.contains(fresh));
  setName(value, fresh);
  return fresh;
}

LogicalResult Exporter::exportType(Operation *op, Type type,
                                   ArrayAttr dimParams,
                                   onnx::TypeProto &proto) {
  if (auto shaped = dyn_cast<TensorType>(type)) {
    std::optional<int32_t> dataType = getOnnxDataType(shaped.getElementType());
    if (!dataType)
      return op->emitError("type ") << type << " has no ONNX element type";
    auto *tensor = proto.mutable_tensor_type();
    tensor->set_elem_type(*dataType);
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked)
      return success();
    auto *shape = tensor->mutable_shape();
    for (auto [index, dim] : llvm::enumerate(ranked.getShape())) {
      auto *d = shape->add_dim();
      if (!ShapedType::isDynamic(dim)) {
        d->set_dim_value(dim);
        continue;
      }
      if (dimParams && index < dimParams.size()) {
        StringRef param = cast<StringAttr>(dimParams[index]).getValue();
        if (!param.empty())
          d->set_dim_param(param.str());
      }
    }
    return success();
  }
  if (auto seq = dyn_cast<SequenceType>(type))
    return exportType(op, seq.getElementType(), {},
                      *proto.mutable_sequence_type()->mutable_elem_type());
  if (auto opt = dyn_cast<OptionalType>(type))
    return exportType(op, opt.getElementType(), {},
                      *proto.mutable_optional_type()->mutable_elem_type());
  if (auto map = dyn_cast<MapType>(type)) {
    std::optional<int32_t> key = getOnnxDataType(map.getKeyType());
    if (!key)
      return op->emitError("map key type ") << map.getKeyType()
                                            << " has no ONNX form";
    proto.mutable_map_type()->set_key_type(*key);
    return exportType(op, map.getValueType(), {},
                      *proto.mutable_map_type()->mutable_value_type());
  }
  if (isa<UnknownType>(type))
    return success(); // an empty TypeProto: ONNX's "not known"
  return op->emitError("type ") << type << " has no ONNX form";
}

LogicalResult Exporter::exportTensor(Operation *op, Attribute value,
                                     onnx::TensorProto &tensor) {
  if (auto external = dyn_cast<ExternalDataAttr>(value)) {
    tensor.set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [&](const char *key, std::string v) {
      auto *entry = tensor.add_external_data();
      entry->set_key(key);
      entry->set_value(std::move(v));
    };
    add("location", external.getLocation().str());
    add("offset", std::to_string(external.getOffset()));
    add("length", std::to_string(external.getLength()));
    return success();
  }

  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements)
    return op->emitError("cannot export tensor value ") << value;
  ShapedType type = elements.getShapedType();
  std::optional<int32_t> dataType = getOnnxDataType(type.getElementType());
  if (!dataType)
    return op->emitError("element type ") << type.getElementType()
                                          << " has no ONNX form";
  tensor.set_data_type(*dataType);
  for (int64_t dim : type.getShape())
    tensor.add_dims(dim);

  if (auto strings = dyn_cast<DenseStringElementsAttr>(value)) {
    for (StringRef s : strings.getValues<StringRef>())
      tensor.add_string_data(s.str());
    return success();
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return op->emitError("resource '")
             << resource.getRawHandle().getKey() << "' has no data";
    ArrayRef<char> data = blob->getData();
    tensor.set_raw_data(data.data(), data.size());
    return success();
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    std::string *raw = tensor.mutable_raw_data();
    if (type.getElementType().isInteger(1)) {
      for (bool b : dense.getValues<bool>())
        raw->push_back(b ? 1 : 0);
    } else if (dense.isSplat()) {
      ArrayRef<char> one = dense.getRawData();
      raw->reserve(one.size() * type.getNumElements());
      for (int64_t i = 0; i < type.getNumElements(); ++i)
        raw->append(one.data(), one.size());
    } else {
      ArrayRef<char> data = dense.getRawData();
      raw->assign(data.data(), data.size());
    }
    return success();
  }
  return op->emitError("cannot export elements attribute ") << value;
}

LogicalResult Exporter::exportAttribute(NodeOp node, NamedAttribute attr,
                                        onnx::AttributeProto &proto) {
  using A = onnx::AttributeProto;
  proto.set_name(attr.getName().str());
  Attribute value = attr.getValue();
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    proto.set_type(A::INT);
    proto.set_i(i.getInt());
  } else if (auto f = dyn_cast<FloatAttr>(value)) {
    proto.set_type(A::FLOAT);
    proto.set_f(static_cast<float>(f.getValueAsDouble()));
  } else if (auto s = dyn_cast<StringAttr>(value)) {
    proto.set_type(A::STRING);
    proto.set_s(s.str());
  } else if (auto ints = dyn_cast<DenseI64ArrayAttr>(value)) {
    proto.set_type(A::INTS);
    for (int64_t v : ints.asArrayRef())
      proto.add_ints(v);
  } else if (auto floats = dyn_cast<DenseF32ArrayAttr>(value)) {
    proto.set_type(A::FLOATS);
    for (float v : floats.asArrayRef())
      proto.add_floats(v);
  } else if (auto type = dyn_cast<TypeAttr>(value)) {
    proto.set_type(A::TYPE_PROTO);
    return exportType(node, type.getValue(), {}, *proto.mutable_tp());
  } else if (isa<ElementsAttr>(value)) {
    proto.set_type(A::TENSOR);
    return exportTensor(node, value, *proto.mutable_t());
  } else if (auto array = dyn_cast<ArrayAttr>(value)) {
    if (llvm::all_of(array, llvm::IsaPred<StringAttr>)) {
      proto.set_type(A::STRINGS);
      for (Attribute s : array)
        proto.add_strings(cast<StringAttr>(s).str());
    } else if (llvm::all_of(array, llvm::IsaPred<TypeAttr>)) {
      proto.set_type(A::TYPE_PROTOS);
      for (Attribute t : array)
        if (failed(exportType(node, cast<TypeAttr>(t).getValue(), {},
                              *proto.add_type_protos())))
          return failure();
    } else {
      proto.set_type(A::TENSORS);
      for (Attribute t : array)
        if (failed(exportTensor(node, t, *proto.add_tensors())))
          return failure();
    }
  } else {
    return node.emitError("attribute '")
           << attr.getName().getValue() << "' has no ONNX form";
  }
  return success();
}

void Exporter::addValueInfo(Value value, onnx::GraphProto &graph) {
  Type type = value.getType();
  // ONNX requires a shape in value_info: an unranked value has nothing to say.
  if (isa<NoneType, UnknownType, UnrankedTensorType>(type))
    return;
  onnx::ValueInfoProto info;
  info.set_name(nameOf(value));
  if (succeeded(exportType(value.getDefiningOp() ? value.getDefiningOp()
                                                 : func.getOperation(),
                           type, {}, *info.mutable_type())))
    *graph.add_value_info() = std::move(info);
}

LogicalResult Exporter::exportConstant(ConstantOp op, onnx::GraphProto &graph) {
  setName(op.getResult(), op.getName());
  if (!op.getNode()) {
    onnx::TensorProto *tensor = graph.add_initializer();
    tensor->set_name(op.getName().str());
    if (auto external = dyn_cast<ExternalDataAttr>(op.getValue())) {
      auto type = op.getResult().getType();
      tensor->set_data_type(*getOnnxDataType(type.getElementType()));
      for (int64_t dim : type.getShape())
        tensor->add_dims(dim);
    }
    return exportTensor(op, op.getValue(), *tensor);
  }
  onnx::NodeProto *node = graph.add_node();
  node->set_op_type("Constant");
  node->set_name(op.getNode()->str());
  node->add_output(op.getName().str());
  onnx::AttributeProto *attr = node->add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  return exportTensor(op, op.getValue(), *attr->mutable_t());
}

LogicalResult Exporter::exportNode(NodeOp op, onnx::GraphProto &graph) {
  for (auto [result, name] : llvm::zip(op.getOutputs(), op.getOutputNames()))
    if (!cast<StringAttr>(name).getValue().empty())
      setName(result, cast<StringAttr>(name).getValue());

  onnx::NodeProto *node = graph.add_node();
  node->set_op_type(op.getOpType().str());
  if (!op.getDomain().empty())
    node->set_domain(op.getDomain().str());
  if (!op.getName().empty())
    node->set_name(op.getName().str());
  for (Value input : op.getInputs())
    node->add_input(nameOf(input));
  for (Value result : op.getOutputs())
    node->add_output(nameOf(result));
  for (NamedAttribute attr : op.getAttrs())
    if (failed(exportAttribute(op, attr, *node->add_attribute())))
      return failure();

  if (auto subgraphs = op.getSubgraphs()) {
    for (auto [name, region] : llvm::zip(*subgraphs, op.getBodies())) {
      onnx::AttributeProto *attr = node->add_attribute();
      attr->set_name(cast<StringAttr>(name).str());
      attr->set_type(onnx::AttributeProto::GRAPH);
      if (failed(exportBlock(region.front(), *attr->mutable_g())))
        return failure();
    }
  }
  for (Value result : op.getOutputs())
    addValueInfo(result, graph);
  return success();
}

LogicalResult Exporter::exportBlock(Block &block, onnx::GraphProto &graph) {
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (yield) {
    graph.set_name(yield.getGraphName().str());
    for (auto [arg, name] :
         llvm::zip(block.getArguments(), yield.getInputNames())) {
      setName(arg, cast<StringAttr>(name).getValue());
      onnx::ValueInfoProto *input = graph.add_input();
      input->set_name(cast<StringAttr>(name).str());
      if (failed(exportType(yield, arg.getType(), {}, *input->mutable_type())))
        return failure();
    }
  }
  for (Operation &op : block.without_terminator()) {
    LogicalResult result =
        llvm::TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](NodeOp node) { return exportNode(node, graph); })
            .Case([&](ConstantOp c) { return exportConstant(c, graph); })
            .Case([&](NoneOp) { return success(); })
            .Default([&](Operation *other) {
              return other->emitError("op has no ONNX form; only graph "
                                      "dialect ops can be exported");
            });
    if (failed(result))
      return failure();
  }
  if (yield) {
    for (auto [value, name] :
         llvm::zip(yield.getValues(), yield.getOutputNames())) {
      onnx::ValueInfoProto *output = graph.add_output();
      // ONNX names a subgraph output by the value it returns; a returned
      // value of another name needs an Identity to carry the output name.
      std::string valueName = nameOf(value);
      StringRef outName = cast<StringAttr>(name).getValue();
      if (valueName != outName) {
        onnx::NodeProto *identity = graph.add_node();
        identity->set_op_type("Identity");
        identity->add_input(valueName);
        identity->add_output(outName.str());
      }
      output->set_name(outName.str());
      if (failed(exportType(yield, value.getType(), {},
                            *output->mutable_type())))
        return failure();
    }
  }
  return success();
}

LogicalResult Exporter::run(onnx::ModelProto &model) {
  ModuleOp module = func->getParentOfType<ModuleOp>();
  if (!module)
    return func.emitError("cannot export a function outside a module");

  model.set_ir_version(8); // ONNX 1.12 writes IR version 8
  if (auto ir = module->getAttrOfType<IntegerAttr>(attrs::kIrVersion))
    model.set_ir_version(ir.getInt());
  if (auto producer = module->getAttrOfType<StringAttr>(attrs::kProducerName))
    model.set_producer_name(producer.str());
  if (auto v = module->getAttrOfType<StringAttr>(attrs::kProducerVersion))
    model.set_producer_version(v.str());

  // Opsets: the module's record, else the versions its nodes carry.
  std::map<std::string, int64_t> opsets;
  if (auto imports = module->getAttrOfType<DictionaryAttr>(attrs::kOpsetImport)) {
    for (NamedAttribute entry : imports) {
      StringRef domain = entry.getName().getValue();
      opsets[domain == attrs::kDefaultDomainKey ? "" : domain.str()] =
          cast<IntegerAttr>(entry.getValue()).getInt();
    }
  } else {
    func.walk([&](NodeOp node) {
      int64_t &version = opsets[node.getDomain().str()];
      version = std::max<int64_t>(version, node.getVersion());
    });
  }
  for (auto &[domain, version] : opsets) {
    auto *opset = model.add_opset_import();
    opset->set_domain(domain);
    opset->set_version(version);
  }

  onnx::GraphProto &graph = *model.mutable_graph();
  if (auto name = func->getAttrOfType<StringAttr>(attrs::kGraphName))
    graph.set_name(name.str());
  else
    graph.set_name(func.getSymName().str());

  Block &entry = func.getBody().front();
  for (auto [index, arg] : llvm::enumerate(entry.getArguments())) {
    auto name = func.getArgAttrOfType<StringAttr>(index, attrs::kValueName);
    std::string argName =
        name ? name.str() : "input_" + std::to_string(index);
    setName(arg, argName);
    onnx::ValueInfoProto *input = graph.add_input();
    input->set_name(argName);
    if (failed(exportType(func, arg.getType(),
                          func.getArgAttrOfType<ArrayAttr>(index,
                                                           attrs::kDimParams),
                          *input->mutable_type())))
      return failure();
  }

  if (failed(exportBlock(entry, graph)))
    return failure();

  // Initializers that were graph inputs with a default (IR version < 4).
  if (auto defaults = func->getAttrOfType<ArrayAttr>("graph.input_initializers")) {
    for (Attribute name : defaults) {
      auto it = llvm::find_if(entry.getOps<ConstantOp>(), [&](ConstantOp c) {
        return c.getName() == cast<StringAttr>(name).getValue();
      });
      if (it == entry.getOps<ConstantOp>().end())
        continue;
      onnx::ValueInfoProto *input = graph.add_input();
      input->set_name(cast<StringAttr>(name).str());
      if (failed(exportType(func, (*it).getResult().getType(), {},
                            *input->mutable_type())))
        return failure();
    }
  }

  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    auto name = func.getResultAttrOfType<StringAttr>(index, attrs::kValueName);
    std::string valueName = nameOf(value);
    std::string outName = name ? name.str() : valueName;
    if (outName != valueName) {
      onnx::NodeProto *identity = graph.add_node();
      identity->set_op_type("Identity");
      identity->add_input(valueName);
      identity->add_output(outName);
    }
    onnx::ValueInfoProto *output = graph.add_output();
    output->set_name(outName);
    if (failed(exportType(
            func, value.getType(),
            func.getResultAttrOfType<ArrayAttr>(index, attrs::kDimParams),
            *output->mutable_type())))
      return failure();
  }

  // Graph outputs are described by graph.output; value_info must not repeat
  // them.
  llvm::StringSet<> outputNames;
  for (const auto &output : graph.output())
    outputNames.insert(output.name());
  auto *infos = graph.mutable_value_info();
  infos->erase(std::remove_if(infos->begin(), infos->end(),
                              [&](const onnx::ValueInfoProto &info) {
                                return outputNames.contains(info.name());
                              }),
               infos->end());
  return success();
}

LogicalResult placer::exportOnnxFunction(func::FuncOp func,
                                         llvm::raw_ostream &os) {
  onnx::ModelProto model;
  if (failed(Exporter(func).run(model)))
    return failure();
  size_t size = model.ByteSizeLong();
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
    return func.emitError("the model would be ")
           << size << " bytes, over protobuf's 2 GiB limit";
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return func.emitError("protobuf failed to serialize the model");
  os << bytes;
  return success();
}

LogicalResult placer::exportOnnxModule(ModuleOp module, llvm::raw_ostream &os) {
  auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
  func::FuncOp main;
  for (func::FuncOp f : funcs)
    if (f.getSymName() == "main_graph")
      main = f;
  if (!main && funcs.size() == 1)
    main = funcs.front();
  if (!main)
    return module.emitError("expected a function @main_graph or exactly one "
                            "function to export, found ")
           << funcs.size();
  return exportOnnxFunction(main, os);
}
