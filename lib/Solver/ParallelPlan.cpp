//===- ParallelPlan.cpp - Tensor x data x pipeline plans, exactly ---------===//
//
// A stage is the difference D = J \ I of two ideals I < J of the layer graph
// (prefix-closed sets), so the stages of a plan are a chain of ideals, as in
// the contiguous-split DP. What a stage costs depends on its degrees (t, d),
// on y (the microbatches in flight, which depends on the stages after it)
// and on which configuration each of its layers takes. The planner:
//
//  1. For each pair (I, J) and degree t, builds the Pareto frontier of the
//     configuration choices of D's layers over four sums: X (compute plus
//     cut-edge traffic / bandwidth), W (parameter bytes), A and B (the two
//     memory terms). Every quantity of the problem is a nonnegative
//     combination of these, so a choice off the frontier is never needed:
//     the knapsack inside a stage is solved exactly, for every d and y at
//     once.
//  2. For each (I, J, t, d), turns the frontier into a step function: the
//     least stage time for each y (points sorted by time; the largest y a
//     point fits at is floor((M - B) / A)). Its values are the candidate
//     answers.
//  3. Searches the sorted candidates for the least time T at which a plan
//     fits: feasibility is a DP over ideals from the end of the pipeline,
//       f[I][s] = least devices placing the layers outside I in stages
//                 whose data-parallel degrees sum to at most s,
//     where a stage (J \ I, t, d) is allowed when its step function is at
//     most T at y = ceil(s / d), i.e. when s <= d * Y_T.
//  4. Reconstructs the plan at the least feasible T and the frontier point
//     each stage used.
//
// Piper's own code runs a DP over (ideal, devices, s) with a greedy knapsack
// per y; this one is exact and its table has no device dimension.
//
//===----------------------------------------------------------------------===//

#include "placer/Solver/ParallelPlan.h"

#include "IdealLattice.h"
#include "ParallelSegments.h"
#include "Timing.h"
#include "placer/Support/Format.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

using namespace placer::solver;
using namespace placer::solver::detail;

namespace {

constexpr int kNoDevices = std::numeric_limits<int>::max() / 2;

/// "in M bytes per device on K devices", or per kind "on 2 A100 (M bytes
/// each) and 2 V100 (M' bytes each)".
std::string describeDevices(const ParallelProblem &problem) {
  if (problem.kinds.empty())
    return "in " + std::to_string(problem.memoryPerDevice) +
           " bytes per device on " + std::to_string(problem.maxDevices) +
           " devices";
  std::string text = "on ";
  for (auto [k, kind] : llvm::enumerate(problem.kinds))
    text += (k ? " and " : "") + std::to_string(kind.count) + " " + kind.name +
            " (" + std::to_string(kind.memoryPerDevice) + " bytes each)";
  return text;
}

/// Piper's data-parallel resynchronisation, in bytes per sample.
double resyncBytes(double parameterBytes, int d, int microbatches) {
  return 4.0 * (d - 1) * parameterBytes / d / microbatches;
}

/// One configuration choice of a stage's layers, as the five sums that
/// decide its time and memory.
struct FrontierPoint {
  double x = 0, w = 0, a = 0, b = 0, c = 0;
  /// The point of the previous layer's frontier it extends, and the
  /// configuration it took (for reconstruction).
  int previous = -1, config = -1;

  /// Bytes per device with y microbatches in flight on one of d copies
  /// (TensorConfig::bytesAt summed).
  double memoryAt(int y, int d) const { return y * a + b + c / d; }
};

/// Whether p is no worse than q for every d and every y in [1, maxY]:
/// times are nonnegative combinations of x and w, and memory y * a + b is
/// linear in y, so comparing it at both ends of the range covers every y
/// between (a weaker condition than a and b apart, so more points go);
/// the caches, c / d, compare on their own. The comparison survives adding
/// the same configuration to both.
bool dominates(const FrontierPoint &p, const FrontierPoint &q, int maxY) {
  return p.x <= q.x && p.w <= q.w && p.c <= q.c && p.a + p.b <= q.a + q.b &&
         maxY * p.a + p.b <= maxY * q.a + q.b;
}

/// Keeps in `kept` the points of `next` no other one dominates (of equal
/// ones, the first); `next` is reordered.
void keepUndominated(std::vector<FrontierPoint> &next,
                     std::vector<FrontierPoint> &kept, int maxY) {
  kept.clear();
  if (next.size() <= 1) {
    // One candidate (a layer with one configuration after a single point,
    // as every layer of a derived model): nothing to compare.
    kept.assign(next.begin(), next.end());
    return;
  }
  // Sorted lexicographically, a point can only be dominated by one before
  // it.
  auto key = [maxY](const FrontierPoint &p) {
    return std::make_tuple(p.x, p.w, p.c, p.a + p.b, maxY * p.a + p.b);
  };
  std::stable_sort(next.begin(), next.end(),
                   [&](const FrontierPoint &p, const FrontierPoint &q) {
                     return key(p) < key(q);
                   });
  bool sameWAndC = llvm::all_of(next, [&](const FrontierPoint &p) {
    return p.w == next.front().w && p.c == next.front().c;
  });
  if (sameWAndC) {
    // Every earlier point has x (and w, c) no larger: p is dominated iff a
    // kept point is no larger in both memories. The kept points'
    // undominated memories form a staircase (memory at y = 1 rising, at
    // maxY falling), queried and updated in log time.
    std::map<double, double> staircase;
    for (const FrontierPoint &point : next) {
      double low = point.a + point.b, high = maxY * point.a + point.b;
      auto it = staircase.upper_bound(low);
      if (it != staircase.begin() && std::prev(it)->second <= high)
        continue;
      kept.push_back(point);
      while (it != staircase.end() && it->second >= high)
        it = staircase.erase(it);
      staircase[low] = high;
    }
    return;
  }
  for (const FrontierPoint &point : next)
    if (llvm::none_of(kept, [&](const FrontierPoint &k) {
          return dominates(k, point, maxY);
        }))
      kept.push_back(point);
}

/// The stage's transfers in the seed paper's model (ParallelTensor): a
/// tensor costs its time once when it crosses the stage's border, whichever
/// way and to however many readers; on one sample's way (latency), once
/// where it arrives: when the stage reads it from another.
double tensorTime(const ParallelProblem &problem, const std::vector<int> &stage,
                  const std::vector<char> &inStage, Objective objective) {
  if (problem.tensors.empty())
    return 0;
  std::vector<int> touched;
  for (int v : stage)
    llvm::append_range(touched, problem.tensorsAt[v]);
  llvm::sort(touched);
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  double time = 0;
  for (int i : touched) {
    const ParallelTensor &tensor = problem.tensors[i];
    bool inside = inStage[tensor.producer];
    if (objective == Objective::Latency && inside)
      continue;
    if (llvm::any_of(tensor.consumers,
                     [&](int consumer) { return inStage[consumer] != inside; }))
      time += tensor.time;
  }
  return time;
}

/// What layer `v` with `config` moves over the stage's cut edges: each
/// edge's bytes plus the configuration's sync bytes, both ways (forward
/// activation, backward gradient); on one sample's way (`latency`) an
/// edge's bytes count once, where they arrive.
double cutBytes(const ParallelProblem &problem, int v,
                const TensorConfig &config, const std::vector<char> &inStage,
                bool latency) {
  double bytes = 0;
  for (auto [i, e] : llvm::enumerate(problem.inEdges[v]))
    if (!inStage[problem.edges[e].from])
      bytes += 2 * (problem.edges[e].bytes + config.syncIn[i]);
  for (auto [i, e] : llvm::enumerate(problem.outEdges[v]))
    if (!inStage[problem.edges[e].to])
      bytes += 2 * ((latency ? 0 : problem.edges[e].bytes) + config.syncOut[i]);
  return bytes;
}

/// The Pareto frontiers of a stage's configuration choices, layer by
/// layer: level 0 is the empty choice, level i the first i layers'. One is
/// reused for every stage a planner looks at (millions on op-level graphs),
/// so its vectors keep their capacity.
struct StageFrontier {
  std::vector<std::vector<FrontierPoint>> levels;
  /// The last level built.
  size_t depth = 0;
  /// Scratch: candidates of the next level, least memory after each layer.
  std::vector<FrontierPoint> next;
  std::vector<double> rest;

  std::vector<FrontierPoint> &level(size_t i) {
    if (levels.size() <= i)
      levels.resize(i + 1);
    return levels[i];
  }
  const std::vector<FrontierPoint> &last() const { return levels[depth]; }
  /// Each layer's configuration in point `point` of the last level.
  std::vector<int> configsOf(int point) const {
    std::vector<int> configs(depth, 0);
    for (size_t level = depth; level > 0; --level) {
      configs[level - 1] = levels[level][point].config;
      point = levels[level][point].previous;
    }
    return configs;
  }
};

/// The least bytes per device `config` takes on a stage (y = 1) whose
/// devices keep at least `cacheShare` of its caches (1 / the largest
/// data-parallel degree the stage may take).
double leastBytes(const TensorConfig &config, double cacheShare) {
  return config.stashBytes + config.fixedBytes + config.cacheBytes * cacheShare;
}

/// Builds `frontier` for `stage` at degree t on devices of `kind` (of
/// `memory` bytes each, keeping at least `cacheShare` of the caches), its x
/// the stage's time (for `objective`) before the data-parallel degree
/// divides it. Returns false when some layer of D has no configuration for
/// t, or no choice fits in memory.
bool buildFrontier(const ParallelProblem &problem,
                   const std::vector<int> &stage,
                   const std::vector<char> &inStage, int t, int kind,
                   double memory, double cacheShare, int maxY,
                   Objective objective, StageFrontier &frontier, int64_t limit,
                   bool &overflow) {
  bool latency = objective == Objective::Latency;
  // Transfers of the seed model depend on the stage, not on the choice.
  FrontierPoint empty;
  empty.x = tensorTime(problem, stage, inStage, objective);
  frontier.depth = 0;
  frontier.level(0).assign(1, empty);
  // The least memory (at y = 1) the layers after each one add, whatever
  // they choose: a partial choice that cannot fit with it never will.
  std::vector<double> &rest = frontier.rest;
  rest.assign(stage.size() + 1, 0);
  for (size_t i = stage.size(); i-- > 0;) {
    auto it = problem.layers[stage[i]].configs.find(t);
    if (it == problem.layers[stage[i]].configs.end() || it->second.empty())
      return false;
    double least = std::numeric_limits<double>::infinity();
    for (const TensorConfig &config : it->second)
      least = std::min(least, leastBytes(config, cacheShare));
    rest[i] = rest[i + 1] + least;
  }
  std::vector<FrontierPoint> &next = frontier.next;
  for (auto [index, v] : llvm::enumerate(stage)) {
    const std::vector<TensorConfig> &configs =
        problem.layers[v].configs.find(t)->second;
    double later = rest[index + 1];
    const std::vector<FrontierPoint> &current = frontier.levels[index];
    next.clear();
    for (auto [c, config] : llvm::enumerate(configs)) {
      double x =
          config.timeOn(kind) +
          cutBytes(problem, v, config, inStage, latency) / problem.bandwidth;
      for (auto [p, point] : llvm::enumerate(current)) {
        FrontierPoint extended{point.x + x,
                               point.w + config.parameterBytes,
                               point.a + config.stashBytes,
                               point.b + config.fixedBytes,
                               point.c + config.cacheBytes,
                               static_cast<int>(p),
                               static_cast<int>(c)};
        // Memory only grows as layers join and with y: a choice that does
        // not fit at y = 1 with the least the later layers add never will.
        if (extended.a + extended.b + extended.c * cacheShare + later <= memory)
          next.push_back(extended);
      }
    }
    std::vector<FrontierPoint> &kept = frontier.level(index + 1);
    frontier.depth = index + 1;
    keepUndominated(next, kept, maxY);
    if (static_cast<int64_t>(kept.size()) > limit) {
      overflow = true;
      return false;
    }
    if (kept.empty())
      return false;
  }
  return true;
}

/// Whether every layer's configurations at degree t move the same sync
/// bytes: then a stage's traffic does not depend on the choice, and its
/// frontier can grow from a smaller stage's (growFrontier).
bool syncIsShared(const ParallelProblem &problem, int t) {
  for (const ParallelLayer &layer : problem.layers) {
    auto it = layer.configs.find(t);
    if (it == layer.configs.end())
      continue;
    for (const TensorConfig &config : it->second)
      if (config.syncIn != it->second.front().syncIn ||
          config.syncOut != it->second.front().syncOut)
        return false;
  }
  return true;
}

/// The frontier of a stage grown by `layers` from `from`, the frontier of
/// the stage without them, at degree t on `kind` (of `memory` bytes), in
/// `into`: x holds compute only (the stage's traffic, the same for every
/// choice when syncIsShared, is the caller's). Extending the same choice
/// keeps a dominance and memory only grows, so pruning `from` first loses
/// nothing: `into` holds the same points as buildFrontier's (bar its x's
/// traffic), whichever order the layers joined in. Empty when some layer
/// has no configuration for t or no choice fits; false when a level passes
/// `limit` points.
bool growFrontier(const ParallelProblem &problem,
                  const std::vector<FrontierPoint> &from,
                  const std::vector<int> &layers, int t, int kind,
                  double memory, double cacheShare, int maxY, int64_t limit,
                  std::vector<FrontierPoint> &into,
                  std::vector<FrontierPoint> &next,
                  std::vector<FrontierPoint> &scratch) {
  into.assign(from.begin(), from.end());
  for (int v : layers) {
    if (into.empty())
      return true;
    auto it = problem.layers[v].configs.find(t);
    if (it == problem.layers[v].configs.end() || it->second.empty()) {
      into.clear();
      return true;
    }
    next.clear();
    for (const TensorConfig &config : it->second)
      for (const FrontierPoint &point : into) {
        FrontierPoint extended{
            point.x + config.timeOn(kind), point.w + config.parameterBytes,
            point.a + config.stashBytes, point.b + config.fixedBytes,
            point.c + config.cacheBytes};
        if (extended.a + extended.b + extended.c * cacheShare <= memory)
          next.push_back(extended);
      }
    keepUndominated(next, scratch, maxY);
    std::swap(into, scratch);
    if (static_cast<int64_t>(into.size()) > limit)
      return false;
  }
  return true;
}

/// The traffic of `stage` the same for every choice (syncIsShared at t),
/// in seconds: what buildFrontier adds to each layer's x.
double sharedTraffic(const ParallelProblem &problem,
                     const std::vector<int> &stage,
                     const std::vector<char> &inStage, int t,
                     Objective objective) {
  bool latency = objective == Objective::Latency;
  double traffic = 0;
  for (int v : stage)
    traffic += cutBytes(problem, v, problem.layers[v].configs.at(t).front(),
                        inStage, latency);
  return traffic / problem.bandwidth +
         tensorTime(problem, stage, inStage, objective);
}

/// A stage option (I -> J with degrees t, d on devices of `kind`) and its
/// step function: the least time for y <= records[i].maxY is
/// records[i].time, records sorted by time with maxY increasing. (Millions
/// of them on operator graphs: 24 bytes; ideals are at most idealLimit.)
struct StageOption {
  int32_t to = 0;
  int32_t t = 1, d = 1, kind = 0;
  uint32_t first = 0, count = 0; // into Planner::records
};

struct StepRecord {
  double time = 0;
  int maxY = 0;
};

class Planner {
public:
  Planner(const ParallelProblem &problem, const ParallelPlanOptions &options)
      : problem(problem), options(options) {}

  llvm::Expected<ParallelPlan> run();

private:
  llvm::Error buildLattice();
  /// The data-parallel degrees a stage may take, the share of its caches
  /// a device keeps at least, and per ideal the least memory of its layers
  /// (a stage's is at least the difference of its two ideals').
  void prepareBounds();
  /// Calls visit(ideal, group, larger) for every larger ideal J whose
  /// difference from `from` can fit on a device, reached over the
  /// lattice's edges (`group` added to `ideal`): memory only grows with the
  /// stage, so the search stops at the first J whose layers' least memory
  /// exceeds the largest device; a visit that returns false stops it.
  /// `stamp` (one per ideal) and `queue` are the caller's scratch.
  template <typename Visit>
  void reachStages(int64_t from, std::vector<int64_t> &stamp,
                   std::vector<int64_t> &queue, Visit visit) const {
    queue.assign(1, from);
    stamp[from] = from;
    while (!queue.empty()) {
      int64_t i = queue.back();
      queue.pop_back();
      for (auto [group, to] : lattice.addable[i])
        if (stamp[to] != from) {
          stamp[to] = from;
          if (leastMemory[to] - leastMemory[from] > largestMemory)
            continue;
          if (!visit(i, group, to))
            return;
          queue.push_back(to);
        }
    }
  }
  /// The candidate stages (pairs of ideals whose difference may fit), or
  /// a number past `limit` once there are more.
  int64_t countPairs(int64_t limit) const;
  /// The plan over segments (ParallelSegments.h), when the graph has them.
  std::optional<llvm::Expected<ParallelPlan>> planOverSegments();
  llvm::Error buildOptions();
  /// The options of a stage (J \ I, J = `to`) at degree t on `kind` from
  /// its frontier, whose points' x lack `base`: a step function per
  /// data-parallel degree.
  llvm::Error addOptions(int64_t to, int t, int kind,
                         const std::vector<FrontierPoint> &frontier,
                         double base, const std::vector<int> &dataDegrees,
                         std::vector<std::pair<double, int>> &byTime);
  /// The error for a stage whose frontier passed the limit.
  llvm::Error frontierError(const std::vector<int> &stage, int t) const;
  /// Where the frontier's point the stage takes at y microbatches in flight
  /// (the fastest that fits; for latency, the fastest), and its time.
  std::pair<int, double> choosePoint(const std::vector<FrontierPoint> &frontier,
                                     int t, int d, int kind, int y) const;
  /// Adds `time` to the candidate answers.
  void addCandidate(double time);
  /// What no plan can hold, said before any search: a layer larger than
  /// every device at every degree, or layers that need more memory over
  /// all devices than they hold (each at its least: a degree-t group holds
  /// t times its bytes per device).
  llvm::Error checkCapacity() const;
  /// Whether the options' deadline has passed, and the error saying
  /// `where` it stopped.
  bool pastDeadline() const;
  llvm::Error deadlineError(const std::string &where) const;
  /// Objective::Latency: the least latency within the devices, by a DP over
  /// the ideals keeping (devices used, latency) Pareto pairs; the plan.
  llvm::Expected<ParallelPlan> leastLatency();
  /// f for threshold T; with `choices`, the option each state took.
  bool feasible(double threshold, std::vector<int64_t> *choices);
  /// Where a stage of `devices` on `kind` ends, counted from the start
  /// (`fromEnd` false) or the end of the devices, when the stages placed so
  /// far end at `used`: kinds sit in device order, so it takes the first
  /// devices of its kind past `used`; kNoDevices when they do not fit.
  int placeOnKind(int used, int devices, int kind, bool fromEnd) const;
  int largestY(const StageOption &option, double threshold) const;
  /// The layers of J \ I, ascending, marked in `inStage` (one per layer).
  std::vector<int> stageLayers(int64_t from, int64_t to,
                               std::vector<char> &inStage) const;
  ParallelPlan reconstruct(double threshold);

  const ParallelProblem &problem;
  const ParallelPlanOptions &options;
  bool latency = options.objective == Objective::Latency;
  /// Largest sum of data-parallel degrees: min(N, devices).
  int maxS = 0;
  /// The device kinds, and where each one's devices begin counted from the
  /// start and from the end of the devices.
  std::vector<ParallelDeviceKind> kinds = problem.deviceKinds();
  std::vector<int> kindStart, kindStartFromEnd;
  /// The ideals of the layer graph with each free source glued to its
  /// successor (groupOf: layer -> its group, the lattice's nodes).
  IdealLattice lattice;
  std::vector<int> groupOf, representative;
  /// prepareBounds' answers.
  std::vector<int> dataDegrees;
  double cacheShare = 1;
  std::vector<double> leastMemory;
  double largestMemory = 0;
  std::vector<std::vector<char>> members;
  /// Options by source ideal: optionsFrom[I] .. optionsFrom[I + 1].
  std::vector<StageOption> stageOptions;
  std::vector<int64_t> optionsFrom;
  std::vector<StepRecord> records;
  /// The candidate answers; sorted and unique up to `uniqueCandidates`.
  std::vector<double> candidates;
  size_t uniqueCandidates = 0;
  std::vector<int> table; // f[I][s], ideals x (maxS + 1)
  ParallelPlan stats;
};

/// Whether layer `v` is a free source: no predecessors, one successor, no
/// transfer of its own, and every configuration costs nothing (an Identity
/// of a constant, a view of a weight). Putting it in its successor's stage
/// is then optimal (it adds no time or memory there, and its edge is never
/// cut), so the lattice glues the two: without that, k such sources before
/// one consumer multiply the ideals by 2^k.
bool isFreeSource(const ParallelProblem &problem, int v,
                  const std::vector<std::vector<int>> &successors,
                  const std::vector<std::vector<int>> &predecessors) {
  if (!predecessors[v].empty() || successors[v].empty() ||
      llvm::any_of(successors[v],
                   [&](int w) { return w != successors[v].front(); }))
    return false;
  if (v < static_cast<int>(problem.tensorsAt.size()) &&
      !problem.tensorsAt[v].empty())
    return false;
  const ParallelLayer &layer = problem.layers[v];
  for (const auto &[t, configs] : layer.configs)
    for (const TensorConfig &config : configs)
      if (config.timePerSample != 0 || config.parameterBytes != 0 ||
          config.stashBytes != 0 || config.fixedBytes != 0 ||
          config.cacheBytes != 0)
        return false;
  // It must run at every degree its successor may.
  for (const auto &[t, configs] :
       problem.layers[successors[v].front()].configs)
    if (!configs.empty() && (!layer.configs.count(t) ||
                             layer.configs.find(t)->second.empty()))
      return false;
  return true;
}

llvm::Error Planner::buildLattice() {
  int n = problem.size();
  std::vector<std::vector<int>> successors(n), predecessors(n);
  for (const ParallelEdge &edge : problem.edges) {
    successors[edge.from].push_back(edge.to);
    predecessors[edge.to].push_back(edge.from);
  }
  // Free sources join their successor's group (chains of them too: the
  // successor's group is known first in reverse topological order).
  representative.resize(n);
  std::iota(representative.begin(), representative.end(), 0);
  std::vector<int> order = problem.topologicalOrder();
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (isFreeSource(problem, *it, successors, predecessors))
      representative[*it] = representative[successors[*it].front()];
  groupOf.assign(n, -1);
  int groups = 0;
  for (int v = 0; v < n; ++v)
    if (representative[v] == v)
      groupOf[v] = groups++;
  for (int v = 0; v < n; ++v)
    groupOf[v] = groupOf[representative[v]];
  std::vector<std::vector<int>> groupSuccessors(groups),
      groupPredecessors(groups);
  for (const ParallelEdge &edge : problem.edges) {
    int from = groupOf[edge.from], to = groupOf[edge.to];
    if (from == to || llvm::is_contained(groupSuccessors[from], to))
      continue;
    groupSuccessors[from].push_back(to);
    groupPredecessors[to].push_back(from);
  }
  if (!lattice.build(groupSuccessors, groupPredecessors, options.idealLimit))
    return llvm::createStringError(
        "the layer graph has more than " + std::to_string(options.idealLimit) +
        " ideals (contiguous splits); coarsen it into fewer layers");
  members.resize(lattice.size());
  std::vector<char> inGroups(groups);
  for (int64_t i = 0; i < lattice.size(); ++i) {
    lattice.members(i, inGroups);
    members[i].resize(n);
    for (int v = 0; v < n; ++v)
      members[i][v] = inGroups[groupOf[v]];
  }
  stats.ideals = lattice.size();
  return llvm::Error::success();
}

std::vector<int> Planner::stageLayers(int64_t from, int64_t to,
                                      std::vector<char> &inStage) const {
  std::vector<int> layers;
  for (int v = 0; v < problem.size(); ++v) {
    inStage[v] = members[to][v] && !members[from][v];
    if (inStage[v])
      layers.push_back(v);
  }
  return layers;
}

void Planner::prepareBounds() {
  int64_t count = lattice.size();
  dataDegrees.clear();
  int largestD =
      problem.maxDataDegree > 0 ? std::min(maxS, problem.maxDataDegree) : maxS;
  for (int d = 1; d <= largestD; ++d)
    if (problem.microbatches % d == 0 && (!latency || d == 1))
      dataDegrees.push_back(d);
  // Each of d copies keeps 1 / d of a stage's caches: at least this share.
  cacheShare = 1.0 / (dataDegrees.empty() ? 1 : dataDegrees.back());

  // Per ideal, the sum over its layers of the least memory any of their
  // configurations takes at y = 1: a stage's memory is at least the
  // difference of its two ideals'.
  // (The lattice adds a group of layers at a time: buildLattice.)
  std::vector<double> leastGroupMemory(problem.size(), 0);
  for (int v = 0; v < problem.size(); ++v) {
    double least = std::numeric_limits<double>::infinity();
    for (const auto &[t, configs] : problem.layers[v].configs)
      for (const TensorConfig &config : configs)
        least = std::min(least, leastBytes(config, cacheShare));
    leastGroupMemory[groupOf[v]] += std::isfinite(least) ? least : 0;
  }
  leastMemory.assign(count, 0);
  for (int64_t i = 1; i < count; ++i)
    leastMemory[i] =
        leastMemory[lattice.parent[i]] + leastGroupMemory[lattice.added[i]];

  largestMemory = 0;
  for (const ParallelDeviceKind &kind : kinds)
    largestMemory = std::max(largestMemory, kind.memoryPerDevice);
}

int64_t Planner::countPairs(int64_t limit) const {
  int64_t count = lattice.size(), pairs = 0;
  std::vector<int64_t> stamp(count, -1), queue;
  for (int64_t from = 0; from < count && pairs <= limit; ++from)
    reachStages(from, stamp, queue,
                [&](int64_t, int, int64_t) { return ++pairs <= limit; });
  return pairs;
}

std::optional<llvm::Expected<ParallelPlan>> Planner::planOverSegments() {
  std::optional<SegmentedProblem> segmented =
      segmentProblem(problem, representative, options.frontierLimit);
  if (!segmented)
    return std::nullopt;
  ParallelPlanOptions inner = options;
  inner.segmentAbove = std::numeric_limits<int64_t>::max();
  llvm::Expected<ParallelPlan> plan = Planner(segmented->problem, inner).run();
  if (!plan)
    return plan.takeError();
  ParallelPlan expanded = expandSegmentPlan(*segmented, std::move(*plan));
  expanded.segments = segmented->problem.size();
  return expanded;
}

llvm::Error Planner::buildOptions() {
  int64_t count = lattice.size();
  optionsFrom.assign(count + 1, 0);
  std::vector<int> degrees;
  for (const ParallelLayer &layer : problem.layers)
    for (const auto &[t, configs] : layer.configs)
      if (!configs.empty() && t <= problem.maxDevices)
        degrees.push_back(t);
  llvm::sort(degrees);
  degrees.erase(std::unique(degrees.begin(), degrees.end()), degrees.end());

  // Stages are found from each ideal I by growing J a group of layers at a
  // time; where the sync bytes are shared, each J's frontiers grow from
  // those of the J it was reached from (growFrontier), one slot per (t,
  // kind), instead of being rebuilt layer by layer for every pair.
  int kindCount = static_cast<int>(kinds.size());
  int slots = static_cast<int>(degrees.size()) * kindCount;
  std::vector<char> shared;
  for (int t : degrees)
    shared.push_back(syncIsShared(problem, t));
  bool growing = llvm::is_contained(shared, 1);
  std::vector<std::vector<int>> groupLayers(problem.size());
  for (int v = 0; v < problem.size(); ++v)
    groupLayers[groupOf[v]].push_back(v);
  std::vector<std::vector<FrontierPoint>> grown; // position x slots
  std::vector<FrontierPoint> next, scratch;
  std::vector<int64_t> position(count, 0);
  FrontierPoint emptyChoice;

  StageFrontier levels;
  std::vector<char> inStage(problem.size());
  std::vector<int64_t> stamp(count, -1), queue;
  std::vector<std::pair<double, int>> byTime; // (time, point)
  for (int64_t from = 0; from < count; ++from) {
    if (pastDeadline())
      return deadlineError("while building the stages from ideal " +
                           std::to_string(from) + " of " +
                           std::to_string(count));
    optionsFrom[from] = static_cast<int64_t>(stageOptions.size());
    if (growing) {
      grown.resize(std::max<size_t>(grown.size(), slots));
      for (int slot = 0; slot < slots; ++slot)
        grown[slot].assign(1, emptyChoice);
    }
    // Every larger ideal J whose difference can fit on a device; where the
    // syncs are shared, each one's frontiers grown from those of the ideal
    // it was reached from.
    std::vector<int64_t> reached;
    position[from] = 0;
    std::optional<std::pair<int64_t, int>> overflowAt; // (J, t)
    reachStages(from, stamp, queue, [&](int64_t i, int group, int64_t to) {
      reached.push_back(to);
      if (!growing)
        return true;
      position[to] = static_cast<int64_t>(reached.size());
      size_t base = position[to] * slots;
      if (grown.size() < base + slots)
        grown.resize(base + slots);
      for (auto [ti, t] : llvm::enumerate(degrees))
        for (int kind = 0; kind < kindCount && shared[ti]; ++kind) {
          size_t slot = ti * kindCount + kind;
          if (!growFrontier(problem, grown[position[i] * slots + slot],
                            groupLayers[group], t, kind,
                            kinds[kind].memoryPerDevice, cacheShare, maxS,
                            options.frontierLimit, grown[base + slot], next,
                            scratch)) {
            overflowAt = {to, t};
            return false;
          }
        }
      return true;
    });
    if (overflowAt)
      return frontierError(stageLayers(from, overflowAt->first, inStage),
                           overflowAt->second);
    llvm::sort(reached);
    stats.pairs += static_cast<int64_t>(reached.size());
    if (stats.pairs > options.pairLimit)
      return llvm::createStringError(
          "more than " + std::to_string(options.pairLimit) +
          " candidate stages (pairs of ideals that fit in memory) among " +
          std::to_string(count) + " ideals; coarsen the layer graph");
    for (int64_t to : reached) {
      std::vector<int> stage = stageLayers(from, to, inStage);
      for (auto [ti, t] : llvm::enumerate(degrees)) { // each <= maxDevices
        if (shared[ti]) {
          std::optional<double> traffic;
          for (int kind = 0; kind < kindCount; ++kind) {
            const std::vector<FrontierPoint> &frontier =
                grown[position[to] * slots + ti * kindCount + kind];
            if (frontier.empty())
              continue;
            if (!traffic)
              traffic =
                  sharedTraffic(problem, stage, inStage, t, options.objective);
            if (llvm::Error error = addOptions(to, t, kind, frontier, *traffic,
                                               dataDegrees, byTime))
              return error;
          }
          continue;
        }
        for (int kind = 0; kind < kindCount; ++kind) {
          bool overflow = false;
          if (!buildFrontier(problem, stage, inStage, t, kind,
                             kinds[kind].memoryPerDevice, cacheShare, maxS,
                             options.objective, levels, options.frontierLimit,
                             overflow)) {
            if (overflow)
              return frontierError(stage, t);
            continue;
          }
          if (llvm::Error error = addOptions(to, t, kind, levels.last(), 0,
                                             dataDegrees, byTime))
            return error;
        }
      }
    }
  }
  optionsFrom[count] = static_cast<int64_t>(stageOptions.size());
  stats.options = static_cast<int64_t>(stageOptions.size());
  llvm::sort(candidates);
  candidates.erase(std::unique(candidates.begin(), candidates.end()),
                   candidates.end());
  stats.candidates = static_cast<int64_t>(candidates.size());
  return llvm::Error::success();
}

llvm::Error Planner::checkCapacity() const {
  double largest = 0, total = 0;
  for (const ParallelDeviceKind &kind : kinds) {
    if (kind.count == 0)
      continue;
    largest = std::max(largest, kind.memoryPerDevice);
    total += kind.count * kind.memoryPerDevice;
  }
  if (!std::isfinite(total))
    return llvm::Error::success();
  // A stage's copies split its caches: per device at least 1 / the largest
  // data-parallel degree; over a group, a copy's t devices hold them whole
  // (d copies hold their weights d times over, so d = 1 needs least).
  int largestD =
      latency ? 1
              : std::max(1, std::min(problem.microbatches, problem.maxDevices));
  if (problem.maxDataDegree > 0)
    largestD = std::min(largestD, problem.maxDataDegree);
  double need = 0, caches = 0;
  for (const ParallelLayer &layer : problem.layers) {
    // Memory at y = 1, the least any stage charges.
    double perDevice = std::numeric_limits<double>::infinity(),
           overGroup = perDevice, cacheOverGroup = 0;
    for (const auto &[t, configs] : layer.configs)
      if (t <= problem.maxDevices)
        for (const TensorConfig &config : configs) {
          perDevice = std::min(perDevice, leastBytes(config, 1.0 / largestD));
          double bytes =
              t * (config.stashBytes + config.fixedBytes + config.cacheBytes);
          if (bytes < overGroup)
            overGroup = bytes, cacheOverGroup = t * config.cacheBytes;
        }
    if (!std::isfinite(perDevice))
      continue; // no degree that fits the devices: found by the search
    if (perDevice > largest)
      return llvm::createStringError("layer " + layer.name +
                                     " needs at least " +
                                     placer::formatBytes(perDevice) +
                                     " per device at any degree, more than any "
                                     "device holds (" +
                                     placer::formatBytes(largest) + ")");
    need += overGroup;
    caches += cacheOverGroup;
  }
  if (need <= total * (1 + 1e-12))
    return llvm::Error::success();
  return llvm::createStringError(
      "the layers need at least " + placer::formatBytes(need) +
      (caches > 0 ? " (KV caches " + placer::formatBytes(caches) + " of it)"
                  : std::string()) +
      " over all devices and the " + std::to_string(problem.maxDevices) +
      (problem.maxDevices > 1 ? " devices hold " : " device holds ") +
      placer::formatBytes(total) + ": at least " +
      std::to_string(static_cast<int64_t>(std::ceil(need / largest))) +
      " devices of " + placer::formatBytes(largest) + " are needed");
}

bool Planner::pastDeadline() const {
  return options.deadline &&
         std::chrono::steady_clock::now() >= *options.deadline;
}

llvm::Error Planner::deadlineError(const std::string &where) const {
  return llvm::createStringError(
      "the time limit passed " + where + " (" + std::to_string(stats.pairs) +
      " candidate stages so far); coarsen the layer graph or allow more time");
}

void Planner::addCandidate(double time) {
  candidates.push_back(time);
  // Stages of equal time abound (layers that cost nothing), and operator
  // graphs make hundreds of millions of steps: keep the list short.
  if (candidates.size() >= 2 * uniqueCandidates + (1 << 20)) {
    llvm::sort(candidates);
    candidates.erase(std::unique(candidates.begin(), candidates.end()),
                     candidates.end());
    uniqueCandidates = candidates.size();
  }
}

llvm::Error Planner::frontierError(const std::vector<int> &stage, int t) const {
  return llvm::createStringError(
      "the configurations of the " + std::to_string(stage.size()) +
      " layers from " + problem.layers[stage.front()].name + " to " +
      problem.layers[stage.back()].name + " at t = " + std::to_string(t) +
      " have more than " + std::to_string(options.frontierLimit) +
      " Pareto-optimal combinations (time, parameters, memory); "
      "the exact knapsack would not finish: coarsen the graph");
}

std::pair<int, double>
Planner::choosePoint(const std::vector<FrontierPoint> &frontier, int t, int d,
                     int kind, int y) const {
  double memory = kinds[kind].memoryPerDevice;
  double bandwidth = problem.resyncBandwidth(t, d);
  int best = -1;
  double bestTime = 0;
  for (auto [p, point] : llvm::enumerate(frontier)) {
    if (point.memoryAt(y, d) > memory)
      continue;
    double time =
        latency ? point.x
                : point.x / d +
                      resyncBytes(point.w, d, problem.microbatches) / bandwidth;
    if (best < 0 || time < bestTime)
      best = static_cast<int>(p), bestTime = time;
  }
  return {best, bestTime};
}

llvm::Error Planner::addOptions(int64_t to, int t, int kind,
                                const std::vector<FrontierPoint> &frontier,
                                double base,
                                const std::vector<int> &dataDegrees,
                                std::vector<std::pair<double, int>> &byTime) {
  double memory = kinds[kind].memoryPerDevice;
  if (frontier.empty())
    return llvm::Error::success();
  stats.largestFrontier =
      std::max(stats.largestFrontier, static_cast<int64_t>(frontier.size()));
  for (int d : dataDegrees) {
    int64_t devices = problem.footprint(t, d);
    if (devices == 0 || devices > kinds[kind].count)
      continue;
    StageOption option{static_cast<int32_t>(to),
                       t,
                       d,
                       kind,
                       static_cast<uint32_t>(records.size()),
                       0};
    if (latency) {
      // One sample in flight, every point fits: the fastest is the
      // stage's only record.
      int best = 0;
      for (auto [p, point] : llvm::enumerate(frontier))
        if (point.x < frontier[best].x)
          best = static_cast<int>(p);
      option.count = 1;
      stageOptions.push_back(option);
      records.push_back({base + frontier[best].x, 1});
      continue;
    }
    double resyncBandwidth = problem.resyncBandwidth(t, d);
    byTime.clear();
    for (auto [p, point] : llvm::enumerate(frontier)) {
      double time =
          (base + point.x) / d +
          resyncBytes(point.w, d, problem.microbatches) / resyncBandwidth;
      byTime.emplace_back(time, static_cast<int>(p));
    }
    llvm::sort(byTime);
    int bestY = 0;
    for (auto [time, p] : byTime) {
      const FrontierPoint &point = frontier[p];
      // The largest y with y * a + b + c / d <= M (at most maxS: y never
      // exceeds the sum of degrees).
      int maxY = 0;
      if (point.memoryAt(0, d) <= memory) {
        if (point.a <= 0) {
          maxY = maxS;
        } else {
          double y = std::floor((memory - point.memoryAt(0, d)) / point.a);
          maxY = static_cast<int>(std::min<double>(y, maxS));
          // Rounding: the sum decides, as scoring checks it.
          while (maxY > 0 && point.memoryAt(maxY, d) > memory)
            --maxY;
          while (maxY < maxS && point.memoryAt(maxY + 1, d) <= memory)
            ++maxY;
        }
      }
      if (maxY > bestY) {
        bestY = maxY;
        records.push_back({time, maxY});
        addCandidate(time);
      }
    }
    option.count = static_cast<uint32_t>(records.size()) - option.first;
    if (option.count > 0)
      stageOptions.push_back(option);
  }
  if (static_cast<int64_t>(records.size()) > options.recordLimit)
    return llvm::createStringError(
        "more than " + std::to_string(options.recordLimit) +
        " stage time steps to search (candidate stages x degrees x "
        "Pareto-optimal choices); coarsen the layer graph or give fewer "
        "devices");
  return llvm::Error::success();
}

int Planner::largestY(const StageOption &option, double threshold) const {
  // Records are sorted by time with maxY rising: the last one at most T.
  const StepRecord *begin = records.data() + option.first;
  const StepRecord *end = begin + option.count;
  const StepRecord *it = std::upper_bound(
      begin, end, threshold,
      [](double t, const StepRecord &record) { return t < record.time; });
  return it == begin ? 0 : (it - 1)->maxY;
}

int Planner::placeOnKind(int used, int devices, int kind, bool fromEnd) const {
  int start = fromEnd ? kindStartFromEnd[kind] : kindStart[kind];
  int at = std::max(used, start) + devices;
  return at <= start + kinds[kind].count ? at : kNoDevices;
}

bool Planner::feasible(double threshold, std::vector<int64_t> *choices) {
  ++stats.passes;
  int64_t count = lattice.size();
  int width = maxS + 1;
  table.assign(count * width, kNoDevices);
  if (choices)
    choices->assign(count * width, -1);
  // The full set: nothing left to place.
  std::fill_n(table.begin() + (count - 1) * width, width, 0);
  for (int64_t from = count - 2; from >= 0; --from) {
    int *row = &table[from * width];
    for (int64_t o = optionsFrom[from]; o < optionsFrom[from + 1]; ++o) {
      const StageOption &option = stageOptions[o];
      int maxY = largestY(option, threshold);
      if (maxY == 0)
        continue;
      const int *after = &table[option.to * width];
      int devices = static_cast<int>(problem.footprint(option.t, option.d));
      // Locals: the stores into `row` could otherwise alias the option's
      // fields, reloaded every step of this, the planner's hottest loop.
      const int d = option.d;
      int last = static_cast<int>(
          std::min<int64_t>(maxS, static_cast<int64_t>(d) * maxY));
      if (kinds.size() > 1) {
        // Counted from the end, the later stages' devices are a position:
        // the least leaves the earlier stages the most (every device
        // before it, of its kind and all earlier kinds).
        for (int s = d; s <= last; ++s)
          if (int end = placeOnKind(after[s - d], devices, option.kind,
                                    /*fromEnd=*/true);
              end < row[s]) {
            row[s] = end;
            if (choices)
              (*choices)[from * width + s] = o;
          }
      } else if (choices) {
        for (int s = d; s <= last; ++s)
          if (int total = after[s - d] + devices; total < row[s]) {
            row[s] = total;
            (*choices)[from * width + s] = o;
          }
      } else {
        for (int s = d; s <= last; ++s)
          row[s] = std::min(row[s], after[s - d] + devices);
      }
    }
    // "At most s": a plan for s also serves every larger s. (Memory was
    // checked at y = ceil(s / d), which only grows with s, so the carried
    // plan is checked at the s it was built for.)
    for (int s = 1; s < width; ++s)
      if (row[s - 1] < row[s]) {
        row[s] = row[s - 1];
        if (choices)
          (*choices)[from * width + s] = -2 - (s - 1);
      }
  }
  return table[maxS] <= problem.maxDevices;
}

ParallelPlan Planner::reconstruct(double threshold) {
  std::vector<int64_t> choices;
  // The search found `threshold` feasible; this pass records the choices.
  feasible(threshold, &choices);
  int width = maxS + 1;
  ParallelPlan plan = stats;
  int64_t at = 0;
  int s = maxS;
  StageFrontier levels;
  std::vector<char> inStage(problem.size());
  std::vector<FrontierPoint> chosenPoints;
  while (at != lattice.size() - 1) {
    int64_t choice = choices[at * width + s];
    // A carried entry points at the smaller s it came from.
    while (choice <= -2) {
      s = static_cast<int>(-2 - choice);
      choice = choices[at * width + s];
    }
    const StageOption &option = stageOptions[choice];
    ParallelStage stage;
    stage.layers = stageLayers(at, option.to, inStage);
    stage.tensorDegree = option.t;
    stage.dataDegree = option.d;
    stage.kind = option.kind;
    bool overflow = false;
    buildFrontier(problem, stage.layers, inStage, option.t, option.kind,
                  kinds[option.kind].memoryPerDevice, 1.0 / option.d, maxS,
                  options.objective, levels, options.frontierLimit, overflow);
    // The fastest choice that fits at y = ceil(s / d): no slower than the
    // step the pass took (at most T; its maxY covers y). Its memory waits
    // for y (the degrees of the stages after it). The configurations, back
    // along the frontier levels.
    auto [point, time] =
        choosePoint(levels.last(), option.t, option.d, option.kind,
                    (s + option.d - 1) / option.d);
    assert(point >= 0 && "the pass found a choice that fits");
    stage.time = time;
    chosenPoints.push_back(levels.last()[point]);
    stage.configs = levels.configsOf(point);
    plan.stages.push_back(std::move(stage));
    plan.devicesUsed += static_cast<int>(problem.footprint(option.t, option.d));
    s -= option.d;
    at = option.to;
  }
  int later = 0; // this stage's d and every later one's
  for (const ParallelStage &stage : plan.stages)
    later += stage.dataDegree;
  for (auto [stage, chosen] : llvm::zip(plan.stages, chosenPoints)) {
    int y = (later + stage.dataDegree - 1) / stage.dataDegree;
    later -= stage.dataDegree;
    stage.memory = chosen.memoryAt(y, stage.dataDegree);
    stage.cache = chosen.c / stage.dataDegree;
    plan.timePerSample = std::max(plan.timePerSample, stage.time);
  }
  return plan;
}

/// Devices for each stage, among its kind's (the kinds' devices follow each
/// other in order): consecutive in pipeline order on a flat network; with
/// nodes, blocks by footprint, largest first, each at an offset that is a
/// multiple of its size (all sizes are powers of two up to a node, or whole
/// nodes, and every kind holds whole nodes), so no block of a node's size
/// or less straddles two nodes.
void layOut(const ParallelProblem &problem, ParallelPlan &plan) {
  std::vector<size_t> order(plan.stages.size());
  std::iota(order.begin(), order.end(), 0);
  if (problem.devicesPerNode > 0)
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const ParallelStage &x = plan.stages[a], &y = plan.stages[b];
      return problem.footprint(x.tensorDegree, x.dataDegree) >
             problem.footprint(y.tensorDegree, y.dataDegree);
    });
  std::vector<int64_t> next; // per kind, its first free device
  int64_t start = 0;
  for (const ParallelDeviceKind &kind : problem.deviceKinds()) {
    next.push_back(start);
    start += kind.count;
  }
  for (size_t i : order) {
    ParallelStage &stage = plan.stages[i];
    stage.firstDevice = next[stage.kind];
    next[stage.kind] += problem.footprint(stage.tensorDegree, stage.dataDegree);
  }
}

llvm::Expected<ParallelPlan> Planner::leastLatency() {
  // Per ideal, the plans of its layers that no other beats in both devices
  // and latency, fewest devices first (latency then falls): each one where
  // its devices end (a count with one kind; the kinds sit in order), its
  // latency, the option that reached it, and the ideal and entry it
  // extended.
  struct Entry {
    int devices = 0;
    double latency = 0;
    int64_t option = -1, from = -1, previous = -1;
  };
  int64_t count = lattice.size();
  std::vector<std::vector<Entry>> best(count);
  best[0].push_back({});
  std::vector<Entry> merged;
  for (int64_t from = 0; from < count; ++from)
    for (int64_t o = optionsFrom[from]; o < optionsFrom[from + 1]; ++o) {
      const StageOption &option = stageOptions[o];
      assert(option.to > from && "a stage adds layers");
      int devices = static_cast<int>(problem.footprint(option.t, option.d));
      double time = records[option.first].time;
      std::vector<Entry> &target = best[option.to];
      merged.clear();
      for (auto [e, entry] : llvm::enumerate(best[from]))
        if (int end = placeOnKind(entry.devices, devices, option.kind,
                                  /*fromEnd=*/false);
            end <= problem.maxDevices)
          merged.push_back(
              {end, entry.latency + time, o, from, static_cast<int64_t>(e)});
      if (merged.empty())
        continue;
      // Merge with what the ideal has, keeping the staircase (ties: the
      // earlier, so the result is deterministic).
      llvm::append_range(merged, target);
      std::stable_sort(
          merged.begin(), merged.end(), [](const Entry &a, const Entry &b) {
            return a.devices < b.devices ||
                   (a.devices == b.devices && a.latency < b.latency);
          });
      target.clear();
      for (const Entry &entry : merged)
        if (target.empty() || entry.latency < target.back().latency)
          target.push_back(entry);
    }
  const std::vector<Entry> &full = best[count - 1];
  if (full.empty())
    return llvm::createStringError(
        "no plan fits " + describeDevices(problem) +
        ": some layers fit in no stage at any degree");
  // The staircase's last entry has the least latency.
  std::vector<int64_t> path;
  for (int64_t at = count - 1, e = static_cast<int64_t>(full.size()) - 1;
       at != 0;) {
    const Entry &entry = best[at][e];
    path.push_back(entry.option);
    at = entry.from;
    e = entry.previous;
  }
  ParallelPlan plan = stats;
  plan.objective = Objective::Latency;
  StageFrontier levels;
  std::vector<char> inStage(problem.size());
  int64_t at = 0;
  for (int64_t o : llvm::reverse(path)) {
    const StageOption &option = stageOptions[o];
    ParallelStage stage;
    stage.layers = stageLayers(at, option.to, inStage);
    stage.tensorDegree = option.t;
    stage.dataDegree = option.d;
    stage.kind = option.kind;
    bool overflow = false;
    buildFrontier(problem, stage.layers, inStage, option.t, option.kind,
                  kinds[option.kind].memoryPerDevice, 1.0, 1,
                  Objective::Latency, levels, options.frontierLimit, overflow);
    // The fastest choice, as the option's one record.
    auto [point, time] =
        choosePoint(levels.last(), option.t, option.d, option.kind, 1);
    const FrontierPoint &chosen = levels.last()[point];
    stage.time = time;
    stage.memory = chosen.memoryAt(1, 1);
    stage.cache = chosen.c;
    stage.configs = levels.configsOf(point);
    plan.timePerSample += stage.time;
    plan.devicesUsed += static_cast<int>(problem.footprint(option.t, option.d));
    plan.stages.push_back(std::move(stage));
    at = option.to;
  }
  return plan;
}

llvm::Expected<ParallelPlan> Planner::run() {
  auto start = std::chrono::steady_clock::now();
  if (problem.size() == 0)
    return llvm::createStringError("the layer graph is empty");
  if (problem.devicesPerNode < 0 ||
      (problem.devicesPerNode > 0 &&
       ((problem.devicesPerNode & (problem.devicesPerNode - 1)) != 0 ||
        !(problem.intraNodeBandwidth > 0))))
    return llvm::createStringError(
        "devices per node must be a power of two, with an intra-node "
        "bandwidth (got " +
        std::to_string(problem.devicesPerNode) + ")");
  if (llvm::Error error = problem.checkKinds())
    return std::move(error);
  if (llvm::Error error = checkCapacity())
    return std::move(error);
  int before = 0; // devices of the earlier kinds
  for (const ParallelDeviceKind &kind : kinds) {
    kindStart.push_back(before);
    before += kind.count;
    kindStartFromEnd.push_back(problem.maxDevices - before);
  }
  // One sample in flight for latency: every stage at d = 1, y = 1.
  maxS = latency ? 1 : std::min(problem.microbatches, problem.maxDevices);
  if (llvm::Error error = buildLattice())
    return std::move(error);
  prepareBounds();
  int64_t segmentAbove = options.segmentAbove.value_or(options.pairLimit);
  if (segmentAbove < std::numeric_limits<int64_t>::max() &&
      countPairs(segmentAbove) > segmentAbove)
    if (std::optional<llvm::Expected<ParallelPlan>> plan = planOverSegments()) {
      if (*plan)
        (*plan)->seconds = secondsSince(start);
      return std::move(*plan);
    }
  // The feasibility table has a row of maxS + 1 entries per ideal.
  if (lattice.size() * (int64_t(maxS) + 1) > options.tableLimit)
    return llvm::createStringError(
        std::to_string(lattice.size()) + " ideals x " +
        std::to_string(int64_t(maxS) + 1) +
        " sums of data-parallel degrees exceed the planner's table of " +
        std::to_string(options.tableLimit) +
        " entries; give fewer devices or microbatches, or coarsen the graph");
  if (llvm::Error error = buildOptions())
    return std::move(error);
  if (latency) {
    llvm::Expected<ParallelPlan> plan = leastLatency();
    if (!plan)
      return plan.takeError();
    layOut(problem, *plan);
    plan->seconds = secondsSince(start);
    return plan;
  }
  if (candidates.empty() || !feasible(candidates.back(), nullptr))
    return llvm::createStringError(
        "no plan fits " + describeDevices(problem) +
        ": some layers fit in no stage at any degree");
  // The least candidate at which a plan fits.
  size_t lo = 0, hi = candidates.size() - 1;
  while (lo < hi) {
    if (pastDeadline())
      return deadlineError("while searching " + std::to_string(hi - lo + 1) +
                           " of " + std::to_string(candidates.size()) +
                           " candidate times");
    size_t mid = lo + (hi - lo) / 2;
    if (feasible(candidates[mid], nullptr))
      hi = mid;
    else
      lo = mid + 1;
  }
  ParallelPlan plan = reconstruct(candidates[lo]);
  layOut(problem, plan);
  plan.passes = stats.passes;
  plan.seconds = secondsSince(start);
  return plan;
}

} // namespace

llvm::Expected<ParallelPlan>
placer::solver::planParallel(const ParallelProblem &problem,
                             const ParallelPlanOptions &options) {
  return Planner(problem, options).run();
}

llvm::Expected<ParallelStage>
placer::solver::bestStageChoice(const ParallelProblem &problem,
                                std::vector<int> layers, int t, int d, int y,
                                int kind) {
  std::vector<ParallelDeviceKind> kinds = problem.deviceKinds();
  if (kind < 0 || kind >= static_cast<int>(kinds.size()))
    return llvm::createStringError("no device kind " + std::to_string(kind));
  double memory = kinds[kind].memoryPerDevice;
  std::vector<char> inStage(problem.size(), 0);
  for (int v : layers)
    inStage[v] = 1;
  StageFrontier levels;
  bool overflow = false;
  if (!buildFrontier(problem, layers, inStage, t, kind, memory, 1.0 / d, y,
                     Objective::Throughput, levels,
                     ParallelPlanOptions().frontierLimit, overflow))
    return llvm::createStringError(
        overflow ? "too many Pareto-optimal choices"
                 : "a layer has no configuration for this degree, or none "
                   "fits");
  const std::vector<FrontierPoint> &frontier = levels.last();
  int best = -1;
  double bestTime = 0;
  for (auto [p, point] : llvm::enumerate(frontier)) {
    if (point.memoryAt(y, d) > memory)
      continue;
    double time = point.x / d + resyncBytes(point.w, d, problem.microbatches) /
                                    problem.resyncBandwidth(t, d);
    if (best < 0 || time < bestTime)
      best = static_cast<int>(p), bestTime = time;
  }
  if (best < 0)
    return llvm::createStringError("no choice fits at this y");
  ParallelStage stage;
  stage.layers = std::move(layers);
  stage.tensorDegree = t;
  stage.dataDegree = d;
  stage.kind = kind;
  stage.time = bestTime;
  stage.memory = frontier[best].memoryAt(y, d);
  stage.cache = frontier[best].c / d;
  stage.configs = levels.configsOf(best);
  return stage;
}
