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
  run.stages.resize(count);
  std::map<std::pair<int, int>, Channel> channels; // (from, to) stages
  for (auto [e, edge] : llvm::enumerate(problem.edges)) {
    int from = stageOf[edge.from], to = stageOf[edge.to];
    if (from == to)
      continue;
    // Forward activation and backward gradient, plus each side's sync.
    auto position = [](const std::vector<int> &list, size_t e) {
      return std::find(list.begin(), list.end(), static_cast<int>(e)) -
             list.begin();
    };
    double sendBytes =
        2 *
        (edge.bytes + configOf[edge.from]
                          ->syncOut[position(problem.outEdges[edge.from], e)]);
    double receiveBytes =
        2 * (edge.bytes +
             configOf[edge.to]->syncIn[position(problem.inEdges[edge.to], e)]);
    Channel &channel = channels[{from, to}];
    channel.send += sendBytes / problem.bandwidth;
    channel.receive += receiveBytes / problem.bandwidth;
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
      figures.compute += configOf[v]->timePerSample;
      parameters += configOf[v]->parameterBytes;
    }
    int d = stage.dataDegree;
    figures.allReduce = 4.0 * (d - 1) * parameters / d /
                        problem.resyncBandwidth(stage.tensorDegree, d);
    free[i].assign(d, 0);
    busy[i].assign(d, 0);
    copies += d;
  }
  for (const auto &[pair, channel] : channels) {
    run.stages[pair.first].send += channel.send;
    run.stages[pair.second].receive += channel.receive;
  }

  // arrival[(from, to)]: when the current microbatch's tensors are there.
  std::map<std::pair<int, int>, double> arrival, linkFree;
  for (int64_t m = 0; m < n; ++m) {
    for (size_t i = 0; i < count; ++i) {
      const ParallelStage &stage = plan.stages[i];
      size_t copy = static_cast<size_t>(m % stage.dataDegree);
      double time = free[i][copy];
      double &worked = busy[i][copy];
      for (auto it = channels.begin(); it != channels.end(); ++it) {
        if (it->first.second != static_cast<int>(i))
          continue;
        time = std::max(time, arrival[it->first]);
        if (!overlap) {
          time += it->second.receive;
          worked += it->second.receive;
        }
      }
      time += run.stages[i].compute;
      worked += run.stages[i].compute;
      for (auto it = channels.lower_bound({static_cast<int>(i), 0});
           it != channels.end() && it->first.first == static_cast<int>(i);
           ++it) {
        if (overlap) {
          // The link moves it while the device goes on.
          double &link = linkFree[it->first];
          link = std::max(link, time) +
                 std::max(it->second.send, it->second.receive);
          arrival[it->first] = link;
        } else {
          time += it->second.send;
          worked += it->second.send;
          arrival[it->first] = time;
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
