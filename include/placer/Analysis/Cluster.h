//===- Cluster.h - The machine a model is placed on ------------*- C++ -*-===//
//
// Device kinds (accelerators or CPU cores, each with a count), their compute
// and memory figures, and the links between devices. Plain C++ (LLVM Support
// only): the solver and the cost model both use it. The JSON format is in
// docs/CostModel.md.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_ANALYSIS_CLUSTER_H
#define PLACER_ANALYSIS_CLUSTER_H

#include "placer/Solver/Schedule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace placer {

/// The most devices of one kind a cluster may have: the solvers keep state
/// per device, so a larger count is a mistake, not a machine.
constexpr int64_t kMaxDevicesPerKind = 4096;

struct DeviceKind {
  std::string name;
  bool isAccelerator = true;
  int64_t count = 1;
  /// Peak FLOP/s per element type name ("f32", "f16", "bf16", ...); the
  /// entry "default" applies to types not listed.
  std::map<std::string, double> peakFlops;
  double memoryBandwidth = 0; ///< bytes/s
  double memoryCapacity = 0;  ///< bytes; 0 for "unlimited" (CPU cores)
  double opOverhead = 0;      ///< seconds added to every op that runs

  /// Peak FLOP/s for `elementType`, falling back to "default".
  double getPeakFlops(llvm::StringRef elementType) const;
};

/// How the cluster trains pipelines (the JSON's "training"); placement
/// options override each field.
struct TrainingSetup {
  solver::Schedule schedule = solver::Schedule::OneFOneB;
  int64_t microbatches = 8;
  /// Optimizer state bytes per weight byte (Adam: two moments).
  double optimizerStateFactor = 2.0;
};

struct Link {
  double bandwidth = 0; ///< bytes/s
  double latency = 0;   ///< seconds
  double transferTime(double bytes) const {
    return bytes / bandwidth + latency;
  }
};

class Cluster {
public:
  struct KindPairLink {
    std::string a, b;
    Link link;
  };
  struct DevicePairLink {
    int64_t a, b;
    Link link;
  };
  struct Hierarchy {
    int64_t devicesPerNode;
    Link intraNode, interNode;
  };

  Cluster() = default;
  Cluster(std::string name, std::vector<DeviceKind> kinds, Link defaultLink,
          std::optional<Hierarchy> hierarchy = std::nullopt,
          std::vector<KindPairLink> kindPairs = {},
          std::vector<DevicePairLink> devicePairs = {},
          TrainingSetup training = {})
      : name(std::move(name)), kinds(std::move(kinds)),
        defaultLink(defaultLink), hierarchy(std::move(hierarchy)),
        kindPairs(std::move(kindPairs)), devicePairs(std::move(devicePairs)),
        training(training) {}

  /// Parses the JSON format; errors name the source and the field.
  static llvm::Expected<Cluster> fromJson(const llvm::json::Value &value,
                                          llvm::StringRef source);
  /// A preset name (see presetNames()) or a path to a JSON file.
  static llvm::Expected<Cluster> load(llvm::StringRef presetOrPath);
  static llvm::Expected<Cluster> preset(llvm::StringRef name);
  static std::vector<std::string> presetNames();


  const std::string &getName() const { return name; }
  const std::vector<DeviceKind> &getKinds() const { return kinds; }
  const DeviceKind *findKind(llvm::StringRef kindName) const;
  const Link &getDefaultLink() const { return defaultLink; }
  const std::optional<Hierarchy> &getHierarchy() const { return hierarchy; }
  const std::vector<KindPairLink> &getKindPairs() const { return kindPairs; }
  const std::vector<DevicePairLink> &getDevicePairs() const {
    return devicePairs;
  }
  const TrainingSetup &getTraining() const { return training; }

  /// Devices are the kinds' counts laid out in order: kind 0's devices
  /// first. Returns the kind index of device `device`.
  size_t getKindOfDevice(int64_t device) const;
  int64_t getNumDevices() const;

  /// The link between two devices: an explicit device pair wins, then a
  /// kind pair, then the two-level hierarchy, then the default.
  Link getLink(int64_t from, int64_t to) const;
  /// bytes / bandwidth + latency; 0 on one device.
  double transferTime(double bytes, int64_t from, int64_t to) const;
  /// The link an op's transfer cost c(u) is priced on: device 0 to device
  /// 1 (itself on a one-device cluster). The placement scales c(u) by
  /// this link's bandwidth over another pair's.
  std::pair<int64_t, int64_t> getPricingPair() const {
    return {0, getNumDevices() > 1 ? 1 : 0};
  }

private:
  std::string name;
  std::vector<DeviceKind> kinds;
  Link defaultLink;
  std::optional<Hierarchy> hierarchy;
  std::vector<KindPairLink> kindPairs;
  std::vector<DevicePairLink> devicePairs;
  TrainingSetup training;
};

} // namespace placer

#endif // PLACER_ANALYSIS_CLUSTER_H
