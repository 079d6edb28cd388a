//===- ParallelPlan.h - Tensor x data x pipeline plans ----------*- C++ -*-===//
//
// The planning problem of Piper (Tarnawski, Narayanan, Phanishayee, NeurIPS
// 2021): split a layer graph into contiguous pipeline stages; give each
// stage a tensor-parallel degree t and a data-parallel degree d (t * d
// devices) and each of its layers one of its tensor-parallel configurations
// for that t, so that every device's memory holds and the largest time per
// sample of any stage is least. Plain C++ (LLVM support only), like the rest
// of the solver library; docs/Placement.md, "Three-dimensional plans", has
// the model, the algorithm and why it is exact.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_SOLVER_PARALLELPLAN_H
#define PLACER_SOLVER_PARALLELPLAN_H

#include "placer/Solver/Schedule.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace placer::solver {

struct Problem;

/// One way of running a layer on a tensor-parallel group of t devices
/// (Piper's TMPC: e.g. with or without activation recomputation).
struct TensorConfig {
  std::string id;
  /// Forward and backward time of one sample on the group, in seconds.
  double timePerSample = 0;
  /// Bytes of the weights a data-parallel copy all-reduces.
  double parameterBytes = 0;
  /// A device holds `stashBytes * y + fixedBytes + cacheBytes / d`, y the
  /// microbatches in flight at its stage, d its data-parallel degree (see
  /// ParallelProblem).
  double stashBytes = 0, fixedBytes = 0;
  /// Extra bytes moved per sample over each cut edge, beside the edge's own:
  /// `syncIn[i]` for the layer's i-th incoming edge, `syncOut[i]` for its
  /// i-th outgoing edge (ParallelProblem::inEdges / outEdges order).
  std::vector<double> syncIn, syncOut;
  /// Seconds per sample on each of ParallelProblem::kinds, in its order,
  /// where a cluster mixes accelerators; empty: timePerSample on every kind.
  std::vector<double> kindTimes;
  /// The KV caches a device of the group keeps for every sequence the
  /// stage serves (a decode step's, docs/Placement.md "KV caches"): each of
  /// d data-parallel copies serves 1 / d of the sequences, so keeps 1 / d.
  double cacheBytes = 0;

  double timeOn(int kind) const {
    return kindTimes.empty() ? timePerSample : kindTimes[kind];
  }
  /// Bytes per device with y microbatches in flight on one of d copies.
  double bytesAt(int y, int d) const {
    return stashBytes * y + fixedBytes + cacheBytes / d;
  }
};

struct ParallelLayer {
  /// The input's id and name (names need not be unique).
  int64_t id = 0;
  std::string name;
  /// Tensor-parallel degree -> the configurations the layer has for it.
  std::map<int, std::vector<TensorConfig>> configs;
};

struct ParallelEdge {
  int from = 0, to = 0;
  /// Bytes per sample (forward activation; the gradient goes back).
  double bytes = 0;
};

/// Accelerators of one kind (a generation: its speed is in each
/// configuration's TensorConfig::kindTimes, its memory here).
struct ParallelDeviceKind {
  std::string name;
  int count = 0;
  double memoryPerDevice = 0;
};

/// A transfer as the seed paper's throughput model charges it (Problem,
/// docs/Placement.md): a tensor of `producer` read by `consumers` costs
/// `time` seconds per sample once on the stage it leaves (if some consumer
/// is elsewhere) and once on each other stage that reads it, however many
/// of its readers are there. Independent of configurations. Piper's inputs
/// have none; parallelProblemOf() makes them, so that the planner at t = 1
/// is the contiguous-split DP's problem.
struct ParallelTensor {
  int producer = 0;
  std::vector<int> consumers;
  double time = 0;
};

/// A stage of t * d devices holding layers S with configurations c runs at
///   time(S) = (sum of c.timePerSample + sum over cut edges e at a layer of
///             2 (e.bytes + that layer's c.sync) / bandwidth) / d
///           + sum of 4 (d - 1) c.parameterBytes / (d * N * bandwidth),
/// (plus its tensors' time, over d, where it has any), and needs
/// sum of (c.stashBytes * y + c.fixedBytes + c.cacheBytes / d) <=
/// memoryPerDevice bytes per device, y = ceil(sum of d over this and later
/// stages / d).
/// d divides N, the microbatches per batch; the d's sum to at most N and
/// the t * d's to at most maxDevices. These are Piper's formulas (its
/// algo.cpp): the factor 4 models a parameter-server all-reduce.
///
/// With nodes (devicesPerNode > 0, a power of two: Placer's two-level
/// clusters), `bandwidth` is the network between nodes and
/// `intraNodeBandwidth` the link inside one: a tensor-parallel group stays
/// inside a node (t divides devicesPerNode), a stage takes a block of
/// devices aligned to its size, t * d rounded up to a power of two within a
/// node or to whole nodes beyond (footprint()), and its data-parallel
/// all-reduce runs at the intra-node bandwidth when the block fits in a
/// node. Cut edges are priced at `bandwidth` (the stages may sit on two
/// nodes). Without nodes this is Piper's flat model exactly.
///
/// With device kinds (`kinds`, Placer's clusters that mix accelerator
/// generations) a stage runs on devices of one kind, at that kind's times
/// and under its memory; the kinds sit along the devices in their order,
/// which is the pipeline's direction: a stage on kind k comes before every
/// stage on a later kind (as the contiguous-split DP places stages at device
/// positions), and each kind's stages fit in its devices (with nodes, each
/// kind holds whole nodes).
///
/// One sample's latency (Objective::Latency, the serving case): the stages
/// run one after another, each with d = 1, so a plan takes
///   latency = sum over stages of (sum of c.timePerSample
///             + sum over cut edges e into a layer of 2 (e.bytes + that
///               layer's c.syncIn) / bandwidth
///             + sum over cut edges e out of a layer of 2 (that layer's
///               c.syncOut) / bandwidth
///             + the time of each tensor it reads from another stage),
/// each edge's bytes once on the sample's way, under sum of (c.stashBytes +
/// c.fixedBytes + c.cacheBytes) <= memoryPerDevice per device (one sample
/// in flight) and
/// the stages' footprints within maxDevices. (An edge's `bytes` are half
/// the traffic when only the activation goes, as for inference: the
/// factor 2 is the throughput model's both ways.) (With d = 1 the caches
/// count whole: c.cacheBytes.)
struct ParallelProblem {
  /// One kind of accelerator (Piper's machine): maxDevices of them with
  /// memoryPerDevice bytes each; with `kinds`, maxDevices is their total
  /// and memoryPerDevice unused.
  double memoryPerDevice = 0;
  int maxDevices = 0;
  double bandwidth = 0;
  int microbatches = 0;
  int devicesPerNode = 0;
  double intraNodeBandwidth = 0;
  /// The largest data-parallel degree a stage may take; 0: no limit beyond
  /// the microbatches and devices (1: pipeline stages only, as in the seed
  /// model without replication).
  int maxDataDegree = 0;

  /// Several kinds of accelerators, in device order; empty: one kind.
  std::vector<ParallelDeviceKind> kinds;
  /// The kinds in force: `kinds`, or the one kind of maxDevices devices.
  std::vector<ParallelDeviceKind> deviceKinds() const;
  /// An error naming what is inconsistent about the kinds: counts that do
  /// not sum to maxDevices, a kind without devices or memory, a kind not of
  /// whole nodes, a configuration without a time for each kind.
  llvm::Error checkKinds() const;

  /// Devices a stage of degrees (t, d) occupies, or 0 when its groups
  /// cannot be laid out (t does not divide a node).
  int64_t footprint(int t, int d) const;
  /// The bandwidth of a stage's data-parallel all-reduce.
  double resyncBandwidth(int t, int d) const;
  std::vector<ParallelLayer> layers;
  std::vector<ParallelEdge> edges;
  /// Transfers charged as the seed paper's model does; their producers and
  /// consumers must also be joined by edges (edges alone order the layers).
  std::vector<ParallelTensor> tensors;
  /// Per layer, the indices into `edges` of its incoming and outgoing
  /// edges, in the order TensorConfig::syncIn / syncOut follow, and into
  /// `tensors` of those it produces or reads.
  std::vector<std::vector<int>> inEdges, outEdges, tensorsAt;

  int size() const { return static_cast<int>(layers.size()); }
  /// Fills inEdges, outEdges and tensorsAt from `edges` and `tensors`.
  void indexEdges();
  /// The layers in a topological order, the smallest index first among
  /// those ready (deterministic); fewer than size() of them on a cycle.
  std::vector<int> topologicalOrder() const;
};

/// The seed paper's problem as the t = 1 case of this one: one layer per
/// super-node of `problem` (color classes and cycles merged, as the DP
/// contracts them), each with one configuration at t = 1 (its accelerator
/// time and bytes), d = 1 (maxDataDegree), k devices and microbatches (so
/// up to k stages), and each node's
/// transfer as a ParallelTensor. The planner's optimum is then the
/// contiguous-split DP's (tests check it on every published workload).
/// `layerOf` receives each node's layer, or -1 for a node the DP's exact
/// reductions leave out (a free source: no time, memory or transfer cost;
/// put it with its earliest consumer's stage). Zero-time leaves join their
/// producer's layer when they have no weights, or with
/// `mergeWeightedLeaves` all of them (as the DP does first, then certifies):
/// fewer ideals, but only plans that keep a leaf's weights with its
/// producer, so possibly worse where memory binds there. An error names
/// what the planner
/// does not model: CPU cores, several device kinds or links, training
/// schedules, replication, nodes no accelerator runs.
llvm::Expected<ParallelProblem>
parallelProblemOf(const Problem &problem, std::vector<int> &layerOf,
                  bool mergeWeightedLeaves = false);

/// Piper's JSON input (its README and algo.cpp): maxMemoryPerDevice,
/// maxDevices, bandwidth, mbsInBatch, nodes with TMPCs per degree, edges
/// with communicationCost. Errors name the file and the field.
llvm::Expected<ParallelProblem>
parsePiperWorkload(const llvm::json::Value &json, llvm::StringRef source);
llvm::Expected<ParallelProblem> readPiperWorkloadFile(llvm::StringRef path);

/// Whether `json` looks like Piper's input rather than the seed paper's.
bool isPiperWorkload(const llvm::json::Value &json);

/// Inserts a copy of a layer named `name` that has a predecessor and a
/// successor of the same name, between it and that successor (as Piper's
/// insertTransformerLayer makes BERT-64 from BERT-32). Fails when there is
/// no such layer.
llvm::Error repeatLayer(ParallelProblem &problem, llvm::StringRef name);

struct ParallelStage {
  /// Layer indices, ascending.
  std::vector<int> layers;
  int tensorDegree = 1, dataDegree = 1;
  /// The kind of its devices (an index into ParallelProblem::deviceKinds()).
  int kind = 0;
  /// Its devices: [firstDevice, firstDevice + tensorDegree * dataDegree),
  /// within its kind's (the kinds' devices follow each other in order).
  /// Consecutive in pipeline order on a flat network; with nodes, blocks
  /// aligned to their footprint, largest first.
  int64_t firstDevice = 0;
  /// Per entry of `layers`, the index of its configuration in
  /// `configs[tensorDegree]`.
  std::vector<int> configs;
  /// Time per sample and bytes per device, as ParallelProblem defines them.
  double time = 0, memory = 0;
  /// Of `memory`, the KV caches (TensorConfig::cacheBytes / d).
  double cache = 0;
};

struct ParallelPlan {
  Objective objective = Objective::Throughput;
  /// In pipeline order (the first stage holds the graph's sources).
  std::vector<ParallelStage> stages;
  /// Throughput: the largest stage time, the plan's time per sample.
  /// Latency: one sample's latency, the sum of the stages' times.
  double timePerSample = 0;
  /// Devices the stages occupy (their footprints).
  int devicesUsed = 0;
  /// How the search went: ideals, (ideal, larger ideal) pairs, stage
  /// options (pair, t, d) kept, candidate times, feasibility passes, and the
  /// largest Pareto frontier of one stage's configuration choice.
  int64_t ideals = 0, pairs = 0, options = 0, candidates = 0, passes = 0;
  int64_t largestFrontier = 0;
  /// Where the planner planned over segments (ParallelPlanOptions::
  /// segments), how many; 0 when it planned the layers themselves.
  int64_t segments = 0;
  double seconds = 0;
};

struct ParallelPlanOptions {
  /// Throughput (time per sample of a pipelined batch) or one sample's
  /// latency (ParallelProblem defines both).
  Objective objective = Objective::Throughput;
  /// Past this many ideals the planner refuses the graph.
  int64_t idealLimit = 200000;
  /// Past this many candidate stages (pairs of ideals whose difference can
  /// fit in memory) it refuses too: each costs a Pareto frontier.
  int64_t pairLimit = 2000000;
  /// Past this many candidate stages (std::nullopt: pairLimit, so that a
  /// graph is coarsened only where it would be refused), plan over
  /// segments: the runs of layers between the points where every edge that
  /// crosses leaves one layer (a residual stream's adds in an operator
  /// graph), each summed exactly, so plans cut only there (Piper plans over
  /// transformer layers the same way). Where the graph has no such points
  /// the layers are planned as they are (and pairLimit may refuse them).
  /// INT64_MAX: never.
  std::optional<int64_t> segmentAbove;
  /// Past this many Pareto-optimal configuration choices in one stage it
  /// refuses too (the knapsack inside a stage is exact, so exponential in
  /// the worst case; layers with one configuration, or identical ones as in
  /// a transformer stack, stay far below it).
  int64_t frontierLimit = 8192;
  /// Past this many (ideal, sum of data-parallel degrees) entries in its
  /// feasibility table, or this many stage time steps, it refuses too: both
  /// are memory (4 and 16 bytes each).
  int64_t tableLimit = 250000000;
  int64_t recordLimit = 200000000;
  /// Past this the planner stops with an error saying how far it got (it
  /// has no plan before its search ends); none by default.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

/// The plan with the least time per sample, or an error saying why there is
/// none (no stage fits in memory). Deterministic.
llvm::Expected<ParallelPlan>
planParallel(const ParallelProblem &problem,
             const ParallelPlanOptions &options = {});

/// The fastest configuration choice for one stage: `layers` (ascending) at
/// tensor degree t and data degree d with y microbatches in flight on
/// devices of `kind`, by the planner's exact knapsack; `configs`, `time`
/// and `memory` filled. An error when some layer has no configuration for t
/// or no choice fits. (To check another planner's stages one by one.)
llvm::Expected<ParallelStage> bestStageChoice(const ParallelProblem &problem,
                                              std::vector<int> layers, int t,
                                              int d, int y, int kind = 0);

/// The time per sample of `plan` (stages in pipeline order; its latency for
/// Objective::Latency, where every d must be 1) computed from
/// its stages alone, or an error naming what is invalid (a layer in no stage
/// or two, an edge going back, a degree or configuration that does not
/// exist, too many devices of a kind, kinds out of device order, memory
/// over the limit). Fills each stage's
/// time and memory. Independent of the planner: tests re-score its plans
/// with it, and it scores other planners' plans.
llvm::Expected<double> scoreParallelPlan(const ParallelProblem &problem,
                                         ParallelPlan &plan);

/// One batch of a plan run stage copy by stage copy (simulateParallelPlan).
struct ParallelRun {
  /// Microbatches run (the problem's when none were asked for).
  int64_t microbatches = 0;
  /// The batch: from the first microbatch's start to the end of the last
  /// all-reduce; per sample, that over the microbatches.
  double batchSeconds = 0, timePerSample = 0;
  /// When the first microbatch has left every stage.
  double firstMicrobatchSeconds = 0;
  /// The share of device time the copies wait: 1 - busy / (batch x copies).
  double bubbleFraction = 0;
  struct Stage {
    /// Seconds of one microbatch on a copy: receiving, computing, sending
    /// (serialized, as the model charges them).
    double receive = 0, compute = 0, send = 0;
    /// The data-parallel all-reduce at the end of the batch.
    double allReduce = 0;
    /// The busiest copy's busy seconds, and when the stage's last copy is
    /// done (all-reduce included).
    double busy = 0, finish = 0;
  };
  std::vector<Stage> stages;
};

/// Runs `microbatches` microbatches (0: the problem's) through a valid plan
/// (one that scoreParallelPlan accepts), in order: copy c of a stage with d
/// copies takes the microbatches m = c mod d; a copy receives a
/// microbatch's tensors from each earlier stage once they are sent,
/// computes, and sends to each later stage; after its last microbatch a
/// stage's copies all-reduce their parameters (Piper's 4 (d - 1) W / (d b)
/// per batch). Piper's layers give one time for forward and backward
/// together, so a microbatch is one task per stage. With `overlap`,
/// transfers run beside compute, one at a time per pair of stages;
/// without, sender and receiver are each busy for their share, as the
/// model's stage time charges them. The per-sample time tends to the plan's
/// as the microbatches grow; the difference is the pipeline's fill and
/// drain.
ParallelRun simulateParallelPlan(const ParallelProblem &problem,
                                 const ParallelPlan &plan,
                                 int64_t microbatches = 0,
                                 bool overlap = false);

/// The plan as JSON: time per sample, devices, and per stage its layers
/// (ids), degrees, configuration ids, time and memory.
llvm::json::Value parallelPlanToJson(const ParallelProblem &problem,
                                     const ParallelPlan &plan);

} // namespace placer::solver

#endif // PLACER_SOLVER_PARALLELPLAN_H
