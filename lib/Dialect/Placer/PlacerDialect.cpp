//===- PlacerDialect.cpp - Typed state between Placer's passes ------------===//
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Analysis/Cluster.h"

#include "placer/Support/Format.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace placer;

#include "placer/Dialect/Placer/PlacerEnums.cpp.inc"

#include "placer/Dialect/Placer/PlacerDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "placer/Dialect/Placer/PlacerAttrs.cpp.inc"

void PlacerDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "placer/Dialect/Placer/PlacerAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

FailureOr<F64> placer::detail::parseF64(AsmParser &parser) {
  double value;
  if (parser.parseFloat(value))
    return failure();
  return F64(value);
}

FailureOr<std::optional<F64>>
placer::detail::parseOptionalF64(AsmParser &parser) {
  FailureOr<F64> value = parseF64(parser);
  if (failed(value))
    return failure();
  return std::optional<F64>(*value);
}

void placer::detail::printF64(AsmPrinter &printer, double value) {
  if (!std::isfinite(value)) {
    // MLIR reads non-finite floats as their bit pattern.
    printer << llvm::formatv("{0:x16}", llvm::bit_cast<uint64_t>(value)).str();
    return;
  }
  // The shortest round-tripping text, with the '.' MLIR's float syntax
  // needs: 2.0, 0.25, 5.0e-06.
  std::string text = formatNumber(value);
  if (text.find('.') == std::string::npos) {
    size_t exponent = text.find_first_of("eE");
    text.insert(exponent == std::string::npos ? text.size() : exponent, ".0");
  }
  printer << text;
}

FailureOr<bool> placer::detail::parseBool(AsmParser &parser) {
  if (succeeded(parser.parseOptionalKeyword("true")))
    return true;
  if (succeeded(parser.parseOptionalKeyword("false")))
    return false;
  return parser.emitError(parser.getCurrentLocation(),
                          "expected true or false");
}

FailureOr<solver::Objective> placer::detail::parseObjective(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (failed(parser.parseKeyword(&name)))
    return failure();
  if (std::optional<solver::Objective> objective = solver::parseObjective(name))
    return *objective;
  return parser.emitError(loc, "expected throughput or latency, got ") << name;
}

FailureOr<solver::Schedule> placer::detail::parseSchedule(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  std::string name;
  if (failed(parser.parseString(&name)))
    return failure();
  for (solver::Schedule schedule :
       {solver::Schedule::Inference, solver::Schedule::GPipe,
        solver::Schedule::OneFOneB, solver::Schedule::ZeroBubbleH1,
        solver::Schedule::Interleaved, solver::Schedule::ZeroBubbleV,
        solver::Schedule::Sequential})
    if (name == solver::getName(schedule))
      return schedule;
  return parser.emitError(loc, "unknown schedule \"")
         << name
         << "\" (one of \"gpipe\", \"1f1b\", \"zb-h1\", \"interleaved\", "
         << "\"zb-v\", \"sequential\", "
         << "\"inference\")";
}

//===----------------------------------------------------------------------===//
// Cluster
//===----------------------------------------------------------------------===//

LogicalResult LinkAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               F64 bandwidth, F64 latency) {
  if (!(bandwidth > 0))
    return emitError() << "link bandwidth must be positive, got "
                       << formatNumber(bandwidth);
  if (!(latency >= 0))
    return emitError() << "link latency must not be negative, got "
                       << formatNumber(latency);
  return success();
}

LogicalResult
DeviceKindAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       StringRef name, DeviceClass deviceClass, int64_t count,
                       DictionaryAttr peakFlops, F64 memoryBandwidth,
                       F64 memoryCapacity, F64 opOverhead) {
  if (name.empty())
    return emitError() << "device kind name must not be empty";
  if (count < 1 || count > kMaxDevicesPerKind)
    return emitError() << "device kind '" << name << "': count must be in [1, "
                       << kMaxDevicesPerKind << "], got " << count;
  if (peakFlops.empty())
    return emitError() << "device kind '" << name
                       << "': peak_flops must give at least one element type";
  for (NamedAttribute entry : peakFlops) {
    auto flops = dyn_cast<FloatAttr>(entry.getValue());
    if (!flops || !(flops.getValueAsDouble() > 0))
      return emitError() << "device kind '" << name << "': peak_flops."
                         << entry.getName().getValue()
                         << " must be a positive float";
  }
  if (!(memoryBandwidth > 0))
    return emitError() << "device kind '" << name
                       << "': memory_bandwidth must be positive";
  if (!(memoryCapacity >= 0) || !(opOverhead >= 0))
    return emitError() << "device kind '" << name
                       << "': memory_capacity and op_overhead must not be "
                          "negative";
  return success();
}

LogicalResult
HierarchyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t devicesPerNode, LinkAttr, LinkAttr) {
  if (devicesPerNode < 1)
    return emitError() << "hierarchy devices_per_node must be at least 1, got "
                       << devicesPerNode;
  return success();
}

LogicalResult TrainingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   solver::Schedule schedule,
                                   int64_t microbatches,
                                   F64 optimizerStateFactor) {
  if (!solver::parseTrainingSchedule(solver::getName(schedule)))
    return emitError() << "training schedule must be "
                       << solver::getTrainingScheduleNames() << ", got \""
                       << solver::getName(schedule) << "\"";
  if (microbatches < 1 || optimizerStateFactor < 0)
    return emitError() << "training needs at least one microbatch and a "
                          "non-negative optimizer_state_factor";
  return success();
}

LogicalResult
PlacementAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      solver::Objective, StringRef, F64, F64, bool, int64_t,
                      int64_t, std::optional<F64>, solver::Schedule schedule,
                      int64_t microbatches, int64_t chunks,
                      DenseI64ArrayAttr recompute, DenseI64ArrayAttr replicaOf,
                      ArrayAttr stages) {
  bool inference = schedule == solver::Schedule::Inference;
  if (solver::usesChunks(schedule) ? chunks < 2 : chunks != 1)
    return emitError() << "placement chunks must be at least 2 under a "
                          "schedule that runs several per accelerator "
                          "(interleaved, zb-v) and 1 otherwise, got "
                       << chunks << " under \"" << solver::getName(schedule)
                       << "\"";
  if (inference != (microbatches == 0))
    return emitError() << "placement schedule and microbatches come together "
                          "(training) or not at all (inference)";
  if (schedule == solver::Schedule::Sequential)
    return emitError() << "placement schedule must be "
                       << solver::getTrainingScheduleNames()
                       << ", got \"sequential\"";
  if (microbatches < 0)
    return emitError() << "placement microbatches must be positive, got "
                       << microbatches;
  if (recompute) {
    if (inference)
      return emitError() << "placement recompute needs a training schedule";
    ArrayRef<int64_t> devices = recompute.asArrayRef();
    for (size_t i = 0; i < devices.size(); ++i)
      if (devices[i] < 0 || (i > 0 && devices[i] <= devices[i - 1]))
        return emitError() << "placement recompute must list devices in "
                              "ascending order, got "
                           << recompute;
  }
  if (replicaOf) {
    // Copies point at a device that is itself no copy.
    ArrayRef<int64_t> of = replicaOf.asArrayRef();
    for (auto [device, leader] : llvm::enumerate(of))
      if (leader < -1 || leader >= static_cast<int64_t>(of.size()) ||
          static_cast<size_t>(leader) == device ||
          (leader >= 0 && of[leader] != -1))
        return emitError() << "placement replica_of: device " << device
                           << " cannot copy device " << leader << " in "
                           << replicaOf;
  }
  if (stages) {
    // Disjoint device ranges (consecutive on a flat network; aligned blocks
    // on nodes, not in pipeline order).
    SmallVector<std::pair<int64_t, int64_t>> ranges;
    for (Attribute attr : stages) {
      auto stage = dyn_cast<ParallelStageAttr>(attr);
      if (!stage)
        return emitError() << "placement stages must be #placer.parallel_stage "
                              "attributes, got "
                           << attr;
      ranges.push_back(
          {stage.getFirst(),
           stage.getFirst() + stage.getTensor() * stage.getData()});
    }
    llvm::sort(ranges);
    for (size_t i = 1; i < ranges.size(); ++i)
      if (ranges[i].first < ranges[i - 1].second)
        return emitError() << "placement stages overlap: devices ["
                           << ranges[i - 1].first << ", "
                           << ranges[i - 1].second << ") and ["
                           << ranges[i].first << ", " << ranges[i].second
                           << ")";
  }
  return success();
}

LogicalResult TensorConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringRef id, F64 time,
    F64 paramBytes, F64 stashBytes, F64 fixedBytes, DenseF64ArrayAttr syncIn,
    DenseF64ArrayAttr syncOut, DictionaryAttr times, bool, F64 cacheBytes) {
  if (id.empty())
    return emitError() << "tensor_config needs an id";
  if (times)
    for (NamedAttribute entry : times) {
      auto seconds = dyn_cast<FloatAttr>(entry.getValue());
      if (!seconds || !(seconds.getValueAsDouble() >= 0) ||
          !std::isfinite(seconds.getValueAsDouble()))
        return emitError() << "tensor_config '" << id << "': the time on '"
                           << entry.getName().getValue()
                           << "' must be a finite, not negative float";
    }
  for (double value : {double(time), double(paramBytes), double(stashBytes),
                       double(fixedBytes), double(cacheBytes)})
    if (!(value >= 0) || !std::isfinite(value))
      return emitError() << "tensor_config '" << id
                         << "': times and bytes must be finite and not "
                            "negative";
  for (DenseF64ArrayAttr sync : {syncIn, syncOut})
    for (double value : sync.asArrayRef())
      if (!(value >= 0) || !std::isfinite(value))
        return emitError() << "tensor_config '" << id
                           << "': sync bytes must be finite and not negative";
  return success();
}

std::optional<double> TensorConfigAttr::getTimeOn(StringRef kind) const {
  if (!getTimes())
    return double(getTime());
  if (auto seconds = getTimes().getAs<FloatAttr>(kind))
    return seconds.getValueAsDouble();
  return std::nullopt;
}

LogicalResult
TensorDegreeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t degree, ArrayAttr configs) {
  if (degree < 1)
    return emitError() << "tensor_degree must be at least 1, got " << degree;
  if (configs.empty())
    return emitError() << "tensor_degree " << degree
                       << " needs at least one configuration";
  llvm::StringSet<> ids;
  for (Attribute attr : configs) {
    auto config = dyn_cast<TensorConfigAttr>(attr);
    if (!config)
      return emitError() << "tensor_degree " << degree
                         << ": configs must be #placer.tensor_config, got "
                         << attr;
    if (!ids.insert(config.getId()).second)
      return emitError() << "tensor_degree " << degree
                         << ": two configurations named '" << config.getId()
                         << "'";
  }
  return success();
}

LogicalResult
ParallelStageAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          int64_t first, int64_t tensor, int64_t data, F64,
                          F64) {
  if (first < 0 || tensor < 1 || data < 1)
    return emitError() << "parallel_stage needs first >= 0 and tensor, data "
                          ">= 1";
  return success();
}

LogicalResult ShardAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t axis, int64_t blocks, int64_t index,
                                ArrayRef<int64_t> group) {
  if (axis < 0 || blocks < 1)
    return emitError() << "shard needs axis >= 0 and blocks >= 1, got axis "
                       << axis << " and blocks " << blocks;
  if (group.size() < 2)
    return emitError() << "shard's group needs two or more devices, got "
                       << group.size();
  for (size_t i = 0; i < group.size(); ++i)
    if (group[i] < 0 || (i > 0 && group[i] <= group[i - 1]))
      return emitError() << "shard's group must list distinct devices in "
                            "ascending order";
  if (index < 0 || index >= static_cast<int64_t>(group.size()))
    return emitError() << "shard index " << index << " is not a member of a "
                       << group.size() << "-device group";
  return success();
}

/// The elements of an optional array of links (none when absent).
template <typename AttrT>
static SmallVector<AttrT> getLinks(ArrayAttr links) {
  if (!links)
    return {};
  return llvm::to_vector(links.getAsRange<AttrT>());
}

LogicalResult
ClusterAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                    StringRef name, ArrayAttr kinds, LinkAttr defaultLink,
                    HierarchyAttr hierarchy, ArrayAttr kindLinks,
                    ArrayAttr deviceLinks, TrainingAttr) {
  if (!kinds || kinds.empty())
    return emitError() << "a cluster has at least one device kind";
  if (!defaultLink)
    return emitError() << "a cluster needs a default link";
  auto allOf = [](ArrayAttr array, auto isa) {
    return !array || llvm::all_of(array, isa);
  };
  if (!allOf(kinds, llvm::IsaPred<DeviceKindAttr>) ||
      !allOf(kindLinks, llvm::IsaPred<KindLinkAttr>) ||
      !allOf(deviceLinks, llvm::IsaPred<DeviceLinkAttr>))
    return emitError() << "cluster kinds must be #placer.kind, kind_links "
                          "#placer.kind_link and device_links "
                          "#placer.device_link attributes";
  llvm::StringSet<> names;
  int64_t numDevices = 0;
  for (auto kind : kinds.getAsRange<DeviceKindAttr>()) {
    if (!names.insert(kind.getName()).second)
      return emitError() << "duplicate device kind '" << kind.getName() << "'";
    numDevices += kind.getCount();
  }
  for (auto link : getLinks<KindLinkAttr>(kindLinks))
    for (StringRef end : {link.getA(), link.getB()})
      if (!names.contains(end))
        return emitError() << "kind link names unknown device kind '" << end
                           << "'";
  for (auto link : getLinks<DeviceLinkAttr>(deviceLinks))
    for (int64_t end : {link.getA(), link.getB()})
      if (end < 0 || end >= numDevices)
        return emitError() << "device link names device " << end
                           << ", out of range [0, " << numDevices << ")";
  return success();
}

static LinkAttr toAttr(MLIRContext *context, const Link &link) {
  return LinkAttr::get(context, link.bandwidth, link.latency);
}

static Link fromAttr(LinkAttr link) {
  return Link{link.getBandwidth(), link.getLatency()};
}

ClusterAttr ClusterAttr::get(MLIRContext *context, const Cluster &cluster) {
  Builder b(context);
  SmallVector<Attribute> kinds;
  for (const DeviceKind &kind : cluster.getKinds()) {
    SmallVector<NamedAttribute> flops;
    for (const auto &[type, peak] : kind.peakFlops)
      flops.push_back(b.getNamedAttr(type, b.getF64FloatAttr(peak)));
    kinds.push_back(DeviceKindAttr::get(
        context, kind.name,
        kind.isAccelerator ? DeviceClass::Accelerator : DeviceClass::Cpu,
        kind.count, b.getDictionaryAttr(flops), kind.memoryBandwidth,
        kind.memoryCapacity, kind.opOverhead));
  }
  HierarchyAttr hierarchy;
  if (const auto &h = cluster.getHierarchy())
    hierarchy = HierarchyAttr::get(context, h->devicesPerNode,
                                   toAttr(context, h->intraNode),
                                   toAttr(context, h->interNode));
  SmallVector<Attribute> kindLinks;
  for (const Cluster::KindPairLink &pair : cluster.getKindPairs())
    kindLinks.push_back(
        KindLinkAttr::get(context, pair.a, pair.b, toAttr(context, pair.link)));
  SmallVector<Attribute> deviceLinks;
  for (const Cluster::DevicePairLink &pair : cluster.getDevicePairs())
    deviceLinks.push_back(DeviceLinkAttr::get(context, pair.a, pair.b,
                                              toAttr(context, pair.link)));
  // The default setup is left implicit, as the JSON may leave it out.
  const TrainingSetup &training = cluster.getTraining();
  const TrainingSetup defaults;
  bool isDefault = training.schedule == defaults.schedule &&
                   training.microbatches == defaults.microbatches &&
                   training.optimizerStateFactor ==
                       defaults.optimizerStateFactor;
  return ClusterAttr::get(
      context, cluster.getName(), b.getArrayAttr(kinds),
      toAttr(context, cluster.getDefaultLink()), hierarchy,
      kindLinks.empty() ? ArrayAttr() : b.getArrayAttr(kindLinks),
      deviceLinks.empty() ? ArrayAttr() : b.getArrayAttr(deviceLinks),
      isDefault
          ? TrainingAttr()
          : TrainingAttr::get(context, training.schedule, training.microbatches,
                              training.optimizerStateFactor));
}

Cluster ClusterAttr::getCluster() const {
  std::vector<DeviceKind> kinds;
  for (auto attr : getKinds().getAsRange<DeviceKindAttr>()) {
    DeviceKind kind;
    kind.name = attr.getName().str();
    kind.isAccelerator = attr.getDeviceClass() == DeviceClass::Accelerator;
    kind.count = attr.getCount();
    for (NamedAttribute entry : attr.getPeakFlops())
      kind.peakFlops[entry.getName().str()] =
          cast<FloatAttr>(entry.getValue()).getValueAsDouble();
    kind.memoryBandwidth = attr.getMemoryBandwidth();
    kind.memoryCapacity = attr.getMemoryCapacity();
    kind.opOverhead = attr.getOpOverhead();
    kinds.push_back(std::move(kind));
  }
  std::optional<Cluster::Hierarchy> hierarchy;
  if (HierarchyAttr h = getHierarchy())
    hierarchy = Cluster::Hierarchy{h.getDevicesPerNode(),
                                   fromAttr(h.getIntraNode()),
                                   fromAttr(h.getInterNode())};
  std::vector<Cluster::KindPairLink> kindPairs;
  for (auto link : getLinks<KindLinkAttr>(getKindLinks()))
    kindPairs.push_back(
        {link.getA().str(), link.getB().str(), fromAttr(link.getLink())});
  std::vector<Cluster::DevicePairLink> devicePairs;
  for (auto link : getLinks<DeviceLinkAttr>(getDeviceLinks()))
    devicePairs.push_back({link.getA(), link.getB(), fromAttr(link.getLink())});
  TrainingSetup training;
  if (TrainingAttr t = getTraining()) {
    training.schedule = t.getSchedule();
    training.microbatches = t.getMicrobatches();
    training.optimizerStateFactor = t.getOptimizerStateFactor();
  }
  return Cluster(getName().str(), std::move(kinds),
                 fromAttr(getDefaultLink()), hierarchy, std::move(kindPairs),
                 std::move(devicePairs), training);
}

int64_t ClusterAttr::getNumDevices() const {
  int64_t total = 0;
  for (auto kind : getKinds().getAsRange<DeviceKindAttr>())
    total += kind.getCount();
  return total;
}

//===----------------------------------------------------------------------===//
// Per-op state
//===----------------------------------------------------------------------===//

/// Every entry of `times` a non-negative float (seconds per device kind).
static LogicalResult verifyTimes(function_ref<InFlightDiagnostic()> emitError,
                                 DictionaryAttr times, StringRef field) {
  for (NamedAttribute entry : times) {
    auto seconds = dyn_cast<FloatAttr>(entry.getValue());
    if (!seconds || !(seconds.getValueAsDouble() >= 0))
      return emitError() << "cost " << field << "."
                         << entry.getName().getValue()
                         << " must be a non-negative float (seconds)";
  }
  return success();
}

LogicalResult CostAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t flops, int64_t bytesRead,
                               int64_t bytesWritten, int64_t paramBytes,
                               int64_t outputBytes, DictionaryAttr time,
                               F64 transferTime, CostSource,
                               DictionaryAttr backwardTime,
                               std::optional<int64_t> trainingParamBytes) {
  if (flops < 0 || bytesRead < 0 || bytesWritten < 0 || paramBytes < 0 ||
      outputBytes < 0 || trainingParamBytes.value_or(0) < 0)
    return emitError() << "cost FLOPs and byte counts must not be negative";
  if (!time)
    return emitError() << "cost needs a time per device kind";
  if (!(transferTime >= 0))
    return emitError() << "cost transfer_time must not be negative";
  if (failed(verifyTimes(emitError, time, "time")))
    return failure();
  if (backwardTime && failed(verifyTimes(emitError, backwardTime,
                                         "backward_time")))
    return failure();
  return success();
}

static std::optional<double> lookupSeconds(DictionaryAttr times,
                                           StringRef kind) {
  auto seconds = times ? times.getAs<FloatAttr>(kind) : FloatAttr();
  if (!seconds)
    return std::nullopt;
  return seconds.getValueAsDouble();
}

std::optional<double> CostAttr::getTimeOn(StringRef kind) const {
  return lookupSeconds(getTime(), kind);
}

std::optional<double> CostAttr::getBackwardTimeOn(StringRef kind) const {
  return lookupSeconds(getBackwardTime(), kind);
}

int64_t CostAttr::getResidentBytes() const {
  return getTrainingParamBytes().value_or(getParamBytes());
}

LogicalResult DeviceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t index) {
  if (index < 0)
    return emitError() << "device index must not be negative, got " << index;
  return success();
}

//===----------------------------------------------------------------------===//
// Where the attributes may appear
//===----------------------------------------------------------------------===//

/// `placer.tensor_configs`, `placer.tensor_config` and `placer.edge_bytes`
/// on a graph.node: the configurations by ascending degree, each with one
/// sync entry per operand and per use by a node; the chosen id one of them;
/// one edge size per operand.
static LogicalResult verifyTensorParallelAttr(Operation *op,
                                              NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (op->getName().getStringRef() != "graph.node")
    return op->emitError() << "'" << name << "' belongs on a graph.node";
  int64_t inputs = op->getNumOperands();
  // Out-edges are uses by other nodes (a return is no edge).
  int64_t uses = 0;
  for (Value result : op->getResults())
    for (OpOperand &use : result.getUses())
      uses += use.getOwner()->getName() == op->getName();
  if (name == PlacerDialect::TensorConfigsAttrHelper::getNameStr()) {
    auto degrees = dyn_cast<ArrayAttr>(attr.getValue());
    if (!degrees || degrees.empty())
      return op->emitError() << "'" << name
                             << "' must be a nonempty array of "
                                "#placer.tensor_degree";
    int64_t previous = 0;
    for (Attribute entry : degrees) {
      auto degree = dyn_cast<TensorDegreeAttr>(entry);
      if (!degree)
        return op->emitError()
               << "'" << name << "' must hold #placer.tensor_degree, got "
               << entry;
      if (degree.getDegree() <= previous)
        return op->emitError()
               << "'" << name << "' must list degrees in ascending order";
      previous = degree.getDegree();
      for (auto config : degree.getConfigs().getAsRange<TensorConfigAttr>())
        if (static_cast<int64_t>(config.getSyncIn().size()) != inputs ||
            static_cast<int64_t>(config.getSyncOut().size()) != uses)
          return op->emitError()
                 << "'" << name << "': configuration '" << config.getId()
                 << "' of degree " << degree.getDegree() << " has "
                 << config.getSyncIn().size() << " sync_in and "
                 << config.getSyncOut().size()
                 << " sync_out entries; the node has " << inputs
                 << " inputs and " << uses << " uses";
    }
    return success();
  }
  if (name == PlacerDialect::TensorConfigAttrHelper::getNameStr()) {
    auto id = dyn_cast<StringAttr>(attr.getValue());
    auto degrees = op->getAttrOfType<ArrayAttr>(
        PlacerDialect::TensorConfigsAttrHelper::getNameStr());
    if (!id || !degrees)
      return op->emitError() << "'" << name
                             << "' must be a string naming one of the "
                                "node's placer.tensor_configs";
    for (auto degree : degrees.getAsRange<TensorDegreeAttr>())
      for (auto config : degree.getConfigs().getAsRange<TensorConfigAttr>())
        if (config && config.getId() == id.getValue())
          return success();
    return op->emitError() << "'" << name << "' names '" << id.getValue()
                           << "', which no placer.tensor_configs entry has";
  }
  auto bytes = dyn_cast<DenseF64ArrayAttr>(attr.getValue());
  if (!bytes || static_cast<int64_t>(bytes.size()) != inputs ||
      llvm::any_of(bytes.asArrayRef(),
                   [](double b) { return !(b >= 0) || !std::isfinite(b); }))
    return op->emitError() << "'" << name
                           << "' must give one non-negative size per input ("
                           << inputs << ")";
  return success();
}

LogicalResult PlacerDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto onModule = [&](bool typeMatches, StringRef kind) -> LogicalResult {
    if (!typeMatches)
      return op->emitError() << "'" << name << "' must be a #placer." << kind
                             << " attribute";
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << name << "' belongs on a module";
    return success();
  };
  if (name == ClusterAttrHelper::getNameStr())
    return onModule(isa<ClusterAttr>(attr.getValue()), "cluster");
  if (name == PlacementAttrHelper::getNameStr())
    return onModule(isa<PlacementAttr>(attr.getValue()), "placement");
  if (name == kPrecisionAttrName) {
    auto type = dyn_cast<TypeAttr>(attr.getValue());
    if (!type || !(type.getValue().isBF16() || type.getValue().isF16()))
      return op->emitError() << "'" << name << "' must be bf16 or f16";
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << name << "' belongs on a module";
    return success();
  }
  if (name == kProfileNodesAttrName) {
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (!names || !llvm::all_of(names, llvm::IsaPred<StringAttr>))
      return op->emitError() << "'" << name
                             << "' must be an array of node names";
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << name << "' belongs on a module";
    return success();
  }

  if (name == kBackwardNodeAttrName || name == kOptimizerNodeAttrName ||
      name == kWeightGradientAttrName || name == kColorClassAttrName ||
      name == kRecomputeAttrName || name == kChunkAttrName) {
    if (op->getName().getStringRef() != "graph.node")
      return op->emitError() << "'" << name << "' belongs on a graph.node";
    auto colorClass = dyn_cast<IntegerAttr>(attr.getValue());
    if (name != kColorClassAttrName && name != kChunkAttrName &&
        !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    if (name == kOptimizerNodeAttrName && !op->hasAttr(kBackwardNodeAttrName))
      return op->emitError()
             << "'" << name << "' needs '" << kBackwardNodeAttrName
             << "': an update runs after the backward pass";
    if (name == kWeightGradientAttrName &&
        (!op->hasAttr(kBackwardNodeAttrName) ||
         op->hasAttr(kOptimizerNodeAttrName)))
      return op->emitError()
             << "'" << name << "' belongs on a backward node that is not the "
             << "optimizer's";
    if (name == kRecomputeAttrName && op->hasAttr(kBackwardNodeAttrName))
      return op->emitError() << "'" << name
                             << "' belongs on a forward node: its backward "
                                "pass recomputes it";
    if ((name == kColorClassAttrName || name == kChunkAttrName) &&
        (!colorClass || colorClass.getInt() < 0))
      return op->emitError()
             << "'" << name << "' must be a non-negative integer";
    return success();
  }

  if (name == PlacerDialect::TensorConfigsAttrHelper::getNameStr() ||
      name == PlacerDialect::TensorConfigAttrHelper::getNameStr() ||
      name == PlacerDialect::EdgeBytesAttrHelper::getNameStr())
    return verifyTensorParallelAttr(op, attr);

  if (name == kMicrobatchesAttrName || name == kScheduleAttrName) {
    if (op->getName().getStringRef() != "func.func")
      return op->emitError() << "'" << name << "' belongs on a func.func";
    auto count = dyn_cast<IntegerAttr>(attr.getValue());
    auto schedule = dyn_cast<StringAttr>(attr.getValue());
    if (name == kMicrobatchesAttrName && (!count || count.getInt() < 1))
      return op->emitError() << "'" << name << "' must be a positive integer";
    if (name == kScheduleAttrName &&
        (!schedule || !solver::parseStepSchedule(schedule.getValue())))
      return op->emitError() << "'" << name << "' must be sequential, "
                             << solver::getTrainingScheduleNames();
    return success();
  }

  auto module = op->getParentOfType<ModuleOp>();
  ClusterAttr cluster = module ? placer::getCluster(module) : ClusterAttr();
  if (name == CostAttrHelper::getNameStr()) {
    auto cost = dyn_cast<CostAttr>(attr.getValue());
    if (!cost)
      return op->emitError() << "'" << name
                             << "' must be a #placer.cost attribute";
    if (!cluster)
      return success();
    llvm::StringSet<> kinds;
    for (auto kind : cluster.getKinds().getAsRange<DeviceKindAttr>())
      kinds.insert(kind.getName());
    for (DictionaryAttr times : {cost.getTime(), cost.getBackwardTime()})
      if (times)
        for (NamedAttribute entry : times)
          if (!kinds.contains(entry.getName().getValue()))
            return op->emitError()
                   << "'" << name << "' gives a time for device kind '"
                   << entry.getName().getValue()
                   << "', which the module's cluster does not have";
    return success();
  }
  if (name == DeviceAttrHelper::getNameStr()) {
    auto device = dyn_cast<DeviceAttr>(attr.getValue());
    if (!device)
      return op->emitError() << "'" << name
                             << "' must be a #placer.device attribute";
    if (cluster && device.getIndex() >= cluster.getNumDevices())
      return op->emitError() << "is placed on device " << device.getIndex()
                             << " but the module's cluster has "
                             << cluster.getNumDevices() << " devices";
    return success();
  }
  return op->emitError() << "unknown attribute '" << name
                         << "' of the placer dialect";
}

LogicalResult PlacerDialect::verifyRegionResultAttribute(Operation *op,
                                                         unsigned region,
                                                         unsigned result,
                                                         NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kShardAttrName) {
    auto function = dyn_cast<FunctionOpInterface>(op);
    auto shard = dyn_cast<ShardAttr>(attr.getValue());
    if (!shard || !function ||
        !function.getResultAttr(result, kUpdatesAttrName))
      return op->emitError() << "'" << name << "' on result " << result
                             << " must be a #placer.shard attribute beside '"
                             << kUpdatesAttrName << "'";
    // The result is the slice: each block of the axis holds a slice.
    auto type = dyn_cast<ShapedType>(function.getResultTypes()[result]);
    if (!type || !type.hasStaticShape() || shard.getAxis() >= type.getRank() ||
        type.getDimSize(shard.getAxis()) % shard.getBlocks() != 0)
      return op->emitError()
             << "'" << name << "' on result " << result << " cuts axis "
             << shard.getAxis() << " in " << shard.getBlocks()
             << " blocks, which its type " << function.getResultTypes()[result]
             << " does not have";
    return success();
  }
  if (name == kReplicaAttrName) {
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!isa<UnitAttr>(attr.getValue()) || !function ||
        !function.getResultAttr(result, kUpdatesAttrName))
      return op->emitError()
             << "'" << name << "' on result " << result
             << " must be a unit attribute beside '" << kUpdatesAttrName << "'";
    return success();
  }
  if (name != kUpdatesAttrName)
    return op->emitError() << "unknown result attribute '" << name
                           << "' of the placer dialect";
  auto updated = dyn_cast<StringAttr>(attr.getValue());
  if (!updated || updated.empty())
    return op->emitError() << "'" << name << "' on result " << result
                           << " must name the initializer it updates";
  return success();
}

//===----------------------------------------------------------------------===//
// Accessors
//===----------------------------------------------------------------------===//

// A getter gives null for an attribute of another kind; the verifier
// reports it.
ClusterAttr placer::getCluster(Operation *module) {
  return module->getAttrOfType<ClusterAttr>(
      PlacerDialect::ClusterAttrHelper::getNameStr());
}
void placer::setCluster(Operation *module, ClusterAttr cluster) {
  module->setAttr(PlacerDialect::ClusterAttrHelper::getNameStr(), cluster);
}
CostAttr placer::getCost(Operation *op) {
  return op->getAttrOfType<CostAttr>(
      PlacerDialect::CostAttrHelper::getNameStr());
}
void placer::setCost(Operation *op, CostAttr cost) {
  op->setAttr(PlacerDialect::CostAttrHelper::getNameStr(), cost);
}
std::optional<int64_t> placer::getDevice(Operation *op) {
  auto device = op->getAttrOfType<DeviceAttr>(
      PlacerDialect::DeviceAttrHelper::getNameStr());
  if (!device)
    return std::nullopt;
  return device.getIndex();
}
void placer::setDevice(Operation *op, int64_t device) {
  op->setAttr(PlacerDialect::DeviceAttrHelper::getNameStr(),
              DeviceAttr::get(op->getContext(), device));
}
PlacementAttr placer::getPlacement(Operation *module) {
  return module->getAttrOfType<PlacementAttr>(
      PlacerDialect::PlacementAttrHelper::getNameStr());
}
void placer::setPlacement(Operation *module, PlacementAttr placement) {
  module->setAttr(PlacerDialect::PlacementAttrHelper::getNameStr(), placement);
}

FailureOr<Cluster> placer::requireCluster(Operation *op, StringRef pass) {
  Operation *module = isa<ModuleOp>(op) ? op : op->getParentOfType<ModuleOp>();
  ClusterAttr cluster = module ? getCluster(module) : ClusterAttr();
  if (!cluster)
    return op->emitError() << pass
                           << ": the module has no placer.cluster: run "
                              "--placer-estimate-costs first (or "
                              "--partition-devices)";
  return cluster.getCluster();
}
