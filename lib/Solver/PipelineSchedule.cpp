//===- PipelineSchedule.cpp - Per-device orders of pipeline work ----------===//
//
// GPipe, 1F1B, interleaved 1F1B and ZB-H1 are written out as their papers
// and Megatron-LM order them. ZB-V is the order a list scheduler gives at
// unit times under its rules (backward first, then forward within 1F1B's
// memory, weight work when neither is ready), so that its order, like the
// others', is fixed before any run.
//
//===----------------------------------------------------------------------===//

#include "placer/Solver/PipelineSchedule.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <string>

using namespace placer::solver;

namespace {

llvm::Error scheduleError(const std::string &what) {
  return llvm::createStringError("pipeline schedule: " + what);
}

PipelineWork forward(int microbatch, int chunk) {
  return {WorkKind::Forward, microbatch, chunk};
}
PipelineWork backward(int microbatch, int chunk) {
  return {WorkKind::Backward, microbatch, chunk};
}
PipelineWork weight(int microbatch, int chunk) {
  return {WorkKind::Weight, microbatch, chunk};
}

/// One chunk per device, chunk d on device d.
PipelineSchedule oneChunkPerDevice(PipelineKind kind, int p, int m) {
  PipelineSchedule schedule;
  schedule.kind = kind;
  schedule.devices = p;
  schedule.microbatches = m;
  for (int d = 0; d < p; ++d)
    schedule.deviceOfChunk.push_back(d);
  schedule.order.resize(p);
  return schedule;
}

/// GPipe, 1F1B (PipeDream-Flush) and ZB-H1: device d's stage has d stages
/// before it and p - d - 1 after it.
void orderOneChunkPerDevice(PipelineSchedule &schedule) {
  for (int d = 0; d < schedule.devices; ++d)
    schedule.order[d] = getStageOrder(schedule.kind, schedule.devices - d - 1,
                                      schedule.microbatches, d, /*delay=*/d);
}

/// Megatron-LM's interleaved 1F1B: chunk c on device c mod p; a device's
/// k-th forward runs its chunk (k mod pv) / p on microbatch (k / pv) p +
/// k mod p (p microbatches through one chunk, then through the next), its
/// backwards the chunks in reverse; (p - d - 1) 2 + (v - 1) p forwards ahead
/// (all of them when m = p).
void orderInterleaved(PipelineSchedule &schedule) {
  int p = schedule.devices, m = schedule.microbatches,
      v = schedule.chunksPerDevice;
  for (int c = 0; c < p * v; ++c)
    schedule.deviceOfChunk.push_back(c % p);
  int total = m * v;
  for (int d = 0; d < p; ++d) {
    auto microbatchOf = [&](int k) { return k / (p * v) * p + k % p; };
    auto forwardChunk = [&](int k) { return (k % (p * v)) / p * p + d; };
    auto backwardChunk = [&](int k) {
      return (v - 1 - (k % (p * v)) / p) * p + d;
    };
    int warmup =
        m == p ? total : std::min((p - d - 1) * 2 + (v - 1) * p, total);
    std::vector<PipelineWork> &order = schedule.order[d];
    for (int k = 0; k < warmup; ++k)
      order.push_back(forward(microbatchOf(k), forwardChunk(k)));
    for (int k = 0; k < total - warmup; ++k) {
      int f = warmup + k;
      order.push_back(forward(microbatchOf(f), forwardChunk(f)));
      order.push_back(backward(microbatchOf(k), backwardChunk(k)));
    }
    for (int k = total - warmup; k < total; ++k)
      order.push_back(backward(microbatchOf(k), backwardChunk(k)));
  }
}

/// ZB-V's order: two chunks per device in a V (chunk c on device c, then
/// back from the last device to the first), ordered by a list scheduler at
/// unit times (F = B = W = 1 per chunk, no transfer time). A free device
/// takes, among the work whose inputs are done, a backward (the critical
/// path: the devices before it wait for it), else a forward while it holds
/// fewer than `cap` microbatch-chunks (forwarded, weight work not done),
/// else weight work; the earliest microbatch first, then the chunk nearer
/// the loss. False if a step finds nothing to start and nothing running
/// (a bug, not an input: the unit tests order every shape they run).
bool orderZeroBubbleV(PipelineSchedule &schedule, int cap) {
  int p = schedule.devices, m = schedule.microbatches, n = schedule.chunks();
  constexpr int kNotYet = std::numeric_limits<int>::max();
  // When each piece of work ends (unit times: start + 1), and per chunk
  // the next microbatch of each kind: every chunk runs each kind in
  // microbatch order (the first chunk's forwards are, and each kind's
  // inputs come from the next or previous chunk's of the same kind).
  std::vector<std::vector<int>> forwardEnd(n, std::vector<int>(m, kNotYet)),
      backwardEnd = forwardEnd;
  std::vector<int> nextForward(n, 0), nextBackward(n, 0), nextWeight(n, 0);
  std::vector<std::vector<int>> chunksOn(p);
  for (int c = n - 1; c >= 0; --c) // nearer the loss first
    chunksOn[schedule.deviceOfChunk[c]].push_back(c);
  std::vector<int> held(p, 0);
  int left = 3 * n * m;
  for (int t = 0; left > 0; ++t) {
    // Nothing chosen at t means nothing runs past t: nothing ever will be.
    int before = left;
    for (int d = 0; d < p; ++d) {
      // The earliest microbatch among the device's chunks whose `next` work
      // `ready` says can start, then the chunk nearer the loss.
      auto pick = [&](std::vector<int> &next, auto ready) {
        int best = -1;
        for (int c : chunksOn[d])
          if (next[c] < m && ready(c, next[c]) &&
              (best < 0 || next[c] < next[best]))
            best = c;
        return best;
      };
      WorkKind kind = WorkKind::Backward;
      int c = pick(nextBackward, [&](int c, int mb) {
        return forwardEnd[c][mb] <= t &&
               (c == n - 1 || backwardEnd[c + 1][mb] <= t);
      });
      if (c < 0 && held[d] < cap) {
        kind = WorkKind::Forward;
        c = pick(nextForward, [&](int c, int mb) {
          return c == 0 || forwardEnd[c - 1][mb] <= t;
        });
      }
      if (c < 0) {
        kind = WorkKind::Weight;
        c = pick(nextWeight,
                 [&](int c, int mb) { return backwardEnd[c][mb] <= t; });
      }
      if (c < 0)
        continue;
      --left;
      switch (kind) {
      case WorkKind::Forward:
        schedule.order[d].push_back(forward(nextForward[c], c));
        forwardEnd[c][nextForward[c]++] = t + 1;
        ++held[d];
        break;
      case WorkKind::Backward:
        schedule.order[d].push_back(backward(nextBackward[c], c));
        backwardEnd[c][nextBackward[c]++] = t + 1;
        break;
      case WorkKind::Weight:
        // Its activations are free from t + 1, the device's next choice.
        schedule.order[d].push_back(weight(nextWeight[c]++, c));
        --held[d];
        break;
      }
    }
    if (left == before)
      return false;
  }
  return true;
}

} // namespace

std::vector<PipelineWork> placer::solver::getStageOrder(PipelineKind kind,
                                                        int warmup,
                                                        int microbatches,
                                                        int chunk, int delay) {
  assert((kind == PipelineKind::GPipe || kind == PipelineKind::OneFOneB ||
          kind == PipelineKind::ZeroBubbleH1) &&
         "one chunk per device");
  int m = microbatches;
  std::vector<PipelineWork> order;
  if (kind == PipelineKind::GPipe) {
    // The backwards in reverse, as GPipe's paper runs them: the last
    // microbatch's is the first ready on the last stage.
    for (int mb = 0; mb < m; ++mb)
      order.push_back(forward(mb, chunk));
    for (int mb = m - 1; mb >= 0; --mb)
      order.push_back(backward(mb, chunk));
    return order;
  }
  // 1F1B; ZB-H1 (Qi et al., ICLR 2024) is its order with each backward
  // split in two and the weight work delayed by `delay` microbatches, so
  // that every stage holds as many microbatches as the first (from forward
  // to weight work): in the steady phase F, B and the weight work of
  // `delay` microbatches before; in the cool-down each B followed by the
  // oldest weight work left, which fills the waits 1F1B has there; then
  // the rest.
  bool split = kind == PipelineKind::ZeroBubbleH1;
  int ahead = std::clamp(warmup, 0, m), weights = 0;
  for (int mb = 0; mb < ahead; ++mb)
    order.push_back(forward(mb, chunk));
  for (int k = 0; k < m - ahead; ++k) {
    order.push_back(forward(ahead + k, chunk));
    order.push_back(backward(k, chunk));
    if (split && k >= delay)
      order.push_back(weight(weights++, chunk));
  }
  for (int mb = m - ahead; mb < m; ++mb) {
    order.push_back(backward(mb, chunk));
    if (split && weights <= mb)
      order.push_back(weight(weights++, chunk));
  }
  while (split && weights < m)
    order.push_back(weight(weights++, chunk));
  return order;
}

PipelineKind placer::solver::getPipelineKind(Schedule schedule) {
  switch (schedule) {
  case Schedule::GPipe:
    return PipelineKind::GPipe;
  case Schedule::ZeroBubbleH1:
    return PipelineKind::ZeroBubbleH1;
  case Schedule::Interleaved:
    return PipelineKind::Interleaved;
  case Schedule::ZeroBubbleV:
    return PipelineKind::ZeroBubbleV;
  case Schedule::OneFOneB:
  case Schedule::Sequential:
  case Schedule::Inference:
    break;
  }
  return PipelineKind::OneFOneB;
}

const char *placer::solver::getName(PipelineKind kind) {
  switch (kind) {
  case PipelineKind::GPipe:
    return "gpipe";
  case PipelineKind::OneFOneB:
    return "1f1b";
  case PipelineKind::Interleaved:
    return "interleaved";
  case PipelineKind::ZeroBubbleH1:
    return "zb-h1";
  case PipelineKind::ZeroBubbleV:
    return "zb-v";
  }
  return "1f1b";
}

double placer::solver::getFillAndDrainChunks(PipelineKind kind, int devices) {
  double fill = std::max(devices - 1, 0);
  switch (kind) {
  case PipelineKind::ZeroBubbleH1:
  case PipelineKind::ZeroBubbleV:
    return fill / 3;
  case PipelineKind::GPipe:
  case PipelineKind::OneFOneB:
  case PipelineKind::Interleaved:
    break;
  }
  return fill;
}

std::optional<PipelineKind>
placer::solver::parsePipelineKind(std::string_view name) {
  for (PipelineKind kind :
       {PipelineKind::GPipe, PipelineKind::OneFOneB, PipelineKind::Interleaved,
        PipelineKind::ZeroBubbleH1, PipelineKind::ZeroBubbleV})
    if (name == getName(kind))
      return kind;
  return std::nullopt;
}

llvm::Expected<PipelineSchedule>
placer::solver::buildPipelineSchedule(PipelineKind kind, int devices,
                                      int microbatches, int chunks) {
  if (devices < 1 || microbatches < 1)
    return scheduleError("needs a device and a microbatch, not " +
                         std::to_string(devices) + " and " +
                         std::to_string(microbatches));
  // The work lists hold 3 pieces per chunk and microbatch.
  if (int64_t(devices) * microbatches * std::max(chunks, 2) > 10'000'000)
    return scheduleError(std::to_string(devices) + " devices x " +
                         std::to_string(microbatches) +
                         " microbatches is more work than a schedule lists");
  PipelineSchedule schedule = oneChunkPerDevice(kind, devices, microbatches);
  switch (kind) {
  case PipelineKind::GPipe:
  case PipelineKind::OneFOneB:
    orderOneChunkPerDevice(schedule);
    break;
  case PipelineKind::ZeroBubbleH1:
    schedule.splitBackward = true;
    orderOneChunkPerDevice(schedule);
    break;
  case PipelineKind::Interleaved:
    if (chunks == 0)
      chunks = 2;
    if (chunks < 2)
      return scheduleError("interleaving needs at least 2 chunks per "
                           "device, not " +
                           std::to_string(chunks));
    if (microbatches % devices != 0)
      return scheduleError("interleaving needs the microbatches (" +
                           std::to_string(microbatches) +
                           ") to be a multiple of the devices (" +
                           std::to_string(devices) + ")");
    schedule.chunksPerDevice = chunks;
    schedule.deviceOfChunk.clear();
    orderInterleaved(schedule);
    break;
  case PipelineKind::ZeroBubbleV: {
    // Two chunks per device in a V: chunk c on device c, then back from the
    // last device to the first, which runs the chunk nearest the loss.
    schedule.splitBackward = true;
    schedule.chunksPerDevice = 2;
    schedule.deviceOfChunk.clear();
    for (int c = 0; c < 2 * devices; ++c)
      schedule.deviceOfChunk.push_back(c < devices ? c : 2 * devices - 1 - c);
    // 1F1B's memory on every device: p microbatches of a whole stage, two
    // chunks each.
    if (!orderZeroBubbleV(schedule, 2 * devices))
      return scheduleError("no ZB-V order for " + std::to_string(devices) +
                           " devices and " + std::to_string(microbatches) +
                           " microbatches");
    break;
  }
  }
  return schedule;
}

double PipelineRun::bubbleRatio() const {
  double total = 0;
  for (double seconds : busy)
    total += seconds;
  return total > 0 ? (makespan * busy.size() - total) / total : 0;
}

double PipelineRun::idleFraction() const {
  double total = 0;
  for (double seconds : busy)
    total += seconds;
  return makespan > 0 ? 1 - total / (makespan * busy.size()) : 0;
}

llvm::Expected<PipelineRun>
placer::solver::runPipelineSchedule(const PipelineSchedule &schedule,
                                    const PipelineTimes &times) {
  int p = schedule.devices, m = schedule.microbatches, n = schedule.chunks();
  if (static_cast<int>(times.chunks.size()) != n)
    return scheduleError("times for " + std::to_string(times.chunks.size()) +
                         " chunks, the schedule has " + std::to_string(n));
  if (static_cast<int>(schedule.order.size()) != p ||
      llvm::any_of(schedule.deviceOfChunk,
                   [&](int d) { return d < 0 || d >= p; }))
    return scheduleError("the orders do not match the devices");
  // Each piece of work once, on its chunk's device.
  std::vector<int> seen(3 * n * m, 0);
  auto indexOf = [&](const PipelineWork &work) {
    return (static_cast<int>(work.kind) * n + work.chunk) * m + work.microbatch;
  };
  int expected = (schedule.splitBackward ? 3 : 2) * n * m, listed = 0;
  for (auto [d, order] : llvm::enumerate(schedule.order))
    for (const PipelineWork &work : order) {
      if (work.chunk < 0 || work.chunk >= n || work.microbatch < 0 ||
          work.microbatch >= m ||
          schedule.deviceOfChunk[work.chunk] != int(d) ||
          (work.kind == WorkKind::Weight && !schedule.splitBackward) ||
          seen[indexOf(work)]++)
        return scheduleError("device " + std::to_string(d) +
                             " lists work of chunk " +
                             std::to_string(work.chunk) + " for microbatch " +
                             std::to_string(work.microbatch) +
                             " that is not its own or listed twice");
      ++listed;
    }
  if (listed != expected)
    return scheduleError("the orders list " + std::to_string(listed) +
                         " pieces of work, not " + std::to_string(expected));

  constexpr double kNotYet = -1;
  std::vector<double> end(3 * n * m, kNotYet);
  auto endOf = [&](WorkKind kind, int mb, int c) {
    return end[indexOf({kind, mb, c})];
  };
  PipelineRun run;
  run.times.resize(p);
  run.busy.assign(p, 0);
  std::vector<size_t> next(p, 0);
  std::vector<double> free(p, 0);
  // Each device's next work starts once the device is free and what it
  // reads is done; the orders are fixed, so the sweep's order does not
  // matter.
  for (bool progress = true; progress;) {
    progress = false;
    for (int d = 0; d < p; ++d)
      while (next[d] < schedule.order[d].size()) {
        const PipelineWork &work = schedule.order[d][next[d]];
        int c = work.chunk, mb = work.microbatch;
        auto arrival = [&](WorkKind kind, int chunk) {
          double done = endOf(kind, mb, chunk);
          if (done == kNotYet)
            return kNotYet;
          return schedule.deviceOfChunk[chunk] == d ? done
                                                    : done + times.transfer;
        };
        std::vector<double> inputs;
        double seconds = 0;
        const ChunkTimes &chunk = times.chunks[c];
        switch (work.kind) {
        case WorkKind::Forward:
          if (c > 0)
            inputs.push_back(arrival(WorkKind::Forward, c - 1));
          seconds = chunk.forward;
          break;
        case WorkKind::Backward:
          inputs.push_back(arrival(WorkKind::Forward, c));
          if (c + 1 < n)
            inputs.push_back(arrival(WorkKind::Backward, c + 1));
          seconds =
              chunk.backward + (schedule.splitBackward ? 0.0 : chunk.weight);
          break;
        case WorkKind::Weight:
          inputs.push_back(arrival(WorkKind::Backward, c));
          seconds = chunk.weight;
          break;
        }
        if (llvm::is_contained(inputs, kNotYet))
          break;
        double start = free[d];
        for (double ready : inputs)
          start = std::max(start, ready);
        free[d] = start + seconds;
        end[indexOf(work)] = free[d];
        run.times[d].emplace_back(start, free[d]);
        run.busy[d] += seconds;
        run.makespan = std::max(run.makespan, free[d]);
        ++next[d];
        progress = true;
      }
  }
  // Every device left waiting, so the one at fault is among them.
  std::string stuck;
  for (int d = 0; d < p; ++d)
    if (next[d] < schedule.order[d].size()) {
      const PipelineWork &work = schedule.order[d][next[d]];
      static const char *names[] = {"forward", "backward", "weight"};
      stuck += (stuck.empty() ? "" : "; ") + std::string("device ") +
               std::to_string(d) + " at its " +
               names[static_cast<int>(work.kind)] + " work of chunk " +
               std::to_string(work.chunk) + " for microbatch " +
               std::to_string(work.microbatch);
    }
  if (!stuck.empty())
    return scheduleError("the orders wait on each other forever: " + stuck);

  // Memory: from a forward's start to the end of the backward work that
  // last reads its activations (the weight work where it is apart). Ends
  // before starts at the same instant.
  WorkKind last =
      schedule.splitBackward ? WorkKind::Weight : WorkKind::Backward;
  auto peakOf = [](std::vector<std::pair<double, int>> &events) {
    llvm::sort(events);
    int now = 0, most = 0;
    for (auto [time, change] : events)
      most = std::max(most, now += change);
    return most;
  };
  std::vector<std::vector<std::pair<double, int>>> chunkEvents(n);
  for (int d = 0; d < p; ++d) {
    std::vector<std::pair<double, int>> events;
    for (auto [work, span] : llvm::zip(schedule.order[d], run.times[d])) {
      std::pair<double, int> event;
      if (work.kind == WorkKind::Forward)
        event = {span.first, +1};
      else if (work.kind == last)
        event = {span.second, -1};
      else
        continue;
      events.push_back(event);
      chunkEvents[work.chunk].push_back(event);
    }
    run.peakInFlight.push_back(peakOf(events));
  }
  for (std::vector<std::pair<double, int>> &events : chunkEvents)
    run.peakPerChunk.push_back(peakOf(events));
  return run;
}
