//===- placement_bench.cpp - Time and memory of the placement solvers -----===//
//
//   placer-placement-bench WORKLOAD.json
//   placer-placement-bench --synthetic BRANCHES LENGTH [ACCELERATORS]
//
// Prints one line: name, nodes, ideals, DP seconds and max-load,
// PipeDream-style max-load, lower bound, peak RSS. Run each case in a fresh
// process (benchmarks/placement/run.sh does) so peak RSS is its own.
//
//===----------------------------------------------------------------------===//

#include "placer/Solver/Solvers.h"
#include "placer/Solver/Workload.h"

#include "llvm/Support/Path.h"

#include <cstdio>
#include <cstdlib>
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

int main(int argc, char **argv) {
  Problem problem;
  std::string name;
  if (argc >= 4 && std::string(argv[1]) == "--synthetic") {
    int branches = std::atoi(argv[2]), length = std::atoi(argv[3]);
    int k = argc > 4 ? std::atoi(argv[4]) : 6;
    problem = synthetic(branches, length, k);
    name = "synthetic-" + std::to_string(branches) + "x" +
           std::to_string(length);
  } else if (argc == 2) {
    llvm::Expected<Workload> workload = readWorkloadFile(argv[1]);
    if (!workload) {
      std::fprintf(stderr, "%s\n", llvm::toString(workload.takeError()).c_str());
      return 1;
    }
    problem = std::move(workload->problem);
    llvm::StringRef path(argv[1]);
    name = (llvm::sys::path::filename(llvm::sys::path::parent_path(path)) +
            "/" + llvm::sys::path::stem(path))
               .str();
  } else {
    std::fprintf(stderr, "usage: %s WORKLOAD.json | --synthetic BRANCHES "
                         "LENGTH [ACCELERATORS]\n", argv[0]);
    return 2;
  }
  Solution dp = solveIdealDP(problem);
  Solution chain = solvePipeDream(problem);
  std::printf("%-36s %6d %9lld %9.3f %14.6f %14.6f %14.6f %9.1f\n",
              name.c_str(), problem.size(),
              static_cast<long long>(dp.numIdeals), dp.seconds, dp.maxLoad,
              chain.maxLoad, dp.lowerBound, peakRssMiB());
  return dp.feasible() ? 0 : 1;
}
