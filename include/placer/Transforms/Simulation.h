//===- Simulation.h - The simulator as a library call ----------*- C++ -*-===//
//
// --placer-simulate's work, callable without a pass manager or files: runs a
// placed and split module's stages on its cluster model, event by event
// (docs/Simulator.md), and returns the figures. placer-run and the C and
// Python APIs call it directly; the pass prints and writes what it returns.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_TRANSFORMS_SIMULATION_H
#define PLACER_TRANSFORMS_SIMULATION_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace placer {

/// The pass's options, typed.
struct SimulationSettings {
  /// Samples pushed through the pipeline (0: the placement's microbatches
  /// per iteration for training, 1 for inference).
  int64_t microbatches = 0;
  /// Training: gpipe | 1f1b | zb-h1; empty: the placement's, else the
  /// cluster's.
  std::string schedule;
  /// Transfers overlap compute (false: serialized, as the placement model).
  bool overlap = true;
  /// Also draw the timeline (SVG).
  bool timeline = false;
};

struct Simulation {
  /// latency, total, time_per_sample, bubble_fraction, devices, events...
  /// (docs/Simulator.md "Report").
  llvm::json::Object report;
  /// One line: what was simulated and its headline figures.
  std::string summary;
  /// The timeline, when asked for.
  std::string timelineSvg;
};

/// Simulates `module` (one dist.program and a placer.cluster). Failures are
/// error diagnostics on the module's location.
mlir::FailureOr<Simulation> simulate(mlir::ModuleOp module,
                                     const SimulationSettings &settings);

} // namespace placer

#endif // PLACER_TRANSFORMS_SIMULATION_H
