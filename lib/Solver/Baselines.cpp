//===- Baselines.cpp - Simple placements to compare against ---------------===//
#include "Contraction.h"
#include "Timing.h"
#include "placer/Solver/Solvers.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <random>

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

namespace {

/// The loads of every device, from the largest: the order local search
/// lowers them in.
std::vector<double> sortedLoads(const Evaluation &evaluation) {
  std::vector<double> loads;
  for (const DeviceReport &device : evaluation.devices)
    loads.push_back(device.load);
  std::sort(loads.begin(), loads.end(), std::greater<double>());
  return loads;
}

/// Whether `a` is lower than `b` by more than rounding: the first load
/// that differs decides.
bool lowerLoads(const std::vector<double> &a, const std::vector<double> &b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    double tolerance = 1e-12 * std::max(std::abs(a[i]), std::abs(b[i]));
    if (a[i] < b[i] - tolerance)
      return true;
    if (a[i] > b[i] + tolerance)
      return false;
  }
  return false;
}

/// Classes up to which descent also tries swapping every pair.
constexpr int kMaxSwapClasses = 128;

/// Moves classes of `assignment` until no single move lowers `loads`
/// (sorted, from the largest): each pass tries every class on every other
/// device and keeps the best move. False when `deadline` passed.
bool descend(const Problem &problem, const Contracted &classes,
             Assignment &assignment, std::vector<double> &loads, int maxPasses,
             std::chrono::steady_clock::time_point deadline) {
  int devices = problem.numDevices();
  auto place = [&](int c, int d) {
    for (int m : classes.members[c])
      assignment[m] = d;
  };
  auto deviceOf = [&](int c) { return assignment[classes.members[c].front()]; };
  for (int pass = 0; pass < maxPasses; ++pass) {
    bool moved = false;
    for (int g = 0; g < classes.numSuper; ++g) {
      if (std::chrono::steady_clock::now() >= deadline)
        return false;
      int home = deviceOf(g), best = home;
      std::vector<double> bestLoads = loads;
      for (int d = 0; d < devices; ++d) {
        if (d == home)
          continue;
        place(g, d);
        Evaluation candidate = evaluate(problem, assignment);
        if (candidate.feasible()) {
          std::vector<double> candidateLoads = sortedLoads(candidate);
          if (lowerLoads(candidateLoads, bestLoads)) {
            best = d;
            bestLoads = std::move(candidateLoads);
          }
        }
      }
      place(g, best);
      if (best != home) {
        loads = std::move(bestLoads);
        moved = true;
      }
    }
    // Then swaps of two classes on different devices, which single moves
    // cannot make when each direction alone overloads a device (on small
    // graphs only: a pass tries every pair).
    if (!moved && classes.numSuper <= kMaxSwapClasses)
      for (int g = 0; g < classes.numSuper; ++g)
        for (int h = g + 1; h < classes.numSuper; ++h) {
          if (std::chrono::steady_clock::now() >= deadline)
            return false;
          int dg = deviceOf(g), dh = deviceOf(h);
          if (dg == dh)
            continue;
          place(g, dh);
          place(h, dg);
          Evaluation candidate = evaluate(problem, assignment);
          if (candidate.feasible()) {
            std::vector<double> candidateLoads = sortedLoads(candidate);
            if (lowerLoads(candidateLoads, loads)) {
              loads = std::move(candidateLoads);
              moved = true;
              continue;
            }
          }
          place(g, dg);
          place(h, dh);
        }
    if (!moved)
      break;
  }
  return true;
}

} // namespace

Solution placer::solver::improveByLocalSearch(
    const Problem &problem, const Assignment &start, int restarts,
    std::chrono::steady_clock::time_point deadline) {
  auto began = std::chrono::steady_clock::now();
  Contracted classes = contract(problem, /*mergeCycles=*/false);
  Evaluation evaluation = evaluate(problem, start);
  if (!evaluation.feasible() || classes.numSuper == 0)
    return finish(problem, start, "local-search", began);
  constexpr int kPasses = 100;
  Assignment best = start;
  std::vector<double> bestLoads = sortedLoads(evaluation);
  if (!descend(problem, classes, best, bestLoads, kPasses, deadline))
    return finish(problem, std::move(best), "local-search", began);
  // Iterated local search: from the best so far, two classes moved at
  // random (a fixed seed: the same answer every run), then descent.
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> pickClass(0, classes.numSuper - 1),
      pickDevice(0, problem.numDevices() - 1);
  for (int round = 0; round < restarts; ++round) {
    Assignment candidate = best;
    for (int kick = 0; kick < 2; ++kick) {
      int g = pickClass(rng), d = pickDevice(rng);
      for (int m : classes.members[g])
        candidate[m] = d;
    }
    Evaluation kicked = evaluate(problem, candidate);
    if (!kicked.feasible())
      continue;
    std::vector<double> loads = sortedLoads(kicked);
    bool finished =
        descend(problem, classes, candidate, loads, kPasses, deadline);
    if (lowerLoads(loads, bestLoads)) {
      best = std::move(candidate);
      bestLoads = std::move(loads);
    }
    if (!finished)
      break;
  }
  return finish(problem, std::move(best), "local-search", began);
}
