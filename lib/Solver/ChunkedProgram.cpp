//===- ChunkedProgram.cpp - Throughput MILP over a schedule's chunks ------===//
//
// Interleaved 1F1B and ZB-V run several chunks of the model on each
// accelerator, so a device's load is the sum of chunks that are not
// neighbours in the pipeline: the DP over ideals, which prices one stage at
// a time, cannot price it. The MILP chooses each colour class's chunk
// instead, with the chunks' order as the DP's: every forward edge goes to
// the same or a later chunk, so each chunk is the difference of two nested
// ideals. docs/IntegerPrograms.md, "Chunks".
//
//===----------------------------------------------------------------------===//

#include "placer/Solver/IntegerProgram.h"
#include "placer/Solver/PipelineSchedule.h"
#include "placer/Solver/Solvers.h"

#include "CbcModel.h"
#include "Contraction.h"
#include "TransferRows.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <string>

using namespace placer::solver;
using namespace placer::solver::detail;

namespace {

/// How many microbatches of each chunk the schedule holds at once, at
/// uniform times (1 each in inference).
llvm::Expected<std::vector<int>> getHeldPerChunk(const Problem &problem,
                                                 const PipelineSchedule &layout) {
  if (!problem.isTraining())
    return std::vector<int>(layout.chunks(), 1);
  llvm::Expected<PipelineRun> run = runPipelineSchedule(
      layout, PipelineTimes::uniform(layout.chunks(), {1, 1, 1}));
  if (!run)
    return run.takeError();
  return run->peakPerChunk;
}

/// The loads of `assignment` as every throughput model defines them,
/// without the memory and order checks of one stage per device.
Evaluation evaluateLoads(const Problem &problem, const Assignment &assignment) {
  Problem loads = problem;
  loads.memoryLimit = kInfinity;
  for (double &limit : loads.kindMemoryLimits)
    limit = kInfinity;
  loads.schedule = Schedule::GPipe;
  return evaluate(loads, assignment);
}

/// The least work the largest of `chunks` chunks can hold: the largest
/// group's, and an even share of all.
double getLargestChunkFloor(const Contracted &groups, int chunks) {
  double largest = 0, total = 0;
  for (int g = 0; g < groups.numSuper; ++g)
    if (groups.acceleratorTime[g] < kInfinity) {
      largest = std::max(largest, groups.acceleratorTime[g]);
      total += groups.acceleratorTime[g];
    }
  return std::max(largest, total / chunks);
}

/// Fills `b` with the chunked throughput model (solveChunkedThroughputIP):
/// the largest load plus `fill` times the largest chunk's work. Returns the
/// columns y[g][c] (group g in chunk c) a solution is read from.
std::vector<std::vector<int>>
buildChunkModel(ModelBuilder &b, const Problem &problem,
                const PipelineSchedule &layout, const Contracted &groups,
                const std::vector<int> &held, const std::vector<double> &stash,
                double fill) {
  int n = groups.numSuper, k = problem.numAccelerators,
      chunks = layout.chunks();
  // y[g][c]: group g in chunk c; x[g][d]: group g on accelerator d (the
  // sum of its chunks there).
  std::vector<std::vector<int>> y(n, std::vector<int>(chunks));
  std::vector<std::vector<int>> x(n, std::vector<int>(k));
  for (int g = 0; g < n; ++g) {
    bool allowed = groups.supported[g] && groups.acceleratorTime[g] < kInfinity;
    for (int c = 0; c < chunks; ++c)
      y[g][c] = b.column("y_" + std::to_string(g) + "_" + std::to_string(c),
                         0, allowed ? 1 : 0, 0, true);
    b.row("assign_" + std::to_string(g), y[g],
          std::vector<double>(chunks, 1.0), 'E', 1);
    for (int d = 0; d < k; ++d) {
      x[g][d] = b.column("x_" + std::to_string(g) + "_" + std::to_string(d),
                         0, 1, 0, false);
      std::vector<int> cols{x[g][d]};
      std::vector<double> coefs{1};
      for (int c = 0; c < chunks; ++c)
        if (layout.deviceOfChunk[c] == d) {
          cols.push_back(y[g][c]);
          coefs.push_back(-1);
        }
      b.row("device_" + std::to_string(g) + "_" + std::to_string(d), cols,
            coefs, 'E', 0);
    }
  }
  int maxLoad = b.column("maxload", 0, kInfinity, 1, false);

  // Pipeline order: a -> b puts b in a's chunk or a later one. With
  // z[g][c] = 1 when g sits in chunk c or an earlier one, z[b][c] <= z[a][c]
  // for every c: the groups in chunks up to c form an ideal, the DP's
  // lattice (a far tighter relaxation than comparing chunk numbers).
  std::vector<std::vector<int>> z(n, std::vector<int>(chunks - 1));
  for (int g = 0; g < n; ++g)
    for (int c = 0; c + 1 < chunks; ++c) {
      z[g][c] = b.column("z_" + std::to_string(g) + "_" + std::to_string(c),
                         0, 1, 0, false);
      std::vector<int> cols{z[g][c]};
      std::vector<double> coefs{1};
      for (int e = 0; e <= c; ++e) {
        cols.push_back(y[g][e]);
        coefs.push_back(-1);
      }
      b.row("upto_" + std::to_string(g) + "_" + std::to_string(c), cols,
            coefs, 'E', 0);
    }
  for (int a = 0; a < n; ++a)
    for (int s : groups.successors[a])
      for (int c = 0; c + 1 < chunks; ++c)
        b.row("order_" + std::to_string(a) + "_" + std::to_string(s) + "_" +
                  std::to_string(c),
              {z[s][c], z[a][c]}, {1, -1}, 'L', 0);

  // Loads: the work of the device's chunks, and c(u) once per device u's
  // tensor leaves or enters (solveThroughputIP's rows, on devices).
  std::vector<std::vector<int>> loadCols(k);
  std::vector<std::vector<double>> loadCoefs(k);
  for (int g = 0; g < n; ++g)
    for (int d = 0; d < k; ++d)
      if (groups.acceleratorTime[g] > 0) {
        loadCols[d].push_back(x[g][d]);
        loadCoefs[d].push_back(groups.acceleratorTime[g]);
      }
  std::vector<std::vector<std::pair<int, double>>> transfers =
      addTransferRows(b, problem, groups, x, k);
  for (int d = 0; d < k; ++d)
    for (auto [column, c] : transfers[d]) {
      loadCols[d].push_back(column);
      loadCoefs[d].push_back(c);
    }
  for (int d = 0; d < k; ++d) {
    loadCols[d].push_back(maxLoad);
    loadCoefs[d].push_back(-1);
    b.row("load_" + std::to_string(d), loadCols[d], loadCoefs[d], 'L', 0);
  }
  // Memory: weights once, each chunk's stash per microbatch it holds.
  if (problem.memoryLimit < kInfinity)
    for (int d = 0; d < k; ++d) {
      std::vector<int> cols;
      std::vector<double> coefs;
      for (int g = 0; g < n; ++g)
        for (int c = 0; c < chunks; ++c)
          if (layout.deviceOfChunk[c] == d) {
            double bytes = groups.memory[g] + stash[g] * held[c];
            if (bytes > 0) {
              cols.push_back(y[g][c]);
              coefs.push_back(bytes);
            }
          }
      if (!cols.empty())
        b.row("memory_" + std::to_string(d), cols, coefs, 'L',
              problem.memoryLimit);
    }

  // The fill and drain: the largest chunk's work (each chunk's below it),
  // at least getLargestChunkFloor (without it the relaxation leaves it
  // near 0, and the bound at the load's).
  int chunkMax = b.column("chunkmax", getLargestChunkFloor(groups, chunks),
                          kInfinity, fill, false);
  for (int c = 0; c < chunks; ++c) {
    std::vector<int> cols;
    std::vector<double> coefs;
    for (int g = 0; g < n; ++g)
      if (groups.acceleratorTime[g] > 0) {
        cols.push_back(y[g][c]);
        coefs.push_back(groups.acceleratorTime[g]);
      }
    cols.push_back(chunkMax);
    coefs.push_back(-1);
    b.row("chunk_" + std::to_string(c), cols, coefs, 'L', 0);
  }
  return y;
}

} // namespace

llvm::Expected<PipelineSchedule>
placer::solver::getChunkLayout(const Problem &problem) {
  return buildPipelineSchedule(getPipelineKind(problem.schedule),
                               problem.numAccelerators, problem.microbatches,
                               problem.chunksPerDevice);
}

Evaluation placer::solver::evaluateChunks(const Problem &problem,
                                          const PipelineSchedule &layout,
                                          const std::vector<int> &chunkOf) {
  Assignment assignment(problem.size(), 0);
  for (int u = 0; u < problem.size(); ++u)
    assignment[u] = layout.deviceOfChunk[chunkOf[u]];
  Evaluation evaluation = evaluateLoads(problem, assignment);
  llvm::Expected<std::vector<int>> held = getHeldPerChunk(problem, layout);
  if (!held) {
    evaluation.violation = llvm::toString(held.takeError());
    return evaluation;
  }
  // Memory as the chunks hold it (evaluateLoads counted one stage's).
  for (DeviceReport &device : evaluation.devices) {
    device.weights = device.activations = device.memory = device.cache = 0;
    device.inFlight = 0;
  }
  for (int u = 0; u < problem.size(); ++u) {
    for (int v : problem.successors[u])
      if (chunkOf[v] < chunkOf[u] && evaluation.violation.empty())
        evaluation.violation = "node '" + problem.nodes[v].name +
                               "' reads node '" + problem.nodes[u].name +
                               "' from a later chunk";
    DeviceReport &device = evaluation.devices[assignment[u]];
    device.weights += problem.nodes[u].memory;
    device.cache += problem.nodes[u].cacheBytes;
    device.activations += problem.nodes[u].outputBytes * (*held)[chunkOf[u]];
    device.inFlight = std::max(device.inFlight, (*held)[chunkOf[u]]);
  }
  for (int d = 0; d < problem.numAccelerators; ++d) {
    DeviceReport &device = evaluation.devices[d];
    device.memory = device.weights + device.activations;
    if (!problem.fitsOn(device.memory, d) && evaluation.violation.empty())
      evaluation.violation = "accelerator " + std::to_string(d) + " needs " +
                             std::to_string(device.memory) +
                             " bytes, more than it holds";
  }
  return evaluation;
}

IPResult placer::solver::solveChunkedThroughputIP(
    const Problem &problem, const PipelineSchedule &layout,
    const IPOptions &options, std::vector<int> &chunkOf) {
  auto start = std::chrono::steady_clock::now();
  IPResult result;
  result.solution.algorithm = "ip-chunks";
  result.solution.lowerBound = lowerBound(problem);
  int k = problem.numAccelerators, chunks = layout.chunks();
  if (problem.numCpus > 0 || !problem.isUniform() || layout.devices != k) {
    result.status = "infeasible";
    result.solution.note =
        "chunks of a schedule go on " + std::to_string(layout.devices) +
        " identical accelerators, not " + std::to_string(k) +
        (problem.numCpus > 0 ? " and CPU cores" : "") +
        (problem.isUniform() ? "" : " of several kinds or links");
    return result;
  }

  Contracted groups = contract(problem);
  int n = groups.numSuper;
  llvm::Expected<std::vector<int>> heldOrError =
      getHeldPerChunk(problem, layout);
  if (!heldOrError) {
    result.status = "infeasible";
    result.solution.note = llvm::toString(heldOrError.takeError());
    return result;
  }
  std::vector<int> held = std::move(*heldOrError);
  std::vector<double> stash(n, 0);
  for (int g = 0; g < n; ++g)
    for (int m : groups.members[g])
      stash[g] += problem.nodes[m].outputBytes;

  // The objective, per microbatch: the largest load plus the schedule's
  // fill and drain, getFillAndDrainChunks chunks' work over M, the largest
  // chunk standing for each. With the load alone a split that leaves
  // chunks empty ties with one that fills them (on a uniform chain the DP's
  // start is optimal) and runs 1F1B's bubble.
  double fill =
      getFillAndDrainChunks(layout.kind, k) / std::max(layout.microbatches, 1);
  result.solution.lowerBound += fill * getLargestChunkFloor(groups, chunks);
  auto pipelineTime = [&](const std::vector<int> &chunkOfGroup, double load) {
    std::vector<double> work(chunks, 0);
    for (int g = 0; g < n; ++g)
      work[chunkOfGroup[g]] += groups.acceleratorTime[g];
    return load + fill * *std::max_element(work.begin(), work.end());
  };
  ModelBuilder b;
  std::vector<std::vector<int>> y =
      buildChunkModel(b, problem, layout, groups, held, stash, fill);
  if (b.exportInstead(options, result))
    return result;
  // Starts, the better one kept: the warm start (IPOptions::warmStart), one
  // stage per accelerator in accelerator order, the DP's split, put in the
  // first chunk on each accelerator (empty chunks after); and the DP's
  // split into one stage per chunk (k·v accelerators in pipeline order),
  // the smallest largest chunk. Either may break the memory rows (held per
  // chunk differs from one stage per device's) or, for a start given from
  // outside, the order: then it is no start.
  std::vector<int> startChunks;
  double incumbent = kInfinity;
  auto consider = [&](const std::vector<int> &chunkOfGroup) {
    Assignment assignment(problem.size(), 0);
    std::vector<double> bytes(k, 0);
    for (int g = 0; g < n; ++g) {
      int chunk = chunkOfGroup[g];
      for (int m : groups.members[g])
        assignment[m] = layout.deviceOfChunk[chunk];
      bytes[layout.deviceOfChunk[chunk]] +=
          groups.memory[g] + stash[g] * held[chunk];
      for (int next : groups.successors[g])
        if (chunkOfGroup[next] < chunk)
          return;
    }
    if (!llvm::all_of(bytes, [&](double b) { return problem.fits(b); }))
      return;
    Evaluation evaluation = evaluateLoads(problem, assignment);
    if (!evaluation.feasible())
      return;
    double time = pipelineTime(chunkOfGroup, evaluation.maxLoad);
    if (time < incumbent) {
      incumbent = time;
      startChunks = chunkOfGroup;
    }
  };
  auto fromStages = [&](const Assignment &stages,
                        llvm::function_ref<int(int)> chunkOfStage) {
    if (!llvm::all_of(stages, [&](int d) { return d >= 0 && d < chunks; }))
      return;
    std::vector<int> chunkOfGroup(n);
    for (int g = 0; g < n; ++g)
      chunkOfGroup[g] = chunkOfStage(stages[groups.members[g].front()]);
    consider(chunkOfGroup);
  };
  if (options.warmStart && llvm::all_of(*options.warmStart, [&](int d) {
        return d >= 0 && d < k;
      })) {
    std::vector<int> firstOn(k, -1);
    for (int c = chunks - 1; c >= 0; --c)
      firstOn[layout.deviceOfChunk[c]] = c;
    fromStages(*options.warmStart, [&](int d) { return firstOn[d]; });
  }
  // (Uniform accelerators: no kinds or link factors to resize.)
  Problem perChunk = problem;
  perChunk.numAccelerators = chunks;
  perChunk.memoryLimit = kInfinity;
  perChunk.acceleratorKinds.clear();
  perChunk.kindMemoryLimits.clear();
  perChunk.linkFactors.clear();
  perChunk.schedule = Schedule::GPipe;
  Solution chunkDP = solveIdealDP(perChunk);
  if (chunkDP.feasible())
    fromStages(chunkDP.assignment, [](int c) { return c; });
  std::vector<int> startColumns;
  std::vector<double> startValues;
  for (int g = 0; g < n && !startChunks.empty(); ++g)
    for (int c = 0; c < chunks; ++c) {
      startColumns.push_back(y[g][c]);
      startValues.push_back(c == startChunks[g] ? 1.0 : 0.0);
    }
  b.solve(options, options.getDeadline(start), startColumns, startValues,
          "chunked throughput model", incumbent);
  // Each group's chunk as nodes' chunks and accelerators, and the loads
  // as the model defines them (evaluate() would check the memory and order
  // of one stage per device; the rows above did ours).
  Solution &solution = result.solution;
  auto take = [&](const std::vector<int> &chunkOfGroup) {
    chunkOf.assign(problem.size(), 0);
    Assignment assignment(problem.size(), 0);
    for (int g = 0; g < n; ++g)
      for (int m : groups.members[g]) {
        chunkOf[m] = chunkOfGroup[g];
        assignment[m] = layout.deviceOfChunk[chunkOfGroup[g]];
      }
    solution.maxLoad = evaluateLoads(problem, assignment).maxLoad;
    solution.pipelineTime = pipelineTime(chunkOfGroup, solution.maxLoad);
    solution.assignment = std::move(assignment);
  };
  const double *values = b.solution();
  result.status = b.status();
  if (values && result.status != "infeasible") {
    std::vector<int> chosen(n, 0);
    for (int g = 0; g < n; ++g)
      for (int c = 1; c < chunks; ++c)
        if (values[y[g][c]] > values[y[g][chosen[g]]])
          chosen[g] = c;
    take(chosen);
  }
  // Never worse than the start (CBC may not have run, or kept it).
  if (!startChunks.empty() && incumbent < solution.pipelineTime)
    take(startChunks);
  // The bound and the gap are the objective's (the load's lower bound
  // bounds it too).
  b.finish(result, solution.pipelineTime, start);
  return result;
}
