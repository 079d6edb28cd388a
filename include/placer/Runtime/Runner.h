//===- Runner.h - Compile a graph module and run it on this machine -*- C++ -*-===//
//
// The pieces a Session (Session.h) is made of: lower a graph module to the
// LLVM dialect while keeping its weights out of the code, compile it ahead
// of time into a cached shared object, and call its entry function on host
// buffers.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_RUNTIME_RUNNER_H
#define PLACER_RUNTIME_RUNNER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace placer::runtime {

/// One tensor of the entry function's interface.
struct TensorSpec {
  std::string name;
  /// Which graph input / output it is (a stage function has a subset).
  int64_t graphIndex = 0;
  std::string elementType; ///< MLIR spelling: f32, i64, i1, ...
  int64_t elementBytes = 0; ///< in memory (i1 takes a byte, as LLVM stores it)
  std::vector<int64_t> shape;
  int64_t getNumElements() const;
  int64_t getByteSize() const { return getNumElements() * elementBytes; }
};

/// An aligned host buffer.
class Buffer {
public:
  explicit Buffer(int64_t bytes);
  uint8_t *data() { return storage.get(); }
  const uint8_t *data() const { return storage.get(); }
  int64_t size() const { return bytes; }

private:
  struct Free {
    void operator()(uint8_t *p) const;
  };
  std::unique_ptr<uint8_t, Free> storage;
  int64_t bytes;
};

/// A module lowered for execution: inputs, weights (with their bytes) and
/// outputs of the entry function, in the order it takes them.
struct LoweredModule {
  std::string function;
  std::vector<TensorSpec> inputs, weights, outputs;
  std::vector<Buffer> weightData;
  /// Profiled modules: the node names, indexed by the hooks' node numbers.
  std::vector<std::string> profileNodes;
};

/// How a module is lowered for execution.
struct ExecutionOptions {
  /// Time every node's code (placer_profile_enter/exit).
  bool profile = false;
  /// -1: merge a split module and run it whole. Otherwise the stage (MPI
  /// rank) of a split module to compile alone, with its transfers.
  int64_t stage = -1;
  /// --placer-lower-dist-to-mpi's `transfers`: pipelined or blocking.
  std::string transfers = "pipelined";
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

/// A loaded shared object's entry point, bound to its argument buffers.
class Executable {
public:
  static llvm::Expected<Executable> load(llvm::StringRef path,
                                         llvm::StringRef function);
  /// The entry's arguments bound to memory: one ranked memref descriptor
  /// per argument and a pointer to each, built once so that timed runs
  /// only call.
  class Arguments {
    friend class Executable;
    std::vector<std::vector<int64_t>> descriptors;
    std::vector<void *> pointers;
  };
  /// Binds one array per argument (inputs, weights, then outputs), each
  /// shaped as `specs` says; the memory must outlive the runs.
  static Arguments bind(const std::vector<uint8_t *> &data,
                        const std::vector<const TensorSpec *> &specs);
  /// Calls the entry on bound arguments.
  void run(Arguments &arguments) const { invoke(arguments.pointers.data()); }

private:
  using Invoke = void (*)(void **);
  Invoke invoke = nullptr;
};

} // namespace placer::runtime

#endif // PLACER_RUNTIME_RUNNER_H
