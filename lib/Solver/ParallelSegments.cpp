//===- ParallelSegments.cpp - Layer graphs cut where one tensor crosses ---===//
//
// See ParallelSegments.h. A segment's configuration at degree t is one
// choice per member; its figures are the members' sums (time, parameters,
// stash, fixed bytes, caches, each kind's time) and its sync bytes those of
// the members at its border edges, so a plan over segments scores exactly
// as the same plan over their layers. Choices no other beats in every
// figure are kept (one per degree when each member has one, as derived
// configurations do).
//
//===----------------------------------------------------------------------===//

#include "ParallelSegments.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>
#include <string>

using namespace placer::solver;
using namespace placer::solver::detail;

namespace {

/// A choice of configurations for a prefix of a segment's members, summed.
struct Partial {
  TensorConfig sum;
  std::vector<int> choices;
};

/// Whether every figure of `p` is at most `q`'s.
bool noWorse(const TensorConfig &p, const TensorConfig &q) {
  auto atMost = [](const std::vector<double> &a, const std::vector<double> &b) {
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] > b[i])
        return false;
    return true;
  };
  return p.timePerSample <= q.timePerSample &&
         p.parameterBytes <= q.parameterBytes && p.stashBytes <= q.stashBytes &&
         p.fixedBytes <= q.fixedBytes && p.cacheBytes <= q.cacheBytes &&
         atMost(p.kindTimes, q.kindTimes) && atMost(p.syncIn, q.syncIn) &&
         atMost(p.syncOut, q.syncOut);
}

/// `partials` without those another one is no worse than (of equal ones,
/// the first).
void keepBest(std::vector<Partial> &partials) {
  std::vector<Partial> kept;
  for (Partial &candidate : partials) {
    bool beaten = llvm::any_of(
        kept, [&](const Partial &k) { return noWorse(k.sum, candidate.sum); });
    if (beaten)
      continue;
    llvm::erase_if(
        kept, [&](const Partial &k) { return noWorse(candidate.sum, k.sum); });
    kept.push_back(std::move(candidate));
  }
  partials = std::move(kept);
}

} // namespace

std::optional<SegmentedProblem>
placer::solver::detail::segmentProblem(const ParallelProblem &problem,
                                       const std::vector<int> &representative,
                                       int64_t configLimit) {
  int n = problem.size();
  std::vector<int> order = problem.topologicalOrder();
  if (static_cast<int>(order.size()) != n)
    return std::nullopt;
  // Edges between representatives: how many leave each, and from where
  // each one arrives.
  std::vector<int64_t> outCount(n, 0);
  std::vector<std::vector<int>> arriving(n);
  for (const ParallelEdge &edge : problem.edges) {
    int from = representative[edge.from], to = representative[edge.to];
    if (from == to)
      continue;
    ++outCount[from];
    arriving[to].push_back(from);
  }
  std::vector<int> reps;
  for (int v : order)
    if (representative[v] == v)
      reps.push_back(v);
  // The sweep: after placing v, the crossing edges are `open`, of which
  // `openFrom[v]` leave v; a cut point when they all do.
  std::vector<int> segmentOf(n, -1);
  std::vector<int64_t> openFrom(n, 0);
  int64_t open = 0;
  int segments = 0;
  for (auto [i, v] : llvm::enumerate(reps)) {
    segmentOf[v] = segments;
    for (int from : arriving[v]) {
      --openFrom[from];
      --open;
    }
    openFrom[v] += outCount[v];
    open += outCount[v];
    if (i + 1 < reps.size() && open == openFrom[v])
      ++segments;
  }
  ++segments;
  // Nothing to gain: one segment, or one per representative (a chain).
  if (segments == 1 || segments == static_cast<int>(reps.size()))
    return std::nullopt;
  for (int v = 0; v < n; ++v)
    segmentOf[v] = segmentOf[representative[v]];

  SegmentedProblem result;
  ParallelProblem &coarse = result.problem;
  coarse.memoryPerDevice = problem.memoryPerDevice;
  coarse.maxDevices = problem.maxDevices;
  coarse.bandwidth = problem.bandwidth;
  coarse.microbatches = problem.microbatches;
  coarse.devicesPerNode = problem.devicesPerNode;
  coarse.intraNodeBandwidth = problem.intraNodeBandwidth;
  coarse.maxDataDegree = problem.maxDataDegree;
  coarse.kinds = problem.kinds;
  result.members.resize(segments);
  for (int v = 0; v < n; ++v)
    result.members[segmentOf[v]].push_back(v);
  for (const std::vector<int> &members : result.members) {
    ParallelLayer layer;
    layer.id = problem.layers[members.front()].id;
    layer.name = problem.layers[members.front()].name;
    if (members.size() > 1)
      layer.name += " .. " + problem.layers[members.back()].name;
    coarse.layers.push_back(std::move(layer));
  }
  // Border edges, one per edge of the layers between two segments (each
  // keeps its sync bytes); where each sits among its layers' edges.
  std::vector<int> coarseEdgeOf(problem.edges.size(), -1);
  for (auto [e, edge] : llvm::enumerate(problem.edges)) {
    int from = segmentOf[edge.from], to = segmentOf[edge.to];
    if (from == to)
      continue;
    coarseEdgeOf[e] = static_cast<int>(coarse.edges.size());
    coarse.edges.push_back({from, to, edge.bytes});
  }
  for (const ParallelTensor &tensor : problem.tensors) {
    int producer = segmentOf[tensor.producer];
    std::vector<int> consumers;
    for (int consumer : tensor.consumers)
      if (segmentOf[consumer] != producer)
        consumers.push_back(segmentOf[consumer]);
    llvm::sort(consumers);
    consumers.erase(std::unique(consumers.begin(), consumers.end()),
                    consumers.end());
    // Read only inside its segment: it never crosses a stage's border.
    if (!consumers.empty())
      coarse.tensors.push_back({producer, std::move(consumers), tensor.time});
  }
  coarse.indexEdges();
  // Per coarse edge, its position among its segment's in- and out-edges.
  std::vector<int> coarseIn(coarse.edges.size()),
      coarseOut(coarse.edges.size());
  for (int s = 0; s < segments; ++s) {
    for (auto [i, e] : llvm::enumerate(coarse.inEdges[s]))
      coarseIn[e] = static_cast<int>(i);
    for (auto [i, e] : llvm::enumerate(coarse.outEdges[s]))
      coarseOut[e] = static_cast<int>(i);
  }

  result.memberConfigs.resize(segments);
  for (int s = 0; s < segments; ++s) {
    const std::vector<int> &members = result.members[s];
    // The degrees every member has configurations for.
    std::vector<int> degrees;
    for (const auto &[t, configs] : problem.layers[members.front()].configs)
      if (!configs.empty() && llvm::all_of(members, [&](int v) {
            auto it = problem.layers[v].configs.find(t);
            return it != problem.layers[v].configs.end() && !it->second.empty();
          }))
        degrees.push_back(t);
    for (int t : degrees) {
      Partial empty;
      empty.sum.kindTimes.assign(problem.layers[members.front()]
                                     .configs.at(t)
                                     .front()
                                     .kindTimes.size(),
                                 0.0);
      empty.sum.syncIn.assign(coarse.inEdges[s].size(), 0.0);
      empty.sum.syncOut.assign(coarse.outEdges[s].size(), 0.0);
      std::vector<Partial> partials = {empty}, next;
      for (int v : members) {
        next.clear();
        for (const Partial &partial : partials)
          for (auto [c, config] :
               llvm::enumerate(problem.layers[v].configs.at(t))) {
            Partial grown = partial;
            TensorConfig &sum = grown.sum;
            sum.timePerSample += config.timePerSample;
            sum.parameterBytes += config.parameterBytes;
            sum.stashBytes += config.stashBytes;
            sum.fixedBytes += config.fixedBytes;
            sum.cacheBytes += config.cacheBytes;
            for (size_t k = 0;
                 k < sum.kindTimes.size() && k < config.kindTimes.size(); ++k)
              sum.kindTimes[k] += config.kindTimes[k];
            for (auto [i, e] : llvm::enumerate(problem.inEdges[v]))
              if (coarseEdgeOf[e] >= 0 && i < config.syncIn.size())
                sum.syncIn[coarseIn[coarseEdgeOf[e]]] = config.syncIn[i];
            for (auto [i, e] : llvm::enumerate(problem.outEdges[v]))
              if (coarseEdgeOf[e] >= 0 && i < config.syncOut.size())
                sum.syncOut[coarseOut[coarseEdgeOf[e]]] = config.syncOut[i];
            grown.choices.push_back(static_cast<int>(c));
            next.push_back(std::move(grown));
          }
        keepBest(next);
        if (static_cast<int64_t>(next.size()) > configLimit)
          return std::nullopt;
        std::swap(partials, next);
      }
      std::vector<TensorConfig> &configs = coarse.layers[s].configs[t];
      std::vector<std::vector<int>> &choices = result.memberConfigs[s][t];
      for (auto [k, partial] : llvm::enumerate(partials)) {
        partial.sum.id = "segment choice " + std::to_string(k);
        configs.push_back(std::move(partial.sum));
        choices.push_back(std::move(partial.choices));
      }
    }
  }
  return result;
}

ParallelPlan
placer::solver::detail::expandSegmentPlan(const SegmentedProblem &segmented,
                                          ParallelPlan plan) {
  for (ParallelStage &stage : plan.stages) {
    std::vector<std::pair<int, int>> layers; // (layer, configuration)
    for (auto [k, s] : llvm::enumerate(stage.layers)) {
      const std::vector<int> &choice =
          segmented.memberConfigs[s].at(stage.tensorDegree)[stage.configs[k]];
      for (auto [member, config] :
           llvm::zip_equal(segmented.members[s], choice))
        layers.emplace_back(member, config);
    }
    llvm::sort(layers);
    stage.layers.clear();
    stage.configs.clear();
    for (auto [layer, config] : layers) {
      stage.layers.push_back(layer);
      stage.configs.push_back(config);
    }
  }
  return plan;
}
