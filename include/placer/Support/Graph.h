//===- Graph.h - The graph algorithms every layer shares -------*- C++ -*-===//
//
// One topological order and one SCC routine for graphs given as successor
// lists (the solver's problems, contracted graphs, device and program
// orders). Plain C++ on LLVM's ADT.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_SUPPORT_GRAPH_H
#define PLACER_SUPPORT_GRAPH_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <vector>

namespace placer {

using SuccessorLists = std::vector<std::vector<int>>;

/// Kahn's algorithm, taking among the ready nodes the one with the smallest
/// `priority` (the node's index when none is given), so the order is
/// deterministic and an already sorted graph keeps its order. The result is
/// shorter than the graph when the graph has a cycle.
std::vector<int>
topologicalOrder(const SuccessorLists &successors,
                 llvm::function_ref<int64_t(int)> priority = nullptr);

/// The strongly connected component of every node (llvm::scc_iterator),
/// numbered in the order the iterator finds them: successors first.
std::vector<int> stronglyConnectedComponents(const SuccessorLists &successors);

} // namespace placer

#endif // PLACER_SUPPORT_GRAPH_H
