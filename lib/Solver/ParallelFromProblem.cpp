//===- ParallelFromProblem.cpp - The seed problem as the t = 1 case -------===//
//
// The contiguous-split DP's problem (Problem, inference on identical
// accelerators) restated for the three-dimensional planner: a stage is a
// device, every layer runs at t = 1 in one configuration, d stays 1, and
// transfers are charged per tensor crossing a stage's
// border. Both solvers then optimise the same function over the same
// splits, which the tests check on every published workload.
//
//===----------------------------------------------------------------------===//

#include "placer/Solver/ParallelPlan.h"

#include "Contraction.h"
#include "placer/Solver/Problem.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <string>

using namespace placer::solver;

llvm::Expected<ParallelProblem>
placer::solver::parallelProblemOf(const Problem &problem,
                                  std::vector<int> &layerOf,
                                  bool mergeWeightedLeaves) {
  auto unsupported = [](const std::string &what) {
    return llvm::createStringError(
        "the three-dimensional planner does not model " + what);
  };
  if (problem.numCpus > 0)
    return unsupported("CPU cores (" + std::to_string(problem.numCpus) +
                       " given)");
  if (!problem.isUniform())
    return unsupported("several accelerator kinds or links");
  if (problem.isTraining())
    return unsupported("training schedules of the seed model");
  if (problem.replication)
    return unsupported("the seed model's replication (use its data-parallel "
                       "degrees instead)");
  if (problem.numAccelerators < 1)
    return llvm::createStringError("no accelerators to plan for");
  for (const Node &node : problem.nodes) {
    if (!node.supported)
      return unsupported("nodes no accelerator runs (node " + node.name +
                         ", id " + std::to_string(node.id) + ")");
    if (node.outputBytes != 0 && problem.memoryLimit < kInfinity)
      return unsupported("activation memory (node " + node.name + ", id " +
                         std::to_string(node.id) + ")");
  }

  // The DP's exact reductions (Contraction.h): free sources leave,
  // pointwise consumers that shrink their input join its producer, and
  // zero-time leaves without weights join theirs (one with weights could
  // move memory onto a device where it binds: only if asked). Merging
  // GNMT's weighted leaves is what keeps its lattice at 100 ideals, not
  // over 200,000.
  detail::Reduced reduced = detail::reduce(
      problem, detail::contract(problem), /*keepLeafMemory=*/true,
      /*weightlessLeavesOnly=*/!mergeWeightedLeaves);
  const detail::Contracted &graph = reduced.graph;
  ParallelProblem parallel;
  parallel.memoryPerDevice = problem.memoryLimit;
  parallel.maxDevices = problem.numAccelerators;
  // Piper's degrees sum to at most the microbatches: k of them allow k
  // stages, and d stays 1.
  parallel.microbatches = problem.numAccelerators;
  parallel.maxDataDegree = 1;
  // No edge carries bytes: the bandwidth only has to be valid.
  parallel.bandwidth = 1;
  for (int s = 0; s < graph.numSuper; ++s) {
    ParallelLayer layer;
    const Node &first = problem.nodes[graph.members[s].front()];
    layer.id = first.id;
    layer.name =
        first.name.empty() ? "node " + std::to_string(first.id) : first.name;
    TensorConfig config;
    config.id = "t1";
    config.timePerSample = graph.acceleratorTime[s];
    config.fixedBytes = graph.memory[s];
    layer.configs[1].push_back(std::move(config));
    parallel.layers.push_back(std::move(layer));
    for (int to : graph.successors[s])
      parallel.edges.push_back(ParallelEdge{s, to, 0});
  }
  layerOf = graph.superOf;
  for (int u : reduced.freeNodes)
    layerOf[u] = -1;
  for (int u = 0; u < problem.size(); ++u) {
    if (layerOf[u] < 0)
      continue; // free: costs nothing to send
    ParallelTensor tensor;
    tensor.producer = graph.superOf[u];
    tensor.time = problem.nodes[u].transferCost;
    for (int v : problem.successors[u])
      if (graph.superOf[v] != tensor.producer)
        tensor.consumers.push_back(graph.superOf[v]);
    llvm::sort(tensor.consumers);
    tensor.consumers.erase(
        std::unique(tensor.consumers.begin(), tensor.consumers.end()),
        tensor.consumers.end());
    if (!tensor.consumers.empty() && tensor.time != 0)
      parallel.tensors.push_back(std::move(tensor));
  }
  // Edges give each layer's configuration its (empty) sync lists.
  parallel.indexEdges();
  for (auto [s, layer] : llvm::enumerate(parallel.layers))
    for (TensorConfig &config : layer.configs[1]) {
      config.syncIn.assign(parallel.inEdges[s].size(), 0);
      config.syncOut.assign(parallel.outEdges[s].size(), 0);
    }
  return parallel;
}
