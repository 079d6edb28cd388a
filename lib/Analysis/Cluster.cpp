//===- Cluster.cpp - The machine a model is placed on ---------------------===//
#include "placer/Analysis/Cluster.h"

#include "placer/Support/JsonReader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace placer;
using llvm::json::Array;
using llvm::json::Object;
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

namespace {

/// A positive number field (bandwidths, FLOP/s).
std::optional<double> getPositive(JsonReader &reader, const Object &object,
                                  llvm::StringRef key, const std::string &path,
                                  bool required = true) {
  std::optional<double> value = reader.getNumber(object, key, path, required);
  if (value && *value <= 0) {
    reader.fail(JsonReader::join(path, key),
                "must be positive, got " + formatNumber(*value));
    return std::nullopt;
  }
  return value;
}

std::optional<double> getNonNegative(JsonReader &reader, const Object &object,
                                     llvm::StringRef key,
                                     const std::string &path) {
  std::optional<double> value = reader.getNumber(object, key, path, false);
  if (value && *value < 0) {
    reader.fail(JsonReader::join(path, key),
                "must not be negative, got " + formatNumber(*value));
    return std::nullopt;
  }
  return value;
}

std::optional<Link> parseLink(JsonReader &reader, const Object &object,
                              const std::string &path) {
  std::optional<double> bandwidth =
      getPositive(reader, object, "bandwidth", path);
  std::optional<double> latency = getNonNegative(reader, object, "latency", path);
  if (!bandwidth || reader.failed())
    return std::nullopt;
  return Link{*bandwidth, latency.value_or(0.0)};
}

Value linkToJson(const Link &link) {
  return Object{{"bandwidth", link.bandwidth}, {"latency", link.latency}};
}

} // namespace

llvm::Expected<Cluster> Cluster::fromJson(const Value &value,
                                          llvm::StringRef source) {
  JsonReader reader(source.str());
  Cluster cluster;
  const Object *root = reader.asObject(value, "");
  if (!root)
    return reader.takeError();
  cluster.name = reader.getString(*root, "name", "", false).value_or("");

  const Array *kinds = reader.getArray(*root, "device_kinds", "");
  if (!kinds)
    return reader.takeError();
  if (kinds->empty())
    reader.fail("device_kinds", "must list at least one device kind");
  std::set<std::string> names;
  for (size_t i = 0; i < kinds->size() && !reader.failed(); ++i) {
    std::string path = JsonReader::index("device_kinds", i);
    const Object *object = reader.asObject((*kinds)[i], path);
    if (!object)
      break;
    DeviceKind kind;
    kind.name = reader.getString(*object, "name", path).value_or("");
    if (!reader.failed() && kind.name.empty())
      reader.fail(JsonReader::join(path, "name"), "must not be empty");
    if (!reader.failed() && !names.insert(kind.name).second)
      reader.fail(JsonReader::join(path, "name"),
                  "duplicate device kind '" + kind.name + "'");
    std::optional<std::string> type = reader.getString(*object, "type", path);
    if (type && *type != "accelerator" && *type != "cpu")
      reader.fail(JsonReader::join(path, "type"),
                  "must be \"accelerator\" or \"cpu\", got \"" + *type + "\"");
    kind.isAccelerator = type.value_or("accelerator") == "accelerator";
    std::optional<int64_t> count = reader.getInteger(*object, "count", path);
    if (count && *count < 1)
      reader.fail(JsonReader::join(path, "count"),
                  "must be at least 1, got " + llvm::Twine(*count));
    kind.count = count.value_or(1);
    if (const Object *flops =
            reader.getObject(*object, "peak_flops", path)) {
      std::string flopsPath = JsonReader::join(path, "peak_flops");
      if (flops->empty())
        reader.fail(flopsPath, "must give at least one element type");
      for (const auto &entry : *flops) {
        std::optional<double> peak =
            getPositive(reader, *flops, entry.first, flopsPath);
        if (peak)
          kind.peakFlops[entry.first.str()] = *peak;
      }
    }
    kind.memoryBandwidth =
        getPositive(reader, *object, "memory_bandwidth", path).value_or(0);
    if (kind.isAccelerator)
      kind.memoryCapacity =
          getPositive(reader, *object, "memory_capacity", path).value_or(0);
    else
      kind.memoryCapacity =
          getNonNegative(reader, *object, "memory_capacity", path).value_or(0);
    kind.opOverhead =
        getNonNegative(reader, *object, "op_overhead", path).value_or(0);
    cluster.kinds.push_back(std::move(kind));
  }
  if (reader.failed())
    return reader.takeError();

  const Object *links = reader.getObject(*root, "links", "");
  if (!links)
    return reader.takeError();
  if (const Object *def = reader.getObject(*links, "default", "links"))
    if (auto link = parseLink(reader, *def, "links.default"))
      cluster.defaultLink = *link;
  if (const Object *h = reader.getObject(*links, "hierarchy", "links", false)) {
    std::optional<int64_t> perNode =
        reader.getInteger(*h, "devices_per_node", "links.hierarchy");
    if (perNode && *perNode < 1)
      reader.fail("links.hierarchy.devices_per_node",
                  "must be at least 1, got " + llvm::Twine(*perNode));
    const Object *intra = reader.getObject(*h, "intra_node", "links.hierarchy");
    const Object *inter = reader.getObject(*h, "inter_node", "links.hierarchy");
    std::optional<Link> intraLink, interLink;
    if (intra)
      intraLink = parseLink(reader, *intra, "links.hierarchy.intra_node");
    if (inter)
      interLink = parseLink(reader, *inter, "links.hierarchy.inter_node");
    if (!reader.failed() && perNode && intraLink && interLink)
      cluster.hierarchy = Hierarchy{*perNode, *intraLink, *interLink};
  }
  if (const Array *pairs =
          reader.getArray(*links, "kind_pairs", "links", false)) {
    for (size_t i = 0; i < pairs->size() && !reader.failed(); ++i) {
      std::string path = JsonReader::index("links.kind_pairs", i);
      const Object *pair = reader.asObject((*pairs)[i], path);
      if (!pair)
        break;
      const Array *ends = reader.getArray(*pair, "kinds", path);
      if (!ends)
        break;
      std::vector<std::string> endNames;
      for (const Value &end : *ends)
        if (auto s = end.getAsString())
          endNames.push_back(s->str());
      if (endNames.size() != 2 || ends->size() != 2) {
        reader.fail(JsonReader::join(path, "kinds"),
                    "expected two device kind names");
        break;
      }
      for (const std::string &end : endNames)
        if (!cluster.findKind(end))
          reader.fail(JsonReader::join(path, "kinds"),
                      "unknown device kind '" + end + "'");
      if (auto link = parseLink(reader, *pair, path))
        cluster.kindPairs.push_back({endNames[0], endNames[1], *link});
    }
  }
  if (const Array *pairs =
          reader.getArray(*links, "device_pairs", "links", false)) {
    int64_t numDevices = cluster.getNumDevices();
    for (size_t i = 0; i < pairs->size() && !reader.failed(); ++i) {
      std::string path = JsonReader::index("links.device_pairs", i);
      const Object *pair = reader.asObject((*pairs)[i], path);
      if (!pair)
        break;
      const Array *ends = reader.getArray(*pair, "devices", path);
      if (!ends)
        break;
      std::vector<int64_t> devices;
      for (const Value &end : *ends)
        if (auto d = end.getAsInteger())
          devices.push_back(*d);
      if (devices.size() != 2 || ends->size() != 2) {
        reader.fail(JsonReader::join(path, "devices"),
                    "expected two device indices");
        break;
      }
      for (int64_t d : devices)
        if (d < 0 || d >= numDevices)
          reader.fail(JsonReader::join(path, "devices"),
                      "device " + llvm::Twine(d) + " is out of range [0, " +
                          llvm::Twine(numDevices) + ")");
      if (auto link = parseLink(reader, *pair, path))
        cluster.devicePairs.push_back({devices[0], devices[1], *link});
    }
  }
  if (reader.failed())
    return reader.takeError();
  return cluster;
}

Value Cluster::toJson() const {
  Array kindArray;
  for (const DeviceKind &kind : kinds) {
    Object flops;
    for (const auto &[type, peak] : kind.peakFlops)
      flops[type] = peak;
    kindArray.push_back(Object{
        {"name", kind.name},
        {"type", kind.isAccelerator ? "accelerator" : "cpu"},
        {"count", kind.count},
        {"peak_flops", std::move(flops)},
        {"memory_bandwidth", kind.memoryBandwidth},
        {"memory_capacity", kind.memoryCapacity},
        {"op_overhead", kind.opOverhead}});
  }
  Object links{{"default", linkToJson(defaultLink)}};
  if (hierarchy)
    links["hierarchy"] =
        Object{{"devices_per_node", hierarchy->devicesPerNode},
               {"intra_node", linkToJson(hierarchy->intraNode)},
               {"inter_node", linkToJson(hierarchy->interNode)}};
  if (!kindPairs.empty()) {
    Array pairs;
    for (const KindPairLink &pair : kindPairs)
      pairs.push_back(Object{{"kinds", Array{pair.a, pair.b}},
                             {"bandwidth", pair.link.bandwidth},
                             {"latency", pair.link.latency}});
    links["kind_pairs"] = std::move(pairs);
  }
  if (!devicePairs.empty()) {
    Array pairs;
    for (const DevicePairLink &pair : devicePairs)
      pairs.push_back(Object{{"devices", Array{pair.a, pair.b}},
                             {"bandwidth", pair.link.bandwidth},
                             {"latency", pair.link.latency}});
    links["device_pairs"] = std::move(pairs);
  }
  return Object{{"name", name},
                {"device_kinds", std::move(kindArray)},
                {"links", std::move(links)}};
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
