//===- Contraction.h - Color classes as super-nodes ------------*- C++ -*-===//
//
// Internal to the solver library.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_SOLVER_CONTRACTION_H
#define PLACER_LIB_SOLVER_CONTRACTION_H

#include "placer/Solver/Problem.h"

#include <vector>

namespace placer::solver::detail {

/// The forward graph with every color class contracted into one super-node
/// that carries the costs of all its members, forward and backward, and
/// with the cycles contraction creates merged. A class with only backward
/// members becomes a super-node with no forward edges: the zero-cost
/// forward twin of the paper. Super-nodes are numbered in a topological
/// order.
struct Contracted {
  int numSuper = 0;
  std::vector<int> superOf;                 ///< original node -> super-node
  std::vector<std::vector<int>> members;    ///< super-node -> original nodes
  std::vector<std::vector<int>> successors; ///< forward edges, a DAG
  std::vector<std::vector<int>> predecessors;
  std::vector<double> acceleratorTime, cpuTime, memory;
  std::vector<char> supported;
};

/// With `mergeCycles = false` only color classes are contracted (enough to
/// keep classes together when contiguity does not matter); the successor
/// lists may then contain cycles.
Contracted contract(const Problem &problem, bool mergeCycles = true);

/// Exact shrinking of the lattice before the DP (docs/Placement.md):
///  - a free source (no time, memory or transfer cost, nothing feeding it)
///    changes no load wherever it goes: it leaves the DP and is placed with
///    its earliest successor, which keeps every device contiguous;
///  - a zero-time leaf (every edge of its members, forward or backward,
///    leads to one earlier super-node: a forward leaf with its backward
///    twin, in training) joins that super-node: never worse for
///    communication, but its memory then sits on that device. `keepLeafMemory =
///    false` drops that memory: the result is a relaxation, so equal optima
///    certify the restricted one as optimal.
///  - a data-reducing link u -> v (single nodes, v u's only successor and
///    u v's only input, t(v) + c(v) <= c(u) on an accelerator, u never on
///    a CPU core, v without weights where memory is limited), in inference
///    on identical accelerators: v joins u, exactly (no split is worse for
///    it).
struct Reduced {
  Contracted graph;
  std::vector<int> freeNodes; ///< original nodes left out of the DP
  int mergedLeaves = 0;
  int mergedChains = 0;
};
/// `weightlessLeavesOnly` merges only leaves without memory where memory is
/// limited: exact, with no relaxation to certify it.
Reduced reduce(const Problem &problem, const Contracted &graph,
               bool keepLeafMemory, bool weightlessLeavesOnly = false);

/// Adds an edge between consecutive super-nodes (in their topological
/// numbering): the graph becomes a chain whose ideals are its prefixes.
Contracted linearize(Contracted graph);

/// linearize(), except inside `windows` (disjoint, sorted ranges [first,
/// last] of super-nodes): a window keeps its own edges and comes after all
/// super-nodes before it and before all after it. The ideals are the
/// prefixes and, in each window, every prefix up to it plus an ideal of
/// the window.
Contracted linearizeOutside(Contracted graph,
                            const std::vector<std::pair<int, int>> &windows);

} // namespace placer::solver::detail

#endif // PLACER_LIB_SOLVER_CONTRACTION_H
