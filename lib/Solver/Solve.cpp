//===- Solve.cpp - The solver library's one entry point -------------------===//
#include "placer/Solver/Solve.h"

#include "placer/Solver/Latency.h"
#include "placer/Solver/Memory.h"
#include "placer/Solver/PipelineSchedule.h"
#include "placer/Solver/Workload.h"

#include "Timing.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace placer::solver;

namespace {

struct AlgorithmName {
  Algorithm algorithm;
  const char *name;
};
constexpr AlgorithmName kAlgorithms[] = {
    {Algorithm::Auto, "auto"},
    {Algorithm::DP, "dp"},
    {Algorithm::IP, "ip"},
    {Algorithm::PipeDream, "pipedream"},
    {Algorithm::Greedy, "greedy"},
    {Algorithm::Single, "single"},
    {Algorithm::LocalSearch, "local-search"},
    {Algorithm::SplitFile, "split-file"}};

/// The problem and what the linear models (MILPs, greedy heuristics) see:
/// with activations under a memory limit, each node's memory as an
/// additive bound (Memory.h), which keeps their answers within the limit.
/// The DP measures the exact peak, and the throughput MILP counts a
/// training schedule's stash per stage itself.
struct Models {
  const Problem &exact;
  const Problem &linear;
  /// `linear` tightens the memory of `exact` (it is not the same problem).
  bool tightened;
  /// Stages may recompute or be replicated, which no integer program
  /// models: their models restrict the problem.
  bool restricted;
};

/// The DP's split improved by local search (kept as it is when the DP
/// replicates a stage, which the search does not model).
Solution improveFromDP(const Problem &problem, const SolveOptions &options) {
  auto start = std::chrono::steady_clock::now();
  DPOptions dp;
  dp.idealLimit = options.idealLimit;
  Solution split = solveIdealDP(problem, dp);
  if (!split.feasible() || !split.replication.empty())
    return split;
  // Like the MILP's, the search stops at time-limit.
  Solution improved =
      improveByLocalSearch(problem, split.assignment, /*restarts=*/200,
                           options.ip.getDeadline(start));
  // (The DP's bound holds for contiguous splits only: finish() gave the
  // general one.)
  improved.seconds = detail::secondsSince(start);
  return improved;
}

/// A throughput placement by `algorithm` without CBC: the DP, a baseline, or
/// a given split (IP and Auto stand for the DP here).
Solution solveWithoutCbc(Models models, Algorithm algorithm,
                         const SolveOptions &options, std::string &error) {
  const Problem &problem = models.exact;
  switch (algorithm) {
  case Algorithm::PipeDream:
    return solvePipeDream(problem);
  case Algorithm::Greedy:
    return solveGreedy(models.linear);
  case Algorithm::Single:
    return solveSingleDevice(problem);
  case Algorithm::LocalSearch:
    return improveFromDP(problem, options);
  case Algorithm::SplitFile: {
    Solution solution;
    solution.algorithm = "split-file";
    solution.lowerBound = lowerBound(problem);
    llvm::Expected<Assignment> read =
        readSplitFile(problem, options.splitFile);
    if (!read) {
      error = llvm::toString(read.takeError());
      return solution;
    }
    Evaluation evaluation = evaluate(problem, *read);
    if (!evaluation.feasible()) {
      error = options.splitFile +
              ": the split is infeasible: " + evaluation.violation;
      return solution;
    }
    solution.assignment = std::move(*read);
    solution.maxLoad = evaluation.maxLoad;
    return solution;
  }
  default:
    DPOptions dp;
    dp.idealLimit = options.idealLimit;
    return solveIdealDP(problem, dp);
  }
}

SolveResult solveThroughput(Models models, const SolveOptions &options) {
  const Problem &problem = models.exact;
  SolveResult result;
  Algorithm algorithm = options.getChosenAlgorithm();
  if (algorithm != Algorithm::IP) {
    result.solution = solveWithoutCbc(models, algorithm, options, result.error);
    return result;
  }
  // The DP's split is contiguous, so feasible for both MILP variants: CBC
  // starts from it, or for the non-contiguous model from what local search
  // makes of it (CBC's own heuristics rarely improve a good incumbent of
  // these models: docs/IntegerPrograms.md).
  IPOptions ip = options.ip;
  ip.deadline = ip.getDeadline(std::chrono::steady_clock::now());
  // Under a training schedule the model itself counts each stage's stash.
  bool exactModel = problem.isTraining();
  const Problem &modelled = exactModel ? models.exact : models.linear;
  DPOptions dp;
  dp.idealLimit = options.idealLimit;
  Solution start = solveIdealDP(problem, dp);
  if (!ip.contiguous && start.feasible() && start.replication.empty()) {
    // Half of what is left at most, so that CBC gets the rest.
    auto now = std::chrono::steady_clock::now();
    Solution improved =
        improveByLocalSearch(modelled, start.assignment, /*restarts=*/200,
                             now + (*ip.deadline - now) / 2);
    if (improved.feasible() && improved.maxLoad < start.maxLoad)
      start = std::move(improved);
  }
  if (start.feasible())
    ip.warmStart = &start.assignment;
  ip.memoryTightened = (models.tightened && !exactModel) || models.restricted;
  result.ip = solveThroughputIP(modelled, ip);
  result.solution = result.ip->solution;
  // The additive bound may refuse the DP's split, which the exact model
  // accepts: the answer is never worse than it (nor than local search's).
  if (start.feasible() && start.maxLoad < result.solution.maxLoad) {
    result.solution.assignment = start.assignment;
    result.solution.replication = start.replication;
    result.solution.maxLoad = start.maxLoad;
  }
  return result;
}

/// What the latency heuristic starts from beside its own packings: every
/// throughput placement we can make (the DP's split, the PipeDream-style
/// one, the best single device) and a given split, so that its answer is
/// never worse than any of them. A pipeline stage is a convex call, so the
/// splits run with one call per accelerator.
llvm::Error addLatencySeeds(const Problem &problem, const SolveOptions &options,
                            LatencyOptions &latency) {
  DPOptions dp;
  dp.idealLimit = options.idealLimit;
  // The seeds are part of the heuristic's time, the DP's a quarter of it at
  // most, so that the local search gets the rest (Inception-v3's latency
  // input, 12 accelerators and 8 cores: the throughput DP alone takes
  // minutes).
  if (latency.deadline) {
    auto now = std::chrono::steady_clock::now();
    dp.deadline = now + (*latency.deadline - now) / 4;
  }
  std::pair<const char *, Solution> baselines[] = {
      {"the throughput DP's split", solveIdealDP(problem, dp)},
      {"the PipeDream-style split", solvePipeDream(problem)},
      {"the best single device", solveSingleDevice(problem)}};
  for (auto &[name, solution] : baselines)
    if (solution.feasible() && solution.replication.empty())
      latency.seeds.emplace_back(name, std::move(solution.assignment));
  if (options.splitFile.empty())
    return llvm::Error::success();
  llvm::Expected<Assignment> given = readSplitFile(problem, options.splitFile);
  if (!given)
    return given.takeError();
  latency.seeds.emplace_back(options.splitFile, std::move(*given));
  return llvm::Error::success();
}

SolveResult solveLatency(Models models, const SolveOptions &options) {
  const Problem &problem = models.linear;
  SolveResult result;
  LatencyOptions latency;
  latency.callsPerAccelerator = options.ip.callsPerAccelerator;
  auto start = std::chrono::steady_clock::now();
  Algorithm algorithm = options.getChosenAlgorithm();
  // The heuristic (seeds included) stops at the time limit, or with the
  // MILP after half of it, so that CBC gets the rest.
  std::chrono::steady_clock::time_point deadline =
      options.ip.getDeadline(start);
  latency.deadline =
      algorithm == Algorithm::IP ? start + (deadline - start) / 2 : deadline;
  if (algorithm == Algorithm::Greedy || algorithm == Algorithm::IP)
    if (llvm::Error error = addLatencySeeds(problem, options, latency)) {
      result.error = llvm::toString(std::move(error));
      return result;
    }
  switch (algorithm) {
  case Algorithm::Greedy:
    result.solution = solveLatencyGreedy(problem, latency);
    // Its seeds are part of the heuristic, and of its time.
    result.solution.seconds = detail::secondsSince(start);
    return result;
  case Algorithm::IP: {
    // The heuristic's placement is CBC's first incumbent and fixes the
    // model's time horizon.
    IPOptions ip = options.ip;
    ip.deadline = deadline;
    ip.memoryTightened = models.tightened || models.restricted;
    Solution heuristic = solveLatencyGreedy(problem, latency);
    ip.latencyBound = heuristic.lowerBound;
    if (heuristic.latency < kInfinity) {
      ip.warmStart = &heuristic.assignment;
      ip.warmStartCalls = &heuristic.calls;
    }
    result.ip = solveLatencyIP(problem, ip);
    result.solution = result.ip->solution;
    return result;
  }
  default:
    // Throughput placements (the DP's, a split file's) scored for latency.
    result.solution = solveWithoutCbc(models, options.getChosenAlgorithm(),
                                      options, result.error);
    scoreLatency(models.exact, result.solution);
    result.solution.lowerBound =
        latencyLowerBound(models.exact, options.ip.callsPerAccelerator);
    return result;
  }
}

/// Schedules with several chunks per accelerator: the chunked MILP
/// (docs/IntegerPrograms.md, "Chunks"), from the DP's one stage per
/// accelerator under 1F1B. Identical accelerators only, throughput only.
SolveResult solveChunks(const Problem &problem, const SolveOptions &options) {
  SolveResult result;
  const char *name = getName(problem.schedule);
  // (Auto, not what it stands for: the DP cannot price chunks.)
  Algorithm algorithm = options.algorithm;
  if (options.objective != Objective::Throughput)
    result.error = std::string("schedule=") + name +
                   " prices a pipeline: objective=throughput";
  else if (algorithm != Algorithm::Auto && algorithm != Algorithm::IP)
    result.error = std::string("schedule=") + name +
                   ": the integer program chooses the chunks (algorithm=ip "
                   "or auto), not " + getName(algorithm).str();
  else if (problem.numCpus > 0 || !problem.isUniform() ||
           problem.replication || problem.recomputation)
    result.error = std::string("schedule=") + name +
                   " runs its chunks on identical accelerators: no CPU "
                   "cores, one kind, uniform links, no replication or "
                   "recomputation";
  if (!result.error.empty())
    return result;
  llvm::Expected<PipelineSchedule> layout = getChunkLayout(problem);
  if (!layout) {
    result.error = std::string("schedule=") + name + ": " +
                   llvm::toString(layout.takeError());
    return result;
  }
  Problem onePerDevice = problem;
  onePerDevice.schedule = Schedule::OneFOneB;
  DPOptions dp;
  dp.idealLimit = options.idealLimit;
  Solution start = solveIdealDP(onePerDevice, dp);
  IPOptions ip = options.ip;
  if (start.feasible())
    ip.warmStart = &start.assignment;
  std::vector<int> chunkOf;
  result.ip = solveChunkedThroughputIP(problem, *layout, ip, chunkOf);
  result.solution = result.ip->solution;
  if (result.solution.feasible())
    result.solution.chunks = std::move(chunkOf);
  return result;
}

/// The smallest memory per accelerator with which a placement exists, to
/// 0.1%; infinity when none exists at any size. The DP decides for every
/// objective and algorithm: a pipeline stage is a convex call, so where the
/// DP fits, a latency placement does too, and the heuristics fit no sooner.
/// With several kinds, every kind's memory scales alike and the answer is
/// the largest kind's.
double smallestFittingMemory(Problem problem, const SolveOptions &options) {
  double total = 0;
  for (const Node &node : problem.nodes)
    total += node.memory +
             node.outputBytes * problem.inFlight(problem.numAccelerators);
  DPOptions dp;
  dp.idealLimit = options.idealLimit;
  // Limits relative to the largest (infinite ones stay so).
  std::vector<double> shares;
  for (double limit : problem.kindMemoryLimits)
    shares.push_back(limit == kInfinity ? kInfinity
                                        : limit / problem.memoryLimit);
  auto fitsWith = [&](double largest) {
    problem.memoryLimit = largest;
    for (size_t kind = 0; kind < shares.size(); ++kind)
      problem.kindMemoryLimits[kind] = shares[kind] * largest;
    return solveIdealDP(problem, dp).feasible();
  };
  if (!(problem.memoryLimit > 0) || !fitsWith(total))
    return kInfinity;
  double low = 0, high = total;
  while (high - low > 1e-3 * high) {
    double middle = (low + high) / 2;
    (fitsWith(middle) ? high : low) = middle;
  }
  return high;
}

} // namespace

std::optional<Algorithm> placer::solver::parseAlgorithm(llvm::StringRef name) {
  for (const AlgorithmName &entry : kAlgorithms)
    if (name == entry.name)
      return entry.algorithm;
  return std::nullopt;
}

llvm::StringRef placer::solver::getName(Algorithm algorithm) {
  for (const AlgorithmName &entry : kAlgorithms)
    if (entry.algorithm == algorithm)
      return entry.name;
  return "";
}

std::string placer::solver::listAlgorithms() {
  std::string list;
  for (const AlgorithmName &entry : kAlgorithms)
    list += (list.empty() ? "" : ", ") + std::string(entry.name);
  return list;
}

Algorithm SolveOptions::getChosenAlgorithm() const {
  if (algorithm != Algorithm::Auto)
    return algorithm;
  return objective == Objective::Latency ? Algorithm::IP : Algorithm::DP;
}

std::string placer::solver::checkOptions(const SolveOptions &options) {
  if (options.ip.callsPerAccelerator < 1)
    return "calls=" + std::to_string(options.ip.callsPerAccelerator) +
           ": an accelerator makes at least one call";
  if (!(options.ip.timeLimitSeconds > 0) || options.ip.relativeGap < 0 ||
      options.ip.threads < 1 || options.ip.progressSeconds < 0 ||
      options.ip.maxNodes < 0)
    return "time-limit must be positive, gap, nodes and progress not "
           "negative, threads at least 1";
  if (!options.ip.exportPath.empty() &&
      options.getChosenAlgorithm() != Algorithm::IP)
    return "export-lp needs algorithm=ip";
  if (options.algorithm == Algorithm::SplitFile && options.splitFile.empty())
    return "algorithm=split-file needs split-in=FILE";
  Algorithm chosen = options.getChosenAlgorithm();
  bool seedsLatency = options.objective == Objective::Latency &&
                      (chosen == Algorithm::IP || chosen == Algorithm::Greedy);
  if (!options.splitFile.empty() && chosen != Algorithm::SplitFile &&
      !seedsLatency)
    return "split-in=FILE is read by algorithm=split-file, or as a starting "
           "point by objective=latency with algorithm=ip or greedy";
  return "";
}

SolveResult placer::solver::solve(const Problem &problem,
                                  const SolveOptions &options) {
  std::string error = checkOptions(options);
  if (error.empty())
    error = problem.checkDevices();
  // Before any search: a model that cannot fit is said so at once, for
  // every algorithm alike.
  if (error.empty())
    error = problem.checkCapacity();
  if (error.empty() && options.objective == Objective::Latency &&
      !problem.isUniform())
    error = "objective=latency models one accelerator kind and uniform "
            "links; this cluster has several kinds or a link hierarchy";
  if (!error.empty()) {
    SolveResult result;
    result.error = std::move(error);
    return result;
  }
  if (usesChunks(problem.schedule))
    return solveChunks(problem, options);
  bool bind = activationsBind(problem);
  std::optional<Problem> additive;
  if (bind)
    additive = withAdditiveMemory(problem);
  // (The MILP charges links faster than c(u)'s own at c(u).)
  bool fasterLinks =
      std::any_of(problem.linkFactors.begin(), problem.linkFactors.end(),
                  [](double factor) { return factor < 1; });
  bool restricted = (problem.recomputation && problem.isTraining() && bind) ||
                    (problem.replication && problem.numAccelerators > 1) ||
                    fasterLinks;
  Models models{problem, additive ? *additive : problem,
                additive.has_value(), restricted};
  SolveResult result = options.objective == Objective::Latency
                           ? solveLatency(models, options)
                           : solveThroughput(models, options);
  if (result.error.empty() && !result.exported() &&
      !result.provedInfeasible() && !result.solution.feasible() &&
      options.findSmallestMemory)
    result.smallestFittingMemory = smallestFittingMemory(problem, options);
  return result;
}
