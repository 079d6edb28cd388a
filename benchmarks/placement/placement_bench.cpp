//===- placement_bench.cpp - Time and memory of the placement solvers -----===//
//
//   placer-placement-bench WORKLOAD.json
//   placer-placement-bench --synthetic BRANCHES LENGTH [ACCELERATORS]
//   placer-placement-bench --solve OBJECTIVE ALGORITHM TIME_LIMIT WORKLOAD.json
//
// The first two print one line: name, nodes, ideals, DP seconds and
// max-load, PipeDream-style max-load, lower bound, peak RSS. --solve runs
// the solver library's entry point (solver::solve) as placer-opt would,
// e.g. `--solve latency ip 300 w.json`, and prints the objective, bound,
// status and seconds. Run each case in a fresh process
// (benchmarks/placement/run.sh does) so peak RSS is its own.
//
//===----------------------------------------------------------------------===//

#include "placer/Solver/Solve.h"
#include "placer/Solver/Workload.h"

#include "llvm/Support/Path.h"

#include <cstdio>
#include <cstdlib>
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

int main(int argc, char **argv) {
  Problem problem;
  std::string name;
  if (argc == 6 && std::string(argv[1]) == "--solve")
    return runSolve(argv);
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
                 "WORKLOAD.json\n",
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
