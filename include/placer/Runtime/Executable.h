//===- Executable.h - A compiled program, loaded and called ------*- C++ -*-===//
//
// Plain C++ (no LLVM, no MLIR): what both the compiler-side Session and the
// runtime-only runner need to call compiled code: the tensors of an entry
// function's interface, aligned host buffers, and a loaded shared object's
// entry point with its arguments bound.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_RUNTIME_EXECUTABLE_H
#define PLACER_RUNTIME_EXECUTABLE_H

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace placer::runtime {

/// A tensor-parallel member's slice of a training state (placer.shard):
/// along `axis`, `blocks` equal blocks, each cut in `count` equal slices;
/// this rank holds slice `index` of every block. The group's ranks, as
/// compiled for its stages' first copy, are `count` from `firstRank`,
/// `rankStride` apart (copy c's c further).
struct ShardSpec {
  int64_t axis = 0, blocks = 1, index = 0, count = 2;
  int64_t firstRank = 0, rankStride = 1;
};

/// One tensor of the entry function's interface.
struct TensorSpec {
  std::string name;
  /// Which graph input / output it is (a stage function has a subset).
  int64_t graphIndex = 0;
  std::string elementType; ///< MLIR spelling: f32, i64, i1, ...
  int64_t elementBytes = 0; ///< in memory (i1 takes a byte, as LLVM stores it)
  /// -1 for a dynamic dim: its size is known when the program runs.
  std::vector<int64_t> shape;
  /// The symbol of each dynamic dim (`batch`), "" for a fixed one; empty
  /// when the shape is static. Inputs that share a symbol share its size,
  /// and an output's dynamic dims are sizes of the inputs.
  std::vector<std::string> dimNames;
  /// An output of a training step (--placer-build-training): the weight or
  /// optimizer state it is the next value of; empty otherwise.
  std::string updates;
  /// With `updates`: one more device's copy of that state, which another
  /// rank's output updates alike (placer.replica); not saved.
  bool replica = false;
  /// With `updates`: the slice of that state this rank holds, step after
  /// step (placer.shard), and where the rest is.
  std::optional<ShardSpec> shard;
  bool hasDynamicDims() const;
  /// This spec with every dynamic dim set from `sizes` (symbol -> size).
  TensorSpec withSizes(const std::map<std::string, int64_t> &sizes) const;
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

/// A program's interface and parameters as the code takes them: the entry
/// function, then its inputs, weights (with their bytes) and outputs in the
/// order it takes them. The compiler's lowering produces it; an artifact's
/// manifest and weights file hold it.
struct LoweredModule {
  std::string function;
  std::vector<TensorSpec> inputs, weights, outputs;
  std::vector<Buffer> weightData;
  /// Profiled code: the node names, indexed by the hooks' node numbers.
  std::vector<std::string> profileNodes;
  /// The transfers a stage's code makes: pipelined or blocking.
  std::string transfers = "pipelined";
  /// GPU code: the NVIDIA chip its kernels are for (empty: CPU code),
  /// whether its library calls may use TF32, and the precision its
  /// products compute in (fp32, bf16, fp16).
  std::string gpuChip;
  bool tf32 = false;
  std::string precision = "fp32";
};

/// What a program looks like to the ranks that run it: its graph inputs,
/// which stage each rank of a split program runs, and which rank computes
/// (or, for a replicated stage, collects) which graph output. The compiler
/// reads it off a module (describeProgram); a split artifact's program.json
/// holds it.
struct ProgramShape {
  std::vector<std::string> inputNames;
  /// (rank, output name, shape) of every graph output.
  std::vector<std::tuple<int, std::string, std::vector<int64_t>>> outputs;
  /// 0 when the program is not split.
  int64_t stages = 0;
  /// Per rank, the stage it runs.
  std::vector<int64_t> rankStages;
  bool hasInput(const std::string &name) const;
};

/// A loaded shared object's entry point, bound to its argument buffers.
class Executable {
public:
  /// Loads the shared object at `path` (its `placer_invoke` entry, which
  /// calls `function`'s C interface); on failure nothing, and `error` says
  /// why.
  static std::optional<Executable> load(const std::string &path,
                                        const std::string &function,
                                        std::string &error);
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
  /// The threads the code's OpenMP work (oneDNN calls, a dynamic batch's
  /// items) uses. Returns the team size now in effect: 1 for code linked to
  /// no OpenMP runtime (a runtime built without oneDNN), whatever was asked.
  int setThreads(int threads) const;

private:
  using Invoke = void (*)(void **);
  Invoke invoke = nullptr;
  void *handle = nullptr;
};

} // namespace placer::runtime

#endif // PLACER_RUNTIME_EXECUTABLE_H
