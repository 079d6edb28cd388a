//===- Runner.h - Compile a graph module for this machine -------*- C++ -*-===//
//
// The pieces a Session (Session.h) is made of: lower a graph module to the
// LLVM dialect while keeping its weights out of the code, compile it ahead
// of time into a cached shared object, and call its entry function on host
// buffers.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_COMPILER_RUNNER_H
#define PLACER_COMPILER_RUNNER_H

#include "placer/Runtime/Executable.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace placer::runtime {

/// How a module is lowered for execution.
struct ExecutionOptions {
  /// Time every node's code (placer_profile_enter/exit).
  bool profile = false;
  /// -1: merge a split module and run it whole. Otherwise the stage (MPI
  /// rank) of a split module to compile alone, with its transfers.
  int64_t stage = -1;
  /// --placer-lower-dist-to-mpi's `transfers`: pipelined or blocking.
  std::string transfers = "pipelined";
  /// --placer-lower-graph-to-linalg's `inline-weights`: false keeps every
  /// model parameter out of the code (artifacts).
  bool inlineWeights = true;
  /// "cpu": this machine; "cpu-portable": a CPU whose runtime may lack
  /// oneDNN and libomp (sequential loops, no library calls); "cuda": an
  /// NVIDIA GPU of `gpuChip`
  /// (buildLowerToNVVMPipeline), library calls with TF32 iff `tf32`.
  std::string target = "cpu";
  std::string gpuChip = "sm_90";
  bool tf32 = false;
  /// The precision GPU code computes in: "fp32", or "bf16" / "fp16" (the
  /// graph through placer-autocast first). CPU stages stay fp32.
  std::string precision = "fp32";
  /// GPU convolutions on NHWC tensors (GpuTarget::channelsLast).
  bool gpuChannelsLast = false;
};

/// Merges a split module (or keeps one stage), lowers graph ops (weights
/// become arguments), loads every weight (inline, dense_resource or external
/// file under the model's folder), and lowers to the LLVM dialect in place.
llvm::Expected<LoweredModule>
lowerForExecution(mlir::ModuleOp module,
                  const ExecutionOptions &options = ExecutionOptions());

/// Compiles `module` (LLVM dialect) to a shared object in `cacheDir`, named
/// by a hash of its LLVM IR, unless it is there already. Returns its path.
llvm::Expected<std::string> compileToSharedObject(mlir::ModuleOp module,
                                                  llvm::StringRef function,
                                                  llvm::StringRef cacheDir,
                                                  bool &cached);

/// The CPU that GPU code's host side is compiled for: the architecture's
/// baseline (x86-64), since it runs on the GPU machine's CPU.
std::string getPortableHostCpu();

} // namespace placer::runtime

#endif // PLACER_COMPILER_RUNNER_H
