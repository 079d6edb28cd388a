//===- OnnxExporter.cpp - The graph dialect back to ONNX ------------------===//
//
// The inverse of the importer. Value names come from where the importer put
// them (argument/result attributes, `output_names`, constant names, yield
// name lists); values without one get a fresh unique name.
//
//===----------------------------------------------------------------------===//

#include "placer/Export/OnnxExporter.h"
#include "placer/Analysis/Cluster.h"
#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "mlir/IR/SymbolTable.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <limits>
#include <map>

using namespace mlir;
using namespace placer;
using namespace placer::graph;

namespace {

/// Where an external tensor goes in the exported model: its new reference,
/// or failure (diagnosed). The identity when a model is exported whole.
using RelocateFn =
    std::function<FailureOr<ExternalDataAttr>(Operation *, ExternalDataAttr)>;

/// The domain of a tensor-parallel group's collectives in exported stages.
constexpr llvm::StringLiteral kCollectiveDomain = "ai.placer.dist";

class Exporter {
public:
  /// `channelNames` names the tensor each channel carries, for exporting a
  /// stage of a split program: its recvs become graph inputs and its sends
  /// graph outputs.
  explicit Exporter(func::FuncOp func,
                    const std::map<int64_t, std::string> *channelNames = nullptr,
                    RelocateFn relocate = nullptr,
                    std::optional<int64_t> stageDevice = std::nullopt)
      : func(func), channelNames(channelNames), relocate(std::move(relocate)),
        stageDevice(stageDevice) {}
  LogicalResult run(onnx::ModelProto &model);

private:
  LogicalResult exportBlock(Block &block, onnx::GraphProto &graph);
  LogicalResult exportNode(NodeOp node, onnx::GraphProto &graph);
  template <typename Op>
  LogicalResult exportCollective(Op op, onnx::GraphProto &graph);
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
  const std::map<int64_t, std::string> *channelNames;
  /// Moves external tensors (a stage carries its own weights).
  RelocateFn relocate;
  /// The device of the stage being exported: a Constant node replicated
  /// from another device's stage becomes an initializer here, so that each
  /// ONNX node appears in exactly one stage.
  std::optional<int64_t> stageDevice;
  /// Tensors a stage sends, in order: graph outputs too.
  std::vector<std::pair<Value, Location>> sent;
  llvm::DenseMap<Value, std::string> names;
  llvm::StringSet<> usedNames;
  unsigned nextFreshName = 0;
  /// Whether a collective was exported (its domain needs an opset).
  bool usesCollectives = false;
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
    if (relocate) {
      FailureOr<ExternalDataAttr> moved = relocate(op, external);
      if (failed(moved))
        return failure();
      external = *moved;
    }
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

/// The dim names of a node's output (output_dims), or null.
static ArrayAttr getOutputDims(Value value) {
  auto node = value.getDefiningOp<NodeOp>();
  std::optional<ArrayAttr> dims = node ? node.getOutputDims() : std::nullopt;
  if (!dims)
    return {};
  return cast<ArrayAttr>((*dims)[cast<OpResult>(value).getResultNumber()]);
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
                           type, getOutputDims(value), *info.mutable_type())))
    *graph.add_value_info() = std::move(info);
}

LogicalResult Exporter::exportConstant(ConstantOp op, onnx::GraphProto &graph) {
  setName(op.getResult(), op.getName());
  std::optional<int64_t> home = getDevice(op);
  bool replica = stageDevice && home && *home != *stageDevice;
  if (!op.getNode() || replica) {
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

/// A collective of a tensor-parallel group as a node of Placer's own domain
/// (kCollectiveDomain: AllReduce with `group`, AllGather with `group` and
/// `axis`), which no other runtime runs: the stage's model says plainly
/// where its group communicates, rather than leaving the node out.
template <typename Op>
LogicalResult Exporter::exportCollective(Op op, onnx::GraphProto &graph) {
  if (op.getBuffer())
    return op.emitError("a bufferized collective has no ONNX form");
  onnx::NodeProto *node = graph.add_node();
  node->set_domain(kCollectiveDomain.str());
  node->set_op_type(std::is_same_v<Op, dist::AllReduceOp> ? "AllReduce"
                                                          : "AllGather");
  node->add_input(nameOf(op.getValue()));
  node->add_output(nameOf(op.getResult()));
  onnx::AttributeProto *group = node->add_attribute();
  group->set_name("group");
  group->set_type(onnx::AttributeProto::INTS);
  for (int64_t device : op.getGroup())
    group->add_ints(device);
  if constexpr (std::is_same_v<Op, dist::AllGatherOp>) {
    onnx::AttributeProto *axis = node->add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(static_cast<int64_t>(op.getAxis()));
  }
  usesCollectives = true;
  addValueInfo(op.getResult(), graph);
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
            .Case([&](dist::RecvOp recv) -> LogicalResult {
              if (!channelNames)
                return recv.emitError("a recv only exports as a stage input "
                                      "of a split program");
              auto it = channelNames->find(recv.getChannel());
              if (it == channelNames->end())
                return recv.emitError("receives on channel ")
                       << recv.getChannel() << ", which no stage sends on";
              setName(recv.getResult(), it->second);
              onnx::ValueInfoProto *input = graph.add_input();
              input->set_name(it->second);
              return exportType(recv, recv.getTransferType(), {},
                                *input->mutable_type());
            })
            .Case([&](dist::SendOp send) -> LogicalResult {
              if (!channelNames)
                return send.emitError("a send only exports as a stage output "
                                      "of a split program");
              sent.emplace_back(send.getValue(), send.getLoc());
              return success();
            })
            .Case<dist::AllReduceOp, dist::AllGatherOp>(
                [&](auto collective) { return exportCollective(collective, graph); })
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
      if (failed(exportType(yield, value.getType(), getOutputDims(value),
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

  // A stage's sent tensors are outputs too (once, however many receivers).
  for (auto &[value, loc] : sent) {
    std::string name = nameOf(value);
    if (llvm::any_of(graph.output(), [&](const onnx::ValueInfoProto &o) {
          return o.name() == name;
        }))
      continue;
    onnx::ValueInfoProto *output = graph.add_output();
    output->set_name(name);
    if (failed(exportType(func, value.getType(), {}, *output->mutable_type())))
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
  if (usesCollectives &&
      llvm::none_of(model.opset_import(), [](const auto &opset) {
        return opset.domain() == kCollectiveDomain;
      })) {
    auto *opset = model.add_opset_import();
    opset->set_domain(kCollectiveDomain.str());
    opset->set_version(1);
  }
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
    return mlir::emitError(module->getLoc(),
                           "expected a function @main_graph or exactly one "
                           "function to export, found ")
           << funcs.size();
  return exportOnnxFunction(main, os);
}

//===----------------------------------------------------------------------===//
// Stages of a split program
//===----------------------------------------------------------------------===//

/// The ONNX name of a value in a stage function, as the exporter gives it.
static std::string tensorName(Value value, int64_t channel) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (func)
      if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                        attrs::kValueName))
        return name.str();
  } else if (auto node = value.getDefiningOp<NodeOp>()) {
    auto index = cast<OpResult>(value).getResultNumber();
    StringRef name = cast<StringAttr>(node.getOutputNames()[index]).getValue();
    if (!name.empty())
      return name.str();
  } else if (auto constant = value.getDefiningOp<ConstantOp>()) {
    return constant.getName().str();
  }
  return "placer_channel_" + std::to_string(channel);
}

namespace {
/// One stage's data file: the bytes of every external tensor the stage
/// uses, copied from the model's data files, each at a 64-byte aligned
/// offset. Without weights (`weightless`) only the layout is computed.
struct StageData {
  ModuleOp module;
  std::string file;
  bool weightless;
  std::string bytes;
  int64_t size = 0;

  FailureOr<ExternalDataAttr> add(Operation *op, ExternalDataAttr source) {
    auto constant = dyn_cast<ConstantOp>(op);
    StringRef name = constant ? constant.getName() : StringRef("tensor");
    int64_t offset = llvm::alignTo(size, 64);
    size = offset + source.getLength();
    if (!weightless) {
      auto data = graph::readExternalData(module, source, name);
      if (!data)
        return op->emitError(llvm::toString(data.takeError()))
               << " (a --shapes-only import? --weightless-stages exports "
                  "stages without weights)";
      bytes.resize(offset, '\0');
      bytes.append((*data)->getBufferStart(), (*data)->getBufferSize());
    }
    return ExternalDataAttr::get(op->getContext(), file, offset,
                                 source.getLength());
  }
};
} // namespace

/// Moves the weights a stage keeps in `data` into its initializers' raw
/// bytes, so that the model stands alone in memory.
static void embedWeights(onnx::ModelProto &model, const StageData &data) {
  for (onnx::TensorProto &tensor :
       *model.mutable_graph()->mutable_initializer()) {
    if (tensor.data_location() != onnx::TensorProto::EXTERNAL)
      continue;
    std::string location;
    int64_t offset = 0, length = 0;
    for (const auto &entry : tensor.external_data()) {
      if (entry.key() == "location")
        location = entry.value();
      else if (entry.key() == "offset")
        offset = std::stoll(entry.value());
      else if (entry.key() == "length")
        length = std::stoll(entry.value());
    }
    // Only this stage's own file: StageData laid it out, offsets are ours.
    if (location != data.file)
      continue;
    tensor.set_raw_data(data.bytes.substr(offset, length));
    tensor.clear_external_data();
    tensor.set_data_location(onnx::TensorProto::DEFAULT);
  }
}

FailureOr<std::vector<StageFile>>
placer::exportOnnxStageFiles(ModuleOp module, const StageExportOptions &options) {
  bool weightless = options.weightless;
  auto programs = llvm::to_vector(module.getOps<dist::ProgramOp>());
  if (programs.size() != 1)
    return mlir::emitError(module->getLoc(),
                           "--export-onnx-stages needs a module split by "
                           "--placer-split-devices (one dist.program), found ")
           << programs.size();
  dist::ProgramOp program = programs.front();
  std::optional<Cluster> cluster;
  if (ClusterAttr attr = getCluster(module))
    cluster = attr.getCluster();

  SmallVector<func::FuncOp> stages;
  std::map<int64_t, std::string> channelNames;
  std::map<int64_t, size_t> senderStage, receiverStage;
  for (auto [index, ref] : llvm::enumerate(program.getStages())) {
    auto stage = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        program, cast<SymbolRefAttr>(ref));
    if (!stage)
      return program.emitError("stage ") << ref << " is not a function";
    stages.push_back(stage);
    stage.walk([&](dist::SendOp send) {
      channelNames[send.getChannel()] =
          tensorName(send.getValue(), send.getChannel());
      senderStage[send.getChannel()] = index;
    });
    stage.walk([&](dist::RecvOp recv) {
      receiverStage[recv.getChannel()] = index;
    });
  }

  // Build everything in memory first: nothing is written unless all stages
  // export.
  std::vector<StageFile> files;
  llvm::json::Array stageJson;
  std::map<std::string, std::vector<int64_t>> inputReaders;
  llvm::json::Array outputsJson;
  for (auto [index, stage] : llvm::enumerate(stages)) {
    onnx::ModelProto model;
    int64_t device = program.getDevices()[index];
    std::string base = "stage" + std::to_string(index) + "_device" +
                       std::to_string(device);
    StageData data{module, base + ".data", weightless};
    auto relocate = [&](Operation *op, ExternalDataAttr source) {
      return data.add(op, source);
    };
    if (failed(Exporter(stage, &channelNames, relocate, device).run(model)))
      return failure();
    bool embed = options.embedWeights && !weightless && data.size > 0;
    if (embed)
      embedWeights(model, data);
    std::string file = base + ".onnx";
    std::string bytes;
    if (!model.SerializeToString(&bytes))
      return stage.emitError("protobuf failed to serialize the stage");
    files.emplace_back(file, std::move(bytes));
    llvm::json::Array inputs, outputs;
    for (const auto &input : model.graph().input())
      inputs.push_back(input.name());
    for (const auto &output : model.graph().output())
      outputs.push_back(output.name());
    for (unsigned i = 0; i < stage.getNumArguments(); ++i)
      if (auto name = stage.getArgAttrOfType<StringAttr>(i, attrs::kValueName))
        inputReaders[name.str()].push_back(index);
    for (unsigned i = 0; i < stage.getNumResults(); ++i) {
      auto name = stage.getResultAttrOfType<StringAttr>(i, attrs::kValueName);
      if (!name)
        continue;
      llvm::json::Object output{{"name", name.str()},
                                {"stage", static_cast<int64_t>(index)}};
      // A training state's next value on one more device (equal to the
      // first's), or one member's slice of it: never mistaken for the
      // whole state.
      if (stage.getResultAttr(i, kReplicaAttrName))
        output["replica"] = true;
      if (auto shard = stage.getResultAttrOfType<ShardAttr>(i, kShardAttrName))
        output["shard"] =
            llvm::json::Object{{"axis", shard.getAxis()},
                               {"blocks", shard.getBlocks()},
                               {"index", shard.getIndex()},
                               {"group", llvm::json::Array(shard.getGroup())}};
      outputsJson.push_back(std::move(output));
    }
    llvm::json::Object entry{{"stage", static_cast<int64_t>(index)},
                             {"device", device},
                             {"model", file},
                             {"inputs", std::move(inputs)},
                             {"outputs", std::move(outputs)}};
    // The device's kind, where the module says (devices may differ).
    if (cluster)
      entry["kind"] =
          cluster->getKinds()[cluster->getKindOfDevice(device)].name;
    // A replicated stage: every device that runs this model, copy i taking
    // the microbatches m with m mod r = i.
    if (SmallVector<int64_t> runners = program.getStageDevices(index);
        runners.size() > 1)
      entry["replica_devices"] = llvm::json::Array(runners);
    if (data.size > 0 && !embed) {
      entry["weights"] = llvm::json::Object{{"file", data.file},
                                            {"bytes", data.size},
                                            {"written", !weightless}};
      if (!weightless)
        files.emplace_back(data.file, std::move(data.bytes));
    }
    stageJson.push_back(std::move(entry));
  }
  llvm::json::Array inputsJson;
  for (auto &[name, readers] : inputReaders)
    inputsJson.push_back(llvm::json::Object{
        {"name", name}, {"stages", llvm::json::Array(readers)}});
  llvm::json::Array transfers;
  for (Attribute attr : program.getChannels()) {
    auto channel = cast<dist::ChannelAttr>(attr);
    int64_t id = channel.getId();
    transfers.push_back(llvm::json::Object{
        {"channel", id},
        {"tensor", channelNames[id]},
        {"from_stage", static_cast<int64_t>(senderStage[id])},
        {"to_stage", static_cast<int64_t>(receiverStage[id])},
        {"from_device", channel.getFrom()},
        {"to_device", channel.getTo()}});
  }
  llvm::json::Object manifest{
      {"graph", program.getGraph().str()},
      {"stages", std::move(stageJson)},
      {"graph_inputs", std::move(inputsJson)},
      {"graph_outputs", std::move(outputsJson)},
      {"transfers", std::move(transfers)}};
  std::string manifestText;
  llvm::raw_string_ostream os(manifestText);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  files.emplace_back("manifest.json", std::move(manifestText));
  return files;
}

LogicalResult placer::exportOnnxStages(ModuleOp module, StringRef dir,
                                      bool weightless) {
  StageExportOptions options;
  options.weightless = weightless;
  FailureOr<std::vector<StageFile>> files =
      exportOnnxStageFiles(module, options);
  if (failed(files))
    return failure();
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return mlir::emitError(module->getLoc(), "cannot create '")
           << dir << "': " << ec.message();
  std::vector<std::string> written;
  for (auto &[name, bytes] : *files) {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    if (!ec) {
      out << bytes;
      out.close();
      ec = out.error();
    }
    if (ec) {
      for (const std::string &done : written)
        llvm::sys::fs::remove(done);
      llvm::sys::fs::remove(path);
      return mlir::emitError(module->getLoc(), "cannot write '")
             << path << "': " << ec.message();
    }
    written.push_back(path.str().str());
  }
  return success();
}
