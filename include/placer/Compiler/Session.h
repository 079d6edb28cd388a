//===- Session.h - Compile a module once, run it on buffers -----*- C++ -*-===//
//
// The compiler's side of the runtime (lib/Compiler; the runtime in
// lib/Runtime links no MLIR): placer-run, the C API and the Python package
// are shells over it. placer-run, the C API and the Python package are
// shells over it. A Session lowers and compiles a graph module (whole, a
// split module merged back, or one stage of a split module for an MPI rank;
// the compiled code is cached on disk) and loads it as a Program
// (Program.h, plain C++, shared with the runtime-only runner), which binds
// the caller's input and output buffers and runs, times or profiles it.
//
// Nothing here exits or aborts on bad input: every failure is an llvm::Error
// with the message a user reads.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_COMPILER_SESSION_H
#define PLACER_COMPILER_SESSION_H

#include "placer/Compiler/Runner.h"
#include "placer/Runtime/Artifact.h"
#include "placer/Runtime/Program.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace placer::runtime {

/// What a split module looks like to its ranks (Executable.h), read off the
/// module: its graph inputs and outputs, and each rank's stage. An error
/// when an input or output is not a tensor (a sequence, an optional).
llvm::Expected<ProgramShape> describeProgram(mlir::ModuleOp module);

struct SessionOptions {
  /// Time every node's code (placer_profile_enter/exit).
  bool profile = false;
  /// Microbatches per run: inputs and outputs hold them stacked on the
  /// first axis.
  int64_t microbatches = 1;
  /// The module is a training step (--placer-build-training) and its
  /// `microbatches` are slices of one batch whose gradients one run
  /// averages before its update, not separate runs: a step that averages
  /// them already (--placer-accumulate-microbatches, as a split one must)
  /// must average exactly `microbatches`; a whole one gets them
  /// (sequential schedule).
  bool accumulateGradients = false;
  /// Threads of the code's parallel loops (ProgramOptions::threads).
  int64_t threads = 1;
  /// Under a distributed MpiJob: pipelined (non-blocking, double-buffered)
  /// or blocking (upstream mpi.send/recv) transfers.
  std::string transfers = "pipelined";
  /// Compiled code is kept here; empty: the user cache folder, placer/.
  std::string cacheDir;
  /// The MPI job this process is a rank of, when it runs one stage of a
  /// split module; null: the module runs whole here (a split module merged
  /// back). Must outlive the session.
  const MpiJob *job = nullptr;
  /// Without a job: compile only this stage of a split module, with its
  /// transfers (to write its artifact); -1: the whole module.
  int64_t stage = -1;
  /// false: no model parameter is compiled into the code, however small, so
  /// that an artifact's weights file holds them all (compileArtifact).
  bool inlineWeights = true;
  /// Where the code runs: "cpu" (this machine), "cpu-portable" (a CPU whose
  /// runtime may lack oneDNN and libomp; artifacts only) or "cuda" (an
  /// NVIDIA GPU of `gpuChip`; artifacts only). `tf32` lets the GPU library
  /// calls use TF32; `precision` (fp32, bf16, fp16) is what GPU code
  /// computes in (ExecutionOptions::precision).
  std::string target = "cpu";
  std::string gpuChip = "sm_90";
  bool tf32 = false;
  std::string precision = "fp32";
  /// GPU convolutions on NHWC tensors (ExecutionOptions::gpuChannelsLast).
  bool gpuChannelsLast = false;
};

/// Lowers and compiles a copy of `module` and writes it as an artifact
/// folder (Artifact.h): the code, a manifest, and the weights in a file of
/// their own; nothing is loaded, so code for any target can be written. A
/// runtime without the compiler opens it with Program::open. With target
/// "cuda", a stage of a split module whose device is a CPU core of the
/// cluster is CPU code. Returns the manifest written.
llvm::Expected<Manifest> compileArtifact(mlir::ModuleOp module,
                                         const SessionOptions &options,
                                         llvm::StringRef dir);

/// The user's cache folder for compiled programs.
std::string getDefaultCacheDir();

/// A compiled module and the buffers of its runs.
class Session {
public:
  /// Lowers a copy of `module` (the caller's is left as it was), compiles it
  /// or takes it from the cache, and loads it. Lowering errors are also
  /// emitted as diagnostics on the module's context.
  static llvm::Expected<std::unique_ptr<Session>>
  create(mlir::ModuleOp module, const SessionOptions &options);

  /// The loaded program, for callers that drive it themselves.
  Program &getProgram() { return *program; }
  const std::string &getFunction() const { return program->getFunction(); }
  bool isCached() const { return cached; }
  double getCompileSeconds() const { return compileSeconds; }
  int64_t getMicrobatches() const { return program->getMicrobatches(); }
  bool isProfiling() const { return program->getOptions().profile; }
  /// The threads the code's parallel loops run on (Program::getThreads).
  int getThreads() const { return program->getThreads(); }
  /// The entry's inputs and outputs (for one microbatch).
  llvm::ArrayRef<TensorSpec> getInputs() const { return program->getInputs(); }
  llvm::ArrayRef<TensorSpec> getOutputs() const {
    return program->getOutputs();
  }
  /// Program::getStackedShape: [M * d0, ...], or [M] for a scalar.
  std::vector<int64_t> getStackedShape(const TensorSpec &spec) const {
    return program->getStackedShape(spec);
  }

  /// Program::setInputShapes: with dynamic dims, the sizes of the inputs
  /// about to be bound size every input and output.
  llvm::Error setInputShapes(llvm::ArrayRef<std::vector<int64_t>> shapes);

  /// Program::bind, run, measure and getProfile, with errors as
  /// llvm::Error.
  llvm::Error bind(llvm::ArrayRef<HostTensor> inputs,
                   llvm::ArrayRef<HostTensor> outputs);
  llvm::Expected<std::pair<double, double>> run();
  llvm::Expected<Timing> measure(unsigned runs);
  std::map<std::string, double> getProfile(unsigned runs) const {
    return program->getProfile(runs);
  }

private:
  Session() = default;
  bool cached = false;
  double compileSeconds = 0;
  std::unique_ptr<Program> program;
};

/// --placer-simulate on a copy of a split module for `microbatches`
/// samples: its prediction, or nothing when the simulator cannot simulate
/// it (no cluster or costs, a tensor-parallel group's collectives; its
/// diagnostics are dropped).
std::optional<Simulated> simulateQuietly(mlir::ModuleOp module,
                                         int64_t microbatches);

} // namespace placer::runtime

#endif // PLACER_COMPILER_SESSION_H
