//===- placement_bench.cpp - Time and memory of the placement solvers -----===//
//
//   placer-placement-bench WORKLOAD.json
//   placer-placement-bench --synthetic BRANCHES LENGTH [ACCELERATORS]
//   placer-placement-bench --solve OBJECTIVE ALGORITHM TIME_LIMIT WORKLOAD.json
//   placer-placement-bench --generate SHAPE NODES ACCELERATORS [SEED [LIMIT]]
//   placer-placement-bench --parallel PIPER.json DEVICES MEMORY_GIB
//                          MICROBATCHES BANDWIDTH_GIB [TRANSFORMERS [PLAN]]
//   placer-placement-bench --piper-plan PIPER.json DEVICES MEMORY_GIB
//                          MICROBATCHES BANDWIDTH_GIB PIPER_PLAN.json
//   placer-placement-bench --degree-one WORKLOAD.json
//   placer-placement-bench --schedules
//   placer-placement-bench --chunks KIND V TIME_LIMIT WORKLOAD.json
//
// The first two print one line: name, nodes, ideals, DP seconds and
// max-load, PipeDream-style max-load, lower bound, peak RSS. --solve runs
// the solver library's entry point (solver::solve) as placer-opt would,
// e.g. `--solve latency ip 300 w.json`, and prints the objective, bound,
// status and seconds. --generate builds a large seeded graph of about NODES
// operators (SHAPE: skip, branches2, branches3, branches4, transformer; see
// generate()) and prints nodes, ideals, DP seconds, max load, lower bound,
// gap, status (optimal: proven; refined: past the ideal limit, LIMIT, a
// refined PipeDream-style split) and peak RSS. Run each case in a fresh process
// (benchmarks/placement/run.sh does) so peak RSS is its own. --parallel
// plans Piper's input (solver::planParallel) with its top-level numbers
// replaced (GiB = 2^30 bytes, as Piper's experiments use), after repeating
// its ParallelTransformerLayer up to TRANSFORMERS layers, and prints
// layers, devices, time per sample, the same re-scored independently,
// devices used, stages, ideals, pairs, candidates, passes, seconds and peak
// RSS; PLAN gets the plan as JSON (PLACER_PAIR_LIMIT=N in the environment
// raises the planner's pair limit). --piper-plan scores the plan Piper's
// planner wrote (benchmarks/placement/piper_driver.cpp) and, stage by
// stage, compares its configuration choice with the exact one for the same
// layers, degrees and y: one line per stage whose choice is slower.
// --chunks splits a seed-paper workload without its CPU cores by the DP
// and by the chunked MILP (solver::solveChunkedThroughputIP) into the chunks
// of KIND (interleaved, V per accelerator; zb-v), k microbatches on k
// accelerators, and prints name, nodes, accelerators, chunks, the DP's max
// load, its time per microbatch with KIND's fill and drain (its stages as
// the first chunks: the MILP's start) and seconds, the MILP's max load,
// time per microbatch (its objective), bound, status and seconds, and peak
// RSS. --degree-one solves a seed-paper workload without its CPU cores by the
// DP and by the three-dimensional planner at t = 1 and prints name, nodes,
// accelerators, the DP's max load, seconds and ideals, the planner's time
// per sample, seconds, ideals and pairs, and peak RSS. --schedules runs
// every pipeline schedule (solver::buildPipelineSchedule) on p in {2, 4, 8}
// stages and m in {4, 8, 16} microbatches, a stage taking F = B = W = 1 s
// (B + W together where the backward is not split; a chunk of an
// interleaved or ZB-V stage its share), and prints each one's bubble (idle
// over busy) and the most microbatches of a stage one device holds.
//
//===----------------------------------------------------------------------===//

#include "placer/Solver/ParallelPlan.h"
#include "placer/Solver/PipelineSchedule.h"
#include "placer/Solver/Solve.h"
#include "placer/Solver/Workload.h"
#include "placer/Support/Json.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <sys/resource.h>

using namespace placer::solver;

/// A fork-join graph: `branches` parallel chains of `length` operators
/// between a source and a sink, like the towers of an Inception block. It
/// has (length + 1)^branches + 2 ideals. Times, memory and transfer costs
/// are pseudo-random but fixed.
static Problem synthetic(int branches, int length, int accelerators) {
  std::mt19937 rng(2020);
  std::uniform_real_distribution<double> time(1.0, 10.0), cost(0.01, 0.5);
  Problem p;
  p.numAccelerators = accelerators;
  p.numCpus = 1;
  p.memoryLimit = 1e12;
  auto add = [&](std::string name) {
    Node node;
    node.name = std::move(name);
    node.id = p.size();
    node.acceleratorTime = time(rng);
    node.cpuTime = 10 * node.acceleratorTime;
    node.memory = 1e6;
    node.transferCost = cost(rng);
    p.nodes.push_back(node);
    p.successors.emplace_back();
    return p.size() - 1;
  };
  int source = add("source");
  std::vector<int> lasts;
  for (int b = 0; b < branches; ++b) {
    int prev = source;
    for (int i = 0; i < length; ++i) {
      int v = add("b" + std::to_string(b) + "_" + std::to_string(i));
      p.addEdge(prev, v);
      prev = v;
    }
    lasts.push_back(prev);
  }
  int sink = add("sink");
  for (int last : lasts)
    p.addEdge(last, sink);
  return p;
}

/// Builds a generated graph node by node; times, weights and transfer
/// costs are drawn from one seeded stream.
class Generator {
public:
  explicit Generator(unsigned seed) : rng(seed) {}

  /// A node taking `inputs`, `scale` times the usual work.
  int add(std::initializer_list<int> inputs, double scale = 1.0) {
    std::uniform_real_distribution<double> time(1.0, 10.0), cost(0.05, 1.0),
        weights(0.0, 4.0);
    Node node;
    node.id = problem.size();
    node.name = "n" + std::to_string(node.id);
    node.acceleratorTime = scale * time(rng);
    node.cpuTime = 10 * node.acceleratorTime;
    node.memory = std::round(scale * weights(rng)) * 1e6;
    node.transferCost = cost(rng);
    problem.nodes.push_back(node);
    problem.successors.emplace_back();
    for (int input : inputs)
      problem.addEdge(input, node.id);
    return node.id;
  }

  void edge(int from, int to) { problem.addEdge(from, to); }

  /// A chain of `length` nodes after `from`; its last node.
  int chain(int from, int length) {
    for (int i = 0; i < length; ++i)
      from = add({from});
    return from;
  }

  int uniform(int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(rng);
  }

  Problem take(int accelerators) {
    problem.numAccelerators = accelerators;
    problem.numCpus = 0;
    // Room for twice an even share of the weights: memory rarely binds.
    double total = 0;
    for (const Node &node : problem.nodes)
      total += node.memory;
    problem.memoryLimit = std::max(2 * total / accelerators, 1e9);
    return std::move(problem);
  }

  int size() const { return problem.size(); }

private:
  std::mt19937 rng;
  Problem problem;
};

/// About `nodes` operators in one of the shapes of issue #16:
///  - skip: blocks of three ops whose output is added to the block's input
///    (a residual network);
///  - branchesB: blocks of B parallel chains of 2 to 10 ops between a fork
///    and a join (Inception-like towers), about blocks x 6^B ideals;
///  - transformer: pre-norm decoder blocks: layer norm, Q/K/V projections
///    in parallel, scores, softmax, context, output projection, residual,
///    layer norm, two-layer MLP, residual (14 ops).
static std::optional<Problem> generate(const std::string &shape, int nodes,
                                       int accelerators, unsigned seed) {
  Generator g(seed);
  int last = g.add({});
  if (shape == "skip") {
    while (g.size() < nodes) {
      int body = g.chain(last, 3);
      last = g.add({body, last}, 0.1);
    }
  } else if (shape.rfind("branches", 0) == 0 && shape.size() == 9 &&
             shape[8] >= '2' && shape[8] <= '4') {
    int branches = shape[8] - '0';
    while (g.size() < nodes) {
      std::vector<int> ends;
      for (int b = 0; b < branches; ++b)
        ends.push_back(g.chain(last, g.uniform(2, 10)));
      last = g.add({}, 0.1);
      for (int end : ends)
        g.edge(end, last);
    }
  } else if (shape == "transformer") {
    while (g.size() < nodes) {
      int norm = g.add({last}, 0.2);
      int q = g.add({norm}), k = g.add({norm}), v = g.add({norm});
      int scores = g.add({q, k}, 0.5);
      int softmax = g.add({scores}, 0.3);
      int context = g.add({softmax, v}, 0.5);
      int projected = g.add({context});
      int residual = g.add({projected, last}, 0.1);
      int norm2 = g.add({residual}, 0.2);
      int up = g.add({norm2}, 4);
      int gelu = g.add({up}, 0.5);
      int down = g.add({gelu}, 4);
      last = g.add({down, residual}, 0.1);
    }
  } else {
    return std::nullopt;
  }
  return g.take(accelerators);
}

static double peakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

/// The workload at `path` and its short name ("LayerGraphs/x"), or exit.
static Problem readWorkload(const char *path, std::string &name) {
  llvm::Expected<Workload> workload = readWorkloadFile(path);
  if (!workload) {
    std::fprintf(stderr, "%s\n", llvm::toString(workload.takeError()).c_str());
    std::exit(1);
  }
  llvm::StringRef file(path);
  name = (llvm::sys::path::filename(llvm::sys::path::parent_path(file)) + "/" +
          llvm::sys::path::stem(file))
             .str();
  return std::move(workload->problem);
}

/// --solve OBJECTIVE ALGORITHM TIME_LIMIT WORKLOAD.json
static int runSolve(char **argv) {
  SolveOptions options;
  std::optional<Objective> objective = parseObjective(argv[2]);
  std::optional<Algorithm> algorithm = parseAlgorithm(argv[3]);
  if (!objective || !algorithm) {
    std::fprintf(stderr, "unknown objective or algorithm (%s)\n",
                 listAlgorithms().c_str());
    return 2;
  }
  options.objective = *objective;
  options.algorithm = *algorithm;
  options.ip.timeLimitSeconds = std::atof(argv[4]);
  options.ip.progressSeconds = 0;
  std::string name;
  Problem problem = readWorkload(argv[5], name);
  SolveResult result = solve(problem, options);
  if (!result.error.empty()) {
    std::fprintf(stderr, "%s\n", result.error.c_str());
    return 1;
  }
  const Solution &s = result.solution;
  double value = *objective == Objective::Latency ? s.latency : s.maxLoad;
  std::printf("%-36s %6d %-10s %-10s %14.6f %14.6f %-12s %9.3f %9.1f\n",
              name.c_str(), problem.size(), argv[2], s.algorithm.c_str(),
              value, result.ip ? result.ip->bestBound : s.lowerBound,
              result.ip ? result.ip->status.c_str() : "-", s.seconds,
              peakRssMiB());
  return s.feasible() ? 0 : 1;
}

/// --generate SHAPE NODES ACCELERATORS [SEED]
static int runGenerated(int argc, char **argv) {
  std::string shape = argv[2];
  int nodes = std::atoi(argv[3]), accelerators = std::atoi(argv[4]);
  unsigned seed = argc > 5 ? std::atoi(argv[5]) : 16;
  SolveOptions options;
  if (argc > 6)
    options.idealLimit = std::atoll(argv[6]);
  std::optional<Problem> problem =
      nodes > 0 && accelerators > 0 ? generate(shape, nodes, accelerators, seed)
                                    : std::nullopt;
  if (!problem) {
    std::fprintf(stderr,
                 "unknown shape '%s' (skip, branches2, branches3, "
                 "branches4, transformer) or bad sizes\n",
                 shape.c_str());
    return 2;
  }
  options.algorithm = Algorithm::DP;
  Solution dp = solve(*problem, options).solution;
  double gap = dp.lowerBound > 0 ? dp.maxLoad / dp.lowerBound - 1 : 0;
  std::printf("%-12s %6d %3d %9lld %9.3f %14.6f %14.6f %8.4f%% %-9s %9.1f\n",
              shape.c_str(), problem->size(), accelerators,
              static_cast<long long>(dp.numIdeals), dp.seconds, dp.maxLoad,
              dp.lowerBound, 100 * gap,
              dp.optimal     ? "optimal"
              : dp.coarsened ? "refined"
                             : "-",
              peakRssMiB());
  return dp.feasible() ? 0 : 1;
}

/// Piper's top-level numbers replaced as on the command line (GiB = 2^30).
static bool overrideParallel(ParallelProblem &problem, char **argv) {
  constexpr double kGiB = double(1 << 30);
  problem.maxDevices = std::atoi(argv[3]);
  problem.memoryPerDevice = std::atof(argv[4]) * kGiB;
  problem.microbatches = std::atoi(argv[5]);
  problem.bandwidth = std::atof(argv[6]) * kGiB;
  return problem.maxDevices >= 1 && problem.memoryPerDevice > 0 &&
         problem.microbatches >= 1 && problem.bandwidth > 0;
}

/// --piper-plan PIPER.json DEVICES MEMORY_GIB MICROBATCHES BANDWIDTH_GIB
///              PIPER_PLAN.json
static int runPiperPlan(char **argv) {
  llvm::Expected<ParallelProblem> problem = readPiperWorkloadFile(argv[2]);
  llvm::Expected<llvm::json::Value> json =
      problem ? placer::readJsonFile(argv[7])
              : llvm::Expected<llvm::json::Value>(problem.takeError());
  if (!json) {
    std::fprintf(stderr, "%s\n", llvm::toString(json.takeError()).c_str());
    return 1;
  }
  if (!overrideParallel(*problem, argv))
    return 2;
  std::map<int64_t, int> indexOfId;
  for (auto [i, layer] : llvm::enumerate(problem->layers))
    indexOfId[layer.id] = static_cast<int>(i);
  ParallelPlan plan;
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *stages = root ? root->getArray("stages") : nullptr;
  if (!stages) {
    std::fprintf(stderr, "%s: no stages\n", argv[7]);
    return 1;
  }
  for (const llvm::json::Value &entry : *stages) {
    const llvm::json::Object *stage = entry.getAsObject();
    ParallelStage out;
    out.tensorDegree =
        static_cast<int>(stage->getInteger("tensorParallelDegree").value_or(0));
    out.dataDegree =
        static_cast<int>(stage->getInteger("dataParallelDegree").value_or(0));
    std::map<int, std::string> chosen;
    for (const llvm::json::Value &pair : *stage->getArray("TMPCids")) {
      const llvm::json::Array &p = *pair.getAsArray();
      chosen[indexOfId.at(*p[0].getAsInteger())] = p[1].getAsString()->str();
    }
    for (auto &[v, id] : chosen) {
      const std::vector<TensorConfig> &configs =
          problem->layers[v].configs.at(out.tensorDegree);
      out.layers.push_back(v);
      out.configs.push_back(static_cast<int>(
          llvm::find_if(configs,
                        [&](const TensorConfig &c) { return c.id == id; }) -
          configs.begin()));
    }
    plan.stages.push_back(std::move(out));
  }
  llvm::Expected<double> score = scoreParallelPlan(*problem, plan);
  if (!score) {
    std::fprintf(stderr, "%s\n", llvm::toString(score.takeError()).c_str());
    return 1;
  }
  std::printf("piper's plan: %.9g s per sample, %zu stages\n", *score,
              plan.stages.size());
  int later = 0;
  for (const ParallelStage &stage : plan.stages)
    later += stage.dataDegree;
  for (auto [i, stage] : llvm::enumerate(plan.stages)) {
    int y = (later + stage.dataDegree - 1) / stage.dataDegree;
    later -= stage.dataDegree;
    llvm::Expected<ParallelStage> best = bestStageChoice(
        *problem, stage.layers, stage.tensorDegree, stage.dataDegree, y);
    if (!best) {
      llvm::consumeError(best.takeError());
      continue;
    }
    if (best->time < stage.time * (1 - 1e-12)) {
      std::string layers;
      for (auto [k, v] : llvm::enumerate(stage.layers))
        if (best->configs[k] != stage.configs[k])
          layers += " " + problem->layers[v].name + "(" +
                    std::to_string(problem->layers[v].id) + ")";
      std::printf("stage %zu (t=%d, d=%d, y=%d): piper's choice %.9g s, "
                  "exact %.9g s; differs at%s\n",
                  i, stage.tensorDegree, stage.dataDegree, y, stage.time,
                  best->time, layers.c_str());
    }
  }
  return 0;
}

/// --parallel PIPER.json DEVICES MEMORY_GIB MICROBATCHES BANDWIDTH_GIB
///            [TRANSFORMERS [PLAN]]
static int runParallel(int argc, char **argv) {
  llvm::Expected<ParallelProblem> problem = readPiperWorkloadFile(argv[2]);
  if (!problem) {
    std::fprintf(stderr, "%s\n", llvm::toString(problem.takeError()).c_str());
    return 1;
  }
  if (!overrideParallel(*problem, argv)) {
    std::fprintf(stderr, "devices, memory, microbatches and bandwidth must "
                         "be positive\n");
    return 2;
  }
  int transformers = argc > 7 ? std::atoi(argv[7]) : 0;
  auto countNamed = [&] {
    return llvm::count_if(problem->layers, [](const ParallelLayer &layer) {
      return layer.name == "ParallelTransformerLayer";
    });
  };
  while (countNamed() < transformers)
    if (llvm::Error error = repeatLayer(*problem, "ParallelTransformerLayer")) {
      std::fprintf(stderr, "%s\n", llvm::toString(std::move(error)).c_str());
      return 1;
    }
  // PLACER_PAIR_LIMIT raises the planner's limit on candidate stages (each
  // costs memory; Piper's GNMT input needs about 14 million).
  ParallelPlanOptions planOptions;
  if (const char *limit = std::getenv("PLACER_PAIR_LIMIT"))
    planOptions.pairLimit = std::atoll(limit);
  llvm::Expected<ParallelPlan> plan = planParallel(*problem, planOptions);
  if (!plan) {
    std::fprintf(stderr, "%s\n", llvm::toString(plan.takeError()).c_str());
    return 1;
  }
  llvm::Expected<double> score = scoreParallelPlan(*problem, *plan);
  if (!score) {
    std::fprintf(stderr, "%s\n", llvm::toString(score.takeError()).c_str());
    return 1;
  }
  if (argc > 8) {
    std::error_code ec;
    llvm::raw_fd_ostream os(argv[8], ec);
    if (ec) {
      std::fprintf(stderr, "%s: %s\n", argv[8], ec.message().c_str());
      return 1;
    }
    os << llvm::formatv("{0:2}", parallelPlanToJson(*problem, *plan)) << "\n";
  }
  std::printf(
      "%4d %5d %.9g %.9g %5d %3zu %6lld %8lld %9lld %3lld %9.3f "
      "%9.1f\n",
      problem->size(), problem->maxDevices, plan->timePerSample, *score,
      plan->devicesUsed, plan->stages.size(),
      static_cast<long long>(plan->ideals), static_cast<long long>(plan->pairs),
      static_cast<long long>(plan->candidates),
      static_cast<long long>(plan->passes), plan->seconds, peakRssMiB());
  return 0;
}

/// --degree-one WORKLOAD.json: the seed paper's workload on its
/// accelerators alone (no CPU core), by the contiguous-split DP and by the
/// three-dimensional planner at t = 1 (parallelProblemOf).
static int runDegreeOne(char **argv) {
  std::string name;
  Problem problem = readWorkload(argv[2], name);
  problem.numCpus = 0;
  Solution dp = solveIdealDP(problem);
  std::vector<int> layerOf;
  llvm::Expected<ParallelProblem> parallel =
      parallelProblemOf(problem, layerOf);
  if (!parallel) {
    std::fprintf(stderr, "%s\n", llvm::toString(parallel.takeError()).c_str());
    return 1;
  }
  ParallelPlanOptions options;
  options.pairLimit = 20000000;
  llvm::Expected<ParallelPlan> plan = planParallel(*parallel, options);
  // Past the ideal limit: with zero-time leaves kept by their producers,
  // as the DP first solves it (it then certifies that).
  if (!plan) {
    llvm::consumeError(plan.takeError());
    parallel =
        parallelProblemOf(problem, layerOf, /*mergeWeightedLeaves=*/true);
    plan = parallel ? planParallel(*parallel, options)
                    : llvm::Expected<ParallelPlan>(parallel.takeError());
  }
  if (!plan) {
    std::fprintf(stderr, "%s\n", llvm::toString(plan.takeError()).c_str());
    return 1;
  }
  std::printf("%-36s %6d %3d %14.9f %9.3f %6lld %14.9f %9.3f %6lld %9lld "
              "%9.1f\n",
              name.c_str(), problem.size(), problem.numAccelerators, dp.maxLoad,
              dp.seconds, static_cast<long long>(dp.numIdeals),
              plan->timePerSample, plan->seconds,
              static_cast<long long>(plan->ideals),
              static_cast<long long>(plan->pairs), peakRssMiB());
  return 0;
}

/// --chunks KIND V TIME_LIMIT WORKLOAD.json: the workload without its CPU
/// cores, split by the DP (one stage per accelerator) and by the chunked
/// MILP into the chunks of schedule KIND (interleaved with V chunks per
/// accelerator, or zb-v), microbatches a multiple of the accelerators.
static int runChunks(char **argv) {
  std::optional<PipelineKind> kind = parsePipelineKind(argv[2]);
  if (!kind || (*kind != PipelineKind::Interleaved &&
                *kind != PipelineKind::ZeroBubbleV)) {
    std::fprintf(stderr, "--chunks: KIND is interleaved or zb-v\n");
    return 2;
  }
  std::string name;
  Problem problem = readWorkload(argv[5], name);
  problem.numCpus = 0;
  Solution dp = solveIdealDP(problem);
  llvm::Expected<PipelineSchedule> layout = buildPipelineSchedule(
      *kind, problem.numAccelerators, problem.numAccelerators,
      std::atoi(argv[3]));
  if (!layout) {
    std::fprintf(stderr, "%s\n", llvm::toString(layout.takeError()).c_str());
    return 1;
  }
  IPOptions options;
  options.timeLimitSeconds = std::atof(argv[4]);
  options.progressSeconds = 0;
  options.warmStart = &dp.assignment; // one stage per accelerator
  std::vector<int> chunkOf;
  IPResult chunked =
      solveChunkedThroughputIP(problem, *layout, options, chunkOf);
  // The DP's split priced as the MILP prices its start.
  Evaluation stages = evaluate(problem, dp.assignment);
  double largest = 0;
  for (const DeviceReport &device : stages.devices)
    largest = std::max(largest, device.compute);
  double dpTime = dp.maxLoad + getFillAndDrainChunks(*kind, layout->devices) /
                                   layout->microbatches * largest;
  std::printf("%-36s %6d %3d %3d %14.6f %14.6f %9.3f %14.6f %14.6f %14.6f "
              "%-10s %9.3f %9.1f\n",
              name.c_str(), problem.size(), problem.numAccelerators,
              layout->chunks(), dp.maxLoad, dpTime, dp.seconds,
              chunked.solution.maxLoad, chunked.solution.pipelineTime,
              chunked.bestBound, chunked.status.c_str(),
              chunked.solution.seconds, peakRssMiB());
  return 0;
}

/// --schedules: the pipeline schedules' bubbles and memory at uniform
/// times.
static int runSchedules() {
  std::printf("%2s %3s %-12s %9s %9s %6s\n", "p", "m", "schedule", "bubble",
              "formula", "held");
  for (int p : {2, 4, 8})
    for (int m : {4, 8, 16})
      for (PipelineKind kind :
           {PipelineKind::GPipe, PipelineKind::OneFOneB,
            PipelineKind::Interleaved, PipelineKind::ZeroBubbleH1,
            PipelineKind::ZeroBubbleV}) {
        llvm::Expected<PipelineSchedule> schedule =
            buildPipelineSchedule(kind, p, m);
        if (!schedule) {
          llvm::consumeError(schedule.takeError()); // m not a multiple of p
          continue;
        }
        double share = 1.0 / schedule->chunksPerDevice;
        llvm::Expected<PipelineRun> run = runPipelineSchedule(
            *schedule,
            PipelineTimes::uniform(schedule->chunks(), {share, share, share}));
        if (!run) {
          std::fprintf(stderr, "%s\n", llvm::toString(run.takeError()).c_str());
          return 1;
        }
        // The papers' figures at F = B = W (m >= p for the zero-bubble
        // ones); ZB-V's is this order's on the shapes the tests run.
        double formula =
            kind == PipelineKind::Interleaved    ? (p - 1.0) / (2 * m)
            : kind == PipelineKind::ZeroBubbleH1 ? (p - 1.0) / (3 * m)
            : kind == PipelineKind::ZeroBubbleV  ? (p - 1.0) / (6 * m)
                                                 : (p - 1.0) / m;
        int held = *std::max_element(run->peakInFlight.begin(),
                                     run->peakInFlight.end());
        std::printf("%2d %3d %-12s %9.5f %9.5f %6.2f\n", p, m, getName(kind),
                    run->bubbleRatio(), formula,
                    static_cast<double>(held) / schedule->chunksPerDevice);
      }
  return 0;
}

int main(int argc, char **argv) {
  Problem problem;
  if (argc == 2 && std::string(argv[1]) == "--schedules")
    return runSchedules();
  std::string name;
  if (argc == 6 && std::string(argv[1]) == "--solve")
    return runSolve(argv);
  if (argc == 3 && std::string(argv[1]) == "--degree-one")
    return runDegreeOne(argv);
  if (argc == 6 && std::string(argv[1]) == "--chunks")
    return runChunks(argv);
  if (argc == 8 && std::string(argv[1]) == "--piper-plan")
    return runPiperPlan(argv);
  if (argc >= 7 && argc <= 9 && std::string(argv[1]) == "--parallel")
    return runParallel(argc, argv);
  if (argc >= 5 && argc <= 7 && std::string(argv[1]) == "--generate")
    return runGenerated(argc, argv);
  if (argc >= 4 && std::string(argv[1]) == "--synthetic") {
    int branches = std::atoi(argv[2]), length = std::atoi(argv[3]);
    int k = argc > 4 ? std::atoi(argv[4]) : 6;
    problem = synthetic(branches, length, k);
    name = "synthetic-" + std::to_string(branches) + "x" +
           std::to_string(length);
  } else if (argc == 2) {
    problem = readWorkload(argv[1], name);
  } else {
    std::fprintf(stderr,
                 "usage: %s WORKLOAD.json | --synthetic BRANCHES LENGTH "
                 "[ACCELERATORS] | --solve OBJECTIVE ALGORITHM TIME_LIMIT "
                 "WORKLOAD.json | --generate SHAPE NODES ACCELERATORS "
                 "[SEED [IDEAL_LIMIT]]\n",
                 argv[0]);
    return 2;
  }
  SolveOptions dpOptions, pipeDreamOptions;
  dpOptions.algorithm = Algorithm::DP;
  pipeDreamOptions.algorithm = Algorithm::PipeDream;
  Solution dp = solve(problem, dpOptions).solution;
  Solution chain = solve(problem, pipeDreamOptions).solution;
  std::printf("%-36s %6d %9lld %9.3f %14.6f %14.6f %14.6f %9.1f\n",
              name.c_str(), problem.size(),
              static_cast<long long>(dp.numIdeals), dp.seconds, dp.maxLoad,
              chain.maxLoad, dp.lowerBound, peakRssMiB());
  return dp.feasible() ? 0 : 1;
}
