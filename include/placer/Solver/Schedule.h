//===- Schedule.h - Objective and pipeline schedule -------------*- C++ -*-===//
//
// The objective and the pipeline schedule, declared once: the solvers price
// a split with them, the cluster model and the placer dialect's attributes
// hold them (#placer.training, #placer.placement, the placer.schedule of a
// training step), the simulator and the runtime order work by them. Plain
// C++ with no dependency, so that every layer can include it.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_SOLVER_SCHEDULE_H
#define PLACER_SOLVER_SCHEDULE_H

#include <optional>
#include <string_view>

namespace placer::solver {

/// What a placement minimises.
enum class Objective {
  /// The largest per-device load: time per sample of a pipeline.
  Throughput,
  /// The time one sample takes through the placed graph.
  Latency,
};

/// How the microbatches of a step run, and so how a pipeline holds
/// activations (docs/Placement.md, "Memory").
enum class Schedule {
  /// One sample at a time: a device holds the peak of its live
  /// activations in the order it runs its nodes (Memory.h).
  Inference,
  /// Training, all forwards then all backwards: every stage stashes the
  /// activations of its forward nodes for all M microbatches.
  GPipe,
  /// Training, one forward one backward (PipeDream-Flush): the stage j
  /// stages from the end (1 for the last) stashes min(j, M) microbatches.
  OneFOneB,
  /// Training, 1F1B with each backward split into its input-gradient part
  /// (B) and its weight-gradient part (W), the stage d stages from the
  /// first delaying its W by d microbatches into the bubbles (Qi et al.,
  /// ZB-H1): every stage of p stashes min(p, M) microbatches, the first
  /// stage's 1F1B figure, for a third of 1F1B's bubble when F = B = W.
  ZeroBubbleH1,
  /// Training, Megatron-LM's interleaved 1F1B: the model cut into v chunks
  /// per accelerator (Problem::chunksPerDevice), chunk c on accelerator c
  /// mod k; a device's load is the sum of its chunks'
  /// (solveChunkedThroughputIP), the bubble (p - 1) / (v M).
  Interleaved,
  /// Training, ZB-V: two chunks per accelerator in a V (chunk c on
  /// accelerator c, then back from the last), backward split as ZB-H1's.
  ZeroBubbleV,
  /// Training without a pipeline: each microbatch's forward and backward
  /// through the whole step before the next one's (the order
  /// --placer-accumulate-microbatches gives a step no placement chose a
  /// schedule for). Not a schedule placement prices.
  Sequential,
};

inline const char *getName(Objective objective) {
  return objective == Objective::Latency ? "latency" : "throughput";
}

/// "throughput" | "latency".
inline std::optional<Objective> parseObjective(std::string_view name) {
  if (name == "throughput")
    return Objective::Throughput;
  if (name == "latency")
    return Objective::Latency;
  return std::nullopt;
}

inline const char *getName(Schedule schedule) {
  switch (schedule) {
  case Schedule::GPipe:
    return "gpipe";
  case Schedule::OneFOneB:
    return "1f1b";
  case Schedule::ZeroBubbleH1:
    return "zb-h1";
  case Schedule::Interleaved:
    return "interleaved";
  case Schedule::ZeroBubbleV:
    return "zb-v";
  case Schedule::Sequential:
    return "sequential";
  case Schedule::Inference:
    break;
  }
  return "inference";
}

/// "gpipe" | "1f1b" | "zb-h1" | "interleaved" | "zb-v": the pipelined
/// training schedules a placement prices ("inference" and "sequential" are
/// not names users give it).
inline std::optional<Schedule> parseTrainingSchedule(std::string_view name) {
  for (Schedule schedule :
       {Schedule::GPipe, Schedule::OneFOneB, Schedule::ZeroBubbleH1,
        Schedule::Interleaved, Schedule::ZeroBubbleV})
    if (name == getName(schedule))
      return schedule;
  return std::nullopt;
}

/// The training schedules' names, for errors that list them.
inline const char *getTrainingScheduleNames() {
  return "gpipe, 1f1b, zb-h1, interleaved or zb-v";
}

/// Whether `schedule` runs each backward pass as two pieces of work, its
/// input gradients (B) and later its weight gradients (W).
inline bool splitsBackward(Schedule schedule) {
  return schedule == Schedule::ZeroBubbleH1 ||
         schedule == Schedule::ZeroBubbleV;
}

/// Whether `schedule` runs several chunks of the model on each
/// accelerator (the placement then chooses a chunk per node).
inline bool usesChunks(Schedule schedule) {
  return schedule == Schedule::Interleaved ||
         schedule == Schedule::ZeroBubbleV;
}

/// Whether a stage's stash depends on the stages after it in pipeline
/// order (1F1B's warm-up), so that the order of stages matters to memory.
inline bool stashFollowsOrder(Schedule schedule) {
  return schedule == Schedule::OneFOneB;
}

/// A training step's order: a pipelined schedule, or "sequential".
inline std::optional<Schedule> parseStepSchedule(std::string_view name) {
  if (name == "sequential")
    return Schedule::Sequential;
  return parseTrainingSchedule(name);
}

} // namespace placer::solver

#endif // PLACER_SOLVER_SCHEDULE_H
