//===- Latency.cpp - Single-sample latency: evaluator and heuristic -------===//
#include "placer/Solver/Latency.h"

#include "placer/Support/Graph.h"

#include "Contraction.h"
#include "Timing.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <queue>

using namespace placer::solver;
using namespace placer::solver::detail;

LatencyEvaluator::LatencyEvaluator(const Problem &problem)
    : problem(problem), order(topologicalOrder(problem)),
      preds(problem.predecessors()) {}

Calls LatencyEvaluator::fewestCalls(const Assignment &assignment) const {
  int n = problem.size();
  Calls calls(n, -1);
  // For accelerator a: piece[v] (1-based) for nodes on a; for the others,
  // the largest piece of a that some path into them has left.
  std::vector<int> piece(n);
  for (int a = 0; a < problem.numAccelerators; ++a) {
    for (int v : order) {
      bool here = assignment[v] == a;
      int value = here ? 1 : 0;
      for (int u : preds[v]) {
        bool uHere = assignment[u] == a;
        value = std::max(value, uHere || !here ? piece[u] : piece[u] + 1);
      }
      piece[v] = value;
    }
    for (int v = 0; v < n; ++v)
      if (assignment[v] == a)
        calls[v] = piece[v] - 1;
  }
  return calls;
}

Calls placer::solver::fewestCalls(const Problem &problem,
                                  const Assignment &assignment) {
  return LatencyEvaluator(problem).fewestCalls(assignment);
}

LatencyEvaluation placer::solver::evaluateLatency(const Problem &problem,
                                                  const Assignment &assignment,
                                                  const Calls &calls) {
  return LatencyEvaluator(problem).evaluate(assignment, calls);
}

std::vector<double> placer::solver::earliestFinish(const Problem &problem) {
  std::vector<double> finish(problem.size(), 0);
  std::vector<std::vector<int>> preds = problem.predecessors();
  for (int v : topologicalOrder(problem)) {
    const Node &node = problem.nodes[v];
    double time = kInfinity;
    if (problem.numCpus > 0)
      time = node.cpuTime;
    if (problem.numAccelerators > 0 && node.supported)
      time = std::min(time, node.acceleratorTime);
    if (time == kInfinity)
      time = 0; // no device can run it: a bound, not a schedule
    double ready = 0;
    for (int u : preds[v])
      ready = std::max(ready, finish[u]);
    finish[v] = ready + time;
  }
  return finish;
}

namespace {

/// Ancestors and descendants of every node, each including the node itself,
/// for the run closures (kept only for graphs of at most kClosureNodes
/// nodes: n^2 / 4 bytes).
struct Reachability {
  std::vector<llvm::BitVector> ancestors, descendants;
};
constexpr int kClosureNodes = 4096;
/// Work (node and word visits) allowed to the closures of one path; past
/// it, the path's runs count their own nodes only: still a bound, weaker.
constexpr int64_t kClosureBudget = 50'000'000;

std::optional<Reachability>
reachability(const Problem &problem, const std::vector<int> &order,
             const std::vector<std::vector<int>> &preds) {
  int n = problem.size();
  if (n > kClosureNodes)
    return std::nullopt;
  Reachability reach;
  reach.ancestors.assign(n, llvm::BitVector(n));
  reach.descendants.assign(n, llvm::BitVector(n));
  for (int v : order) {
    reach.ancestors[v].set(v);
    for (int u : preds[v])
      reach.ancestors[v] |= reach.ancestors[u];
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    reach.descendants[*it].set(*it);
    for (int w : problem.successors[*it])
      reach.descendants[*it] |= reach.descendants[w];
  }
  return reach;
}

/// Per node, the other nodes of its color class.
std::vector<std::vector<int>> classMates(const Problem &problem) {
  std::vector<std::vector<int>> mates(problem.size());
  for (const std::vector<int> &members : colorClassMembers(problem))
    for (int v : members)
      for (int w : members)
        if (w != v)
          mates[v].push_back(w);
  return mates;
}

/// A run's closure, grown one path node at a time: the nodes on paths
/// between two of its nodes and, with `classes` (one call per accelerator),
/// whole colour classes, closed again.
class RunClosure {
public:
  RunClosure(const Problem &problem, const Reachability &reach,
             const std::vector<std::vector<int>> *classes,
             const std::vector<int> &onPath, int first)
      : problem(problem), reach(reach), classes(classes), onPath(onPath),
        first(first), lastOnPath(first), closure(problem.size()),
        below(problem.size()), above(problem.size()), between(problem.size()) {}

  /// Adds `x` and what it forces; false when that includes a node no call
  /// of this run can hold (unsupported, or on the path before the run).
  bool add(int x, int64_t &budget) {
    int n = problem.size();
    work.assign(1, x);
    while (!work.empty()) {
      int v = work.back();
      work.pop_back();
      if (closure.test(v))
        continue;
      closure.set(v);
      members.push_back(v);
      const Node &node = problem.nodes[v];
      memory += node.memory;
      compute += node.acceleratorTime;
      if (!node.supported || (onPath[v] >= 0 && onPath[v] < first))
        return false;
      lastOnPath = std::max(lastOnPath, onPath[v]);
      below |= reach.descendants[v];
      above |= reach.ancestors[v];
      budget -= n / 64 + 1;
      between = below;
      between &= above;
      between.reset(closure);
      for (int w : between.set_bits())
        work.push_back(w);
      if (classes)
        for (int mate : (*classes)[v])
          if (!closure.test(mate))
            work.push_back(mate);
    }
    return true;
  }

  const Problem &problem;
  const Reachability &reach;
  const std::vector<std::vector<int>> *classes;
  const std::vector<int> &onPath;
  int first, lastOnPath;
  llvm::BitVector closure, below, above;
  std::vector<int> members, work;
  double memory = 0, compute = 0;

private:
  llvm::BitVector between; // scratch: below & above, less the closure
};

/// Where each node lies on `path` (-1: off it).
std::vector<int> pathPositions(const Problem &problem,
                               const std::vector<int> &path) {
  std::vector<int> onPath(problem.size(), -1);
  for (size_t t = 0; t < path.size(); ++t)
    onPath[path[t]] = static_cast<int>(t);
  return onPath;
}

/// The least time of the run path[i..j] as one accelerator call, for each
/// j from i on (infinity where no call can hold exactly that run), up to
/// the first j past which none can. A call is convex, so it holds the
/// run's closure C (RunClosure), which must not hold path[i-1] or
/// path[j+1]. The call pays C's times and its weights must fit. Its
/// transfer-in pays c(u) for every u outside C that feeds C and is
/// path[i-1] or an ancestor of it: u cannot be in the call, or the path
/// u ... path[i-1] path[i] would leave it and come back. Likewise its
/// transfer-out pays c(v) for every v in C feeding path[j+1] or a
/// descendant of it. Without `reach`, C is the run's own nodes and the
/// transfers are path[i-1]'s and path[j]'s. `budget` counts the work.
std::vector<double>
runTimes(const Problem &problem, const std::vector<int> &path, int i,
         const std::vector<int> &onPath,
         const std::vector<std::vector<int>> &preds, const Reachability *reach,
         const std::vector<std::vector<int>> *classes, int64_t &budget) {
  int m = static_cast<int>(path.size());
  std::vector<double> times;
  if (!reach) {
    double compute = 0, memory = 0;
    double in = i > 0 ? problem.nodes[path[i - 1]].transferCost : 0;
    for (int j = i; j < m; ++j) {
      const Node &node = problem.nodes[path[j]];
      memory += node.memory;
      if (!node.supported || !problem.fits(memory))
        break;
      compute += node.acceleratorTime;
      times.push_back(in + compute + (j + 1 < m ? node.transferCost : 0));
    }
    return times;
  }
  RunClosure run(problem, *reach, classes, onPath, i);
  llvm::BitVector counted(problem.size());
  const llvm::BitVector *before =
      i > 0 ? &reach->ancestors[path[i - 1]] : nullptr;
  double in = 0;
  for (int j = i; j < m; ++j) {
    size_t firstNew = run.members.size();
    if (!run.add(path[j], budget) || !problem.fits(run.memory))
      break;
    // path[i-1]'s ancestors join C only in runs that cannot be (C would
    // then hold path[i-1]), so each is counted once, when first seen.
    if (before)
      for (size_t e = firstNew; e < run.members.size(); ++e)
        for (int u : preds[run.members[e]])
          if (!run.closure.test(u) && before->test(u) && !counted.test(u)) {
            counted.set(u);
            in += problem.nodes[u].transferCost;
          }
    if (budget < 0)
      return runTimes(problem, path, i, onPath, preds, nullptr, nullptr,
                      budget);
    if (run.lastOnPath > j) {
      times.push_back(kInfinity); // C holds path[j+1]
      continue;
    }
    double out = 0;
    if (j + 1 < m) {
      const llvm::BitVector &after = reach->descendants[path[j + 1]];
      for (int v : run.members) {
        budget -= static_cast<int64_t>(problem.successors[v].size());
        if (llvm::any_of(problem.successors[v], [&](int w) {
              return !run.closure.test(w) && after.test(w);
            }))
          out += problem.nodes[v].transferCost;
      }
    }
    times.push_back(in + run.compute + out);
  }
  return times;
}

/// A path cut into CPU nodes and accelerator runs.
struct PathCut {
  double time = kInfinity;
  std::vector<int> path;
  /// The runs, first to last, as (first, last) positions on the path.
  std::vector<std::pair<int, int>> runs;
  /// Whether the runs' closures were used (else: the runs' own nodes).
  bool closures = false;
};

/// The least time `path` can take when each accelerator runs at most
/// `maxRuns` / k convex calls: along a path a call's nodes are one run (a
/// path that left the call and came back would break convexity), so the
/// path is cut into CPU nodes (their CPU time) and at most `maxRuns`
/// accelerator runs, each costing at least its runTimes(). Exact over all
/// such cuts: O(m^2 maxRuns) for m nodes, plus the closures; the cut that
/// attains it comes with it.
PathCut cutPath(const Problem &problem, std::vector<int> path, int maxRuns,
                const std::vector<std::vector<int>> &preds,
                const Reachability *reach,
                const std::vector<std::vector<int>> *classes) {
  int m = static_cast<int>(path.size());
  std::vector<int> onPath = pathPositions(problem, path);
  // best[i * (maxRuns + 1) + r]: path[0, i) placed with r runs; from[...]:
  // where that run began (-1: path[i-1] on the CPU).
  size_t states = static_cast<size_t>(m + 1) * (maxRuns + 1);
  std::vector<double> best(states, kInfinity);
  std::vector<int> from(states, -1);
  auto index = [&](int i, int r) {
    return static_cast<size_t>(i) * (maxRuns + 1) + r;
  };
  best[index(0, 0)] = 0;
  int64_t budget = kClosureBudget;
  bool closures = reach != nullptr;
  for (int i = 0; i < m; ++i) {
    std::vector<double> runs;
    if (maxRuns > 0) {
      closures = closures && budget >= 0;
      runs =
          runTimes(problem, path, i, onPath, preds, closures ? reach : nullptr,
                   closures ? classes : nullptr, budget);
    }
    for (int r = 0; r <= maxRuns; ++r) {
      double before = best[index(i, r)];
      if (before == kInfinity)
        continue;
      const Node &first = problem.nodes[path[i]];
      size_t cpu = index(i + 1, r);
      if (problem.numCpus > 0 && before + first.cpuTime < best[cpu]) {
        best[cpu] = before + first.cpuTime;
        from[cpu] = -1;
      }
      if (r == maxRuns)
        continue;
      for (size_t length = 0; length < runs.size(); ++length) {
        size_t next = index(i + 1 + static_cast<int>(length), r + 1);
        if (before + runs[length] < best[next]) {
          best[next] = before + runs[length];
          from[next] = i;
        }
      }
    }
  }
  PathCut cut;
  int r = 0;
  for (int q = 0; q <= maxRuns; ++q)
    if (best[index(m, q)] < best[index(m, r)])
      r = q;
  cut.time = best[index(m, r)];
  cut.closures = closures;
  if (cut.time < kInfinity)
    for (int i = m; i > 0;) {
      int began = from[index(i, r)];
      if (began < 0) {
        --i;
        continue;
      }
      cut.runs.emplace_back(began, i - 1);
      i = began;
      --r;
    }
  std::reverse(cut.runs.begin(), cut.runs.end());
  cut.path = std::move(path);
  return cut;
}

/// The lower bound and the cut of the path that sets it (none where the
/// cheapest path alone does).
struct BoundAnalysis {
  double bound = 0;
  PathCut critical;
  std::vector<int> order;
  std::vector<std::vector<int>> preds;
  std::optional<Reachability> reach;
  std::vector<std::vector<int>> classes;
  /// With one call per accelerator: the DP over the chain of blocks.
  ChainSolution chain;
};

BoundAnalysis analyzeLatencyBound(const Problem &problem,
                                  int callsPerAccelerator, bool chainOfBlocks) {
  BoundAnalysis analysis;
  std::vector<double> finish = earliestFinish(problem);
  for (double f : finish)
    analysis.bound = std::max(analysis.bound, f);
  // The longest cheapest path into each sink, cut into runs.
  constexpr int kLongestPath = 4000;
  int maxRuns = static_cast<int>(std::min<int64_t>(
      int64_t(problem.numAccelerators) * std::max(1, callsPerAccelerator),
      problem.size()));
  analysis.order = topologicalOrder(problem);
  analysis.preds = problem.predecessors();
  const std::vector<std::vector<int>> &preds = analysis.preds;
  analysis.reach = reachability(problem, analysis.order, preds);
  // With one call per accelerator a color class on one is in one call.
  if (analysis.reach && callsPerAccelerator <= 1)
    analysis.classes = classMates(problem);
  for (int sink = 0; sink < problem.size(); ++sink) {
    if (!problem.successors[sink].empty())
      continue;
    std::vector<int> path{sink};
    while (!preds[path.back()].empty() &&
           static_cast<int>(path.size()) <= kLongestPath)
      path.push_back(*std::max_element(
          preds[path.back()].begin(), preds[path.back()].end(),
          [&](int a, int b) { return finish[a] < finish[b]; }));
    if (static_cast<int>(path.size()) > kLongestPath)
      continue;
    std::reverse(path.begin(), path.end());
    PathCut cut =
        cutPath(problem, std::move(path), maxRuns, preds,
                analysis.reach ? &*analysis.reach : nullptr,
                analysis.classes.empty() ? nullptr : &analysis.classes);
    if (cut.time < kInfinity && cut.time >= analysis.bound) {
      analysis.bound = cut.time;
      analysis.critical = std::move(cut);
    }
  }
  if (callsPerAccelerator <= 1 && chainOfBlocks) {
    analysis.chain = solveLatencyChain(problem);
    analysis.bound = std::max(analysis.bound, analysis.chain.lowerBound);
  }
  return analysis;
}

/// A placement shaped like the critical path's cut (one call per
/// accelerator): run r's closure on accelerator r, the path's CPU nodes on
/// the CPU, and every other colour class, in topological order, with its
/// latest predecessor's accelerator where it fits, else on the CPU (else
/// on any accelerator with room). Empty where that cannot be done. Where
/// the bound is tight the optimum looks like this; the local search starts
/// from it.
Assignment boundShapedPlacement(const Problem &problem,
                                const BoundAnalysis &analysis) {
  const PathCut &cut = analysis.critical;
  int k = problem.numAccelerators, n = problem.size();
  if (!cut.closures || !analysis.reach || analysis.classes.empty() ||
      cut.runs.empty() || static_cast<int>(cut.runs.size()) > k)
    return {};
  Assignment assignment(n, -1);
  std::vector<double> used(k, 0);
  std::vector<int> onPath = pathPositions(problem, cut.path);
  int64_t budget = std::numeric_limits<int64_t>::max();
  for (size_t r = 0; r < cut.runs.size(); ++r) {
    auto [first, last] = cut.runs[r];
    RunClosure run(problem, *analysis.reach, &analysis.classes, onPath, first);
    for (int t = first; t <= last; ++t)
      run.add(cut.path[t], budget);
    for (int v : run.members)
      if (assignment[v] < 0) {
        assignment[v] = static_cast<int>(r);
        used[r] += problem.nodes[v].memory;
      }
  }
  for (int v : analysis.order) {
    if (assignment[v] >= 0)
      continue;
    std::vector<int> group{v};
    for (int mate : analysis.classes[v])
      if (assignment[mate] < 0)
        group.push_back(mate);
    double bytes = 0;
    bool cpu = problem.numCpus > 0;
    int latest = -1;
    for (int g : group) {
      bytes += problem.nodes[g].memory;
      cpu = cpu && problem.nodes[g].cpuTime < kInfinity;
      for (int u : analysis.preds[g])
        if (assignment[u] >= 0 && assignment[u] < k)
          latest = std::max(latest, assignment[u]);
    }
    bool supported = llvm::all_of(
        group, [&](int g) { return bool(problem.nodes[g].supported); });
    int device = -1;
    if (supported && latest >= 0 && problem.fits(used[latest] + bytes))
      device = latest;
    else if (cpu)
      device = k;
    else
      for (int a = 0; a < k && device < 0 && supported; ++a)
        if (problem.fits(used[a] + bytes))
          device = a;
    if (device < 0)
      return {};
    for (int g : group)
      assignment[g] = device;
    if (device < k)
      used[device] += bytes;
  }
  return assignment;
}

} // namespace

double placer::solver::latencyLowerBound(const Problem &problem,
                                         int callsPerAccelerator,
                                         bool chainOfBlocks) {
  return analyzeLatencyBound(problem, callsPerAccelerator, chainOfBlocks).bound;
}

namespace {

/// A unit of execution: one CPU node, or one accelerator call.
struct Unit {
  bool isCall = false;
  int device = 0, index = 0;
  std::vector<int> nodes;
};

} // namespace

LatencyEvaluation LatencyEvaluator::evaluate(const Assignment &assignment,
                                             const Calls &givenCalls) const {
  LatencyEvaluation result;
  Evaluation placement = solver::evaluate(problem, assignment);
  if (!placement.feasible()) {
    result.violation = placement.violation;
    result.latency = kInfinity;
    return result;
  }
  int n = problem.size();
  Calls calls = givenCalls.empty() ? fewestCalls(assignment) : givenCalls;
  if (static_cast<int>(calls.size()) != n) {
    result.violation = "the call list has " + std::to_string(calls.size()) +
                       " entries for " + std::to_string(n) + " nodes";
    result.latency = kInfinity;
    return result;
  }

  // Units: CPU nodes one by one, accelerator calls by (device, index).
  std::vector<Unit> units;
  std::vector<int> unitOf(n, -1);
  // Per accelerator, the unit of each call index (-1: no such call).
  std::vector<std::vector<int>> callUnits(problem.numAccelerators);
  for (int v = 0; v < n; ++v) {
    int d = assignment[v];
    if (!problem.isAccelerator(d)) {
      if (problem.nodes[v].cpuTime == kInfinity) {
        result.violation =
            "node " + problem.nodes[v].name + " cannot run on a CPU core";
        result.latency = kInfinity;
        return result;
      }
      unitOf[v] = static_cast<int>(units.size());
      units.push_back({false, d, 0, {v}});
      continue;
    }
    if (calls[v] < 0 || calls[v] >= n) {
      result.violation =
          "node " + problem.nodes[v].name +
          (calls[v] < 0 ? " is on an accelerator but in no call"
                        : " is in call " + std::to_string(calls[v]) +
                              ", past the last possible (" +
                              std::to_string(n - 1) + ")");
      result.latency = kInfinity;
      return result;
    }
    std::vector<int> &unitOfCall = callUnits[d];
    if (calls[v] >= static_cast<int>(unitOfCall.size()))
      unitOfCall.resize(calls[v] + 1, -1);
    int &unit = unitOfCall[calls[v]];
    if (unit < 0) {
      unit = static_cast<int>(units.size());
      units.push_back({true, d, calls[v], {}});
    }
    units[unit].nodes.push_back(v);
    unitOf[v] = unit;
  }

  // Unit graph: data edges, plus each call after the previous call of its
  // accelerator.
  int numUnits = static_cast<int>(units.size());
  std::vector<std::vector<int>> after(numUnits);
  for (int u = 0; u < n; ++u)
    for (int v : problem.successors[u])
      if (unitOf[u] != unitOf[v])
        after[unitOf[u]].push_back(unitOf[v]);
  for (const std::vector<int> &unitOfCall : callUnits) {
    int previous = -1;
    for (int unit : unitOfCall)
      if (unit >= 0) {
        if (previous >= 0)
          after[previous].push_back(unit);
        previous = unit;
      }
    result.maxCallsPerAccelerator = std::max<int>(
        result.maxCallsPerAccelerator,
        llvm::count_if(unitOfCall, [](int unit) { return unit >= 0; }));
  }
  std::vector<double> unitFinish(numUnits, 0), unitReady(numUnits, 0);
  result.finish.assign(n, 0);
  std::vector<char> isMember(n, 0), isSource(n, 0);
  std::vector<int> unitOrder = placer::topologicalOrder(after);
  std::vector<char> ran(numUnits, 0);
  for (int i : unitOrder) {
    ran[i] = 1;
    Unit &unit = units[i];
    if (!unit.isCall) {
      int v = unit.nodes.front();
      unitFinish[i] = unitReady[i] + problem.nodes[v].cpuTime;
      result.finish[v] = unitFinish[i];
    } else {
      CallReport report;
      report.device = unit.device;
      report.index = unit.index;
      report.nodes = unit.nodes;
      report.start = unitReady[i];
      for (int v : unit.nodes)
        isMember[v] = 1;
      for (int v : unit.nodes) {
        report.compute += problem.nodes[v].acceleratorTime;
        bool leaves = false;
        for (int w : problem.successors[v])
          leaves |= !isMember[w];
        if (leaves)
          report.transferOut += problem.nodes[v].transferCost;
      }
      // c(u) once per outside source, however many members it feeds.
      for (int v : unit.nodes)
        for (int u : preds[v])
          if (!isMember[u] && !isSource[u]) {
            isSource[u] = 1;
            report.transferIn += problem.nodes[u].transferCost;
          }
      for (int v : unit.nodes) {
        isMember[v] = 0;
        for (int u : preds[v])
          isSource[u] = 0;
      }
      report.finish = report.start + report.transferIn + report.compute +
                      report.transferOut;
      unitFinish[i] = report.finish;
      for (int v : unit.nodes)
        result.finish[v] = report.finish;
      result.calls.push_back(std::move(report));
    }
    for (int t : after[i])
      unitReady[t] = std::max(unitReady[t], unitFinish[i]);
  }
  if (static_cast<int>(unitOrder.size()) != numUnits) {
    for (int i = 0; i < numUnits; ++i)
      if (!ran[i] && units[i].isCall) {
        result.violation = "call " + std::to_string(units[i].index) +
                           " of accelerator " +
                           std::to_string(units[i].device) +
                           " cannot run: it is not convex, or it needs a "
                           "later call of its accelerator";
        break;
      }
    if (result.violation.empty())
      result.violation = "the placement has a dependency cycle";
    result.latency = kInfinity;
    return result;
  }
  std::sort(result.calls.begin(), result.calls.end(),
            [](const CallReport &a, const CallReport &b) {
              return std::make_pair(a.device, a.index) <
                     std::make_pair(b.device, b.index);
            });
  for (double f : result.finish)
    result.latency = std::max(result.latency, f);
  return result;
}

void placer::solver::assignCpuCores(const Problem &problem,
                                    const std::vector<double> &finish,
                                    Assignment &assignment) {
  int k = problem.numAccelerators, l = problem.numCpus;
  if (l == 0)
    return;
  std::vector<int> cpuNodes;
  for (int v = 0; v < problem.size(); ++v)
    if (!problem.isAccelerator(assignment[v]))
      cpuNodes.push_back(v);
  auto startOf = [&](int v) { return finish[v] - problem.nodes[v].cpuTime; };
  std::stable_sort(cpuNodes.begin(), cpuNodes.end(),
                   [&](int a, int b) { return startOf(a) < startOf(b); });
  std::vector<double> freeAt(l, 0);
  std::map<int64_t, int> coreOfClass;
  for (int v : cpuNodes) {
    int64_t colorClass = problem.nodes[v].colorClass;
    auto it = colorClass >= 0 ? coreOfClass.find(colorClass) : coreOfClass.end();
    int core;
    if (it != coreOfClass.end()) {
      core = it->second;
    } else {
      core = static_cast<int>(std::min_element(freeAt.begin(), freeAt.end()) -
                              freeAt.begin());
      if (colorClass >= 0)
        coreOfClass[colorClass] = core;
    }
    freeAt[core] = std::max(freeAt[core], finish[v]);
    assignment[v] = k + core;
  }
}

void placer::solver::scoreLatency(const Problem &problem, Solution &solution) {
  if (!solution.feasible())
    return;
  LatencyEvaluator evaluator(problem);
  LatencyEvaluation evaluation = evaluator.evaluate(solution.assignment);
  solution.latency = evaluation.feasible() ? evaluation.latency : kInfinity;
  solution.calls = evaluator.fewestCalls(solution.assignment);
}

namespace {

/// Local search state: one device per contracted block.
class LatencySearch {
public:
  LatencySearch(const Problem &problem, const Contracted &blocks,
                const LatencyOptions &options)
      : problem(problem), blocks(blocks), options(options), evaluator(problem) {
  }

  /// Latency of a block placement (infinity when it cannot run within the
  /// call limit).
  double score(const std::vector<int> &blockDevice) const {
    Assignment assignment = expand(blockDevice);
    LatencyEvaluation evaluation = evaluator.evaluate(assignment);
    if (!evaluation.feasible() ||
        evaluation.maxCallsPerAccelerator > options.callsPerAccelerator)
      return kInfinity;
    return evaluation.latency;
  }

  Assignment expand(const std::vector<int> &blockDevice) const {
    Assignment assignment(problem.size(), 0);
    for (int b = 0; b < blocks.numSuper; ++b)
      for (int m : blocks.members[b])
        assignment[m] = blockDevice[b];
    return assignment;
  }

  /// First improvement over single-block moves (to the CPU or to any
  /// accelerator) until none helps.
  double improve(std::vector<int> &blockDevice, double current) const {
    int k = problem.numAccelerators;
    int cpu = problem.numCpus > 0 ? k : -1;
    for (int round = 0; round < 100; ++round) {
      bool improved = false;
      for (int b = 0; b < blocks.numSuper; ++b) {
        if (pastDeadline())
          return current;
        int original = blockDevice[b];
        // Devices 0..k-1 are the accelerators, k the CPU (when there is one).
        for (int target = 0; target <= (cpu >= 0 ? cpu : k - 1); ++target) {
          if (target == original || (target < k && !blocks.supported[b]) ||
              (target == cpu && blocks.cpuTime[b] == kInfinity))
            continue;
          blockDevice[b] = target;
          double value = score(blockDevice);
          if (value < current * (1 - 1e-12)) {
            current = value;
            original = target;
            improved = true;
          }
        }
        blockDevice[b] = original;
      }
      if (!improved && !(options.moveRuns && moveRuns(blockDevice, current)))
        break;
    }
    return current;
  }

  /// First improvement over moves of runs of 2 to kLongestRun consecutive
  /// blocks (in topological order) to one device: where a stretch of the
  /// graph is better on a fresh accelerator than on the CPU (or the other
  /// way), moving its blocks one at a time pays transfers around each and
  /// never helps, the whole run at once may.
  bool moveRuns(std::vector<int> &blockDevice, double &current) const {
    constexpr int kLongestRun = 64;
    int k = problem.numAccelerators;
    int last = problem.numCpus > 0 ? k : k - 1;
    bool improved = false;
    std::vector<int> saved;
    for (int length = 2; length <= kLongestRun && length <= blocks.numSuper;
         length *= 2)
      for (int first = 0; first + length <= blocks.numSuper; ++first)
        for (int target = 0; target <= last; ++target) {
          if (pastDeadline())
            return improved;
          saved.assign(blockDevice.begin() + first,
                       blockDevice.begin() + first + length);
          bool changed = false, allowed = true;
          for (int b = first; b < first + length && allowed; ++b) {
            allowed = target < k ? bool(blocks.supported[b])
                                 : blocks.cpuTime[b] < kInfinity;
            changed = changed || blockDevice[b] != target;
            blockDevice[b] = target;
          }
          double value = allowed && changed ? score(blockDevice) : kInfinity;
          if (value < current * (1 - 1e-12)) {
            current = value;
            improved = true;
          } else {
            std::copy(saved.begin(), saved.end(), blockDevice.begin() + first);
          }
        }
    return improved;
  }

  /// `assignment` as a block placement (every CPU core as the CPU), or
  /// nothing when a block's members are on different devices.
  std::optional<std::vector<int>> blocksOf(const Assignment &assignment) const {
    int k = problem.numAccelerators;
    if (assignment.size() != size_t(problem.size()))
      return std::nullopt;
    std::vector<int> blockDevice(blocks.numSuper, -1);
    for (int b = 0; b < blocks.numSuper; ++b)
      for (int m : blocks.members[b]) {
        int device = std::min(assignment[m], k);
        if (blockDevice[b] != -1 && blockDevice[b] != device)
          return std::nullopt;
        blockDevice[b] = device;
      }
    return blockDevice;
  }

  /// Blocks in topological order cut into `parts` consecutive runs of
  /// about equal accelerator time, each within memory; unsupported blocks
  /// on the CPU.
  std::vector<int> pack(int parts) const {
    int k = problem.numAccelerators;
    int cpu = problem.numCpus > 0 ? k : -1;
    double total = 0;
    for (int b = 0; b < blocks.numSuper; ++b)
      if (blocks.supported[b])
        total += blocks.acceleratorTime[b];
    double share = total / std::max(1, parts);
    std::vector<int> blockDevice(blocks.numSuper, cpu);
    int device = 0;
    double load = 0, memory = 0;
    for (int b = 0; b < blocks.numSuper; ++b) {
      if (!blocks.supported[b] || k == 0)
        continue;
      bool full = load > 0 && (load + blocks.acceleratorTime[b] / 2 > share ||
                               memory + blocks.memory[b] > problem.memoryLimit);
      if (full && device + 1 < k) {
        ++device;
        load = memory = 0;
      }
      if (memory + blocks.memory[b] > problem.memoryLimit && cpu >= 0 &&
          blocks.cpuTime[b] < kInfinity)
        continue; // out of accelerator memory: the CPU takes it
      blockDevice[b] = device;
      load += blocks.acceleratorTime[b];
      memory += blocks.memory[b];
    }
    return blockDevice;
  }

private:
  bool pastDeadline() const {
    return options.deadline &&
           std::chrono::steady_clock::now() >= *options.deadline;
  }

  const Problem &problem;
  const Contracted &blocks;
  const LatencyOptions &options;
  LatencyEvaluator evaluator;
};

} // namespace

Solution placer::solver::solveLatencyGreedy(const Problem &problem,
                                            const LatencyOptions &options) {
  auto start = std::chrono::steady_clock::now();
  Solution solution;
  solution.algorithm = "greedy";
  BoundAnalysis analysis =
      analyzeLatencyBound(problem, options.callsPerAccelerator, true);
  solution.lowerBound = analysis.bound;
  Contracted blocks = contract(problem);
  LatencySearch search(problem, blocks, options);

  // (placement, the seed it is or "" for the heuristic's own)
  std::vector<std::pair<std::vector<int>, std::string>> starts;
  if (problem.numCpus > 0)
    starts.emplace_back(
        std::vector<int>(blocks.numSuper, problem.numAccelerators), "");
  for (int parts = 1; parts <= problem.numAccelerators; ++parts)
    starts.emplace_back(search.pack(parts), "");
  for (const auto &[name, assignment] : options.seeds)
    if (std::optional<std::vector<int>> seed = search.blocksOf(assignment))
      starts.emplace_back(std::move(*seed), name);
  if (options.callsPerAccelerator <= 1) {
    if (std::optional<std::vector<int>> seed =
            search.blocksOf(boundShapedPlacement(problem, analysis)))
      starts.emplace_back(std::move(*seed),
                          "the lower bound's cut of its critical path");
    if (std::optional<std::vector<int>> seed =
            search.blocksOf(analysis.chain.placement))
      starts.emplace_back(std::move(*seed), "the chain-of-blocks DP");
  }

  // Every start is scored, then improved from the best one on, so that a
  // deadline cuts the least promising short (the search is deterministic:
  // a start seen before ends where it did).
  std::vector<std::pair<double, size_t>> order;
  for (size_t i = 0; i < starts.size(); ++i)
    if (llvm::none_of(llvm::make_range(starts.begin(), starts.begin() + i),
                      [&](const auto &earlier) {
                        return earlier.first == starts[i].first;
                      }))
      order.emplace_back(search.score(starts[i].first), i);
  std::stable_sort(order.begin(), order.end());
  std::vector<int> best;
  std::string bestSeed;
  double bestLatency = kInfinity;
  for (auto [value, i] : order) {
    auto &[candidate, seed] = starts[i];
    if (value == kInfinity)
      continue;
    value = search.improve(candidate, value);
    if (value < bestLatency) {
      bestLatency = value;
      best = candidate;
      bestSeed = seed;
    }
  }
  if (!bestSeed.empty())
    solution.note = "the local search started from " + bestSeed;
  if (bestLatency < kInfinity) {
    Assignment assignment = search.expand(best);
    LatencyEvaluation evaluation = evaluateLatency(problem, assignment);
    assignCpuCores(problem, evaluation.finish, assignment);
    solution.assignment = std::move(assignment);
    solution.calls = fewestCalls(problem, solution.assignment);
    solution.latency = evaluation.latency;
    solution.maxLoad = evaluate(problem, solution.assignment).maxLoad;
  } else {
    solution.note = "no placement fits the accelerators' memory and the call "
                    "limit";
  }
  solution.seconds = secondsSince(start);
  return solution;
}
