//===- Cluster.cpp - The machine a model is placed on ---------------------===//
#include "placer/Analysis/Cluster.h"

#include "placer/Support/Json.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace placer;
using llvm::json::ObjectMapper;
using llvm::json::Path;
using llvm::json::Value;

double DeviceKind::getPeakFlops(llvm::StringRef elementType) const {
  auto it = peakFlops.find(elementType.str());
  if (it != peakFlops.end())
    return it->second;
  it = peakFlops.find("default");
  return it != peakFlops.end() ? it->second : 0.0;
}

const DeviceKind *Cluster::findKind(llvm::StringRef kindName) const {
  for (const DeviceKind &kind : kinds)
    if (kind.name == kindName)
      return &kind;
  return nullptr;
}

int64_t Cluster::getNumDevices() const {
  int64_t total = 0;
  for (const DeviceKind &kind : kinds)
    total += kind.count;
  return total;
}

size_t Cluster::getKindOfDevice(int64_t device) const {
  for (size_t k = 0; k < kinds.size(); ++k) {
    if (device < kinds[k].count)
      return k;
    device -= kinds[k].count;
  }
  return kinds.size() - 1;
}

Link Cluster::getLink(int64_t from, int64_t to) const {
  for (const DevicePairLink &pair : devicePairs)
    if ((pair.a == from && pair.b == to) || (pair.a == to && pair.b == from))
      return pair.link;
  const std::string &kindA = kinds[getKindOfDevice(from)].name;
  const std::string &kindB = kinds[getKindOfDevice(to)].name;
  for (const KindPairLink &pair : kindPairs)
    if ((pair.a == kindA && pair.b == kindB) ||
        (pair.a == kindB && pair.b == kindA))
      return pair.link;
  if (hierarchy)
    return from / hierarchy->devicesPerNode == to / hierarchy->devicesPerNode
               ? hierarchy->intraNode
               : hierarchy->interNode;
  return defaultLink;
}

double Cluster::transferTime(double bytes, int64_t from, int64_t to) const {
  if (from == to)
    return 0.0;
  return getLink(from, to).transferTime(bytes);
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

// fromJSON overloads live in namespace placer so that llvm::json's
// ObjectMapper finds them by argument-dependent lookup.
namespace placer {

static bool fromJSON(const Value &value, Link &link, Path path) {
  Positive bandwidth;
  NonNegative latency;
  ObjectMapper o(value, path);
  if (!o || !o.map("bandwidth", bandwidth) || !o.mapOptional("latency", latency))
    return false;
  link = Link{bandwidth.value, latency.value};
  return true;
}

static bool fromJSON(const Value &value, DeviceKind &kind, Path path) {
  ObjectMapper o(value, path);
  std::string type;
  AtLeastOne count;
  std::map<std::string, Positive> peakFlops;
  Positive bandwidth;
  NonNegative overhead;
  if (!o || !o.map("name", kind.name) || !o.map("type", type) ||
      !o.map("count", count) || !o.map("peak_flops", peakFlops) ||
      !o.map("memory_bandwidth", bandwidth) ||
      !o.mapOptional("op_overhead", overhead))
    return false;
  if (kind.name.empty()) {
    path.field("name").report("must not be empty");
    return false;
  }
  if (type != "accelerator" && type != "cpu") {
    path.field("type").report("must be \"accelerator\" or \"cpu\"");
    return false;
  }
  if (peakFlops.empty()) {
    path.field("peak_flops").report("must give at least one element type");
    return false;
  }
  // The solvers keep state per device: a count past any real machine is a
  // mistake, not a cluster.
  static_assert(kMaxDevicesPerKind == 4096, "the message below says 4096");
  if (count.value > kMaxDevicesPerKind) {
    path.field("count").report("must be at most 4096");
    return false;
  }
  kind.isAccelerator = type == "accelerator";
  // CPU cores share host memory: a capacity of 0 means unlimited.
  if (kind.isAccelerator) {
    Positive capacity;
    if (!o.map("memory_capacity", capacity))
      return false;
    kind.memoryCapacity = capacity.value;
  } else {
    NonNegative capacity;
    if (!o.mapOptional("memory_capacity", capacity))
      return false;
    kind.memoryCapacity = capacity.value;
  }
  kind.count = count.value;
  for (const auto &[elementType, peak] : peakFlops)
    kind.peakFlops[elementType] = peak.value;
  kind.memoryBandwidth = bandwidth.value;
  kind.opOverhead = overhead.value;
  return true;
}

static bool fromJSON(const Value &value, Cluster::Hierarchy &hierarchy,
                     Path path) {
  ObjectMapper o(value, path);
  AtLeastOne perNode;
  if (!o || !o.map("devices_per_node", perNode) ||
      !o.map("intra_node", hierarchy.intraNode) ||
      !o.map("inter_node", hierarchy.interNode))
    return false;
  hierarchy.devicesPerNode = perNode.value;
  return true;
}

static bool fromJSON(const Value &value, TrainingSetup &training, Path path) {
  ObjectMapper o(value, path);
  std::optional<std::string> schedule;
  std::optional<AtLeastOne> microbatches;
  std::optional<NonNegative> optimizer;
  if (!o || !o.mapOptional("schedule", schedule) ||
      !o.mapOptional("microbatches", microbatches) ||
      !o.mapOptional("optimizer_state_factor", optimizer))
    return false;
  if (schedule) {
    std::optional<solver::Schedule> parsed =
        solver::parseTrainingSchedule(*schedule);
    if (!parsed) {
      // (json::Path reports literals only: the names as Schedule.h lists
      // them.)
      path.field("schedule").report(
          "expected gpipe, 1f1b, zb-h1, interleaved or zb-v");
      return false;
    }
    training.schedule = *parsed;
  }
  if (microbatches)
    training.microbatches = microbatches->value;
  if (optimizer)
    training.optimizerStateFactor = optimizer->value;
  return true;
}

/// A pair's two ends and its link, written side by side in one object.
template <typename End>
static bool mapPair(const Value &value, llvm::StringLiteral endsKey,
                    llvm::StringLiteral whatEnds, End &a, End &b, Link &link,
                    Path path) {
  ObjectMapper o(value, path);
  std::vector<End> ends;
  if (!o || !o.map(endsKey, ends))
    return false;
  if (ends.size() != 2) {
    path.field(endsKey).report(whatEnds);
    return false;
  }
  a = ends[0];
  b = ends[1];
  return fromJSON(value, link, path);
}

static bool fromJSON(const Value &value, Cluster::KindPairLink &pair,
                     Path path) {
  return mapPair(value, "kinds", "expected two device kind names", pair.a,
                 pair.b, pair.link, path);
}

static bool fromJSON(const Value &value, Cluster::DevicePairLink &pair,
                     Path path) {
  return mapPair(value, "devices", "expected two device indices", pair.a,
                 pair.b, pair.link, path);
}

namespace {
/// The file's layout; cross-references are checked after mapping.
struct ClusterFile {
  std::string name;
  std::vector<DeviceKind> kinds;
  TrainingSetup training;
  struct Links {
    Link defaultLink;
    std::optional<Cluster::Hierarchy> hierarchy;
    std::vector<Cluster::KindPairLink> kindPairs;
    std::vector<Cluster::DevicePairLink> devicePairs;
  } links;
};

bool fromJSON(const Value &value, ClusterFile::Links &links, Path path) {
  ObjectMapper o(value, path);
  return o && o.map("default", links.defaultLink) &&
         o.map("hierarchy", links.hierarchy) &&
         o.mapOptional("kind_pairs", links.kindPairs) &&
         o.mapOptional("device_pairs", links.devicePairs);
}

bool fromJSON(const Value &value, ClusterFile &file, Path path) {
  ObjectMapper o(value, path);
  if (!o || !o.mapOptional("name", file.name) ||
      !o.map("device_kinds", file.kinds) || !o.map("links", file.links) ||
      !o.mapOptional("training", file.training))
    return false;
  if (file.kinds.empty()) {
    path.field("device_kinds").report("must list at least one device kind");
    return false;
  }
  return true;
}
} // namespace

} // namespace placer

llvm::Expected<Cluster> Cluster::fromJson(const Value &value,
                                          llvm::StringRef source) {
  ClusterFile file;
  if (llvm::Error error = mapJson(value, file, source))
    return std::move(error);
  std::set<std::string> names;
  for (size_t i = 0; i < file.kinds.size(); ++i)
    if (!names.insert(file.kinds[i].name).second)
      return jsonError(source, jsonIndex("device_kinds", i) + ".name",
                       "duplicate device kind '" + file.kinds[i].name + "'");
  for (size_t i = 0; i < file.links.kindPairs.size(); ++i)
    for (const std::string &end :
         {file.links.kindPairs[i].a, file.links.kindPairs[i].b})
      if (!names.count(end))
        return jsonError(source, jsonIndex("links.kind_pairs", i) + ".kinds",
                         "unknown device kind '" + end + "'");
  Cluster cluster(std::move(file.name), std::move(file.kinds),
                  file.links.defaultLink, file.links.hierarchy,
                  std::move(file.links.kindPairs), {}, file.training);
  int64_t numDevices = cluster.getNumDevices();
  for (size_t i = 0; i < file.links.devicePairs.size(); ++i)
    for (int64_t d : {file.links.devicePairs[i].a, file.links.devicePairs[i].b})
      if (d < 0 || d >= numDevices)
        return jsonError(source,
                         jsonIndex("links.device_pairs", i) + ".devices",
                         "device " + llvm::Twine(d) + " is out of range [0, " +
                             llvm::Twine(numDevices) + ")");
  cluster.devicePairs = std::move(file.links.devicePairs);
  return cluster;
}

//===----------------------------------------------------------------------===//
// Presets
//===----------------------------------------------------------------------===//

namespace {

/// One accelerator kind from a spec sheet. Sources (docs/CostModel.md):
/// NVIDIA's V100, A100 and H100 datasheets; NVLink and PCIe figures are per
/// direction (half the bidirectional numbers the sheets quote).
struct AcceleratorSheet {
  const char *preset;
  double f64, f32, tf32, f16; // FLOP/s, dense
  double memoryBandwidth;      // bytes/s
  double memoryCapacity;       // bytes
  double nvlink;               // bytes/s per direction
  double pcie;                 // bytes/s per direction
};

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const AcceleratorSheet kSheets[] = {
    // Tesla V100 SXM2 16 GB: 7.8 / 15.7 / - / 125 (tensor) TFLOP/s, HBM2
    // 900 GB/s, NVLink 2 300 GB/s, PCIe Gen3 x16 32 GB/s.
    {"v100-16gb", 7.8e12, 15.7e12, 15.7e12, 125e12, 900e9, 16 * kGiB, 150e9,
     16e9},
    // A100 SXM 80 GB: 9.7 / 19.5 / 156 / 312 TFLOP/s, HBM2e 2039 GB/s,
    // NVLink 3 600 GB/s, PCIe Gen4 x16 64 GB/s.
    {"a100-80gb", 9.7e12, 19.5e12, 156e12, 312e12, 2039e9, 80 * kGiB, 300e9,
     32e9},
    // H100 SXM 80 GB: 34 / 67 / 494.5 / 989.5 TFLOP/s (dense), HBM3
    // 3.35 TB/s, NVLink 4 900 GB/s, PCIe Gen5 x16 128 GB/s.
    {"h100-sxm", 34e12, 67e12, 494.5e12, 989.5e12, 3.35e12, 80 * kGiB, 450e9,
     64e9},
};

/// A representative x86 server core: 3 GHz, two 256-bit FMA units (AVX2):
/// 3e9 * 2 units * 8 lanes * 2 FLOP = 96 GFLOP/s f32, half that for f64; a
/// share of 10 GB/s of a socket's DDR bandwidth. Derived, not from a sheet.
DeviceKind genericCpuCore(int64_t count) {
  DeviceKind cpu;
  cpu.name = "cpu";
  cpu.isAccelerator = false;
  cpu.count = count;
  cpu.peakFlops = {{"f64", 48e9}, {"f32", 96e9}, {"default", 96e9}};
  cpu.memoryBandwidth = 10e9;
  cpu.memoryCapacity = 0;
  cpu.opOverhead = 1e-7;
  return cpu;
}

} // namespace

std::vector<std::string> Cluster::presetNames() {
  std::vector<std::string> names;
  for (const AcceleratorSheet &sheet : kSheets)
    names.push_back(sheet.preset);
  names.push_back("cpu");
  return names;
}

llvm::Expected<Cluster> Cluster::preset(llvm::StringRef presetName) {
  Cluster cluster;
  cluster.name = presetName.str();
  if (presetName == "cpu") {
    cluster.kinds.push_back(genericCpuCore(8));
    // Cores of one socket share memory: a copy costs a memory pass.
    cluster.defaultLink = Link{10e9, 1e-7};
    return cluster;
  }
  for (const AcceleratorSheet &sheet : kSheets) {
    if (presetName != sheet.preset)
      continue;
    // One node: 8 accelerators on NVLink, 8 host cores on PCIe.
    DeviceKind gpu;
    gpu.name = "gpu";
    gpu.count = 8;
    gpu.peakFlops = {{"f64", sheet.f64}, {"f32", sheet.f32},
                     {"tf32", sheet.tf32}, {"f16", sheet.f16},
                     {"bf16", sheet.f16}, {"default", sheet.f32}};
    gpu.memoryBandwidth = sheet.memoryBandwidth;
    gpu.memoryCapacity = sheet.memoryCapacity;
    gpu.opOverhead = 5e-6; // a kernel launch
    cluster.kinds.push_back(gpu);
    cluster.kinds.push_back(genericCpuCore(8));
    cluster.defaultLink = Link{sheet.nvlink, 5e-6};
    cluster.kindPairs.push_back({"gpu", "cpu", Link{sheet.pcie, 1e-5}});
    cluster.kindPairs.push_back({"cpu", "cpu", Link{10e9, 1e-7}});
    return cluster;
  }
  std::string known;
  for (const std::string &n : presetNames())
    known += (known.empty() ? "" : ", ") + n;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "unknown cluster preset '%s' (presets: %s; or give a JSON file)",
      presetName.str().c_str(), known.c_str());
}

llvm::Expected<Cluster> Cluster::load(llvm::StringRef presetOrPath) {
  if (llvm::is_contained(presetNames(), presetOrPath.str()))
    return preset(presetOrPath);
  if (!presetOrPath.ends_with(".json") && !llvm::sys::fs::exists(presetOrPath))
    return preset(presetOrPath); // reports the unknown preset
  llvm::Expected<Value> value = readJsonFile(presetOrPath);
  if (!value)
    return value.takeError();
  return fromJson(*value, presetOrPath);
}
