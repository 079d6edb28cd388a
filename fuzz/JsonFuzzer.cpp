//===- JsonFuzzer.cpp - Arbitrary bytes as one of the JSON inputs ---------===//
//
// The first byte picks the reader: 'p' Piper's input (planned when small),
// else by its value modulo 4 workload, cluster, profile (against the default
// cluster) or split file (against a small fixed workload); the rest is the
// document. Any input must give a value or an error, never a crash.
//
//===----------------------------------------------------------------------===//

#include "placer/Analysis/Cluster.h"
#include "placer/Analysis/Profile.h"
#include "placer/Solver/ParallelPlan.h"
#include "placer/Solver/Workload.h"

#include "llvm/Support/JSON.h"

#include <cmath>
#include <cstdlib>

namespace {

template <typename T> void discard(llvm::Expected<T> value) {
  if (!value)
    llvm::consumeError(value.takeError());
}

/// What must parse once for the readers that cross-reference it.
template <typename T> T check(llvm::Expected<T> value) {
  if (!value) {
    llvm::errs() << llvm::toString(value.takeError()) << "\n";
    std::abort();
  }
  return std::move(*value);
}

const placer::Cluster &getCluster() {
  static const placer::Cluster cluster =
      check(placer::Cluster::preset("a100-80gb"));
  return cluster;
}

/// Three nodes, ids 0..2, two of one color class, two accelerators and a CPU.
const placer::solver::Problem &getProblem() {
  static const placer::solver::Problem problem =
      check(placer::solver::parseWorkload(
                check(llvm::json::parse(R"({
        "maxFPGAs": 2, "maxCPUs": 1, "maxSizePerFPGA": 100,
        "nodes": [
          {"id": 0, "fpgaLatency": 1, "cpuLatency": 5, "size": 10,
           "supportedOnFpga": 1, "isBackwardNode": 0},
          {"id": 1, "fpgaLatency": 2, "cpuLatency": 4, "size": 20,
           "supportedOnFpga": 1, "isBackwardNode": 0, "colorClass": 1},
          {"id": 2, "fpgaLatency": 1, "cpuLatency": 1, "size": 5,
           "supportedOnFpga": 0, "isBackwardNode": 1, "colorClass": 1}],
        "edges": [{"sourceId": 0, "destId": 1, "cost": 0.25},
                  {"sourceId": 1, "destId": 2, "cost": 0.5}]})")),
                "fixed.json"))
          .problem;
  return problem;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  llvm::StringRef text(reinterpret_cast<const char *>(data) + 1, size - 1);
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    llvm::consumeError(json.takeError());
    return 0;
  }
  if (data[0] == 'p') {
    llvm::Expected<placer::solver::ParallelProblem> problem =
        placer::solver::parsePiperWorkload(*json, "fuzz.json");
    if (!problem) {
      llvm::consumeError(problem.takeError());
      return 0;
    }
    // The planner on what is small enough to plan in a moment; a plan it
    // gives must score as it says.
    if (problem->size() <= 12 && problem->maxDevices <= 64 &&
        problem->microbatches <= 64) {
      llvm::Expected<placer::solver::ParallelPlan> plan =
          placer::solver::planParallel(*problem);
      if (plan) {
        double score = check(scoreParallelPlan(*problem, *plan));
        if (std::abs(score - plan->timePerSample) > 1e-9 * std::max(1.0, score))
          std::abort();
      } else {
        llvm::consumeError(plan.takeError());
      }
    }
    return 0;
  }
  switch (data[0] % 4) {
  case 0:
    discard(placer::solver::parseWorkload(*json, "fuzz.json"));
    break;
  case 1:
    discard(placer::Cluster::fromJson(*json, "fuzz.json"));
    break;
  case 2:
    discard(placer::parseProfile(*json, getCluster(), "fuzz.json"));
    break;
  case 3:
    discard(placer::solver::parseSplit(getProblem(), *json, "fuzz.json"));
    break;
  }
  return 0;
}
