//===- ArtifactTest.cpp - Manifests and the runtime's JSON ----------------===//
#include "placer/Runtime/Artifact.h"
#include "placer/Runtime/Npy.h"
#include "placer/Runtime/PlainJson.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace placer::runtime;

namespace {

TensorSpec tensor(std::string name, std::vector<int64_t> shape) {
  TensorSpec spec;
  spec.name = std::move(name);
  spec.elementType = "f32";
  spec.elementBytes = 4;
  spec.shape = std::move(shape);
  return spec;
}

Manifest sample() {
  Manifest m;
  m.placerVersion = getPlacerVersion();
  m.llvmVersion = "22.1.8";
  m.entry = "main_graph";
  m.target = "x86_64-pc-linux-gnu";
  m.cpu = "znver4";
  m.inputs = {tensor("x \"quoted\"\n", {2, 3})};
  m.outputs = {tensor("y", {2})};
  // 12 bytes, then 4: the second weight starts at the next 64 bytes.
  m.weights = {tensor("w", {3}), tensor("b", {1})};
  m.profileNodes = {"conv/1", "relu"};
  layOutWeights(m);
  return m;
}

TEST(Artifact, ManifestRoundTrip) {
  Manifest m = sample();
  EXPECT_EQ(m.weightOffsets, (std::vector<int64_t>{0, 64}));
  EXPECT_EQ(m.weightsBytes, 128);
  std::string error;
  std::optional<Manifest> back = parseManifest(printManifest(m), "m.json", error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->entry, "main_graph");
  EXPECT_EQ(back->cpu, "znver4");
  EXPECT_EQ(back->stage, -1);
  ASSERT_EQ(back->inputs.size(), 1u);
  EXPECT_EQ(back->inputs[0].name, "x \"quoted\"\n");
  EXPECT_EQ(back->inputs[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(back->weightOffsets, m.weightOffsets);
  EXPECT_EQ(back->profileNodes, m.profileNodes);
  // Printing is deterministic: the same text twice.
  EXPECT_EQ(printManifest(*back), printManifest(m));
}

/// Parses the sample's text after replacing the first `from` by `to`: the
/// error.
std::string errorAfter(const std::string &from, const std::string &to,
                       const Manifest &manifest = sample()) {
  std::string text = printManifest(manifest);
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  std::string error;
  EXPECT_FALSE(parseManifest(text, "DIR/manifest.json", error));
  return error;
}

TEST(Artifact, ManifestErrorsNameTheField) {
  EXPECT_EQ(errorAfter("\"entry\"", "\"entrance\""),
            "DIR/manifest.json: entry: missing");
  EXPECT_EQ(errorAfter("\"format_version\": 1", "\"format_version\": 2"),
            "DIR/manifest.json: format_version: artifact format 2, this "
            "runtime reads format 1");
  EXPECT_EQ(errorAfter("\"element_bytes\": 4", "\"element_bytes\": \"4\""),
            "DIR/manifest.json: inputs[0].element_bytes: expected an integer "
            "of at least 1");
  EXPECT_EQ(errorAfter("\"offset\": 64", "\"offset\": 96"),
            "DIR/manifest.json: weights[1].offset: outside the 128 bytes of "
            "the weights file, or not 64-byte aligned");
  EXPECT_EQ(errorAfter("\"weights_file\": \"weights.bin\"",
                       "\"weights_file\": \"../weights.bin\""),
            "DIR/manifest.json: weights_file: expected a file name inside the "
            "artifact folder");
  EXPECT_EQ(errorAfter("\"shape\": [", "\"shape\": [1099511627777, "),
            "DIR/manifest.json: inputs[0].shape: expected non-negative dims "
            "or dim names");
  // An input's dim may be a symbol (dynamic), a weight's may not.
  EXPECT_EQ(errorAfter("\"shape\": [", "\"shape\": [\"\", "),
            "DIR/manifest.json: inputs[0].shape: expected non-negative dims "
            "or dim names");
  EXPECT_EQ(errorAfter("{", "["),
            "DIR/manifest.json: not JSON: offset 9: expected ',' or ']'");
  EXPECT_EQ(errorAfter("\"device_kind\": \"cpu\"", "\"device_kind\": \"tpu\""),
            "DIR/manifest.json: device_kind: expected cpu or gpu");
  // GPU code names its chip, and CPU code none.
  EXPECT_EQ(errorAfter("\"device_kind\": \"cpu\"", "\"device_kind\": \"gpu\""),
            "DIR/manifest.json: gpu_chip: expected a chip exactly for GPU "
            "code");
  EXPECT_EQ(errorAfter("\"math_mode\": \"fp32\"", "\"math_mode\": \"bf16\""),
            "DIR/manifest.json: math_mode: expected fp32 or tf32");
}

TEST(Artifact, TrainingOutputsRoundTrip) {
  Manifest m = sample();
  m.outputs = {tensor("w", {3}), tensor("w/d1", {3})};
  m.outputs[0].updates = m.outputs[1].updates = "w";
  m.outputs[1].replica = true;
  std::string error;
  std::optional<Manifest> back =
      parseManifest(printManifest(m), "m.json", error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->outputs[0].updates, "w");
  EXPECT_FALSE(back->outputs[0].replica);
  EXPECT_EQ(back->outputs[1].updates, "w");
  EXPECT_TRUE(back->outputs[1].replica);

  // A replica updates some state, and says so with a boolean.
  EXPECT_EQ(errorAfter("\"replica\": true", "\"replica\": 1", m),
            "DIR/manifest.json: outputs[1].replica: expected true or false");
  EXPECT_EQ(
      errorAfter(
          "\"replica\": true,\n      \"shape\": [\n        3\n      ],\n   "
          "   \"updates\": \"w\"",
          "\"replica\": true,\n      \"shape\": [\n        3\n      ]", m),
      "DIR/manifest.json: outputs[1].replica: only beside \"updates\"");
}

TEST(Artifact, ShardedStateRoundTrip) {
  Manifest m = sample();
  m.outputs = {tensor("w", {4, 6})};
  m.outputs[0].updates = "w";
  m.outputs[0].shard = ShardSpec{1, 3, 1, 2, 4, 2};
  std::string error;
  std::optional<Manifest> back =
      parseManifest(printManifest(m), "m.json", error);
  ASSERT_TRUE(back) << error;
  ASSERT_TRUE(back->outputs[0].shard);
  const ShardSpec &shard = *back->outputs[0].shard;
  EXPECT_EQ(std::make_tuple(shard.axis, shard.blocks, shard.index, shard.count,
                            shard.firstRank, shard.rankStride),
            std::make_tuple(1, 3, 1, 2, 4, 2));

  EXPECT_EQ(errorAfter("\"index\": 1", "\"index\": 2", m),
            "DIR/manifest.json: outputs[0].shard.index: not below \"count\"");
  EXPECT_EQ(errorAfter("\"axis\": 1", "\"axis\": 2", m),
            "DIR/manifest.json: outputs[0].shard.axis: not an axis of the "
            "shape that its blocks divide");
  EXPECT_EQ(errorAfter("\"blocks\": 3", "\"blocks\": 4", m),
            "DIR/manifest.json: outputs[0].shard.axis: not an axis of the "
            "shape that its blocks divide");
  EXPECT_EQ(errorAfter("\"count\": 2", "\"count\": 1", m),
            "DIR/manifest.json: outputs[0].shard.count: expected an integer "
            "of at least 2");
  EXPECT_EQ(errorAfter("\"updates\": \"w\"", "\"name\": \"v\"", m),
            "DIR/manifest.json: outputs[0].shard: only beside \"updates\"");
}

TEST(Artifact, GpuManifestRoundTrip) {
  Manifest m = sample();
  m.deviceKind = "gpu";
  m.gpuChip = "sm_90";
  m.mathMode = "tf32";
  std::string error;
  std::optional<Manifest> back =
      parseManifest(printManifest(m), "m.json", error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->deviceKind, "gpu");
  EXPECT_EQ(back->gpuChip, "sm_90");
  EXPECT_EQ(back->mathMode, "tf32");
}

TEST(PlainJson, ParsesAndRejects) {
  std::string error;
  std::optional<json::Value> value = json::parse(
      R"({"a": [1, -2.5e1, true, null, "\u00e9\ud83d\ude00"], "b": {}})", error);
  ASSERT_TRUE(value) << error;
  const json::Array &a = *value->getObject()->at("a").getArray();
  EXPECT_EQ(*a[0].getInteger(), 1);
  EXPECT_EQ(*a[1].getNumber(), -25.0);
  EXPECT_TRUE(*a[2].getBool());
  EXPECT_EQ(a[3].getKind(), json::Value::Kind::Null);
  EXPECT_EQ(*a[4].getString(), "\xc3\xa9\xf0\x9f\x98\x80");

  EXPECT_FALSE(json::parse("[1, 2", error));
  EXPECT_EQ(error, "offset 5: expected ',' or ']'");
  EXPECT_FALSE(json::parse("{\"a\": 1} x", error));
  EXPECT_EQ(error, "offset 9: expected end of the document");
  EXPECT_FALSE(json::parse("\"tab\there\"", error));
  EXPECT_EQ(error, "offset 5: expected no control characters in a string");
  // Hostile nesting is refused, not recursed into.
  EXPECT_FALSE(json::parse(std::string(100000, '['), error));
  EXPECT_EQ(error, "offset 65: expected at most 64 nested levels");
}

TEST(Npy, RoundTripAndErrors) {
  std::string path = ::testing::TempDir() + "npy_round_trip.npy", error;
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{}, {3}, {2, 0}, {2, 3}}) {
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    NpyArray array{"<i8", shape, std::vector<uint8_t>(8 * count, 7)};
    ASSERT_TRUE(writeNpy(path, array, error)) << error;
    std::optional<NpyArray> back = readNpy(path, error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->dtype, "<i8");
    EXPECT_EQ(back->shape, shape);
    EXPECT_EQ(back->bytes, array.bytes);
  }
  std::ofstream(path, std::ios::binary) << "NUMPY, but not";
  EXPECT_FALSE(readNpy(path, error));
  EXPECT_EQ(error, path + ": not a .npy file");
  std::remove(path.c_str());
  EXPECT_FALSE(readNpy(path, error));
  EXPECT_EQ(error, path + ": cannot read: No such file or directory");
  EXPECT_EQ(npyDtypeOf("f32"), "<f4");
  EXPECT_EQ(npyItemSize("<f8"), 8u);
  EXPECT_EQ(npyItemSize("<fx"), 0u);
}

} // namespace
