//===- ParallelSegments.h - Layer graphs in segments ------------*- C++ -*-===//
//
// Internal to the solver library. An operator graph of a large model (a
// 70B decoder's decode step: 3,288 nodes, 16,969 ideals) gives the
// three-dimensional planner tens of millions of candidate stages when a
// stage may hold a hundred layers' worth of operators. Piper plans over
// transformer layers; its layers are the runs of operators between the
// points where one tensor alone crosses (a residual stream's adds). The
// planner coarsens to those runs, segments, when the operator graph has
// more candidate stages than its limit: plans then cut only between
// segments, and everything inside a segment is summed exactly
// (docs/Placement.md, "Three-dimensional plans").
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_SOLVER_PARALLELSEGMENTS_H
#define PLACER_LIB_SOLVER_PARALLELSEGMENTS_H

#include "placer/Solver/ParallelPlan.h"

#include <map>
#include <optional>
#include <vector>

namespace placer::solver::detail {

struct SegmentedProblem {
  /// One layer per segment; its configurations at each degree are the
  /// Pareto-optimal sums of its members' (every figure no larger).
  ParallelProblem problem;
  /// Per segment, its layers in ascending order.
  std::vector<std::vector<int>> members;
  /// Per segment and degree, per configuration: the index of the
  /// configuration each member takes, in `members` order.
  std::vector<std::map<int, std::vector<std::vector<int>>>> memberConfigs;
};

/// `problem` in segments: the runs of the topological order between cut
/// points, positions after which every edge that crosses leaves the layer
/// just placed. A layer that `representative` maps elsewhere (a free
/// source glued to its consumer) joins that layer's segment, and its edges
/// do not count as crossing. std::nullopt when there is no cut point, or a
/// segment would have more than `configLimit` configurations at a degree.
std::optional<SegmentedProblem>
segmentProblem(const ParallelProblem &problem,
               const std::vector<int> &representative, int64_t configLimit);

/// `plan` of `segmented.problem` as a plan of the layers: each stage holds
/// its segments' members with the configurations they take.
ParallelPlan expandSegmentPlan(const SegmentedProblem &segmented,
                               ParallelPlan plan);

} // namespace placer::solver::detail

#endif // PLACER_LIB_SOLVER_PARALLELSEGMENTS_H
