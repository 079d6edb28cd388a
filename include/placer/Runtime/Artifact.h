//===- Artifact.h - A compiled program as a folder ---------------*- C++ -*-===//
//
// Plain C++ (no LLVM, no MLIR). A compiled module, whole or one stage of a
// split module, is a folder that a runtime without the compiler runs:
//
//   manifest.json   entry, inputs / weights / outputs (dtype, shape), device
//                   kind, target, the weights file, Placer's and LLVM's
//                   versions
//   program.so      the code (linked against libplacer_rt by name, with run
//                   path $ORIGIN: nothing from the build tree by path)
//   weights.bin     every weight's bytes at the manifest's offsets, read at
//                   load time: the code holds no weights, so retrained
//                   weights need no recompilation
//
// A split module is a folder of such folders, `stage-<k>`, plus
// program.json (a ProgramShape): which stage each MPI rank runs and where
// every graph output is computed (docs/Execution.md, "Artifacts").
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_RUNTIME_ARTIFACT_H
#define PLACER_RUNTIME_ARTIFACT_H

#include "placer/Runtime/Executable.h"

#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace placer::runtime {

/// The Placer version artifacts are written and read by (CMake's project
/// version): an artifact of another version is refused.
const char *getPlacerVersion();

/// Reads or writes a whole file; on failure false, and `error` names the
/// path ("cannot read PATH").
bool readTextFile(const std::string &path, std::string &text,
                  std::string &error);
bool writeTextFile(const std::string &path, const std::string &text,
                   std::string &error);

/// manifest.json of an artifact folder.
struct Manifest {
  static constexpr int64_t kFormatVersion = 1;
  std::string placerVersion;
  /// The LLVM that generated the code (informational).
  std::string llvmVersion;
  /// The shared object, relative to the folder.
  std::string library = "program.so";
  /// The entry function (its C interface, called through placer_invoke).
  std::string entry;
  /// The device kind the code is for ("cpu" or "gpu") and the host's
  /// target triple and CPU.
  std::string deviceKind = "cpu", target, cpu;
  /// GPU code: the NVIDIA chip of the PTX inside the library (empty for CPU
  /// code), the math its library calls may use ("fp32" or "tf32"), and the
  /// precision its products compute in ("fp32", or "bf16" and "fp16" of
  /// placer-autocast: weights stored so, inputs and outputs still f32).
  std::string gpuChip, mathMode = "fp32", precision = "fp32";
  /// The stage of a split module this folder holds, or -1 for a whole one.
  int64_t stage = -1;
  /// The transfers the stage's code makes (pipelined or blocking).
  std::string transfers = "pipelined";
  std::vector<TensorSpec> inputs, weights, outputs;
  /// The weights file, relative to the folder, and each weight's offset in
  /// it (64-byte aligned).
  std::string weightsFile = "weights.bin";
  std::vector<int64_t> weightOffsets;
  int64_t weightsBytes = 0;
  /// Profiled code: the node names, indexed by the hooks' node numbers.
  std::vector<std::string> profileNodes;
};

/// Where weight i starts in the weights file: 64-byte aligned offsets in
/// order. Also sets the manifest's total.
void layOutWeights(Manifest &manifest);

/// The manifest as JSON text, and back. Parsing names the file and the
/// field of any problem ("DIR/manifest.json: inputs[0].shape: ..."), and
/// refuses a manifest of another format or Placer version.
std::string printManifest(const Manifest &manifest);
std::optional<Manifest> parseManifest(const std::string &text,
                                      const std::string &path,
                                      std::string &error);
/// program.json of a split artifact: what describeProgram tells of the
/// module, so that the ranks can pick their stages without it.
std::string printProgramManifest(const ProgramShape &program);
std::optional<ProgramShape> parseProgramManifest(const std::string &text,
                                                 const std::string &path,
                                                 std::string &error);

/// Whether `dir` holds a split artifact (program.json) rather than a whole
/// one (manifest.json).
bool isSplitArtifact(const std::string &dir);
/// `dir`/stage-<stage>.
std::string getStageFolder(const std::string &dir, int64_t stage);

/// Writes the folder: the manifest (with the weights laid out), the
/// weights' bytes, and a copy of the compiled library at `libraryPath`.
/// `weights[i]` holds manifest.weights[i]'s bytes.
bool writeArtifact(const std::string &dir, Manifest manifest,
                   const std::vector<const Buffer *> &weights,
                   const std::string &libraryPath, std::string &error);
bool writeProgramManifest(const std::string &dir, const ProgramShape &program,
                          std::string &error);

/// A loaded artifact: its manifest, its weights in aligned buffers, and
/// its code.
struct LoadedArtifact {
  Manifest manifest;
  std::vector<Buffer> weights;
  Executable executable;
  std::string libraryPath;
};

/// Reads `dir`/manifest.json, the weights file (a missing or truncated one
/// is an error naming it and the weight) and loads the code.
std::optional<LoadedArtifact> loadArtifact(const std::string &dir,
                                           std::string &error);
std::optional<ProgramShape> readProgramManifest(const std::string &dir,
                                                std::string &error);

} // namespace placer::runtime

#endif // PLACER_RUNTIME_ARTIFACT_H
