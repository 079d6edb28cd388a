//===- LatencyProgram.cpp - Latency MILP solved with COIN-OR CBC ----------===//
//
// docs/IntegerPrograms.md writes the model out; the names below follow it.
//
//===----------------------------------------------------------------------===//
#include "placer/Solver/IntegerProgram.h"
#include "placer/Solver/Latency.h"

#include "CbcModel.h"

#include <algorithm>
#include <chrono>
#include <map>

using namespace placer::solver;
using namespace placer::solver::detail;

namespace {

std::string name(const char *prefix, int a, int b = -1) {
  std::string result = prefix;
  result += "_" + std::to_string(a);
  if (b >= 0)
    result += "_" + std::to_string(b);
  return result;
}

/// A latency no sensible placement exceeds: every node one after another
/// at its slower time, plus every transfer each call could pay.
double safeHorizon(const Problem &problem, int numCalls) {
  double horizon = 0;
  for (const Node &node : problem.nodes) {
    double slowest = 0;
    if (problem.numCpus > 0 && node.cpuTime < kInfinity)
      slowest = node.cpuTime;
    if (node.supported)
      slowest = std::max(slowest, node.acceleratorTime);
    horizon += slowest + (1.0 + numCalls) * node.transferCost;
  }
  return horizon;
}

/// The warm start with accelerators renumbered by the start of their first
/// call, as the symmetry-breaking rows require, and calls numbered from 0.
bool canonicalStart(const Problem &problem, Assignment &assignment,
                    Calls &calls) {
  LatencyEvaluation evaluation = evaluateLatency(problem, assignment, calls);
  if (!evaluation.feasible())
    return false;
  int k = problem.numAccelerators;
  std::vector<double> firstStart(k, kInfinity);
  std::map<std::pair<int, int>, int> renumbered;
  std::vector<int> callsOn(k, 0);
  for (const CallReport &call : evaluation.calls) { // sorted by (device, index)
    firstStart[call.device] = std::min(firstStart[call.device], call.start);
    renumbered[{call.device, call.index}] = callsOn[call.device]++;
  }
  std::vector<int> order(k);
  for (int a = 0; a < k; ++a)
    order[a] = a;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return firstStart[a] < firstStart[b];
  });
  std::vector<int> newIndex(k);
  for (int i = 0; i < k; ++i)
    newIndex[order[i]] = i;
  for (int v = 0; v < problem.size(); ++v)
    if (problem.isAccelerator(assignment[v])) {
      calls[v] = renumbered[{assignment[v], calls[v]}];
      assignment[v] = newIndex[assignment[v]];
    }
  return true;
}

} // namespace

IPResult placer::solver::solveLatencyIP(const Problem &problem,
                                        const IPOptions &options) {
  auto clockStart = std::chrono::steady_clock::now();
  IPResult result;
  result.solution.algorithm = "ip";
  result.solution.lowerBound =
      options.latencyBound
          ? *options.latencyBound
          : latencyLowerBound(problem, options.callsPerAccelerator);
  int n = problem.size(), k = problem.numAccelerators;
  // More calls than nodes cannot help; the cap keeps the model finite.
  int q = std::clamp(options.callsPerAccelerator, 1, std::max(1, n));
  int numCalls = k * q;
  bool haveCpu = problem.numCpus > 0;

  // The warm start fixes the big-M: no optimal schedule runs past it.
  Assignment startAssignment;
  Calls startCalls;
  double incumbent = kInfinity;
  if (options.warmStart) {
    startAssignment = *options.warmStart;
    startCalls = options.warmStartCalls && !options.warmStartCalls->empty()
                     ? *options.warmStartCalls
                     : fewestCalls(problem, startAssignment);
    LatencyEvaluation evaluation =
        evaluateLatency(problem, startAssignment, startCalls);
    bool fits = evaluation.feasible() && evaluation.maxCallsPerAccelerator <= q;
    if (fits && canonicalStart(problem, startAssignment, startCalls))
      incumbent = evaluation.latency;
  }
  double horizon = incumbent < kInfinity
                       ? incumbent * (1 + 1e-6) + 1e-9
                       : safeHorizon(problem, numCalls);

  ModelBuilder b;
  // x[v][s]: node v in call s = a * q + j (j-th call of accelerator a);
  // y[v]: v on a CPU core.
  std::vector<std::vector<int>> x(n, std::vector<int>(numCalls));
  std::vector<int> y(n, -1);
  for (int v = 0; v < n; ++v) {
    const Node &node = problem.nodes[v];
    for (int s = 0; s < numCalls; ++s)
      x[v][s] = b.column(name("x", v, s), 0, node.supported ? 1 : 0, 0, true);
    if (haveCpu && node.cpuTime < kInfinity)
      y[v] = b.column(name("y", v), 0, 1, 0, true);
  }
  // T[v]: when v's result is ready; never before its cheapest path.
  std::vector<double> earliest = earliestFinish(problem);
  std::vector<int> T(n), start(numCalls), finish(numCalls);
  for (int v = 0; v < n; ++v)
    T[v] = b.column(name("T", v), std::min(earliest[v], horizon), horizon, 0,
                    false);
  for (int s = 0; s < numCalls; ++s) {
    start[s] = b.column(name("start", s), 0, horizon, 0, false);
    finish[s] = b.column(name("finish", s), 0, horizon, 0, false);
  }
  int latency = b.column("latency", std::min(result.solution.lowerBound, horizon),
                         horizon, 1, false);

  // Every node on exactly one call or the CPU.
  for (int v = 0; v < n; ++v) {
    std::vector<int> cols(x[v].begin(), x[v].end());
    if (y[v] >= 0)
      cols.push_back(y[v]);
    b.row(name("assign", v), cols, std::vector<double>(cols.size(), 1.0), 'E',
          1);
  }

  // A color class on one device: the CPU, or one accelerator (any calls).
  for (const std::vector<int> &members : colorClassMembers(problem))
    for (size_t i = 0; i + 1 < members.size(); ++i) {
      int v = members[i], w = members[i + 1];
      if (y[v] >= 0 || y[w] >= 0) {
        std::vector<int> cols;
        std::vector<double> coefs;
        if (y[v] >= 0)
          cols.push_back(y[v]), coefs.push_back(1);
        if (y[w] >= 0)
          cols.push_back(y[w]), coefs.push_back(-1);
        b.row(name("class_cpu", v, w), cols, coefs, 'E', 0);
      }
      for (int a = 0; a < k; ++a) {
        std::vector<int> cols;
        std::vector<double> coefs;
        for (int j = 0; j < q; ++j) {
          cols.insert(cols.end(), {x[v][a * q + j], x[w][a * q + j]});
          coefs.insert(coefs.end(), {1, -1});
        }
        b.row("class_" + std::to_string(v) + "_" + std::to_string(w) + "_acc" +
                  std::to_string(a),
              cols, coefs, 'E', 0);
      }
    }

  // Memory per accelerator, over all its calls.
  if (problem.memoryLimit < kInfinity)
    for (int a = 0; a < k; ++a) {
      std::vector<int> cols;
      std::vector<double> coefs;
      for (int v = 0; v < n; ++v)
        if (problem.nodes[v].memory > 0)
          for (int j = 0; j < q; ++j) {
            cols.push_back(x[v][a * q + j]);
            coefs.push_back(problem.nodes[v].memory);
          }
      if (!cols.empty())
        b.row(name("memory", a), cols, coefs, 'L', problem.memoryLimit);
    }

  // Convex calls: z[.][s] is downward closed, holds the call and none of
  // the call's outside successors, so no path leaves the call and returns.
  for (int s = 0; s < numCalls; ++s) {
    std::vector<int> z(n);
    for (int v = 0; v < n; ++v) {
      z[v] = b.column(name("z", v, s), 0, 1, 0, false);
      b.row(name("z_holds", v, s), {z[v], x[v][s]}, {1, -1}, 'G', 0);
    }
    for (int u = 0; u < n; ++u)
      for (int v : problem.successors[u]) {
        std::string tag = std::to_string(u) + "_" + std::to_string(v) + "_" +
                          std::to_string(s);
        b.row("z_closed_" + tag, {z[v], z[u]}, {1, -1}, 'L', 0);
        b.row("z_cut_" + tag, {z[v], x[v][s], x[u][s]}, {1, -1, 1}, 'L', 1);
      }
  }

  // Transfers and timing of each call: in[u][s] = 1 when u feeds call s
  // from outside, out[u][s] = 1 when u in s feeds a node outside.
  for (int s = 0; s < numCalls; ++s) {
    std::vector<int> durationCols = {finish[s], start[s]};
    std::vector<double> durationCoefs = {1, -1};
    for (int v = 0; v < n; ++v)
      if (problem.nodes[v].acceleratorTime > 0 && problem.nodes[v].supported) {
        durationCols.push_back(x[v][s]);
        durationCoefs.push_back(-problem.nodes[v].acceleratorTime);
      }
    for (int u = 0; u < n; ++u) {
      if (problem.successors[u].empty())
        continue;
      int in = b.column(name("in", u, s), 0, 1, 0, false);
      int out = b.column(name("out", u, s), 0, 1, 0, false);
      for (int v : problem.successors[u]) {
        std::string tag = std::to_string(u) + "_" + std::to_string(v) + "_" +
                          std::to_string(s);
        b.row("enter_" + tag, {in, x[v][s], x[u][s]}, {1, -1, 1}, 'G', 0);
        b.row("leave_" + tag, {out, x[u][s], x[v][s]}, {1, -1, 1}, 'G', 0);
      }
      double c = problem.nodes[u].transferCost;
      if (c > 0) {
        durationCols.insert(durationCols.end(), {in, out});
        durationCoefs.insert(durationCoefs.end(), {-c, -c});
      }
      // start[s] >= T[u] when in[u][s] = 1.
      b.row(name("wait", u, s), {start[s], T[u], in}, {1, -1, -horizon}, 'G',
            -horizon);
    }
    b.row(name("duration", s), durationCols, durationCoefs, 'E', 0);
    // T[v] >= finish[s] when x[v][s] = 1.
    for (int v = 0; v < n; ++v)
      if (problem.nodes[v].supported)
        b.row(name("result", v, s), {T[v], finish[s], x[v][s]},
            {1, -1, -horizon}, 'G', -horizon);
  }
  // One accelerator's calls run one after another.
  for (int a = 0; a < k; ++a)
    for (int j = 0; j + 1 < q; ++j)
      b.row(name("sequence", a, j), {start[a * q + j + 1], finish[a * q + j]},
            {1, -1}, 'G', 0);
  // Identical accelerators, numbered by the start of their first call.
  for (int a = 0; a + 1 < k; ++a)
    b.row(name("symmetry", a), {start[(a + 1) * q], start[a * q]}, {1, -1},
          'G', 0);

  // CPU nodes: T[v] >= T[u] + cpu(v) y[v] for every input u.
  std::vector<std::vector<int>> preds = problem.predecessors();
  for (int v = 0; v < n; ++v) {
    double cpu = y[v] >= 0 ? problem.nodes[v].cpuTime : 0;
    if (y[v] >= 0 && cpu > 0)
      b.row(name("cpu", v), {T[v], y[v]}, {1, -cpu}, 'G', 0);
    for (int u : preds[v]) {
      if (y[v] >= 0 && cpu > 0)
        b.row(name("after", u, v), {T[v], T[u], y[v]}, {1, -1, -cpu}, 'G', 0);
      else
        b.row(name("after", u, v), {T[v], T[u]}, {1, -1}, 'G', 0);
    }
    if (problem.successors[v].empty())
      b.row(name("latency", v), {latency, T[v]}, {1, -1}, 'G', 0);
  }

  if (b.exportInstead(options, result))
    return result;

  std::vector<int> startColumns;
  std::vector<double> startValues;
  if (incumbent < kInfinity)
    for (int v = 0; v < n; ++v) {
      int device = startAssignment[v];
      bool onCpu = !problem.isAccelerator(device);
      for (int s = 0; s < numCalls; ++s) {
        startColumns.push_back(x[v][s]);
        startValues.push_back(!onCpu && s == device * q + startCalls[v] ? 1 : 0);
      }
      if (y[v] >= 0) {
        startColumns.push_back(y[v]);
        startValues.push_back(onCpu ? 1 : 0);
      }
    }
  // A start that meets the bound is optimal: CBC would only prove it
  // again, after a root LP that on large models outlasts short limits.
  bool proven = incumbent <= result.solution.lowerBound * (1 + 1e-9);
  if (proven)
    b.provenByBound(result.solution.lowerBound);
  else
    b.solve(options, options.getDeadline(clockStart), startColumns, startValues,
            "latency model", incumbent);

  result.status = b.status();
  const double *values = b.solution();
  if (values && result.status != "infeasible") {
    Assignment assignment(n, k);
    Calls calls(n, -1);
    for (int v = 0; v < n; ++v) {
      int best = -1;
      for (int s = 0; s < numCalls; ++s)
        if (values[x[v][s]] > 0.5)
          best = s;
      if (best >= 0) {
        assignment[v] = best / q;
        calls[v] = best % q;
      }
    }
    LatencyEvaluation evaluation = evaluateLatency(problem, assignment, calls);
    if (evaluation.feasible()) {
      assignCpuCores(problem, evaluation.finish, assignment);
      result.solution.assignment = std::move(assignment);
      result.solution.calls = std::move(calls);
      result.solution.latency = evaluation.latency;
    }
  }
  // CBC keeps the warm start as its incumbent, but its answer goes through
  // the evaluator: never hand back worse than the start.
  if (incumbent < result.solution.latency) {
    LatencyEvaluation evaluation =
        evaluateLatency(problem, startAssignment, startCalls);
    assignCpuCores(problem, evaluation.finish, startAssignment);
    result.solution.assignment = startAssignment;
    result.solution.calls = startCalls;
    result.solution.latency = incumbent;
  }
  if (result.solution.latency < kInfinity)
    result.solution.maxLoad =
        evaluate(problem, result.solution.assignment).maxLoad;
  b.finish(result, result.solution.latency, clockStart);
  if (proven)
    result.solution.note = "optimal: the warm start meets the lower bound "
                           "(CBC not run)";
  return result;
}
