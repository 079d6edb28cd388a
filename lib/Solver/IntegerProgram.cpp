//===- IntegerProgram.cpp - Throughput MILP solved with COIN-OR CBC -------===//
#include "placer/Solver/IntegerProgram.h"

#include "CbcModel.h"
#include "Contraction.h"
#include "TransferRows.h"

#include <chrono>

using namespace placer::solver;
using namespace placer::solver::detail;

IPResult placer::solver::solveThroughputIP(const Problem &problem,
                                           const IPOptions &options) {
  auto start = std::chrono::steady_clock::now();
  IPResult result;
  // 1F1B's warm-up depths follow the pipeline order: the model needs it.
  bool contiguous =
      options.contiguous ||
      (stashFollowsOrder(problem.schedule) && activationsBind(problem));
  result.solution.algorithm = contiguous ? "ip-contiguous" : "ip";
  result.solution.lowerBound = lowerBound(problem);

  // Groups: color classes for the plain model; for the contiguous one the
  // DP's contraction (classes, mirrored twins, merged cycles), whose edges
  // are the ones that must point forward along the pipeline.
  Contracted groups = contiguous ? contract(problem)
                                         : contract(problem, /*mergeCycles=*/false);
  int n = groups.numSuper, devices = problem.numDevices();
  int k = problem.numAccelerators;
  bool uniform = problem.isUniform();
  ModelBuilder b;

  // A group's time on each device (accelerators by their kind).
  std::vector<std::vector<double>> time(n, std::vector<double>(devices, 0));
  for (int g = 0; g < n; ++g)
    for (int d = 0; d < devices; ++d) {
      if (d >= k || uniform) {
        time[g][d] = d < k ? groups.acceleratorTime[g] : groups.cpuTime[g];
        continue;
      }
      for (int m : groups.members[g])
        time[g][d] += problem.getTime(m, problem.getKind(d));
    }

  // x[g][d]: group g on device d.
  std::vector<std::vector<int>> x(n, std::vector<int>(devices, -1));
  for (int g = 0; g < n; ++g)
    for (int d = 0; d < devices; ++d) {
      bool allowed = d < k ? groups.supported[g] && time[g][d] < kInfinity
                           : groups.cpuTime[g] < kInfinity;
      x[g][d] = b.column("x_" + std::to_string(g) + "_" + std::to_string(d), 0,
                         allowed ? 1 : 0, 0, true);
    }
  int maxLoad = b.column("maxload", 0, kInfinity, 1, false);

  // Accelerators are identical: the first group goes on accelerator 0 if on
  // any (permuting accelerators maps every solution to one that does so).
  // The contiguous model breaks the symmetry by pipeline order instead;
  // both together would not be without loss of generality.
  if (n > 0 && !contiguous && uniform)
    for (int d = 1; d < k; ++d)
      b.setColumnUpper(x[0][d], 0);

  // Every group on exactly one device.
  for (int g = 0; g < n; ++g) {
    std::vector<int> cols(x[g].begin(), x[g].end());
    b.row("assign_" + std::to_string(g), cols,
          std::vector<double>(devices, 1.0), 'E', 1);
  }

  // Communication: c(u) once per accelerator its tensor leaves or enters.
  std::vector<std::vector<std::pair<int, double>>> transfers =
      addTransferRows(b, problem, groups, x, k);

  // Links (docs/IntegerPrograms.md): t[u][e][d] >= 1 when u on accelerator
  // e feeds accelerator d over a link costing f(e, d) > 1 times c(u); d
  // pays the excess, and e its largest excess, w[u][e].
  std::vector<std::vector<std::pair<int, double>>> linkCharges(k);
  if (!problem.linkFactors.empty())
    for (int u = 0; u < problem.size(); ++u) {
      double c = problem.nodes[u].transferCost;
      int gu = groups.superOf[u];
      std::vector<int> others = getReaderGroups(problem, groups, u);
      if (c <= 0 || others.empty())
        continue;
      for (int e = 0; e < k; ++e) {
        int w = -1;
        for (int d = 0; d < k; ++d) {
          double excess = problem.getLinkFactor(e, d) - 1;
          if (d == e || excess <= 0)
            continue;
          std::string tag = std::to_string(u) + "_" + std::to_string(e) + "_" +
                            std::to_string(d);
          if (w < 0) {
            w = b.column("w_" + std::to_string(u) + "_" + std::to_string(e), 0,
                         kInfinity, 0, false);
            linkCharges[e].emplace_back(w, c);
          }
          int t = b.column("t_" + tag, 0, 1, 0, false);
          for (int gv : others)
            b.row("link_" + tag + "_" + std::to_string(gv),
                  {t, x[gu][e], x[gv][d]}, {1, -1, -1}, 'G', -1);
          b.row("slowest_" + tag, {w, t}, {1, -excess}, 'G', 0);
          linkCharges[d].emplace_back(t, c * excess);
        }
      }
    }

  // Loads and memory.
  std::vector<double> stash(n, 0);
  for (int g = 0; g < n; ++g)
    for (int m : groups.members[g])
      stash[g] += problem.nodes[m].outputBytes;
  for (int d = 0; d < devices; ++d) {
    std::vector<int> cols;
    std::vector<double> coefs;
    for (int g = 0; g < n; ++g) {
      double t = time[g][d];
      if (t > 0 && t < kInfinity) {
        cols.push_back(x[g][d]);
        coefs.push_back(t);
      }
    }
    if (d < k)
      for (auto [column, c] : transfers[d]) {
        cols.push_back(column);
        coefs.push_back(c);
      }
    if (d < k)
      for (auto [column, coefficient] : linkCharges[d]) {
        cols.push_back(column);
        coefs.push_back(coefficient);
      }
    cols.push_back(maxLoad);
    coefs.push_back(-1);
    b.row("load_" + std::to_string(d), cols, coefs, 'L', 0);
    if (d < k && problem.getMemoryLimit(d) < kInfinity) {
      // Training schedules: accelerator d, in pipeline order, is at most
      // k - d stages from the end (exactly when the empty ones come last);
      // ZB-H1 counts all k (exactly when every accelerator holds a stage).
      int inFlight = problem.isTraining() ? problem.inFlight(k - d) : 0;
      std::vector<int> memCols;
      std::vector<double> memCoefs;
      for (int g = 0; g < n; ++g) {
        double bytes = groups.memory[g] + stash[g] * inFlight;
        if (bytes > 0) {
          memCols.push_back(x[g][d]);
          memCoefs.push_back(bytes);
        }
      }
      if (!memCols.empty())
        b.row("memory_" + std::to_string(d), memCols, memCoefs, 'L',
              problem.getMemoryLimit(d));
    }
  }

  // Pipeline: device positions p[d] in [0, D - 1]; an ordering edge a -> b
  // between groups on devices d != e forces p[d] + 1 <= p[e], so the devices
  // can be ordered with every edge pointing forward.
  if (contiguous && devices > 1) {
    std::vector<int> p(devices);
    for (int d = 0; d < devices; ++d)
      p[d] = b.column("p_" + std::to_string(d), 0, devices - 1, 0, false);
    // Accelerators in pipeline order (they may stay empty): identical ones
    // without loss of generality; unlike ones as the DP and 1F1B order
    // them.
    for (int d = 0; d + 1 < k; ++d)
      b.row("symmetry_" + std::to_string(d), {p[d], p[d + 1]}, {1, -1}, 'L',
            -1);
    for (int a = 0; a < n; ++a)
      for (int bb : groups.successors[a])
        for (int d = 0; d < devices; ++d)
          for (int e = 0; e < devices; ++e) {
            if (d == e)
              continue;
            // p[d] - p[e] + D * x[a][d] + D * x[bb][e] <= 2D - 1
            b.row("order_" + std::to_string(a) + "_" + std::to_string(bb) +
                      "_" + std::to_string(d) + "_" + std::to_string(e),
                  {p[d], p[e], x[a][d], x[bb][e]},
                  {1, -1, double(devices), double(devices)}, 'L',
                  2.0 * devices - 1);
          }
  }

  if (b.exportInstead(options, result))
    return result;

  std::vector<int> startColumns;
  std::vector<double> startValues;
  double incumbent = kInfinity;
  if (options.warmStart) {
    Evaluation start = evaluate(problem, *options.warmStart);
    if (start.feasible()) {
      incumbent = start.maxLoad;
      for (int g = 0; g < n; ++g) {
        int device = (*options.warmStart)[groups.members[g].front()];
        for (int d = 0; d < devices; ++d) {
          startColumns.push_back(x[g][d]);
          startValues.push_back(d == device ? 1.0 : 0.0);
        }
      }
    }
  }
  b.solve(options, options.getDeadline(start), startColumns, startValues,
          contiguous ? "contiguous throughput model"
                             : "throughput model",
          incumbent);

  const double *solution = b.solution();
  result.status = b.status();
  if (solution && result.status != "infeasible") {
    Assignment assignment(problem.size(), -1);
    for (int g = 0; g < n; ++g) {
      int best = 0;
      for (int d = 1; d < devices; ++d)
        if (solution[x[g][d]] > solution[x[g][best]])
          best = d;
      for (int m : groups.members[g])
        assignment[m] = best;
    }
    Evaluation evaluation = evaluate(problem, assignment);
    if (evaluation.feasible()) {
      result.solution.assignment = std::move(assignment);
      result.solution.maxLoad = evaluation.maxLoad;
    }
  }
  // Never worse than the start (CBC may not have run, or kept it).
  if (incumbent < result.solution.maxLoad) {
    result.solution.assignment = *options.warmStart;
    result.solution.maxLoad = incumbent;
  }
  b.finish(result, result.solution.maxLoad, start);
  return result;
}
