//===- PipelineSchedule.h - Per-device orders of pipeline work --*- C++ -*-===//
//
// The pipeline schedules training stacks use, in one place: for p devices
// and m microbatches, each schedule's order of work per device (forward F,
// backward B and, where the backward is split, the weight-gradient part W)
// over the model's chunks, and a run of those orders under given times that
// says when each piece of work starts, how long each device idles and how
// many microbatches each holds. GPipe and 1F1B (one chunk per device),
// interleaved 1F1B (v chunks per device, placed round-robin, Megatron-LM's
// order), ZB-H1 (1F1B's chunks with W deferred into the bubbles) and ZB-V
// (two chunks per device in a V). Plain C++ (LLVM support only), like the
// rest of the solver library; docs/Schedules.md has the orders and why.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_SOLVER_PIPELINESCHEDULE_H
#define PLACER_SOLVER_PIPELINESCHEDULE_H

#include "placer/Solver/Schedule.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string_view>
#include <vector>

namespace placer::solver {

enum class PipelineKind {
  GPipe,
  OneFOneB,
  Interleaved,
  ZeroBubbleH1,
  ZeroBubbleV
};

const char *getName(PipelineKind kind);
/// The kind of a placement's training schedule: GPipe, ZB-H1, or 1F1B for
/// 1F1B and Sequential (1F1B with no forward ahead: each microbatch through
/// the step before the next).
PipelineKind getPipelineKind(Schedule schedule);
/// "gpipe" | "1f1b" | "interleaved" | "zb-h1" | "zb-v".
std::optional<PipelineKind> parsePipelineKind(std::string_view name);

enum class WorkKind {
  Forward,
  /// The backward pass of a chunk; only its input gradients where the
  /// schedule splits the backward (then Weight follows).
  Backward,
  /// The weight gradients of a chunk's backward pass (zero-bubble
  /// schedules), which nothing later in the pipeline waits for.
  Weight,
};

/// One piece of work: a chunk of the model for one microbatch.
struct PipelineWork {
  WorkKind kind = WorkKind::Forward;
  int microbatch = 0;
  int chunk = 0;
  bool operator==(const PipelineWork &other) const {
    return kind == other.kind && microbatch == other.microbatch &&
           chunk == other.chunk;
  }
};

/// A schedule for p devices and m microbatches. The model is cut into
/// `deviceOfChunk.size()` contiguous chunks in pipeline order; chunk c runs
/// on device deviceOfChunk[c]. Each device runs `order[d]` in that order.
struct PipelineSchedule {
  PipelineKind kind = PipelineKind::OneFOneB;
  int devices = 0, microbatches = 0;
  /// Chunks per device (1 but for interleaved and ZB-V).
  int chunksPerDevice = 1;
  /// Whether the backward is split into Backward and Weight work.
  bool splitBackward = false;
  std::vector<int> deviceOfChunk;
  std::vector<std::vector<PipelineWork>> order;

  int chunks() const { return static_cast<int>(deviceOfChunk.size()); }
};

/// The order of one stage's work under GPipe, 1F1B or ZB-H1 (one chunk per
/// device, the chunk `chunk`) when `warmup` stages follow it on its longest
/// path to the loss (p - d - 1 in a chain; a placement's stages may branch)
/// and `delay` precede it (d in a chain): GPipe every forward then every
/// backward in reverse, 1F1B `warmup` forwards ahead, then one forward and
/// one backward in turn, then the backwards left; ZB-H1 1F1B's order with
/// each stage's weight work `delay` microbatches behind its backward work.
/// The simulator and --placer-accumulate-microbatches order a stage's work
/// by it, so both run the same order.
std::vector<PipelineWork> getStageOrder(PipelineKind kind, int warmup,
                                        int microbatches, int chunk = 0,
                                        int delay = 0);

/// The schedule of `kind` for `devices` and `microbatches` (`chunks` per
/// device for interleaved: at least 2, 2 by default; ignored otherwise), or
/// an error naming what does not fit (interleaving needs the microbatches
/// to be a multiple of the devices, as Megatron-LM's order does).
llvm::Expected<PipelineSchedule> buildPipelineSchedule(PipelineKind kind,
                                                       int devices,
                                                       int microbatches,
                                                       int chunks = 0);

/// The schedule's fill and drain in units of its chunk's work (F + B + W of
/// one chunk for one microbatch) on `devices` devices, with every chunk
/// alike and F = B = W: an iteration of M microbatches takes M x (a
/// device's work per microbatch) + this x (a chunk's). (p - 1) for GPipe,
/// 1F1B and interleaved 1F1B (whose chunks are 1/v of a device's work:
/// the bubbles (p - 1)/M and (p - 1)/(vM)), (p - 1)/3 for ZB-H1 and ZB-V
/// (the weight work fills two thirds of it). The chunked program prices a
/// split by it, its largest chunk standing for the chunk
/// (docs/IntegerPrograms.md, "Chunks").
double getFillAndDrainChunks(PipelineKind kind, int devices);

/// Seconds of each piece of work of a chunk, for one microbatch. Where the
/// schedule does not split the backward, Backward work takes backward +
/// weight.
struct ChunkTimes {
  double forward = 1, backward = 1, weight = 0;
};

/// How long each chunk's work takes, and a transfer between two devices
/// (an activation forward, its gradient back; 0 on one device).
struct PipelineTimes {
  std::vector<ChunkTimes> chunks;
  double transfer = 0;

  /// Every chunk alike.
  static PipelineTimes uniform(int chunks, ChunkTimes times,
                               double transfer = 0) {
    return {std::vector<ChunkTimes>(chunks, times), transfer};
  }
  /// Each chunk's times from its whole work per microbatch, split as a
  /// training step's work splits when nothing finer is known: a third
  /// forward, a third input gradients, a third weight gradients (the
  /// backward pass does twice the forward's arithmetic, half of it for the
  /// weights).
  static PipelineTimes fromLoads(const std::vector<double> &loads) {
    PipelineTimes times;
    for (double load : loads)
      times.chunks.push_back({load / 3, load / 3, load / 3});
    return times;
  }
};

/// A schedule run: each device takes its work in order, each piece as soon
/// as the device is free and what it needs is done (a chunk's forward the
/// previous chunk's, its backward the next chunk's backward, or its own
/// forward for the last chunk; its weight work its backward), plus the
/// transfer where the two chunks sit on different devices.
struct PipelineRun {
  /// Per device, the start and end of each piece of its order.
  std::vector<std::vector<std::pair<double, double>>> times;
  /// From the first start to the last end.
  double makespan = 0;
  /// Per device: seconds busy, and the most microbatch-chunks whose
  /// activations it holds at once, from a forward's start to the end of the
  /// backward work that last reads them (the weight work where it is
  /// apart: it reads the layers' inputs).
  std::vector<double> busy;
  std::vector<int> peakInFlight;
  /// Per chunk: the most of its microbatches held at once (their sum over
  /// a device's chunks bounds the device's peak from above: each chunk may
  /// peak at another time).
  std::vector<int> peakPerChunk;

  /// Idle over busy device time: the pipeline's bubble as the schedules'
  /// papers count it (1F1B's is (p - 1) / m when forward and backward take
  /// as long on every device).
  double bubbleRatio() const;
  /// Idle over all device time, 1 - busy / (devices x makespan).
  double idleFraction() const;
};

/// Runs `schedule` under `times` (one entry per chunk), or an error naming
/// the device and work that can never start (an order that waits on
/// itself) or times that do not match the chunks.
llvm::Expected<PipelineRun>
runPipelineSchedule(const PipelineSchedule &schedule,
                    const PipelineTimes &times);

} // namespace placer::solver

#endif // PLACER_SOLVER_PIPELINESCHEDULE_H
