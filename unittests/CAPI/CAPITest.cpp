//===- CAPITest.cpp - The C API, end to end -------------------------------===//
//
// Links libPlacerCAPI alone (no static Placer library beside it), as a C
// program would, and runs under the sanitizers too, where the Python suite
// that also goes through the C API cannot.
//
//===----------------------------------------------------------------------===//

#include "placer-c/Dialects.h"
#include "placer-c/Placer.h"
#include "placer-c/Runtime.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

const char *kModel = PLACER_SOURCE_DIR "/examples/mlp4.onnx";

/// Literals and strings that outlive the call.
MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }
MlirStringRef str(const std::string &s) {
  return mlirStringRefCreate(s.data(), s.size());
}

/// The message of a failed status (destroyed), or "" on success.
std::string messageOf(PlacerStatus status) {
  MlirStringRef message = placerStatusGetMessage(status);
  std::string text(message.data, message.length);
  placerStatusDestroy(status);
  return text;
}

using Reports = std::vector<std::pair<std::string, std::string>>;

void collect(MlirStringRef pass, MlirStringRef json, void *userData) {
  static_cast<Reports *>(userData)->emplace_back(
      std::string(pass.data, pass.length), std::string(json.data, json.length));
}

class CAPITest : public ::testing::Test {
protected:
  void SetUp() override {
    context = placerContextCreate();
    PlacerImportOptions options = placerImportOptionsGetDefault();
    options.dims = str("batch=8");
    ASSERT_EQ(messageOf(placerImportOnnxFile(context, str(kModel), options,
                                             &module)),
              "");
  }
  void TearDown() override {
    mlirModuleDestroy(module);
    mlirContextDestroy(context);
  }
  MlirModule partitioned(const std::string &pipeline, Reports &reports) {
    MlirModule copy = mlirModuleFromOperation(
        mlirOperationClone(mlirModuleGetOperation(module)));
    EXPECT_EQ(messageOf(placerRunPassPipeline(copy, str(pipeline), collect,
                                              &reports)),
              "");
    return copy;
  }
  /// Runs `m` on x[8, 32] (0.01 * i) and returns y.
  std::vector<float> run(MlirModule m) {
    PlacerSession session;
    EXPECT_EQ(messageOf(placerSessionCreate(
                  m, placerSessionOptionsGetDefault(), &session)),
              "");
    std::vector<float> x(8 * 32), y(8 * 32);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = 0.01f * float(i % 97) - 0.4f;
    int64_t shape[] = {8, 32};
    PlacerTensor in{str(""), str("f32"), 2, shape, x.data()};
    PlacerTensor out{str(""), str("f32"), 2, shape, y.data()};
    EXPECT_EQ(messageOf(placerSessionRun(session, &in, 1, &out, 1)), "");
    placerSessionDestroy(session);
    return y;
  }

  MlirContext context;
  MlirModule module;
};

TEST_F(CAPITest, DialectHandlesNameTheirNamespaces) {
  MlirStringRef graph =
      mlirDialectHandleGetNamespace(mlirGetDialectHandle__graph__());
  MlirStringRef dist =
      mlirDialectHandleGetNamespace(mlirGetDialectHandle__dist__());
  EXPECT_EQ(std::string(graph.data, graph.length), "graph");
  EXPECT_EQ(std::string(dist.data, dist.length), "dist");
}

TEST_F(CAPITest, ImportErrorsNameTheFileAndTheBinding) {
  PlacerImportOptions options = placerImportOptionsGetDefault();
  MlirModule unused;
  std::string missing = messageOf(placerImportOnnxFile(
      context, str("/nonexistent/model.onnx"), options, &unused));
  EXPECT_NE(missing.find("/nonexistent/model.onnx"), std::string::npos)
      << missing;
  options.dims = str("batch");
  std::string dims = messageOf(
      placerImportOnnxFile(context, str(kModel), options, &unused));
  EXPECT_NE(dims.find("dims: "), std::string::npos) << dims;
  std::string bytes = messageOf(placerImportOnnxBytes(
      context, str("not a model"), str("."), placerImportOptionsGetDefault(),
      &unused));
  EXPECT_NE(bytes.find("error"), std::string::npos) << bytes;
}

TEST_F(CAPITest, PipelineReportsComeInOrder) {
  Reports reports;
  MlirModule split = partitioned(
      "placer-estimate-costs,placer-place-devices{devices=2},"
      "placer-split-devices,placer-simulate{microbatches=4}",
      reports);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].first, "placer-place-devices");
  EXPECT_NE(reports[0].second.find("\"accelerators\":2"), std::string::npos);
  EXPECT_NE(reports[0].second.find("\"optimal\":true"), std::string::npos);
  EXPECT_EQ(reports[1].first, "placer-simulate");
  EXPECT_NE(reports[1].second.find("\"microbatches\":4"), std::string::npos);
  mlirModuleDestroy(split);
}

TEST_F(CAPITest, PartitionDevicesAndAnchoredTextAgree) {
  Reports bare, anchored;
  MlirModule a = partitioned("partition-devices{devices=4}", bare);
  MlirModule b =
      partitioned("builtin.module(partition-devices{devices=4})", anchored);
  ASSERT_EQ(bare.size(), 1u);
  ASSERT_EQ(anchored.size(), 1u);
  // The same placement (the solver's seconds differ).
  auto parse = [](const std::string &text) {
    llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
    EXPECT_TRUE(bool(json));
    return json ? std::move(*json) : llvm::json::Value(nullptr);
  };
  llvm::json::Value one = parse(bare[0].second), two = parse(anchored[0].second);
  EXPECT_EQ(*one.getAsObject()->get("assignment"),
            *two.getAsObject()->get("assignment"));
  EXPECT_EQ(one.getAsObject()->getInteger("accelerators"), 4);
  // The 25 ONNX nodes, not the function's return: in a shared library,
  // MLIR's TypeIDs (IsTerminator) must be libMLIR.so's.
  const llvm::json::Object *assignment =
      one.getAsObject()->getObject("assignment");
  ASSERT_TRUE(assignment);
  EXPECT_EQ(assignment->size(), 25u);
  EXPECT_FALSE(assignment->get("func.return"));
  EXPECT_EQ(one.getAsObject()->getNumber("max_load"),
            two.getAsObject()->getNumber("max_load"));
  mlirModuleDestroy(a);
  mlirModuleDestroy(b);
}

TEST_F(CAPITest, BadPipelinesAreErrors) {
  std::string unknown = messageOf(
      placerRunPassPipeline(module, str("no-such-pass"), nullptr, nullptr));
  EXPECT_NE(unknown.find("no-such-pass"), std::string::npos) << unknown;
  std::string option = messageOf(placerRunPassPipeline(
      module, str("partition-devices{devices=1000}"), nullptr, nullptr));
  EXPECT_NE(option.find("the cluster has"), std::string::npos) << option;
}

TEST_F(CAPITest, StagesAndSimulation) {
  Reports reports;
  MlirModule split = partitioned("partition-devices{devices=4}", reports);
  std::vector<std::string> names;
  auto file = [](MlirStringRef name, MlirStringRef bytes, void *userData) {
    if (bytes.length > 0)
      static_cast<std::vector<std::string> *>(userData)->emplace_back(
          name.data, name.length);
  };
  ASSERT_EQ(messageOf(placerExportOnnxStages(split, true, file, &names)), "");
  EXPECT_EQ(names, (std::vector<std::string>{
                       "stage0_device0.onnx", "stage1_device1.onnx",
                       "stage2_device2.onnx", "stage3_device3.onnx",
                       "manifest.json"}));
  std::string json;
  auto append = [](MlirStringRef text, void *userData) {
    static_cast<std::string *>(userData)->append(text.data, text.length);
  };
  ASSERT_EQ(messageOf(placerSimulate(split, 8, append, &json)), "");
  EXPECT_NE(json.find("\"microbatches\":8"), std::string::npos);
  EXPECT_NE(json.find("\"bubble_fraction\""), std::string::npos);
  std::string unsplit = messageOf(placerSimulate(module, 8, append, &json));
  EXPECT_NE(unsplit.find("split"), std::string::npos) << unsplit;
  mlirModuleDestroy(split);
}

TEST_F(CAPITest, SplitRunEqualsTheWholeModel) {
  Reports reports;
  MlirModule split = partitioned("partition-devices{devices=4}", reports);
  std::vector<float> whole = run(module), pipelined = run(split);
  EXPECT_EQ(std::memcmp(whole.data(), pipelined.data(),
                        whole.size() * sizeof(float)),
            0);
  float magnitude = 0;
  for (float v : whole)
    magnitude += v < 0 ? -v : v;
  EXPECT_GT(magnitude, 1.0f);
  mlirModuleDestroy(split);
}

// Threads run the parallel loops a dynamic batch gets (one item per
// iteration) and the oneDNN calls: the same outputs; no threads is an
// error.
TEST_F(CAPITest, SessionThreads) {
  MlirModule dynamic;
  ASSERT_EQ(messageOf(placerImportOnnxFile(context, str(kModel),
                                           placerImportOptionsGetDefault(),
                                           &dynamic)),
            "");
  std::vector<float> x(8 * 32);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.01f * float(i % 97) - 0.4f;
  int64_t shape[] = {8, 32};
  std::vector<std::vector<float>> outputs;
  for (int64_t threads : {1, 2}) {
    PlacerSessionOptions options = placerSessionOptionsGetDefault();
    options.threads = threads;
    PlacerSession session;
    ASSERT_EQ(messageOf(placerSessionCreate(dynamic, options, &session)), "");
    EXPECT_EQ(placerSessionGetThreads(session), threads);
    std::vector<float> y(8 * 32);
    PlacerTensor in{str("x"), str("f32"), 2, shape, x.data()};
    PlacerTensor out{str("y"), str("f32"), 2, shape, y.data()};
    ASSERT_EQ(messageOf(placerSessionSetInputShapes(session, &in, 1)), "");
    EXPECT_EQ(messageOf(placerSessionRun(session, &in, 1, &out, 1)), "");
    outputs.push_back(y);
    placerSessionDestroy(session);
  }
  EXPECT_EQ(outputs[0], outputs[1]);

  PlacerSessionOptions options = placerSessionOptionsGetDefault();
  options.threads = 2;
  PlacerSession session;
  // A static model without parallel loops of its own: its products are
  // oneDNN calls, which run on the same threads.
  ASSERT_EQ(messageOf(placerSessionCreate(module, options, &session)), "");
  EXPECT_EQ(placerSessionGetThreads(session), 2);
  placerSessionDestroy(session);
  options.threads = 0;
  EXPECT_EQ(messageOf(placerSessionCreate(module, options, &session)),
            "threads must be between 1 and 1024, got 0");
  mlirModuleDestroy(dynamic);
}

TEST_F(CAPITest, SessionDescribesAndChecksItsTensors) {
  PlacerSessionOptions options = placerSessionOptionsGetDefault();
  options.microbatches = 2;
  PlacerSession session;
  ASSERT_EQ(messageOf(placerSessionCreate(module, options, &session)), "");
  ASSERT_EQ(placerSessionGetNumInputs(session), 1);
  ASSERT_EQ(placerSessionGetNumOutputs(session), 1);
  PlacerTensor input = placerSessionGetInput(session, 0);
  EXPECT_EQ(std::string(input.name.data, input.name.length), "x");
  EXPECT_EQ(std::string(input.elementType.data, input.elementType.length),
            "f32");
  ASSERT_EQ(input.rank, 2);
  EXPECT_EQ(input.shape[0], 16); // 2 microbatches of 8
  EXPECT_EQ(input.shape[1], 32);

  std::vector<float> x(16 * 32), y(16 * 32);
  int64_t wrong[] = {8, 32}, right[] = {2, 8, 32};
  PlacerTensor in{str("x"), str("f32"), 2, wrong, x.data()};
  PlacerTensor out{str("y"), str("f32"), 3, right, y.data()};
  std::string shape = messageOf(placerSessionRun(session, &in, 1, &out, 1));
  EXPECT_NE(shape.find("input 'x' needs f32 [16, 32] (2 microbatches of "
                       "[8, 32]), got f32 [8, 32]"),
            std::string::npos)
      << shape;
  in = PlacerTensor{str("z"), str("f32"), 3, right, x.data()};
  EXPECT_NE(messageOf(placerSessionRun(session, &in, 1, &out, 1))
                .find("no input named 'z'"),
            std::string::npos);
  in = PlacerTensor{str("x"), str("f64"), 3, right, x.data()};
  EXPECT_NE(messageOf(placerSessionRun(session, &in, 1, &out, 1))
                .find("got f64"),
            std::string::npos);
  in = PlacerTensor{str("x"), str("f32"), 3, right, x.data()};
  EXPECT_EQ(messageOf(placerSessionRun(session, &in, 1, &out, 1)), "");
  auto ignore = [](MlirStringRef, void *) {};
  EXPECT_NE(messageOf(placerSessionProfile(session, &in, 1, &out, 1, 1,
                                           ignore, nullptr))
                .find("profile option"),
            std::string::npos);
  placerSessionDestroy(session);
}

TEST_F(CAPITest, ProfileTimesEveryNode) {
  PlacerSessionOptions options = placerSessionOptionsGetDefault();
  options.profile = true;
  PlacerSession session;
  ASSERT_EQ(messageOf(placerSessionCreate(module, options, &session)), "");
  std::vector<float> x(8 * 32, 0.5f), y(8 * 32);
  int64_t shape[] = {8, 32};
  PlacerTensor in{str("x"), str("f32"), 2, shape, x.data()};
  PlacerTensor out{str("y"), str("f32"), 2, shape, y.data()};
  std::string json;
  auto append = [](MlirStringRef text, void *userData) {
    static_cast<std::string *>(userData)->append(text.data, text.length);
  };
  ASSERT_EQ(messageOf(placerSessionProfile(session, &in, 1, &out, 1, 3, append,
                                           &json)),
            "");
  for (const char *node : {"\"block0/fc1\":", "\"block3/residual\":",
                           "\"output\":"})
    EXPECT_NE(json.find(node), std::string::npos) << json;
  placerSessionDestroy(session);
}

} // namespace
