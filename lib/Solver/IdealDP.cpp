//===- IdealDP.cpp - Optimal contiguous splits over the lattice of ideals -===//
//
// dp[c][a][I] = the best max-load of placing the nodes outside ideal I on c
// CPU stages and a accelerators, no stage empty = min over ideals I' ⊇ I
// of max(dp[..][I'], cost(I' \ I) on the stage that comes first). The
// recursion runs from the end of the pipeline, so a stage knows how many
// accelerators follow it, which fixes the microbatches a training schedule
// keeps in flight there. With replication a stage takes r of the a
// accelerators (load / r plus its all-reduce). Devices left over stay
// empty.
//
// What makes it fast (docs/Placement.md has the details):
//  - ideals are found level by level; each ideal keeps the nodes that can
//    join it with the index of the ideal with them, so moving between
//    ideals never hashes;
//  - for each ideal I, the differences D = I' \ I are enumerated by a
//    depth-first search that adds one addable node at a time (each
//    difference exactly once, thanks to an exclusion set), and the cost of D
//    is updated incrementally, communication included;
//  - compute time and memory only grow along that search, so a branch stops
//    as soon as D cannot beat the pass's bound on any device kind, or no
//    longer fits in memory;
//  - passes with growing bounds (a parametric search on the max load) skip
//    the ideals that cannot bound a stage within the bound (IdealBands).
//
//===----------------------------------------------------------------------===//

#include "Contraction.h"
#include "IdealLattice.h"
#include "Timing.h"
#include "placer/Solver/Memory.h"
#include "placer/Solver/Solvers.h"

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>

using namespace placer::solver;
using namespace placer::solver::detail;

namespace {

/// The cost of a set D of super-nodes on one accelerator or CPU core,
/// updated as super-nodes enter and leave D.
class SetCost {
public:
  SetCost(const Problem &problem, const Contracted &graph)
      : problem(problem), graph(graph), inSet(problem.size(), 0),
        successorsInSet(problem.size(), 0) {
    std::vector<std::vector<int>> preds = problem.predecessors();
    twoWay = std::any_of(problem.nodes.begin(), problem.nodes.end(),
                         [](const Node &node) { return node.backward; });
    if (!problem.isUniform()) {
      kindCompute.assign(problem.numKinds(), 0);
      kindUnsupported.assign(problem.numKinds(), 0);
    }
    for (int d = 1; d < problem.numAccelerators; ++d)
      if (problem.getMemoryLimit(d) <
          problem.getMemoryLimit(smallestAccelerator))
        smallestAccelerator = d;
    if (activationsBind(problem) && !problem.isTraining()) {
      memoryGraph = placer::solver::memoryGraph(problem);
      peak.emplace(*memoryGraph);
      order = topologicalOrder(problem);
    }
    // move() runs twice per difference the DP enumerates: what it reads
    // lies in flat arrays, not in Node (whose strings and vectors spread one
    // node over several cache lines) or in vectors of vectors.
    int size = problem.size();
    transfer.resize(size);
    outDegree.resize(size);
    for (int u = 0; u < size; ++u) {
      const Node &node = problem.nodes[u];
      transfer[u] = node.transferCost;
      outDegree[u] = static_cast<int>(problem.successors[u].size());
      perMember |= node.outputBytes != 0 || node.recomputeTime != 0 ||
                   node.gradientBytes != 0;
    }
    perMember |= !kindCompute.empty();
    // The original nodes whose charge can change when a super-node moves:
    // its members and their predecessors (once each).
    std::vector<int> stamp(size, -1);
    for (int s = 0; s < graph.numSuper; ++s) {
      for (int m : graph.members[s]) {
        if (stamp[m] != s)
          affected.items.push_back(m), stamp[m] = s;
        for (int p : preds[m]) {
          memberPredecessors.items.push_back(p);
          if (stamp[p] != s)
            affected.items.push_back(p), stamp[p] = s;
        }
      }
      affected.close();
      memberPredecessors.close();
    }
  }

  void add(int s) { move(s, +1); }
  void remove(int s) { move(s, -1); }

  /// D's time on an accelerator, or infinity when D cannot go on one (for
  /// a training schedule: not even as the last stage, recomputing or not).
  /// Recomputation adds `recomputeTime`.
  double acceleratorCost() {
    if (unsupported > 0)
      return kInfinity;
    // Every activation D produces or reads, alive at once, bounds the peak;
    // only sets near the smallest limit are measured exactly.
    if (peak) {
      peakBytes = memory + touchedActivations;
      if (!problem.fitsOn(peakBytes, smallestAccelerator))
        peakBytes = memory + peakActivations();
    }
    if (!(fits(bytesAt(1)) || (canRecompute() && fits(bytesAt(1, true)))))
      return kInfinity;
    return acceleratorCompute + std::max(0.0, communicationIn) +
           std::max(0.0, communicationOut);
  }
  /// With kinds or links (not uniform): D's time on accelerators
  /// [first, first + r) of one kind, its inputs over the link from the
  /// device before and its outputs over the link to the device after (the
  /// cheapest its neighbours can be on, with nodes laid out in device
  /// order, or a CPU core; with backward ops, either neighbour), or
  /// infinity where it cannot run. Memory is checked apart.
  double acceleratorCostAt(int first, int r) const {
    int kind = problem.getKind(first);
    if (unsupported > 0 || kindUnsupported[kind] > 0)
      return kInfinity;
    int k = problem.numAccelerators, after = first + r;
    // The link between two positions; none past either end.
    auto link = [&](int from, int to) {
      return from < 0 || to < 0 || from >= k || to >= k
                 ? kInfinity
                 : problem.getLinkFactor(from, to);
    };
    double in = link(first - 1, first), out = link(first, after);
    // Backward ops send gradients back along the pipeline: either
    // neighbour may be the other end.
    if (twoWay) {
      in = std::min(in, link(after, first));
      out = std::min(out, link(first, first - 1));
    }
    // A neighbour may be a CPU core, reached at c(u) itself (and with no
    // neighbour at all nothing crosses a link).
    if (problem.numCpus > 0 || in == kInfinity)
      in = std::min(in, 1.0);
    if (problem.numCpus > 0 || out == kInfinity)
      out = std::min(out, 1.0);
    return kindCompute[kind] + std::max(0.0, communicationIn) * in +
           std::max(0.0, communicationOut) * out;
  }
  /// The least D's compute can be on any kind (prunes the search).
  double fastestCompute() const {
    if (kindCompute.empty())
      return acceleratorCompute;
    double best = kInfinity;
    for (size_t kind = 0; kind < kindCompute.size(); ++kind)
      if (kindUnsupported[kind] == 0)
        best = std::min(best, kindCompute[kind]);
    return best;
  }
  /// D's bytes as the `position`-th accelerator stage from the end: its
  /// weights, and under a training schedule its stash per microbatch in
  /// flight there, or when it recomputes its inputs per microbatch and one
  /// microbatch's stash. Without recomputation it grows with D at every
  /// position.
  double bytesAt(int position, bool recompute = false) const {
    if (!problem.isTraining())
      return peak ? peakBytes : memory;
    return memory + getStageActivations(stash, inputBytes,
                                        problem.inFlight(position), recompute);
  }
  /// Whether D fits as the `position`-th stage from the end, on
  /// accelerator `device`.
  bool fitsAt(int position, int device, bool recompute = false) const {
    return problem.fitsOn(bytesAt(position, recompute), device);
  }
  bool canRecompute() const {
    return problem.recomputation && problem.isTraining();
  }
  /// False once no D' ⊇ D can fit on an accelerator: the bytes every
  /// option needs at least, which only grow with D (a recomputing stage's
  /// inputs may shrink as D grows).
  bool mayFit() const {
    if (!problem.isTraining())
      return fits(memory);
    return fits(canRecompute() ? memory + stash : bytesAt(1));
  }
  bool fits(double bytes) const { return problem.fits(bytes); }
  /// `memory` counts weights only (the graph's, which may leave out merged
  /// leaves); it only grows as D grows, unlike the activation peak.
  double acceleratorCompute = 0, cpuCompute = 0, memory = 0;
  double recomputeTime = 0, gradientBytes = 0;
  int unsupported = 0;

private:
  /// The peak of D's live activations, its nodes run in topological order.
  double peakActivations() {
    members.clear();
    for (int u : order)
      if (inSet[u])
        members.push_back(u);
    return (*peak)(members).activations;
  }

  /// u's activation is on D's device if u is in D or feeds it.
  bool touched(int u) const { return inSet[u] || successorsInSet[u] > 0; }

  /// c(u) is charged once if u is in D with a successor outside (an
  /// output), or outside D with a successor inside (an input).
  bool isOutput(int u) const {
    return inSet[u] && successorsInSet[u] < outDegree[u];
  }

  /// u's activation enters D from another device.
  bool isInput(int u) const { return !inSet[u] && successorsInSet[u] > 0; }

  /// Every sum keeps the order of its terms it would have with one loop
  /// doing everything, so results do not depend on which parts run.
  void move(int s, int sign) {
    llvm::ArrayRef<int> nodes = affected[s];
    bool activations = peak || canRecompute();
    if (activations)
      chargeActivations(nodes, -1);
    chargeCommunication(nodes, -1);
    for (int m : graph.members[s]) {
      inSet[m] = sign > 0;
      if (perMember)
        moveMember(m, sign);
    }
    for (int p : memberPredecessors[s])
      successorsInSet[p] += sign;
    chargeCommunication(nodes, +1);
    if (activations)
      chargeActivations(nodes, +1);
    acceleratorCompute += sign * graph.acceleratorTime[s];
    cpuCompute += sign * graph.cpuTime[s];
    memory += sign * graph.memory[s];
    unsupported += sign * (graph.supported[s] ? 0 : 1);
  }

  /// Adds (sign +1) or takes back (-1) the transfers `nodes` cost D now.
  void chargeCommunication(llvm::ArrayRef<int> nodes, int sign) {
    for (int u : nodes) {
      if (isOutput(u))
        communicationOut += sign * transfer[u];
      if (isInput(u))
        communicationIn += sign * transfer[u];
    }
  }

  /// The same for the activations `nodes` put on D's device or send it.
  void chargeActivations(llvm::ArrayRef<int> nodes, int sign) {
    bool inputs = canRecompute();
    for (int u : nodes) {
      double bytes = problem.nodes[u].outputBytes;
      if (peak && touched(u))
        touchedActivations += sign * bytes;
      if (inputs && isInput(u))
        inputBytes += sign * bytes;
    }
  }

  /// What a member adds beside communication: its time per kind, stash,
  /// recomputation and gradients.
  void moveMember(int m, int sign) {
    for (size_t kind = 0; kind < kindCompute.size(); ++kind) {
      double time = problem.getTime(m, static_cast<int>(kind));
      if (time == kInfinity)
        kindUnsupported[kind] += sign;
      else
        kindCompute[kind] += sign * time;
    }
    stash += sign * problem.nodes[m].outputBytes;
    recomputeTime += sign * problem.nodes[m].recomputeTime;
    gradientBytes += sign * problem.nodes[m].gradientBytes;
  }

  /// Lists of ints per super-node, in one array.
  struct FlatLists {
    std::vector<int> start{0}, items;
    /// Ends the list of the next super-node.
    void close() { start.push_back(static_cast<int>(items.size())); }
    llvm::ArrayRef<int> operator[](int s) const {
      return llvm::ArrayRef<int>(items).slice(start[s],
                                              start[s + 1] - start[s]);
    }
  };

  const Problem &problem;
  const Contracted &graph;
  FlatLists affected;
  /// Per super-node, the predecessors of each member (repeated as often).
  FlatLists memberPredecessors;
  /// Per original node: c(u) and its number of successors.
  std::vector<double> transfer;
  std::vector<int> outDegree;
  /// Whether moveMember() has anything to add.
  bool perMember = false;
  std::vector<char> inSet;
  std::vector<int> successorsInSet;
  double communicationIn = 0, communicationOut = 0;
  /// Not uniform: D's compute per accelerator kind, and how many of its
  /// nodes cannot run on each.
  std::vector<double> kindCompute;
  std::vector<int> kindUnsupported;
  /// Backward ops: tensors also flow from later stages to earlier ones.
  bool twoWay = false;
  double touchedActivations = 0;
  /// Inference with a peak to measure: D's weights and peak activations,
  /// or a bound that fits every accelerator (set by acceleratorCost()).
  double peakBytes = 0;
  int smallestAccelerator = 0;
  /// Training schedules: D's activation bytes per microbatch in flight.
  double stash = 0;
  /// With recomputation: bytes of the activations D receives.
  double inputBytes = 0;
  /// Set only when activations bind (`peak` measures `memoryGraph`).
  std::optional<MemoryGraph> memoryGraph;
  std::optional<PeakMemory> peak;
  std::vector<int> order, members;
};

/// Which ideals can bound a stage of a split whose every load is at most
/// B. Each super-node carries some work w(s) (bestWorkMeasure: its least
/// time on an accelerator, or its core time over the cores' slowdown rho);
/// a device with load at most B carries at most B of it, a core B / rho
/// (copies of a replicated stage share its time, never reduce it). The
/// devices before an ideal I hold I and those after it the rest: with P(I)
/// the work of I and W that of the graph, some a + a' <= k accelerators and
/// c + c' = l cores have
///   P(I) <= (a + c / rho) B  and  W - P(I) <= (a' + c' / rho) B.
/// Any other ideal is no stage boundary of such a split, and the DP skips
/// it. For B close to the optimum the boundaries lie in k + l narrow
/// bands, where the lattice of a long graph has few ideals.
class IdealBands {
public:
  IdealBands(const Problem &problem, const Contracted &graph,
             const IdealLattice &lattice)
      : k(problem.numAccelerators), l(problem.numCpus),
        measure(bestWorkMeasure(problem)) {
    bool uniform = problem.isUniform();
    std::vector<double> work(graph.numSuper, kInfinity);
    for (int v = 0; v < graph.numSuper; ++v) {
      double accelerator = kInfinity;
      if (problem.numAccelerators > 0 && graph.supported[v]) {
        if (uniform) {
          accelerator = graph.acceleratorTime[v];
        } else {
          for (int kind = 0; kind < problem.numKinds(); ++kind) {
            double time = 0;
            for (int m : graph.members[v])
              time += problem.getTime(m, kind);
            accelerator = std::min(accelerator, time);
          }
        }
      }
      double cpu = problem.numCpus > 0 ? graph.cpuTime[v] : kInfinity;
      work[v] = measure.work(accelerator, cpu);
      total += work[v];
      largest = std::max(largest, std::min(accelerator, cpu));
      if (work[v] < kInfinity)
        largestWork = std::max(largestWork, work[v]);
    }
    if (problem.replication)
      largest = 0; // copies divide a node's time
    prefix.assign(lattice.size(), 0);
    for (int64_t ideal = 1; ideal < lattice.size(); ++ideal)
      prefix[ideal] =
          prefix[lattice.parent[ideal]] + work[lattice.added[ideal]];
  }

  /// No split of the graph has a smaller max load.
  double lowerBound() const {
    double capacity = measure.capacity(k, l);
    return capacity > 0 ? std::max(largest, total / capacity) : kInfinity;
  }

  /// Where the parametric search starts, relative to lowerBound(): stage
  /// boundaries fall between super-nodes, so on a graph of many small ones
  /// the optimum lies about one super-node's work above the bound (plus
  /// the transfers the bound leaves out), and a pass costs in proportion to
  /// its excess (the bands' width). Never above 0.5%, where the search
  /// started before it looked at the graph.
  double startingExcess() const {
    double capacity = measure.capacity(k, l);
    if (!(capacity > 0) || !(total > 0) || !(total < kInfinity))
      return kMaxStartingExcess;
    return std::clamp(largestWork * capacity / total, kMinStartingExcess,
                      kMaxStartingExcess);
  }
  static constexpr double kMinStartingExcess = 1e-6, kMaxStartingExcess = 0.005;

  /// Per ideal, whether it can bound a stage of a split with loads <= B
  /// (given with the DP's rounding slack).
  std::vector<char> viable(double bound) const {
    std::vector<char> result(prefix.size(), 1);
    if (!(bound < kInfinity) || !(total < kInfinity))
      return result;
    // The accelerators needed for `work` beside `cpus` cores.
    auto accelerators = [&](double work, int cpus) {
      return std::max(0.0,
                      std::ceil(work / bound - cpus / measure.slowdown - 1e-9));
    };
    for (size_t ideal = 0; ideal < prefix.size(); ++ideal) {
      bool fits = false;
      for (int before = 0; before <= l && !fits; ++before)
        fits = accelerators(prefix[ideal], before) +
                   accelerators(total - prefix[ideal], l - before) <=
               k;
      result[ideal] = fits;
    }
    return result;
  }

private:
  int k, l;
  WorkMeasure measure;
  double total = 0, largest = 0, largestWork = 0;
  /// P(I) per ideal.
  std::vector<double> prefix;
};

/// A step limit no search reaches.
constexpr int64_t kNoStepLimit = std::numeric_limits<int64_t>::max();

using Deadline = std::optional<std::chrono::steady_clock::time_point>;

/// How a state continues: a stage on accelerators or a CPU core, or (not
/// uniform) leaving the next accelerator empty.
enum class Step : uint8_t { None, Accelerator, Cpu, Skip };

class IdealDP {
public:
  /// Finds the best split among those whose stages' least loads are all
  /// at most `upperBound`, skipping ideals outside `viable`, or gives up
  /// (exhausted()) after `stepLimit` differences.
  IdealDP(const Problem &problem, const Contracted &graph,
          const IdealLattice &lattice, double upperBound,
          std::vector<char> viable, int64_t stepLimit = kNoStepLimit,
          Deadline deadline = std::nullopt)
      : problem(problem), graph(graph), lattice(lattice), stepLimit(stepLimit),
        deadline(deadline), viable(std::move(viable)), cost(problem, graph),
        k(problem.numAccelerators), l(problem.numCpus), n(lattice.size()),
        maxReplicas(problem.replication ? std::max(1, k) : 1),
        uniform(problem.isUniform()), bound(upperBound),
        forbidden(graph.numSuper, 0) {
    size_t states = static_cast<size_t>((k + 1) * (l + 1)) * n;
    value.assign(states, kInfinity);
    next.assign(states, -1);
    step.assign(states, Step::None);
    if (maxReplicas > 1)
      replicas.assign(states, 1);
    for (int r = 0; r <= maxReplicas; ++r) {
      ringCost.push_back(problem.getRingCost(r));
      replicaShare.push_back(r > 0 ? problem.getReplicaShare(r) : 1);
    }
    if (maxReplicas > 1) {
      ringFactor.assign(static_cast<size_t>(k + 1) * (k + 1), 1);
      for (int first = 0; first < k; ++first)
        for (int r = 2; first + r <= k; ++r)
          ringFactor[first * (k + 1) + r] = problem.getRingFactor(first, r);
    }
    // A replica group is one kind: the devices of its kind from each on.
    sameKindFrom.assign(k + 1, 0);
    for (int d = k - 1; d >= 0; --d)
      sameKindFrom[d] =
          d + 1 < k && problem.getKind(d + 1) == problem.getKind(d)
              ? sameKindFrom[d + 1] + 1
              : 1;
  }

  Assignment solve() {
    value[state(0, 0, n - 1)] = 0;
    skipAccelerators(n - 1);
    for (int64_t ideal = n - 2; ideal >= 0; --ideal) {
      if (!viable[ideal])
        continue;
      current = ideal;
      explore(ideal);
      if (exhausted())
        return {};
      skipAccelerators(ideal);
    }
    for (int c = 0; c <= l; ++c)
      for (int a = 0; a <= k; ++a)
        if (value[state(c, a, 0)] < optimum()) {
          usedCpus = c;
          usedAccelerators = a;
        }
    return reconstruct();
  }

  double optimum() const {
    return exhausted() ? kInfinity
                       : value[state(usedCpus, usedAccelerators, 0)];
  }

  /// Whether the search gave up at its step limit.
  bool exhausted() const { return steps > stepLimit || timedOut; }
  /// Whether the deadline stopped the search.
  bool pastDeadline() const { return timedOut; }
  /// Differences D enumerated so far.
  int64_t stepsTaken() const { return steps; }

  /// Devices in pipeline order, as solve() numbered them (stages' first
  /// devices).
  std::vector<int> stageOrder;
  /// Replicated stages of the reconstructed split (empty without).
  Replication replication;

private:
  size_t state(int c, int a, int64_t ideal) const {
    return (static_cast<size_t>(c) * (k + 1) + a) * n + ideal;
  }

  /// Not uniform: where devices differ, the pipeline may leave any of them
  /// empty (with identical ones, leading empties are enough: solve() takes
  /// the best count).
  void skipAccelerators(int64_t ideal) {
    if (uniform)
      return;
    for (int c = 0; c <= l; ++c)
      for (int a = 1; a <= k; ++a) {
        size_t s = state(c, a, ideal);
        double skipped = value[state(c, a - 1, ideal)];
        if (skipped < value[s])
          set(s, skipped, ideal, Step::Skip);
      }
  }

  /// Every nonempty D = rest \ current with rest an ideal, once each: a
  /// depth-first search that adds one addable node at a time. It keeps its
  /// own stack, not the call stack: on a long chain a stage holds tens of
  /// thousands of nodes, one level each.
  void explore(int64_t root) {
    frames.clear();
    frames.push_back(Frame{root, 0, undo.size(), -1});
    while (!frames.empty()) {
      Frame &frame = frames.back();
      if (frame.child >= 0) {
        leave(frame.child);
        frame.child = -1;
      }
      const auto &addable = lattice.addable[frame.rest];
      int64_t deeper = -1;
      while (frame.next < addable.size()) {
        auto [v, bigger] = addable[frame.next++];
        if (forbidden[v])
          continue;
        ++steps;
        // The clock is read every 65,536 differences (a few milliseconds).
        if ((steps & 0xFFFF) == 0 && deadline &&
            std::chrono::steady_clock::now() >= *deadline)
          timedOut = true;
        if (exhausted()) {
          frame.next = addable.size();
          break;
        }
        cost.add(v);
        double floor = k > 0 && cost.unsupported == 0 && cost.mayFit()
                           ? replicatedFloor()
                           : kInfinity;
        bool acceleratorUseful = floor <= bound;
        bool cpuUseful = l > 0 && cost.cpuCompute <= bound;
        if (acceleratorUseful || cpuUseful) {
          if (viable[bigger])
            relax(bigger,
                  acceleratorUseful ? cost.acceleratorCost() : kInfinity, floor,
                  cpuUseful ? cost.cpuCompute : kInfinity);
          frame.child = v;
          deeper = bigger;
          break;
        }
        leave(v);
      }
      if (deeper >= 0) {
        frames.push_back(Frame{deeper, 0, undo.size(), -1}); // frame dangles
        continue;
      }
      while (undo.size() > frame.marked) {
        forbidden[undo.back()] = 0;
        undo.pop_back();
      }
      frames.pop_back();
    }
  }

  /// Takes v back out of D once every difference with it is done: later
  /// siblings' differences do not contain it.
  void leave(int v) {
    cost.remove(v);
    forbidden[v] = 1;
    undo.push_back(v);
  }

  /// The least D's load can be on any number of copies: its fastest
  /// compute over r (a copy's share is at least 1 / r) plus the flat ring
  /// all-reduce of its gradients. Both grow with D, so no larger D does
  /// better.
  double replicatedFloor() const {
    double compute = cost.fastestCompute();
    double best = compute;
    for (int r = 2; r <= maxReplicas; ++r) {
      double ring = ringCost[r](cost.gradientBytes);
      if (ring >= best)
        break;
      best = std::min(best, compute / r + ring);
    }
    return best;
  }

  /// The extra time D pays as the `position`-th accelerator from the end:
  /// 0 where its stash fits, its recomputation where only recomputing
  /// fits, else infinity (whatever the number of copies).
  double memoryPenalty(int position) const {
    int first = k - position;
    if (cost.fitsAt(position, first))
      return 0;
    if (cost.canRecompute() && cost.fitsAt(position, first, /*recompute=*/true))
      return cost.recomputeTime;
    return kInfinity;
  }

  /// D = rest \ current as the first stage of what follows `current`.
  /// `floor`: no stage cost of D on accelerators is lower
  /// (replicatedFloor()).
  void relax(int64_t rest, double acceleratorCost, double floor,
             double cpuCost) {
    for (int c = 0; c <= l; ++c)
      for (int a = 0; a <= k; ++a) {
        size_t s = state(c, a, current);
        if (a > 0 && acceleratorCost < kInfinity && floor < value[s])
          relaxAccelerators(s, c, a, rest, acceleratorCost);
        if (c > 0 && cpuCost < value[s]) {
          double v = std::max(value[state(c - 1, a, rest)], cpuCost);
          if (v < value[s])
            set(s, v, rest, Step::Cpu);
        }
      }
  }

  /// D on r of the a accelerators from the end (a to a - r + 1, one kind):
  /// each copy takes every r-th microbatch, and training all-reduces D's
  /// gradients.
  void relaxAccelerators(size_t s, int c, int a, int64_t rest,
                         double acceleratorCost) {
    double penalty = memoryPenalty(a);
    if (penalty == kInfinity)
      return;
    int first = k - a;
    int most = std::min(
        a, uniform ? maxReplicas : std::min(maxReplicas, sameKindFrom[first]));
    for (int r = 1; r <= most; ++r) {
      // More copies leave fewer devices to the rest (with empties allowed,
      // never better) and a longer ring: past either bound, no r helps.
      double after = value[state(c, a - r, rest)];
      if ((!uniform && after >= value[s]) ||
          ringCost[r](cost.gradientBytes) >= value[s])
        break;
      double time =
          (uniform ? acceleratorCost : cost.acceleratorCostAt(first, r)) +
          penalty;
      double replicated =
          r == 1 ? time
                 : time * replicaShare[r] +
                       ringCost[r](cost.gradientBytes,
                                   ringFactor[first * (k + 1) + r]);
      double v = std::max(after, replicated);
      if (v < value[s]) {
        set(s, v, rest, Step::Accelerator);
        if (maxReplicas > 1)
          replicas[s] = r;
      }
    }
  }
  void set(size_t s, double v, int64_t rest, Step how) {
    value[s] = v;
    next[s] = rest;
    step[s] = how;
  }

  Assignment reconstruct() {
    if (optimum() == kInfinity)
      return {};
    Assignment assignment(problem.size(), -1);
    // Members of the stage's first ideal (at first the empty one) and of
    // the next.
    std::vector<char> inIdeal(graph.numSuper, 0), inRest(graph.numSuper);
    replication.clear();
    if (maxReplicas > 1)
      replication.assign(k, 1);
    // Stages come out first to last. Identical devices are numbered in
    // that order; otherwise a stage takes the position its state says.
    int c = usedCpus, a = usedAccelerators;
    int nextAccelerator = 0, nextCpu = problem.numAccelerators;
    stageOrder.clear();
    for (int64_t ideal = 0; ideal != n - 1;) {
      size_t s = state(c, a, ideal);
      if (step[s] == Step::None)
        return {};
      if (step[s] == Step::Skip) {
        --a;
        continue;
      }
      bool onAccelerator = step[s] == Step::Accelerator;
      int copies = onAccelerator && maxReplicas > 1 ? replicas[s] : 1;
      if (!uniform)
        nextAccelerator = k - a;
      int device = onAccelerator ? nextAccelerator : nextCpu++;
      if (onAccelerator) {
        nextAccelerator += copies;
        if (copies > 1)
          replication[device] = copies;
      }
      (onAccelerator ? a : c) -= copies;
      stageOrder.push_back(device);
      int64_t rest = next[s];
      lattice.members(rest, inRest);
      for (int v = 0; v < graph.numSuper; ++v)
        if (inRest[v] && !inIdeal[v])
          for (int m : graph.members[v])
            assignment[m] = device;
      std::swap(inIdeal, inRest);
      ideal = rest;
    }
    return assignment;
  }

  const Problem &problem;
  const Contracted &graph;
  const IdealLattice &lattice;
  int64_t stepLimit;
  Deadline deadline;
  bool timedOut = false;
  int64_t steps = 0;
  std::vector<char> viable;
  SetCost cost;
  int k, l;
  int64_t n;
  int maxReplicas;
  bool uniform;
  /// Accelerators of one kind from each on, itself included.
  std::vector<int> sameKindFrom;
  /// With replication: the ring factor of r copies from each accelerator,
  /// at [first * (k + 1) + r].
  std::vector<double> ringFactor;
  /// The all-reduce of r copies, and the share of the stage's time each
  /// copy runs, at [r].
  std::vector<Problem::RingCost> ringCost;
  std::vector<double> replicaShare;
  double bound;
  int64_t current = 0;
  int usedCpus = 0, usedAccelerators = 0;
  std::vector<double> value;
  std::vector<int64_t> next;
  std::vector<Step> step;
  std::vector<int> replicas; ///< per state, with replication
  std::vector<char> forbidden;
  std::vector<int> undo;
  /// explore()'s stack: an ideal, its next addable entry, the undo mark
  /// its siblings' exclusions go back to, and the node whose differences
  /// it is in (-1: none).
  struct Frame {
    int64_t rest;
    size_t next;
    size_t marked;
    int child;
  };
  std::vector<Frame> frames;
};

/// Places the nodes the reduction left out with their earliest successor
/// in pipeline order (or on the first stage), which keeps devices convex.
void placeFreeNodes(const Problem &problem, const std::vector<int> &freeNodes,
                    const std::vector<int> &stageOrder,
                    Assignment &assignment) {
  std::vector<int> stageOf(problem.numDevices(), 0);
  for (size_t i = 0; i < stageOrder.size(); ++i)
    stageOf[stageOrder[i]] = static_cast<int>(i);
  // Free nodes were peeled in topological order: place them in reverse, so
  // each one's successors are placed first.
  for (auto it = freeNodes.rbegin(); it != freeNodes.rend(); ++it) {
    int best = -1;
    for (int v : problem.successors[*it])
      if (assignment[v] >= 0 &&
          (best < 0 || stageOf[assignment[v]] < stageOf[best]))
        best = assignment[v];
    assignment[*it] = best >= 0 ? best
                                : (stageOrder.empty() ? 0 : stageOrder[0]);
  }
}

/// Runs the DP on `graph` (already contracted, maybe reduced or
/// linearized). `optimum` is the DP's own value for `graph`.
///
/// A parametric search on the max load: a pass with bound B finds the best
/// split among those whose every stage's least load is at most B, and only
/// visits ideals that can bound such a split (IdealBands), so a pass costs
/// little when B is close to the optimum. B starts above the bands' lower
/// bound by IdealBands::startingExcess() (at most 0.5%, about one
/// super-node's work on fine graphs) and its excess doubles after each
/// pass that finds nothing within B; past ten times the lower bound, or at
/// `upperBound`, the last pass runs at `upperBound`. The first pass whose
/// optimum is within its B is exact: a better split would have every least
/// load within B too. A pass that enumerates about as many differences as the
/// one before (under 5% more) shows the bound has stopped pruning, so each pass
/// at a higher bound would cost as much again: the exact pass at `upperBound`
/// is then tried at once, allowed twice that pass's differences, and dropped
/// for the next bound if it needs more.
///
/// `overLimit`: the lattice has more than `idealLimit` ideals, or the
/// passes enumerated more than `stepLimit` differences, or `deadline`
/// passed.
Solution runDP(const Problem &problem, const Contracted &graph,
               const std::vector<int> &freeNodes, int64_t idealLimit,
               double upperBound, bool &overLimit, double *optimum = nullptr,
               int64_t stepLimit = kNoStepLimit,
               Deadline deadline = std::nullopt) {
  Solution solution;
  IdealLattice lattice;
  overLimit = !lattice.build(graph.successors, graph.predecessors, idealLimit);
  if (overLimit)
    return solution;
  solution.numIdeals = lattice.size();
  IdealBands bands(problem, graph, lattice);
  std::optional<IdealDP> dp;
  Assignment assignment;
  double slackened = kInfinity;
  // One pass at `bound` allowed `limit` differences; false when it stopped
  // there. Its steps come out of `stepLimit`: a pass that stops at all of
  // it leaves it negative.
  auto pass = [&](double bound, int64_t limit) {
    // A tiny slack keeps a bound's own solution reachable despite rounding.
    slackened = bound < kInfinity ? bound * (1 + 1e-9) + 1e-12 : kInfinity;
    dp.emplace(problem, graph, lattice, slackened, bands.viable(slackened),
               limit, deadline);
    assignment = dp->solve();
    stepLimit = dp->pastDeadline() ? -1 : stepLimit - dp->stepsTaken();
    return !dp->exhausted();
  };
  double least = bands.lowerBound();
  int64_t previousSteps = 0;
  double previousBound = least;
  for (double excess = bands.startingExcess();; excess *= 2) {
    double bound = least * (1 + excess);
    // A pass costs more the higher its bound, steeply so near the optimum,
    // and one whose optimum ends above its bound is followed by another at
    // the upper bound: a bound past halfway from the last one tried to the
    // upper bound runs at the upper bound at once (Inception-v3: a pass at
    // 51.532 found 51.5519 and the one at 51.5519 cost as much again).
    bool last = !(least > 0) || !(least < kInfinity) || excess > 10 ||
                bound >= upperBound ||
                bound > previousBound + (upperBound - previousBound) / 2;
    if (last)
      bound = upperBound;
    pass(bound, stepLimit);
    if (stepLimit < 0 || last || dp->optimum() <= slackened)
      break;
    // A split beyond the bound still bounds the optimum from above.
    upperBound = std::min(upperBound, dp->optimum());
    previousBound = bound;
    int64_t steps = dp->stepsTaken();
    if (previousSteps > 0 && 20 * steps < 21 * previousSteps &&
        (pass(upperBound, std::min(stepLimit, 2 * steps)) || stepLimit < 0))
      break;
    previousSteps = steps;
  }
  if (stepLimit < 0) {
    overLimit = true;
    return Solution();
  }
  if (optimum)
    *optimum = dp->optimum();
  if (!assignment.empty()) {
    placeFreeNodes(problem, freeNodes, dp->stageOrder, assignment);
    solution.assignment = std::move(assignment);
    solution.replication = dp->replication;
    solution.maxLoad =
        evaluate(problem, solution.assignment, solution.replication).maxLoad;
  }
  return solution;
}

/// Whether every link is at least as slow as any link it spans in device
/// order (a hierarchy whose nodes hold consecutive devices): then a stage's
/// true links cost at least the neighbouring ones the DP charges.
bool linksAreNested(const Problem &problem) {
  int k = problem.numAccelerators;
  for (int from = 0; from < k; ++from)
    for (int to = 0; to < k; ++to) {
      if (from == to)
        continue;
      double factor = problem.getLinkFactor(from, to);
      int step = from < to ? 1 : -1;
      if ((to - from) * step > 1 &&
          (factor < problem.getLinkFactor(from + step, to) ||
           factor < problem.getLinkFactor(from, to - step)))
        return false;
    }
  return true;
}

/// Under 1F1B with a memory limit the DP counts empty devices after a stage
/// as in flight. A relaxation that charges every stage at most one
/// microbatch's stash (stash x min(position, M) / min(k, M), never more
/// than the truth), leaf memory dropped, bounds the optimum from below
/// (0 when its lattice is too large).
double relaxedInFlightBound(const Problem &problem, int64_t idealLimit,
                            double upperBound) {
  Problem relaxed = problem;
  double share = 1.0 / std::max(1, std::min(problem.numAccelerators,
                                            problem.microbatches));
  for (Node &node : relaxed.nodes)
    node.outputBytes *= share;
  Contracted graph = contract(relaxed);
  Reduced reduced = reduce(relaxed, graph, /*keepLeafMemory=*/false);
  double optimum = kInfinity;
  bool overLimit = false;
  runDP(relaxed, reduced.graph, reduced.freeNodes, idealLimit, upperBound,
        overLimit, &optimum);
  return overLimit ? 0 : optimum;
}

/// Kinds or links: the DP charges each stage the links to its neighbouring
/// devices, a lower bound on every split's load when links are nested. Its
/// value then bounds the optimum (under 1F1B with a memory limit, the
/// relaxation's does); the split is optimal when its true load meets it.
void certifyLinkModel(const Problem &problem, double modelOptimum,
                      int64_t idealLimit, Solution &solution) {
  if (!linksAreNested(problem)) {
    solution.optimal = false;
    solution.lowerBound = lowerBound(problem);
    solution.note = "links are not nested in device order: the DP's "
                    "neighbour-link charge is not a bound, so the split is "
                    "not proven optimal";
    return;
  }
  // 1F1B's stash grows with the stages after a stage, ZB-H1's with all
  // stages: the DP counts every accelerator as one, a bound from above.
  bool exactInFlight = (problem.schedule != Schedule::OneFOneB &&
                        problem.schedule != Schedule::ZeroBubbleH1) ||
                       problem.memoryLimit == kInfinity ||
                       !hasActivations(problem);
  double bound = modelOptimum;
  if (!exactInFlight) {
    // (With replication the relaxation, which memory no longer prunes,
    // costs ten times the DP on 32 devices: it is not run.)
    solution.lowerBound = lowerBound(problem);
    bound = solution.feasible() && !problem.replication
                ? relaxedInFlightBound(problem, idealLimit, solution.maxLoad)
                : 0;
  }
  if (bound < kInfinity)
    solution.lowerBound = std::max(solution.lowerBound, bound);
  solution.optimal =
      solution.optimal && solution.maxLoad <= bound * (1 + 1e-9) + 1e-15;
  if (!solution.optimal && solution.feasible() && solution.note.empty())
    solution.note =
        exactInFlight
            ? "a tensor skips a device on a slower link than the DP charged: "
              "the split is within the gap of the optimum"
            : std::string(getName(problem.schedule)) +
                  " on unlike devices: the DP counts empty devices as "
                  "stages in flight, so the split is within the gap of the "
                  "optimum";
}

/// Differences one refinement round may enumerate (about two seconds):
/// a round's cost is not its ideals but, per ideal, the ideals one stage
/// can reach above it, which windows spanning parallel branches multiply.
constexpr int64_t kRoundSteps = 20'000'000;

/// Past the ideal limit: the PipeDream-style split `chain`, refined by the
/// exact DP on the graph linearized outside windows of w super-nodes on
/// either side of each stage boundary of the best split so far (in the
/// topological numbering). Each round's graph keeps the best split's
/// ideals, so no round makes it worse; w doubles (from 1) while the lattice
/// stays within the limit and the round within kRoundSteps, so the last
/// round, the costliest, is the widest they allow. `window` is the last w
/// solved.
Solution refineLinearized(const Problem &problem, const Reduced &reduced,
                          Solution chain, int64_t idealLimit, int &window) {
  const Contracted &graph = reduced.graph;
  Solution best = std::move(chain);
  window = 0;
  if (!best.feasible())
    return best;
  for (int w = 1; w < 2 * graph.numSuper; w *= 2) {
    std::vector<std::pair<int, int>> windows;
    for (int v = 0; v + 1 < graph.numSuper; ++v) {
      if (graph.members[v].empty() || graph.members[v + 1].empty() ||
          best.assignment[graph.members[v][0]] ==
              best.assignment[graph.members[v + 1][0]])
        continue;
      int first = std::max(0, v + 1 - w);
      int last = std::min(graph.numSuper - 1, v + w);
      // Windows one apart or overlapping merge (linearizeOutside needs a
      // super-node between two).
      if (!windows.empty() && first <= windows.back().second + 1)
        windows.back().second = last;
      else
        windows.emplace_back(first, last);
    }
    bool overLimit = false;
    Solution refined =
        runDP(problem, linearizeOutside(graph, windows), reduced.freeNodes,
              idealLimit, best.maxLoad, overLimit, nullptr, kRoundSteps);
    if (overLimit)
      break;
    window = w;
    if (refined.feasible() && refined.maxLoad <= best.maxLoad) {
      best.assignment = std::move(refined.assignment);
      best.replication = std::move(refined.replication);
      best.maxLoad = refined.maxLoad;
    }
    best.numIdeals = std::max(best.numIdeals, refined.numIdeals);
  }
  return best;
}

} // namespace

Solution placer::solver::solveIdealDP(const Problem &problem,
                                      const DPOptions &options) {
  auto start = std::chrono::steady_clock::now();
  Contracted graph = contract(problem);
  // An upper bound from the linearized graph prunes the exact search.
  Solution chain = solvePipeDream(problem);
  bool overLimit = false;
  Reduced reduced = reduce(problem, graph, /*keepLeafMemory=*/true);
  // The DP's own value: the max-load where devices are alike, otherwise
  // what its link model charges (which the true load may exceed).
  double modelOptimum = kInfinity;
  Solution solution = runDP(problem, reduced.graph, reduced.freeNodes,
                            options.idealLimit, chain.maxLoad, overLimit,
                            &modelOptimum, kNoStepLimit, options.deadline);
  if (overLimit && options.deadline &&
      std::chrono::steady_clock::now() >= *options.deadline) {
    chain.algorithm = "dp";
    chain.coarsened = true;
    chain.optimal =
        chain.feasible() && chain.maxLoad <= chain.lowerBound * (1 + 1e-9);
    chain.note = "the time limit ended the DP: the split is the "
                 "PipeDream-style one, within the gap of the optimum";
    chain.seconds = secondsSince(start);
    return chain;
  }
  solution.lowerBound = lowerBound(problem);
  if (!overLimit && reduced.mergedLeaves > 0) {
    // Certify the leaf merges with the relaxation that drops leaf memory.
    Reduced relaxed = reduce(problem, graph, /*keepLeafMemory=*/false);
    double relaxedOptimum = kInfinity;
    bool relaxedOver = false;
    runDP(problem, relaxed.graph, relaxed.freeNodes, options.idealLimit,
          solution.maxLoad, relaxedOver, &relaxedOptimum, kNoStepLimit,
          options.deadline);
    solution.lowerBound = std::max(solution.lowerBound, relaxedOptimum);
    if (relaxedOptimum < modelOptimum * (1 - 1e-9)) {
      // Memory binds at a leaf: solve the unreduced graph.
      Solution full =
          runDP(problem, graph, {}, options.idealLimit, solution.maxLoad,
                overLimit, &modelOptimum, kNoStepLimit, options.deadline);
      if (!overLimit)
        solution = std::move(full);
      else
        solution.note = "memory binds where zero-time leaves were merged and "
                        "the unreduced graph has too many ideals: the split "
                        "is the best with leaves kept by their producer";
      overLimit = false;
      solution.coarsened = !solution.note.empty();
    }
  }
  solution.algorithm = "dp";
  if (overLimit) {
    int window = 0;
    solution = refineLinearized(problem, reduced, std::move(chain),
                                options.idealLimit, window);
    solution.algorithm = "dp";
    solution.coarsened = true;
    solution.note =
        "the graph has more than " + std::to_string(options.idealLimit) +
        " ideals: " +
        (window > 0 ? "the PipeDream-style split was refined exactly within " +
                          std::to_string(window) +
                          " super-nodes of its stage boundaries (the rest "
                          "linearized)"
                    : std::string("it was linearized (PipeDream-style)")) +
        ", so the split is within the gap of the optimum";
  }
  solution.optimal = solution.feasible() &&
                     (!solution.coarsened ||
                      solution.maxLoad <= solution.lowerBound * (1 + 1e-9));
  if (!problem.isUniform() && !overLimit)
    certifyLinkModel(problem, modelOptimum, options.idealLimit, solution);
  solution.seconds = secondsSince(start);
  return solution;
}

Solution placer::solver::solvePipeDream(const Problem &problem) {
  auto start = std::chrono::steady_clock::now();
  Contracted graph = linearize(contract(problem));
  bool overLimit = false;
  Solution solution = runDP(problem, graph, {}, graph.numSuper + 1, kInfinity,
                            overLimit);
  solution.algorithm = "pipedream";
  solution.lowerBound = lowerBound(problem);
  solution.seconds = secondsSince(start);
  return solution;
}
