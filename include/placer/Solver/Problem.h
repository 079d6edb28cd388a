//===- Problem.h - The placement problem of Tarnawski et al. --*- C++ -*-===//
//
// Plain C++ (no MLIR): a DAG of operators, k accelerators (of one kind,
// memory M, as in the NeurIPS 2020 paper, or of several kinds on links of
// several speeds) and l CPU cores, and the paper's throughput model.
// docs/Placement.md states the model in full.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_SOLVER_PROBLEM_H
#define PLACER_SOLVER_PROBLEM_H

#include "placer/Solver/Schedule.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace placer::solver {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Node {
  std::string name;
  int64_t id = 0;              ///< the caller's id (workload id, op index)
  double acceleratorTime = 0;  ///< time on one accelerator
  double cpuTime = 0;          ///< time on one CPU core
  double memory = 0;           ///< bytes of weights it keeps on an accelerator
  /// Of `memory`, the bytes of a KV cache it extends and keeps resident
  /// (a decode step's Concat of past and new keys or values).
  double cacheBytes = 0;
  /// Bytes of the activation it produces, alive on its device while a
  /// reader there still needs it, to the end when it leaves the device
  /// (Memory.h). 0 everywhere: weights only, as in the paper.
  double outputBytes = 0;
  double transferCost = 0;     ///< c(u): moving its output off or onto a device
  /// Heterogeneous accelerators: its time on each kind (Problem::
  /// acceleratorKinds); empty: `acceleratorTime` on every kind. Solvers
  /// that know one kind only read `acceleratorTime`.
  std::vector<double> kindTimes;
  /// Training: accelerator time to run its forward pass again, paid by a
  /// stage that recomputes its activations instead of stashing them.
  double recomputeTime = 0;
  /// Training: bytes of its weights' gradients, all-reduced across the
  /// replicas of a replicated stage once per iteration.
  double gradientBytes = 0;
  bool supported = true;       ///< may run on an accelerator
  bool backward = false;       ///< a backward (training) op
  int64_t colorClass = -1;     ///< nodes of one class share a device; -1: none
};

struct Problem {
  std::vector<Node> nodes;
  /// Successor lists, without duplicates or self loops.
  std::vector<std::vector<int>> successors;
  int numAccelerators = 1;
  int numCpus = 0;
  double memoryLimit = kInfinity; ///< per accelerator
  /// Under a training schedule, `Node::memory` is what a stage keeps once
  /// (weights, gradients, optimizer state) and `Node::outputBytes` what it
  /// stashes per microbatch in flight.
  Schedule schedule = Schedule::Inference;
  int microbatches = 1;
  /// Schedules that run several chunks per accelerator (usesChunks): how
  /// many (interleaved: at least 2; ZB-V: 2).
  int chunksPerDevice = 2;
  /// Training: a stage whose stash does not fit may recompute it
  /// (activation checkpointing at the stage's inputs): it keeps its inputs
  /// per microbatch in flight and one microbatch's activations, and pays
  /// its nodes' `recomputeTime` (docs/Placement.md).
  bool recomputation = false;
  /// A stage may run on r consecutive accelerators, each taking every r-th
  /// microbatch (data parallelism within the stage): its load per sample is
  /// divided by r, and training adds a ring all-reduce of its gradients per
  /// iteration between accelerators (docs/Placement.md, "Replication").
  bool replication = false;
  double allReduceBandwidth = kInfinity; ///< bytes/s between accelerators
  double allReduceLatency = 0;           ///< seconds per message
  /// Heterogeneous accelerators (docs/Placement.md, "Device kinds and
  /// links"): the kind of each accelerator, an index into
  /// `kindMemoryLimits` and every node's `kindTimes`. Empty: one kind, of
  /// `memoryLimit` and `acceleratorTime`. `memoryLimit` is then the largest
  /// kind's.
  std::vector<int> acceleratorKinds;
  std::vector<double> kindMemoryLimits;
  /// Link hierarchy: row-major numAccelerators^2 factors by which moving a
  /// tensor from one accelerator to another costs more than c(u) (1 on the
  /// link c(u) was priced on). Empty: every link alike.
  std::vector<double> linkFactors;

  int size() const { return static_cast<int>(nodes.size()); }
  int numDevices() const { return numAccelerators + numCpus; }
  bool isAccelerator(int device) const { return device < numAccelerators; }
  bool isTraining() const { return schedule != Schedule::Inference; }
  /// Whether `bytes` fit one accelerator (with room for rounding); with
  /// several kinds, the largest.
  bool fits(double bytes) const { return bytes <= memoryLimit * (1 + 1e-12); }
  /// Whether `bytes` fit accelerator `accelerator`.
  bool fitsOn(double bytes, int accelerator) const {
    return bytes <= getMemoryLimit(accelerator) * (1 + 1e-12);
  }
  int numKinds() const {
    return acceleratorKinds.empty() ? 1
                                    : static_cast<int>(kindMemoryLimits.size());
  }
  int getKind(int accelerator) const {
    return acceleratorKinds.empty() ? 0 : acceleratorKinds[accelerator];
  }
  double getMemoryLimit(int accelerator) const {
    return acceleratorKinds.empty() ? memoryLimit
                                    : kindMemoryLimits[getKind(accelerator)];
  }
  /// Node u's time on an accelerator of `kind`.
  double getTime(int u, int kind) const {
    const Node &node = nodes[u];
    return node.kindTimes.empty() ? node.acceleratorTime : node.kindTimes[kind];
  }
  /// The cheapest of node u's times over the accelerators' kinds.
  double getFastestTime(int u) const;
  /// What moving a tensor from device `from` to device `to` costs relative
  /// to c(u): 1 unless both are accelerators on a slower link.
  double getLinkFactor(int from, int to) const {
    if (linkFactors.empty() || !isAccelerator(from) || !isAccelerator(to))
      return 1;
    return linkFactors[static_cast<size_t>(from) * numAccelerators + to];
  }
  /// One accelerator kind and every link as priced (factor 1):
  /// accelerators are interchangeable, the paper's model.
  bool isUniform() const;
  /// Why the kinds, times or links do not fit the problem, or empty.
  std::string checkDevices() const;
  /// Why no placement can hold the model, found at once, or empty: without
  /// CPU cores (which hold anything), a node whose weights alone exceed
  /// every accelerator, or weights that exceed all accelerators together;
  /// each error says what is needed, what the devices hold and the fewest
  /// accelerators that could (weights only: activations add to it).
  std::string checkCapacity() const;
  /// Microbatches whose stash an accelerator stage holds at once when it
  /// is `stagesFromEnd` accelerator stages from the end (1: the last) of
  /// `stages` (all accelerators when not given: a bound from above).
  /// Stages count in accelerator order: the schedule runs accelerator 0
  /// first; CPU stages (no memory limit) do not count.
  int inFlight(int stagesFromEnd, int stages = 0) const;
  /// Per microbatch: a ring all-reduce of `bytes` over `replicas` devices,
  /// once per iteration (training; 0 for one replica or inference), at
  /// `allReduceBandwidth` over `linkFactor` (the ring's slowest link, 1 at
  /// least: with 1, a floor).
  double allReduceTime(double bytes, int replicas,
                       double linkFactor = 1) const {
    return getRingCost(replicas)(bytes, linkFactor);
  }
  /// allReduceTime for `replicas` copies as bytes x perByte x factor +
  /// fixed (the DP keeps one per r).
  struct RingCost {
    double perByte = 0, fixed = 0;
    double operator()(double bytes, double linkFactor = 1) const {
      return bytes > 0 ? bytes * perByte * linkFactor + fixed : 0;
    }
  };
  RingCost getRingCost(int replicas) const;
  /// The share of a replicated stage's work its busiest copy runs, per
  /// sample: 1 / r streaming samples (inference), ceil(M / r) / M of an
  /// iteration's M microbatches (training: copies past M stay idle).
  double getReplicaShare(int replicas) const;
  /// The slowest link factor (1 at least) of the ring over accelerators
  /// [first, first + replicas).
  double getRingFactor(int first, int replicas) const;
  /// Adds u -> v once; returns false for a self loop or a repeated edge.
  bool addEdge(int u, int v);
  /// Predecessor lists, computed from `successors`.
  std::vector<std::vector<int>> predecessors() const;
};

/// Activation bytes a training stage holds: its stash for each microbatch
/// in flight, or when it recomputes, its inputs for each and one
/// microbatch's stash (docs/Placement.md, "Recomputation"). The placement
/// and the simulator both count them here.
inline double getStageActivations(double stash, double inputs, int inFlight,
                                  bool recompute) {
  return recompute ? stash + inputs * inFlight : stash * inFlight;
}

/// A placement: device of every node; devices 0..k-1 are the accelerators,
/// k..k+l-1 the CPU cores.
using Assignment = std::vector<int>;

/// Stage replication, per accelerator: r for the device that holds a
/// stage run on r devices (1: alone); the r - 1 accelerators after it hold
/// no node and run copies of the stage. Empty: no replication.
using Replication = std::vector<int>;

struct DeviceReport {
  double compute = 0;         ///< sum of node times on this device
  double communicationIn = 0; ///< c(u) of outside nodes feeding this device
  double communicationOut = 0;///< c(u) of nodes here feeding other devices
  double load = 0;            ///< compute (+ communication on accelerators)
  double weights = 0;         ///< accelerators: weight bytes
  /// Of `weights`, the KV caches its nodes keep (Node::cacheBytes).
  double cache = 0;
  /// accelerators: peak live activation bytes (training: the stash of
  /// all microbatches in flight)
  double activations = 0;
  double memory = 0;          ///< weights + activations
  /// Training schedules: microbatches whose stash the stage holds.
  int inFlight = 0;
  /// Training with recomputation: the stage recomputes its activations
  /// (its stash did not fit); `compute` includes the recomputation.
  bool recompute = false;
  /// Replication: devices that run this device's stage (itself included),
  /// and for a device that runs a copy, the device whose stage it copies
  /// (it then reports that stage's load and memory).
  int replicas = 1;
  int replicaOf = -1;
  std::vector<int> nodes;     ///< in execution (topological) order
};

struct Evaluation {
  std::vector<DeviceReport> devices;
  double maxLoad = 0;
  /// Empty when the placement is feasible; otherwise why not.
  std::string violation;
  bool feasible() const { return violation.empty(); }
};

/// Scores `assignment` from the model's definition, independently of any
/// solver's bookkeeping: loads, memory, unsupported nodes, color classes,
/// and with `replication` the replicated stages.
Evaluation evaluate(const Problem &problem, const Assignment &assignment,
                    const Replication &replication = {});

/// Whether the placement is a contiguous (pipelined) split in the model's
/// sense: with every color class contracted to one node (forward edges
/// order classes; the backward edges of backward-only classes, mirrored,
/// place them; cycles merge), each class sits on one device and the devices
/// can be ordered so that every edge between two of them goes forward:
/// device j holds I_j \ I_{j-1} for a chain of ideals, and so each device's
/// set is convex (no path leaves it and comes back).
/// With `acceleratorsInOrder` the order must also visit the accelerators
/// in index order (the DP's pipeline where devices differ).
bool isContiguous(const Problem &problem, const Assignment &assignment,
                  bool acceleratorsInOrder = false);

/// Work in accelerator time, for lower bounds on the max load. A node whose
/// fastest accelerator time is a and CPU core time is c takes at least
/// w = min(a, c / rho) on any device, and at least rho w on a core, whatever
/// rho > 0 is; so a split whose loads are all at most B carries at most
/// (k + l / rho) B of work on k accelerators and l cores. rho = 1 counts a
/// core as one more accelerator; where cores are slower, their least
/// slowdown bounds much better (Inception-v3, one core ten times slower than
/// its 6 accelerators: 44.42 -> 50.98, the optimum being 51.55).
struct WorkMeasure {
  double slowdown = 1; ///< rho
  double work(double fastestAccelerator, double cpu) const {
    return std::min(fastestAccelerator, cpu / slowdown);
  }
  /// The work `accelerators` and `cpus` carry at loads of at most 1.
  double capacity(int accelerators, int cpus) const {
    return accelerators + cpus / slowdown;
  }
};

/// Of rho = 1 and rho = the least ratio c / a over nodes that run on both
/// kinds of device, the measure whose total work bounds the max load best.
WorkMeasure bestWorkMeasure(const Problem &problem);

/// A lower bound on the optimal max-load: max(the largest node's cheapest
/// time (not with replication, which divides it), the total work over the
/// devices' capacity (bestWorkMeasure)).
double lowerBound(const Problem &problem);

/// The nodes of each color class, classes in increasing id and nodes in
/// index order (nodes of no class left out).
std::vector<std::vector<int>> colorClassMembers(const Problem &problem);

/// A topological order of the nodes, smallest index first among the ready
/// ones; shorter than the graph when it has a cycle. Each device runs its
/// nodes in this order.
std::vector<int> topologicalOrder(const Problem &problem);

/// Whether any node has activation bytes (the memory model then counts
/// live activations, not only weights).
bool hasActivations(const Problem &problem);

/// Whether activations can decide a placement: some node has activation
/// bytes and the whole graph does not fit one accelerator's limit even
/// by the additive bound (Memory.h), training schedules included.
bool activationsBind(const Problem &problem);

} // namespace placer::solver

#endif // PLACER_SOLVER_PROBLEM_H
