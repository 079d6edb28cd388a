//===- OnnxImporterTest.cpp - Import and export through the C++ API -------===//
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Export/OnnxExporter.h"
#include "placer/Import/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

using namespace mlir;
using namespace placer;
using namespace placer::graph;

namespace {

/// x[2,3] -> MatMul(w[3,4]) -> Relu -> y, built with the protobuf API.
onnx::ModelProto makeMatMulRelu() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto *graph = model.mutable_graph();
  graph->set_name("mm");
  auto addTensorInfo = [](onnx::ValueInfoProto *info, const char *name,
                          std::initializer_list<int64_t> dims) {
    info->set_name(name);
    auto *tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      tensor->mutable_shape()->add_dim()->set_dim_value(d);
  };
  addTensorInfo(graph->add_input(), "x", {2, 3});
  addTensorInfo(graph->add_output(), "y", {2, 4});
  onnx::TensorProto *w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  w->add_dims(4);
  for (int i = 0; i < 12; ++i)
    w->add_float_data(static_cast<float>(i));
  onnx::NodeProto *mm = graph->add_node();
  mm->set_name("matmul");
  mm->set_op_type("MatMul");
  mm->add_input("x");
  mm->add_input("w");
  mm->add_output("h");
  onnx::NodeProto *relu = graph->add_node();
  relu->set_name("relu");
  relu->set_op_type("Relu");
  relu->add_input("h");
  relu->add_output("y");
  return model;
}

class OnnxImporterTest : public ::testing::Test {
protected:
  OnnxImporterTest() {
    context.loadDialect<GraphDialect, func::FuncDialect>();
  }

  OwningOpRef<ModuleOp> importModel(const onnx::ModelProto &model,
                                    const OnnxImportOptions &options = {}) {
    std::string bytes = model.SerializeAsString();
    return importOnnxBuffer(bytes, "test.onnx", ".", &context, options);
  }

  MLIRContext context;
};

TEST_F(OnnxImporterTest, BuildsOneOpPerNodeWithInferredTypes) {
  OwningOpRef<ModuleOp> module = importModel(makeMatMulRelu());
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  EXPECT_EQ(func.getSymName(), "main_graph");

  SmallVector<NodeOp> nodes(func.getOps<NodeOp>());
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].getOpType(), "MatMul");
  EXPECT_EQ(nodes[0].getName(), "matmul");
  // The intermediate value had no declared type: shape inference gave it.
  auto hType = cast<RankedTensorType>(nodes[0].getOutputs()[0].getType());
  EXPECT_EQ(hType.getShape(), ArrayRef<int64_t>({2, 4}));
  EXPECT_EQ(nodes[1].getOpType(), "Relu");
  EXPECT_EQ(nodes[1].getInputs()[0], nodes[0].getOutputs()[0]);

  auto constants = SmallVector<ConstantOp>(func.getOps<ConstantOp>());
  ASSERT_EQ(constants.size(), 1u);
  auto weights = cast<DenseElementsAttr>(constants[0].getValue());
  EXPECT_EQ(weights.getValues<float>()[11], 11.0f);
}

TEST_F(OnnxImporterTest, ErrorsBecomeDiagnosticsNamingTheNode) {
  onnx::ModelProto model = makeMatMulRelu();
  model.mutable_graph()->mutable_node(1)->set_input(0, "missing");
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  EXPECT_FALSE(importModel(model));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0],
            "node 'relu' (Relu): input 'missing' is not produced by any node, "
            "graph input or initializer");
}

TEST_F(OnnxImporterTest, CorruptBytesAreAnErrorNotACrash) {
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  std::string bytes = makeMatMulRelu().SerializeAsString();
  // Every prefix of a valid model: none may crash, each must either import
  // or fail with a diagnostic.
  for (size_t length = 0; length < bytes.size(); ++length) {
    messages.clear();
    OwningOpRef<ModuleOp> module = importOnnxBuffer(
        StringRef(bytes.data(), length), "cut.onnx", ".", &context);
    if (!module) {
      EXPECT_FALSE(messages.empty()) << "prefix of " << length << " bytes";
    }
  }
}

TEST_F(OnnxImporterTest, ExportThenImportIsIdentity) {
  OwningOpRef<ModuleOp> first = importModel(makeMatMulRelu());
  ASSERT_TRUE(first);
  std::string exported;
  llvm::raw_string_ostream os(exported);
  ASSERT_TRUE(succeeded(exportOnnxModule(*first, os)));

  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(exported));
  EXPECT_EQ(model.graph().node_size(), 2);
  EXPECT_EQ(model.graph().initializer_size(), 1);
  EXPECT_EQ(model.graph().initializer(0).raw_data().size(), 48u);

  OwningOpRef<ModuleOp> second = importModel(model);
  ASSERT_TRUE(second);
  std::string a, b;
  llvm::raw_string_ostream osA(a), osB(b);
  first->print(osA);
  second->print(osB);
  EXPECT_EQ(a, b);
}

TEST_F(OnnxImporterTest, DimBindingMakesTypesStatic) {
  onnx::ModelProto model = makeMatMulRelu();
  auto *dim = model.mutable_graph()
                  ->mutable_input(0)
                  ->mutable_type()
                  ->mutable_tensor_type()
                  ->mutable_shape()
                  ->mutable_dim(0);
  dim->set_dim_param("batch");
  // The output's batch dim too: the model must stay consistent.
  model.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_param("batch");
  OnnxImportOptions options;
  options.dimBindings.push_back({"batch", 5});
  OwningOpRef<ModuleOp> module = importModel(model, options);
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  auto argType = cast<RankedTensorType>(func.getArgument(0).getType());
  EXPECT_EQ(argType.getShape(), ArrayRef<int64_t>({5, 3}));
  auto node = *func.getOps<NodeOp>().begin();
  EXPECT_EQ(cast<RankedTensorType>(node.getOutputs()[0].getType()).getShape(),
            ArrayRef<int64_t>({5, 4}));
}

} // namespace
