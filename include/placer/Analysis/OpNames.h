//===- OpNames.h - What reports call an op ---------------------*- C++ -*-===//
//
// One naming for every op a placement sees, used by the cost dump and
// profiles, the placement report, the simulator and the DOT picture, so a
// name in one is the same op in the others.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_ANALYSIS_OPNAMES_H
#define PLACER_ANALYSIS_OPNAMES_H

#include "mlir/IR/Operation.h"

#include <string>

namespace placer {

/// The op type reports show: a graph.node's ONNX op type ("Conv",
/// "com.microsoft.Gelu"), otherwise the op's name ("linalg.matmul").
std::string getOpTypeName(mlir::Operation *op);

/// The name of a top-level op of a function: a graph.node's display name,
/// a graph.constant's name; for ops of other dialects, which carry no name
/// of their own, `<name>#<position>` where <name> is the op's NameLoc or op
/// name and <position> its 1-based place among the ops of its function
/// before a split (`dist.position`, which the split keeps), so names are
/// unique, stable and the same before and after a split.
std::string getOpDisplayName(mlir::Operation *op);

} // namespace placer

#endif // PLACER_ANALYSIS_OPNAMES_H
