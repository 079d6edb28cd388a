//===- ParallelSimulate.cpp - One batch of a three-dimensional plan -------===//
//
// Every stage copy handles its microbatches in order and depends only on
// earlier stages for the same microbatch, so visiting microbatches in order
// and, within one, stages in pipeline order meets every event after the
// events it waits for: no event queue is needed.
//
//===----------------------------------------------------------------------===//

#include "placer/Solver/ParallelPlan.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>

using namespace placer::solver;

namespace {

/// Per-microbatch seconds between two stages: what the sender and the
/// receiver each spend on the tensors that cross.
struct Channel {
  double send = 0, receive = 0;
};

} // namespace

ParallelRun placer::solver::simulateParallelPlan(const ParallelProblem &problem,
                                                 const ParallelPlan &plan,
                                                 int64_t microbatches,
                                                 bool overlap) {
  size_t count = plan.stages.size();
  int64_t n = microbatches > 0 ? microbatches : problem.microbatches;
  std::vector<int> stageOf(problem.size(), -1);
  std::vector<const TensorConfig *> configOf(problem.size(), nullptr);
  for (auto [i, stage] : llvm::enumerate(plan.stages))
    for (auto [k, v] : llvm::enumerate(stage.layers)) {
      stageOf[v] = static_cast<int>(i);
      configOf[v] =
          &problem.layers[v].configs.at(stage.tensorDegree)[stage.configs[k]];
    }

  ParallelRun run;
  run.microbatches = n;
  run.stages.resize(count);
  std::map<std::pair<int, int>, Channel> channels; // (from, to) stages
  // Each cut edge moves its activation and its gradient, plus each side's
  // sync bytes (the sender's configuration's, the receiver's).
  for (int v = 0; v < problem.size(); ++v) {
    for (auto [i, e] : llvm::enumerate(problem.outEdges[v])) {
      const ParallelEdge &edge = problem.edges[e];
      if (stageOf[edge.to] != stageOf[v])
        channels[{stageOf[v], stageOf[edge.to]}].send +=
            2 * (edge.bytes + configOf[v]->syncOut[i]) / problem.bandwidth;
    }
    for (auto [i, e] : llvm::enumerate(problem.inEdges[v])) {
      const ParallelEdge &edge = problem.edges[e];
      if (stageOf[edge.from] != stageOf[v])
        channels[{stageOf[edge.from], stageOf[v]}].receive +=
            2 * (edge.bytes + configOf[v]->syncIn[i]) / problem.bandwidth;
    }
  }
  // Seed-model tensors: each reading stage pays once, the producing stage
  // once (on its channel to the first reader).
  for (const ParallelTensor &tensor : problem.tensors) {
    int from = stageOf[tensor.producer];
    std::vector<int> readers;
    for (int consumer : tensor.consumers)
      if (stageOf[consumer] != from)
        readers.push_back(stageOf[consumer]);
    llvm::sort(readers);
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
    for (auto [r, to] : llvm::enumerate(readers)) {
      Channel &channel = channels[{from, to}];
      channel.receive += tensor.time;
      if (r == 0)
        channel.send += tensor.time;
    }
  }

  int64_t copies = 0;
  std::vector<std::vector<double>> free(count), busy(count);
  for (auto [i, stage] : llvm::enumerate(plan.stages)) {
    ParallelRun::Stage &figures = run.stages[i];
    double parameters = 0;
    for (auto [k, v] : llvm::enumerate(stage.layers)) {
      figures.compute += configOf[v]->timeOn(stage.kind);
      parameters += configOf[v]->parameterBytes;
    }
    int d = stage.dataDegree;
    figures.allReduce = 4.0 * (d - 1) * parameters / d /
                        problem.resyncBandwidth(stage.tensorDegree, d);
    free[i].assign(d, 0);
    busy[i].assign(d, 0);
    copies += d;
  }
  // The channels in (from, to) order, and per stage the ones it receives
  // and sends on.
  std::vector<std::pair<std::pair<int, int>, Channel>> links(channels.begin(),
                                                            channels.end());
  std::vector<std::vector<size_t>> incoming(count), outgoing(count);
  for (auto [c, link] : llvm::enumerate(links)) {
    auto [from, to] = link.first;
    run.stages[from].send += link.second.send;
    run.stages[to].receive += link.second.receive;
    outgoing[from].push_back(c);
    incoming[to].push_back(c);
  }

  // Per channel: when the current microbatch's tensors are there, and
  // (overlapped) when the link is free.
  std::vector<double> arrival(links.size(), 0), linkFree(links.size(), 0);
  for (int64_t m = 0; m < n; ++m) {
    for (size_t i = 0; i < count; ++i) {
      const ParallelStage &stage = plan.stages[i];
      size_t copy = static_cast<size_t>(m % stage.dataDegree);
      double time = free[i][copy];
      double &worked = busy[i][copy];
      for (size_t c : incoming[i]) {
        time = std::max(time, arrival[c]);
        if (!overlap) {
          time += links[c].second.receive;
          worked += links[c].second.receive;
        }
      }
      time += run.stages[i].compute;
      worked += run.stages[i].compute;
      for (size_t c : outgoing[i]) {
        const Channel &channel = links[c].second;
        if (overlap) {
          // The link moves it while the device goes on.
          linkFree[c] = std::max(linkFree[c], time) +
                        std::max(channel.send, channel.receive);
          arrival[c] = linkFree[c];
        } else {
          time += channel.send;
          worked += channel.send;
          arrival[c] = time;
        }
      }
      free[i][copy] = time;
      if (m == 0)
        run.firstMicrobatchSeconds = std::max(run.firstMicrobatchSeconds, time);
    }
  }
  double busyTotal = 0;
  for (size_t i = 0; i < count; ++i) {
    ParallelRun::Stage &figures = run.stages[i];
    double done = *std::max_element(free[i].begin(), free[i].end());
    figures.finish = done + figures.allReduce;
    for (double worked : busy[i]) {
      busyTotal += worked + figures.allReduce;
      figures.busy = std::max(figures.busy, worked + figures.allReduce);
    }
    run.batchSeconds = std::max(run.batchSeconds, figures.finish);
  }
  run.timePerSample = n > 0 ? run.batchSeconds / n : 0;
  run.bubbleFraction =
      run.batchSeconds > 0 && copies > 0
          ? 1 - busyTotal / (run.batchSeconds * static_cast<double>(copies))
          : 0;
  return run;
}
