//===- IdealLattice.h - The ideals of a DAG, level by level ----*- C++ -*-===//
//
// Internal to the solver library: the contiguous-split DP (IdealDP.cpp) and
// the three-dimensional planner (ParallelPlan.cpp) both walk it.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_SOLVER_IDEALLATTICE_H
#define PLACER_LIB_SOLVER_IDEALLATTICE_H

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace placer::solver::detail {

/// Ideals of a DAG in order of size, with the nodes that can join each.
///
/// Built level by level (ideals of s nodes, then of s + 1): only two levels
/// are held as bitsets, to find each new ideal once, so memory is the
/// lattice's edges, not ideals x nodes. An ideal's addable nodes come from
/// the ideal it was first reached from (its parent): the parent's, less the
/// node added, plus that node's successors whose predecessors are now all
/// in. Every ideal keeps its parent and the node added, which is enough to
/// list its members.
class IdealLattice {
public:
  /// Enumerates the ideals of `graph`; false when there are more than
  /// `limit`.
  bool build(const std::vector<std::vector<int>> &successors,
             const std::vector<std::vector<int>> &predecessors, int64_t limit);

  int64_t size() const { return static_cast<int64_t>(addable.size()); }
  /// (node v outside the ideal whose predecessors are all in it, index of
  /// the ideal with v).
  std::vector<std::vector<std::pair<int, int64_t>>> addable;
  /// The ideal each one was first reached from, and the node added (-1 for
  /// the empty ideal).
  std::vector<int64_t> parent;
  std::vector<int> added;

  /// Marks the members of `ideal` in `in` (one entry per node).
  void members(int64_t ideal, std::vector<char> &in) const {
    std::fill(in.begin(), in.end(), 0);
    for (; ideal > 0; ideal = parent[ideal])
      in[added[ideal]] = 1;
  }
};

} // namespace placer::solver::detail

#endif // PLACER_LIB_SOLVER_IDEALLATTICE_H
