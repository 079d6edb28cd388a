//===- PlacementOptions.h - Cost and placement settings ---------*- C++ -*-===//
//
// --placer-estimate-costs, --placer-place-devices and --partition-devices
// take the same options, declared once as option lists in Passes.td (so
// --help, docs/Passes.md, pipeline printing and cloning see them). The
// readers below turn whichever of them holds the options into the typed
// settings the passes run on; C++ callers may build the settings directly.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_TRANSFORMS_PLACEMENTOPTIONS_H
#define PLACER_TRANSFORMS_PLACEMENTOPTIONS_H

#include "placer/Solver/Solve.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <string>
#include <vector>

namespace placer {

/// What --placer-estimate-costs needs.
struct CostSettings {
  std::string cluster = "a100-80gb";
  std::string dump;
  std::string profile;
  bool training = false;
  /// f32 contractions at the kinds' tf32 peaks (TF32 tensor cores).
  bool tf32 = false;
  /// Negative: per op type (getBackwardFactor), else this for every op.
  double backwardFactor = -1;
  /// Negative: the cluster's (TrainingSetup).
  double optimizerStateFactor = -1;
  /// NAME=VALUE sizes of the module's symbolic dims (bindDims).
  std::vector<std::string> dims;
};

/// What --placer-place-devices needs, typed.
/// The largest tensor-parallel degree an option may ask for.
inline constexpr int64_t kMaxTensorDegree = 4096;

struct PlacementSettings {
  /// Accelerators to use, the cluster's first ones in device order (every
  /// accelerator kind); 0: all of them.
  int64_t devices = 0;
  /// CPU cores to use; -1: a workload's own count, else none.
  int64_t cpus = -1;
  /// Bytes per accelerator; 0: the cluster's capacity.
  double memory = 0;
  /// Memory counts the peak of live activations, not only weights.
  bool activations = true;
  /// Training graphs: the pipeline schedule and microbatches per iteration;
  /// unset / 0: the cluster's (TrainingSetup).
  std::optional<solver::Schedule> schedule;
  int64_t microbatches = 0;
  /// schedule=interleaved: chunks per accelerator.
  int64_t chunks = 2;
  /// Decode steps: the sequences and tokens each KV cache holds resident
  /// (placer::getKVCacheBytes); 0: the step's own shapes.
  int64_t kvBatch = 0, context = 0;
  /// Training graphs: a stage whose stash does not fit may recompute it.
  bool recompute = false;
  /// Tensor-parallel degrees a stage may take (ascending, distinct); {1}:
  /// pipeline stages only (the contiguous-split DP).
  std::vector<int64_t> tensorDegrees = {1};
  /// A stage may run on several accelerators (data parallel within it).
  bool replication = false;
  /// The solver sees every link as the one c(u) is priced on (the report
  /// still scores the cluster's links): a hierarchy-blind baseline.
  bool flatLinks = false;
  solver::SolveOptions solve;
  std::string report;
  std::string exportSplit;
};

/// The settings the options of `CostOptionList` (Passes.td) give, read from
/// a pass declaring them (which befriends this function: the generated
/// options are protected members) or from the generated options struct.
template <typename Options>
CostSettings readCostSettings(const Options &options) {
  CostSettings settings;
  settings.cluster = options.cluster;
  settings.dump = options.dump;
  settings.profile = options.profile;
  settings.training = options.training;
  settings.tf32 = options.tf32;
  settings.backwardFactor = options.backwardFactor;
  settings.optimizerStateFactor = options.optimizerStateFactor;
  settings.dims.assign(options.dims.begin(), options.dims.end());
  return settings;
}

/// The settings the options of `PlaceOptionList` (Passes.td) give, or an
/// error naming the option whose value is unknown.
template <typename Options>
llvm::Expected<PlacementSettings>
readPlacementSettings(const Options &options) {
  PlacementSettings settings;
  settings.devices = options.devices;
  settings.cpus = options.cpus;
  settings.memory = options.memory;
  settings.activations = options.activations;
  const std::string &schedule = options.schedule;
  if (!schedule.empty()) {
    settings.schedule = solver::parseTrainingSchedule(schedule);
    if (!settings.schedule)
      return llvm::createStringError("unknown schedule '" + schedule + "' (" +
                                     solver::getTrainingScheduleNames() + ")");
  }
  int64_t microbatches = options.microbatches;
  if (microbatches < 0)
    return llvm::createStringError(
        "microbatches=" + std::to_string(microbatches) +
        ": must be at least 1 (0: the cluster's)");
  settings.microbatches = microbatches;
  settings.chunks = options.chunks;
  if (settings.chunks < 1 || settings.chunks > 64)
    return llvm::createStringError("chunks=" + std::to_string(settings.chunks) +
                                   ": must be between 1 and 64");
  if (settings.chunks != 2 &&
      settings.schedule != solver::Schedule::Interleaved)
    return llvm::createStringError(
        "chunks=" + std::to_string(settings.chunks) +
        " is read by schedule=interleaved (zb-v runs 2)");
  if (options.kvBatch < 0 || options.context < 0)
    return llvm::createStringError(
        (options.kvBatch < 0 ? "kv-batch=" + std::to_string(options.kvBatch)
                             : "context=" + std::to_string(options.context)) +
        ": must be at least 1 (0: the step's own shapes)");
  settings.kvBatch = options.kvBatch;
  settings.context = options.context;
  settings.tensorDegrees.assign(options.tensorDegrees.begin(),
                                options.tensorDegrees.end());
  if (settings.tensorDegrees.empty())
    settings.tensorDegrees = {1};
  for (int64_t degree : settings.tensorDegrees)
    if (degree < 1 || degree > kMaxTensorDegree)
      return llvm::createStringError(
          "tensor-degrees=" + std::to_string(degree) +
          ": a degree must be between 1 and " +
          std::to_string(kMaxTensorDegree));
  llvm::sort(settings.tensorDegrees);
  settings.tensorDegrees.erase(
      std::unique(settings.tensorDegrees.begin(), settings.tensorDegrees.end()),
      settings.tensorDegrees.end());
  settings.recompute = options.recompute;
  settings.replication = options.replication;
  const std::string &links = options.links;
  if (links != "cluster" && links != "flat")
    return llvm::createStringError("unknown links '" + links +
                                   "' (cluster, flat)");
  settings.flatLinks = links == "flat";
  settings.report = options.report;
  settings.exportSplit = options.exportSplit;
  solver::SolveOptions &solve = settings.solve;
  const std::string &objective = options.objective;
  std::optional<solver::Objective> parsedObjective =
      solver::parseObjective(objective);
  if (!parsedObjective)
    return llvm::createStringError("unknown objective '" + objective +
                                   "' (throughput, latency)");
  solve.objective = *parsedObjective;
  const std::string &algorithm = options.algorithm;
  std::optional<solver::Algorithm> parsedAlgorithm =
      solver::parseAlgorithm(algorithm);
  if (!parsedAlgorithm)
    return llvm::createStringError("unknown algorithm '" + algorithm + "' (" +
                                   solver::listAlgorithms() + ")");
  solve.algorithm = *parsedAlgorithm;
  solve.idealLimit = options.idealLimit;
  solve.splitFile = options.splitIn;
  solver::IPOptions &ip = solve.ip;
  ip.contiguous = options.contiguous;
  ip.timeLimitSeconds = options.timeLimit;
  ip.relativeGap = options.gap;
  ip.maxNodes = options.nodes;
  // Clamped to int: the checks reject what is out of range.
  ip.threads = static_cast<int>(std::clamp<int64_t>(options.threads, -1, 1024));
  ip.callsPerAccelerator =
      static_cast<int>(std::clamp<int64_t>(options.calls, -1, 1 << 20));
  ip.progressSeconds = options.progress;
  ip.exportPath = options.exportLp;
  return settings;
}

} // namespace placer

#endif // PLACER_TRANSFORMS_PLACEMENTOPTIONS_H
