//===- PlacementOptions.h - Options declared once for pass and pipeline -*- C++ -*-===//
//
// --placer-estimate-costs, --placer-place-devices and the --partition-devices
// pipeline take the same options. Each set is declared once here, as a
// template over what owns the options: the pass itself (mlir::Pass, so that
// --help, pipeline printing and cloning see them) or the pipeline's option
// struct (mlir::detail::PassOptions). Both read their values through the
// same getSettings(), so no option can be copied one way and forgotten the
// other.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_TRANSFORMS_PLACEMENTOPTIONS_H
#define PLACER_TRANSFORMS_PLACEMENTOPTIONS_H

#include "placer/Solver/Solve.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"
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
  /// Negative: per op type (getBackwardFactor), else this for every op.
  double backwardFactor = -1;
  /// Negative: the cluster's (TrainingSetup).
  double optimizerStateFactor = -1;
  /// NAME=VALUE sizes of the module's symbolic dims (bindDims).
  std::vector<std::string> dims;
};

/// What --placer-place-devices needs, typed.
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
  /// Training graphs: a stage whose stash does not fit may recompute it.
  bool recompute = false;
  /// A stage may run on several accelerators (data parallel within it).
  bool replication = false;
  /// The solver sees every link as the one c(u) is priced on (the report
  /// still scores the cluster's links): a hierarchy-blind baseline.
  bool flatLinks = false;
  solver::SolveOptions solve;
  std::string report;
  std::string exportSplit;
};

template <typename Owner>
struct CostOptions {
  template <typename T> using Option = typename Owner::template Option<T>;
  template <typename T>
  using ListOption = typename Owner::template ListOption<T>;

  explicit CostOptions(Owner &owner) : owner(owner) {}

  Owner &owner;
  Option<std::string> cluster{
      owner, "cluster", llvm::cl::desc("Cluster preset name or JSON file"),
      llvm::cl::init("a100-80gb")};
  Option<std::string> dump{
      owner, "dump",
      llvm::cl::desc("Write the per-op costs and totals as JSON to this file")};
  Option<std::string> profile{
      owner, "profile",
      llvm::cl::desc(
          "JSON of measured times: node name -> {device kind: seconds}")};
  Option<bool> training{
      owner, "training",
      llvm::cl::desc("Also give backward times and training memory"),
      llvm::cl::init(false)};
  Option<double> backwardFactor{
      owner, "backward-factor",
      llvm::cl::desc("Backward time as a multiple of forward time for every "
                     "op (training; negative: per op type, by the table in "
                     "docs/CostModel.md, 2 for types it does not list)"),
      llvm::cl::init(-1.0)};
  Option<double> optimizerStateFactor{
      owner, "optimizer-state-factor",
      llvm::cl::desc("Optimizer state bytes per weight byte (training; "
                     "Adam: 2; negative: the cluster's, 2 by default)"),
      llvm::cl::init(-1.0)};

  ListOption<std::string> dims{
      owner, "dims",
      llvm::cl::desc("NAME=VALUE: the size of a symbolic dim of a module "
                     "imported without --dim (bound before costing)")};

  CostSettings getSettings() const {
    return CostSettings{cluster,
                        dump,
                        profile,
                        training,
                        backwardFactor,
                        optimizerStateFactor,
                        std::vector<std::string>(dims.begin(), dims.end())};
  }
};

template <typename Owner>
struct PlaceOptions {
  template <typename T> using Option = typename Owner::template Option<T>;

  explicit PlaceOptions(Owner &owner) : owner(owner) {}

  Owner &owner;
  Option<int64_t> devices{
      owner, "devices",
      llvm::cl::desc("Accelerators to use, the cluster's first ones in "
                     "device order, of every accelerator kind (0: all)"),
      llvm::cl::init(0)};
  Option<int64_t> cpus{
      owner, "cpus",
      llvm::cl::desc("CPU cores to use (-1: a workload's l, else 0)"),
      llvm::cl::init(-1)};
  Option<double> memory{
      owner, "memory",
      llvm::cl::desc("Memory per accelerator in bytes (0: the cluster's "
                     "capacity)"),
      llvm::cl::init(0)};
  Option<bool> activations{
      owner, "activations",
      llvm::cl::desc("Memory per accelerator counts the peak of its live "
                     "activations besides its weights (false: weights only, "
                     "as in the paper)"),
      llvm::cl::init(true)};
  Option<std::string> schedule{
      owner, "schedule",
      llvm::cl::desc("Training graphs: gpipe | 1f1b, how many microbatches' "
                     "activations each stage stashes (empty: the "
                     "cluster's, 1f1b by default)")};
  Option<int64_t> microbatches{
      owner, "microbatches",
      llvm::cl::desc("Training graphs: microbatches per iteration (0: the "
                     "cluster's, 8 by default)"),
      llvm::cl::init(0)};
  Option<bool> recompute{
      owner, "recompute",
      llvm::cl::desc("Training graphs: a stage whose stashed activations do "
                     "not fit may recompute them in its backward pass "
                     "(activation checkpointing at the stage's inputs), at "
                     "the cost of its forward time"),
      llvm::cl::init(false)};
  Option<bool> replication{
      owner, "replication",
      llvm::cl::desc("A stage may run on several consecutive accelerators, "
                     "each taking every r-th microbatch (training: plus a "
                     "ring all-reduce of its gradients per iteration)"),
      llvm::cl::init(false)};
  Option<std::string> links{
      owner, "links",
      llvm::cl::desc("cluster (transfers cost what the cluster's link between "
                     "the two devices gives) | flat (the solver prices every "
                     "link like the first two devices'; the report still "
                     "scores the cluster's)"),
      llvm::cl::init("cluster")};
  Option<std::string> objective{
      owner, "objective",
      llvm::cl::desc("throughput (max load per device) | latency (one sample "
                     "end to end)"),
      llvm::cl::init("throughput")};
  Option<std::string> algorithm{
      owner, "algorithm",
      llvm::cl::desc("auto (dp for throughput, ip for latency) | dp | ip | "
                     "pipedream | greedy | single | split-file"),
      llvm::cl::init("auto")};
  Option<bool> contiguous{
      owner, "contiguous",
      llvm::cl::desc("algorithm=ip, throughput: require a contiguous "
                     "(pipelined) split"),
      llvm::cl::init(true)};
  Option<double> timeLimit{
      owner, "time-limit",
      llvm::cl::desc("the time limit in seconds, end to end, of "
                     "algorithm=ip (heuristic, model and CBC), local-search "
                     "and the latency heuristic"),
      llvm::cl::init(600)};
  Option<double> gap{owner, "gap",
                     llvm::cl::desc("algorithm=ip: stop at this relative gap"),
                     llvm::cl::init(0)};
  Option<int64_t> nodes{
      owner, "nodes",
      llvm::cl::desc("algorithm=ip: stop after this many branch-and-bound "
                     "nodes (0: no limit; unlike time, the same answer on "
                     "every machine)"),
      llvm::cl::init(0)};
  Option<int64_t> threads{owner, "threads",
                          llvm::cl::desc("algorithm=ip: CBC threads"),
                          llvm::cl::init(1)};
  Option<int64_t> calls{
      owner, "calls",
      llvm::cl::desc("objective=latency: calls (convex subgraphs) per "
                     "accelerator"),
      llvm::cl::init(1)};
  Option<double> progress{
      owner, "progress",
      llvm::cl::desc("algorithm=ip: seconds between progress lines on stderr "
                     "(0: none)"),
      llvm::cl::init(10)};
  Option<std::string> exportLp{
      owner, "export-lp",
      llvm::cl::desc("algorithm=ip: write the model (LP, or MPS for .mps) "
                     "instead of solving")};
  Option<int64_t> idealLimit{
      owner, "ideal-limit",
      llvm::cl::desc("Past this many ideals the DP refines the PipeDream-style "
                     "split within windows of the lattice and says so"),
      llvm::cl::init(200000)};
  Option<std::string> splitIn{
      owner, "split-in",
      llvm::cl::desc("Split to score with algorithm=split-file (the paper's "
                     "format), or for objective=latency with algorithm=ip or "
                     "greedy a placement to start from")};
  Option<std::string> report{
      owner, "report",
      llvm::cl::desc("Write the placement report (JSON) to this file")};
  Option<std::string> exportSplit{
      owner, "export-split",
      llvm::cl::desc("Write the split in the paper's format to this file")};

  /// The settings, or an error naming the option whose value is unknown.
  llvm::Expected<PlacementSettings> getSettings() const {
    PlacementSettings settings;
    settings.devices = devices;
    settings.cpus = cpus;
    settings.memory = memory;
    settings.activations = activations;
    if (!schedule.empty()) {
      settings.schedule = solver::parseTrainingSchedule(schedule);
      if (!settings.schedule)
        return llvm::createStringError("unknown schedule '" + schedule +
                                       "' (gpipe, 1f1b)");
    }
    if (microbatches < 0)
      return llvm::createStringError(
          "microbatches=" + std::to_string(microbatches) +
          ": must be at least 1 (0: the cluster's)");
    settings.microbatches = microbatches;
    settings.recompute = recompute;
    settings.replication = replication;
    if (links != "cluster" && links != "flat")
      return llvm::createStringError("unknown links '" + links +
                                     "' (cluster, flat)");
    settings.flatLinks = links == "flat";
    settings.report = report;
    settings.exportSplit = exportSplit;
    solver::SolveOptions &solve = settings.solve;
    std::optional<solver::Objective> parsedObjective =
        solver::parseObjective(objective);
    if (!parsedObjective)
      return llvm::createStringError("unknown objective '" + objective +
                                     "' (throughput, latency)");
    solve.objective = *parsedObjective;
    std::optional<solver::Algorithm> parsedAlgorithm =
        solver::parseAlgorithm(algorithm);
    if (!parsedAlgorithm)
      return llvm::createStringError("unknown algorithm '" + algorithm +
                                     "' (" + solver::listAlgorithms() + ")");
    solve.algorithm = *parsedAlgorithm;
    solve.idealLimit = idealLimit;
    solve.splitFile = splitIn;
    solver::IPOptions &ip = solve.ip;
    ip.contiguous = contiguous;
    ip.timeLimitSeconds = timeLimit;
    ip.relativeGap = gap;
    ip.maxNodes = nodes;
    // Clamped to int: the checks reject what is out of range.
    ip.threads = static_cast<int>(std::clamp<int64_t>(threads, -1, 1024));
    ip.callsPerAccelerator =
        static_cast<int>(std::clamp<int64_t>(calls, -1, 1 << 20));
    ip.progressSeconds = progress;
    ip.exportPath = exportLp;
    return settings;
  }
};

/// --partition-devices: every option of the cost and placement passes, and
/// whether to end with the split.
struct PartitionDevicesOptions
    : public mlir::PassPipelineOptions<PartitionDevicesOptions> {
  CostOptions<mlir::detail::PassOptions> costs{*this};
  PlaceOptions<mlir::detail::PassOptions> place{*this};
  Option<bool> split{
      *this, "split",
      llvm::cl::desc("End with --placer-split-devices (one function per "
                     "device)"),
      llvm::cl::init(true)};
};

} // namespace placer

#endif // PLACER_TRANSFORMS_PLACEMENTOPTIONS_H
