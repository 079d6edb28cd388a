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
  case Schedule::Sequential:
    return "sequential";
  case Schedule::Inference:
    break;
  }
  return "inference";
}

/// "gpipe" | "1f1b": the pipelined training schedules a placement prices
/// ("inference" and "sequential" are not names users give it).
inline std::optional<Schedule> parseTrainingSchedule(std::string_view name) {
  if (name == "gpipe")
    return Schedule::GPipe;
  if (name == "1f1b")
    return Schedule::OneFOneB;
  return std::nullopt;
}

/// A training step's order: a pipelined schedule, or "sequential".
inline std::optional<Schedule> parseStepSchedule(std::string_view name) {
  if (name == "sequential")
    return Schedule::Sequential;
  return parseTrainingSchedule(name);
}

} // namespace placer::solver

#endif // PLACER_SOLVER_SCHEDULE_H
