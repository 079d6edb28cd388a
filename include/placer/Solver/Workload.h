//===- Workload.h - The paper's JSON workload and split formats -*- C++ -*-===//
//
// Reading needs LLVM's JSON support, no MLIR. Errors name the file and the
// field, e.g. "w.json: edges[3].destId: no node has id 42".
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_SOLVER_WORKLOAD_H
#define PLACER_SOLVER_WORKLOAD_H

#include "placer/Solver/Problem.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace placer::solver {

/// A workload: the problem, plus per node the bytes of its output (the
/// largest `size` of its out-edges, a debug field of the format).
struct Workload {
  Problem problem;
  std::vector<double> outputBytes;
};

llvm::Expected<Workload> parseWorkload(const llvm::json::Value &json,
                                       llvm::StringRef source);
llvm::Expected<Workload> readWorkloadFile(llvm::StringRef path);

/// The split format {"fpgas": [{"nodes": [ids]}...], "cpus": [...],
/// "maxLoad": x}. Reading maps ids back through `Node::id`; backward nodes
/// not listed follow their color class (human splits list forward nodes
/// only).
llvm::Expected<Assignment> parseSplit(const Problem &problem,
                                      const llvm::json::Value &json,
                                      llvm::StringRef source);
llvm::Expected<Assignment> readSplitFile(const Problem &problem,
                                         llvm::StringRef path);
llvm::json::Value splitToJson(const Problem &problem,
                              const Assignment &assignment, double maxLoad);

} // namespace placer::solver

#endif // PLACER_SOLVER_WORKLOAD_H
