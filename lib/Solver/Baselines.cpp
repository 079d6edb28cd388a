//===- Baselines.cpp - Simple placements to compare against ---------------===//
#include "Contraction.h"
#include "Timing.h"
#include "placer/Solver/Solvers.h"

#include <chrono>

using namespace placer::solver;
using namespace placer::solver::detail;

namespace {

Solution finish(const Problem &problem, Assignment assignment,
                const char *algorithm,
                std::chrono::steady_clock::time_point start) {
  Solution solution;
  solution.algorithm = algorithm;
  solution.lowerBound = lowerBound(problem);
  Evaluation evaluation = evaluate(problem, assignment);
  if (evaluation.feasible()) {
    solution.assignment = std::move(assignment);
    solution.maxLoad = evaluation.maxLoad;
  } else {
    solution.note = evaluation.violation;
  }
  solution.seconds = secondsSince(start);
  return solution;
}

} // namespace

Solution placer::solver::solveGreedy(const Problem &problem) {
  auto start = std::chrono::steady_clock::now();
  Contracted graph = contract(problem);
  Assignment assignment(problem.size(), -1);
  // Walk super-nodes in topological order; close an accelerator once it
  // holds an even share of the accelerator work or memory runs out.
  // Unsupported super-nodes go to the CPU cores, round robin.
  double total = 0;
  for (int s = 0; s < graph.numSuper; ++s)
    if (graph.supported[s])
      total += graph.acceleratorTime[s];
  double share = total / std::max(1, problem.numAccelerators);
  int device = 0, nextCpu = 0;
  double load = 0, memory = 0;
  for (int s = 0; s < graph.numSuper; ++s) {
    int target;
    if (!graph.supported[s] || problem.numAccelerators == 0) {
      if (problem.numCpus == 0)
        return finish(problem, assignment, "greedy", start);
      target = problem.numAccelerators + (nextCpu++ % problem.numCpus);
    } else {
      bool full = load > 0 && (load + graph.acceleratorTime[s] / 2 > share ||
                               memory + graph.memory[s] > problem.memoryLimit);
      if (full && device + 1 < problem.numAccelerators) {
        ++device;
        load = memory = 0;
      }
      target = device;
      load += graph.acceleratorTime[s];
      memory += graph.memory[s];
    }
    for (int m : graph.members[s])
      assignment[m] = target;
  }
  return finish(problem, std::move(assignment), "greedy", start);
}

Solution placer::solver::solveSingleDevice(const Problem &problem) {
  auto start = std::chrono::steady_clock::now();
  if (problem.numAccelerators > 0) {
    // The best of the first accelerator of each kind.
    Solution onAccelerator;
    for (int d = 0; d < problem.numAccelerators; ++d) {
      bool tried = false;
      for (int e = 0; e < d; ++e)
        tried |= problem.getKind(e) == problem.getKind(d);
      if (tried)
        continue;
      Solution candidate =
          finish(problem, Assignment(problem.size(), d), "single", start);
      if (d == 0 || candidate.maxLoad < onAccelerator.maxLoad)
        onAccelerator = std::move(candidate);
    }
    if (onAccelerator.feasible() || problem.numCpus == 0)
      return onAccelerator;
  }
  return finish(problem, Assignment(problem.size(), problem.numAccelerators),
                "single", start);
}
