//===- Launch.h - What placer-run does with a loaded program -----*- C++ -*-===//
//
// Plain C++ (no LLVM, no MLIR). Both runners are shells over this: the full
// placer-run, which also compiles modules (Session.h), and the runtime-only
// placer-run of `cmake -DPLACER_RUNTIME_ONLY=ON`, which runs artifact
// folders only. Given the command line's settings and a loaded program, a
// launch reads the inputs (.npy files, or seeded values), runs and times the
// program (one stage per MPI rank under mpirun), and writes the outputs, the
// profile and the report. docs/Execution.md describes the files.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_RUNTIME_LAUNCH_H
#define PLACER_RUNTIME_LAUNCH_H

#include "placer/Runtime/Program.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace placer::runtime {

/// placer-run's settings (its --help says what each means).
struct LaunchOptions {
  /// MODEL.mlir or an artifact folder.
  std::string model;
  /// --input NAME=FILE.npy, by name.
  std::map<std::string, std::string> inputs;
  uint64_t seed = 0;
  std::string outputDir, profile, profileKind = "cpu", report;
  unsigned repeat = 0;
  int64_t microbatches = 1;
  int64_t threads = 1;
  double transferTimeout = 60.0;
  /// A training step's optimizer steps (0: not training), and where the
  /// weights go after the last.
  int64_t trainSteps = 0;
  std::string saveWeights;
};

/// Checks the settings that do not depend on the model; `inputFlags` are
/// the --input values, NAME=FILE.npy.
bool parseLaunchOptions(const std::vector<std::string> &inputFlags,
                        LaunchOptions &options, std::string &error);

/// Under mpirun every rank must run the same model with the same flags: a
/// hash of the model (an artifact's program.json) and the arguments.
uint64_t getLaunchIdentity(const std::string &model, int argc, char **argv);

/// A program ready to run and what its report tells besides the runs.
struct Launch {
  Program *program = nullptr;
  /// The graph's inputs and outputs and, when split, the ranks' stages.
  ProgramShape shape;
  /// For a split module with costs: the simulator's prediction.
  std::optional<Simulated> simulated;
  bool cached = true;
  double compileSeconds = 0;
};

/// Opens an artifact folder: a whole program, or under a distributed `job`
/// the stage of this rank in a split one (the job gets its stage). Sets
/// `launch` to the opened program, which the result owns.
std::unique_ptr<Program> openArtifact(const LaunchOptions &options, MpiJob *job,
                                      uint64_t identity, Launch &launch,
                                      std::string &error);

/// Inputs, runs, outputs, profile, printed times and report.
bool runLaunch(const Launch &launch, const LaunchOptions &options, MpiJob *job,
               std::string &error);

/// Prints "placer-run: error: [rank R: ]MESSAGE" in one write and returns
/// the exit code; under a distributed job, ends every rank of it (a failing
/// rank's peers would wait for it otherwise).
int failLaunch(const std::string &message, const MpiJob *job);

} // namespace placer::runtime

#endif // PLACER_RUNTIME_LAUNCH_H
