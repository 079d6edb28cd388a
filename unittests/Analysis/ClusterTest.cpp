//===- ClusterTest.cpp - Cluster parsing, links and transfer times --------===//
#include "placer/Analysis/Cluster.h"
#include "placer/Analysis/CostModel.h"

#include <gtest/gtest.h>

using namespace placer;

namespace {

Cluster parse(const char *text) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  EXPECT_TRUE(static_cast<bool>(json));
  llvm::Expected<Cluster> cluster = Cluster::fromJson(*json, "test.json");
  if (!cluster) {
    ADD_FAILURE() << llvm::toString(cluster.takeError());
    return *Cluster::preset("cpu");
  }
  return std::move(*cluster);
}

std::string parseError(const char *text) {
  llvm::Expected<Cluster> cluster =
      Cluster::fromJson(*llvm::json::parse(text), "bad.json");
  if (cluster)
    return "";
  return llvm::toString(cluster.takeError());
}

// Two nodes of two GPUs each, plus one CPU core.
const char *kTwoNodes = R"({
  "device_kinds": [
    {"name": "gpu", "type": "accelerator", "count": 4, "peak_flops": {"f16": 4e12, "default": 1e12},
     "memory_bandwidth": 1e11, "memory_capacity": 1e9, "op_overhead": 1e-6},
    {"name": "cpu", "type": "cpu", "count": 1, "peak_flops": {"default": 1e10},
     "memory_bandwidth": 1e10}],
  "links": {
    "default": {"bandwidth": 1e9, "latency": 1e-3},
    "hierarchy": {"devices_per_node": 2,
                  "intra_node": {"bandwidth": 1e11, "latency": 1e-6},
                  "inter_node": {"bandwidth": 1e10, "latency": 1e-5}},
    "kind_pairs": [{"kinds": ["cpu", "gpu"], "bandwidth": 2e10, "latency": 2e-5}],
    "device_pairs": [{"devices": [3, 0], "bandwidth": 5e9, "latency": 0}]}})";

TEST(Cluster, DevicesAreKindsInOrder) {
  Cluster cluster = parse(kTwoNodes);
  EXPECT_EQ(cluster.getNumDevices(), 5);
  EXPECT_EQ(cluster.getKindOfDevice(0), 0u);
  EXPECT_EQ(cluster.getKindOfDevice(3), 0u);
  EXPECT_EQ(cluster.getKindOfDevice(4), 1u);
}

TEST(Cluster, LinkPrecedence) {
  Cluster cluster = parse(kTwoNodes);
  // Same node: intra-node link. 1e6 bytes / 1e11 + 1e-6.
  EXPECT_DOUBLE_EQ(cluster.transferTime(1e6, 0, 1), 1e-5 + 1e-6);
  // Across nodes: inter-node link.
  EXPECT_DOUBLE_EQ(cluster.transferTime(1e6, 1, 2), 1e-4 + 1e-5);
  // A kind pair beats the hierarchy, in either direction.
  EXPECT_DOUBLE_EQ(cluster.transferTime(1e6, 4, 2), 5e-5 + 2e-5);
  EXPECT_DOUBLE_EQ(cluster.transferTime(1e6, 2, 4), 5e-5 + 2e-5);
  // A device pair beats everything, in either direction.
  EXPECT_DOUBLE_EQ(cluster.transferTime(1e6, 0, 3), 2e-4);
  // Nothing moves within one device.
  EXPECT_EQ(cluster.transferTime(1e6, 2, 2), 0.0);
}

TEST(Cluster, DefaultLinkWithoutHierarchy) {
  Cluster cluster = parse(R"({
    "device_kinds": [{"name": "a", "count": 2, "type": "accelerator",
      "peak_flops": {"default": 1}, "memory_bandwidth": 1, "memory_capacity": 1}],
    "links": {"default": {"bandwidth": 2e9}}})");
  EXPECT_DOUBLE_EQ(cluster.transferTime(1e9, 0, 1), 0.5);
}

TEST(Cluster, ErrorsNameTheField) {
  EXPECT_EQ(parseError(R"({"device_kinds": [], "links": {"default": {"bandwidth": 1}}})"),
            "bad.json: device_kinds: must list at least one device kind");
  EXPECT_EQ(parseError(R"({"device_kinds": [{"name": "a", "type": "cpu", "count": 0,
      "peak_flops": {"default": 1}, "memory_bandwidth": 1}], "links": {"default": {"bandwidth": 1}}})"),
            "bad.json: device_kinds[0].count: must be at least 1");
  EXPECT_EQ(parseError(R"({"device_kinds": [{"name": "a", "type": "cpu", "count": 1,
      "peak_flops": {"default": 1}, "memory_bandwidth": 1}], "links": {}})"),
            "bad.json: links.default: missing value");
  EXPECT_EQ(parseError(R"({"device_kinds": [{"name": "a", "type": "cpu", "count": 1,
      "peak_flops": {"default": 1}, "memory_bandwidth": 1}],
      "links": {"default": {"bandwidth": 1, "latency": -1}}})"),
            "bad.json: links.default.latency: must not be negative");
  EXPECT_EQ(parseError(R"({"device_kinds": [{"name": "a", "type": "accelerator", "count": 1,
      "peak_flops": {"default": 1}, "memory_bandwidth": 1}], "links": {"default": {"bandwidth": 1}}})"),
            "bad.json: device_kinds[0].memory_capacity: missing value");
  EXPECT_EQ(parseError(R"({"device_kinds": [
      {"name": "a", "type": "cpu", "count": 1, "peak_flops": {"default": 1}, "memory_bandwidth": 1},
      {"name": "a", "type": "cpu", "count": 1, "peak_flops": {"default": 1}, "memory_bandwidth": 1}],
      "links": {"default": {"bandwidth": 1}}})"),
            "bad.json: device_kinds[1].name: duplicate device kind 'a'");
}

TEST(Cluster, PresetsComeFromSpecSheets) {
  for (const std::string &name : Cluster::presetNames())
    EXPECT_TRUE(static_cast<bool>(Cluster::preset(name))) << name;
  Cluster a100 = *Cluster::preset("a100-80gb");
  const DeviceKind *gpu = a100.findKind("gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->getPeakFlops("f32"), 19.5e12);
  EXPECT_EQ(gpu->getPeakFlops("bf16"), 312e12);
  EXPECT_EQ(gpu->memoryBandwidth, 2039e9);
  // Accelerators talk over NVLink, the host over PCIe.
  EXPECT_DOUBLE_EQ(a100.transferTime(300e6, 0, 1), 1e-3 + 5e-6);
  EXPECT_DOUBLE_EQ(a100.transferTime(32e6, 0, 8), 1e-3 + 1e-5);
  EXPECT_FALSE(static_cast<bool>(Cluster::preset("tpu")));
}

TEST(Roofline, ComputeOrMemoryBoundPlusOverhead) {
  DeviceKind kind;
  kind.peakFlops = {{"f32", 1e12}, {"default", 5e11}};
  kind.memoryBandwidth = 1e11;
  kind.opOverhead = 1e-6;
  OpWork work;
  work.flops = 2e9; // 2 ms of compute
  work.bytesRead = 1e8;
  work.bytesWritten = 0; // 1 ms of memory traffic
  EXPECT_DOUBLE_EQ(getRooflineTime(work, kind), 2e-3 + 1e-6);
  work.elementType = "i8"; // falls back to "default"
  EXPECT_DOUBLE_EQ(getRooflineTime(work, kind), 4e-3 + 1e-6);
  work.flops = 0;
  EXPECT_DOUBLE_EQ(getRooflineTime(work, kind), 1e-3 + 1e-6);
  work.isFree = true;
  EXPECT_EQ(getRooflineTime(work, kind), 0.0);
}

} // namespace
