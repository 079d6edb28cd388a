//===- Program.h - A compiled program, loaded and run ------------*- C++ -*-===//
//
// Plain C++ (no LLVM, no MLIR): the part of the runtime that both the
// compiler's Session and the runtime-only runner use. A Program is compiled
// code loaded into this process with its interface and weights; it binds
// the caller's buffers, runs every microbatch, times and profiles the runs.
// Under MPI an `MpiJob` says which stage this rank runs; the Program then
// runs its share of a pipelined pass and the job gathers every rank's
// figures.
//
// Nothing here exits or aborts on bad input: a failure returns false or
// nothing and sets `error` to the message a user reads.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_RUNTIME_PROGRAM_H
#define PLACER_RUNTIME_PROGRAM_H

#include "placer/Runtime/Executable.h"
#include "placer/Runtime/GpuRuntime.h"

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace placer::runtime {

/// A tensor in memory the caller owns: element type (MLIR spelling: f32,
/// i64, i1 ...), shape and data, C order.
struct HostTensor {
  std::string elementType;
  std::vector<int64_t> shape;
  void *data = nullptr;
};

/// What a rank measured over its timed runs, averaged per run.
struct RankFigures {
  double compute = 0, recvWait = 0, sendWait = 0;
  double bytesSent = 0, messagesSent = 0, bytesReceived = 0;
  /// The process's peak resident memory so far (bytes).
  double peakResident = 0;
  static constexpr int kCount = 7;
  /// Adds `weight` times the last distributed run's figures (it ran from
  /// `start` to `end`): weight 1/N over N runs gives their mean.
  void addRun(double start, double end, double weight);
  std::array<double, kCount> pack() const;
  static RankFigures unpack(const double *values);
};

/// This process's peak resident memory so far, in bytes (0 if unknown).
double getPeakResidentBytes();

/// The timed runs: each run's start and end, and this rank's figures; after
/// MpiJob::gather on rank 0, the whole pipeline's runs and every rank's.
struct Timing {
  std::vector<double> starts, ends;
  RankFigures mine;
  std::vector<RankFigures> ranks;
};

/// This process's place in an MPI job: its rank, and which copy of which
/// stage it runs (copy c of r takes the microbatches m with m mod r = c).
/// MPI state is per process: at most one job at a time.
class MpiJob {
public:
  /// Whether an MPI launcher (mpirun) started this process.
  static bool launchedByMpi();
  /// Starts MPI. Transfers that wait longer than `transferTimeout` seconds
  /// fail the job.
  static std::unique_ptr<MpiJob>
  start(int *argc, char ***argv, double transferTimeout, std::string &error);
  ~MpiJob();
  MpiJob(const MpiJob &) = delete;
  MpiJob &operator=(const MpiJob &) = delete;

  int getRank() const { return rank; }
  int getSize() const { return size; }
  /// More than one rank: the ranks run the stages of a split program.
  bool isDistributed() const { return size > 1; }
  int64_t getStage() const { return stage; }
  int64_t getReplicas() const { return replicas; }
  int64_t getCopy() const { return copy; }
  bool runs(int64_t microbatch) const { return microbatch % replicas == copy; }

  /// Checks that the program is split with one rank per device (copies of
  /// replicated stages included) and that every rank was started with the
  /// same `identity` (a hash of model and flags); picks this rank's stage.
  bool assignStage(const ProgramShape &program, uint64_t identity,
                   std::string &error);
  /// On rank 0: the pipeline's runs from the earliest start to the latest
  /// end over all ranks, and every rank's figures (a collective).
  bool gather(Timing &timing, std::string &error) const;
  /// The whole training state of which `slice` is this rank's part
  /// (`spec.shard`), from every member of its tensor-parallel group: a
  /// collective that each member calls at the same point.
  std::vector<uint8_t> gatherShard(const TensorSpec &spec,
                                   const uint8_t *slice) const;
  /// Ends every rank of the job with `code`: a failing rank's peers would
  /// wait for it otherwise.
  [[noreturn]] void abort(int code) const;
  double now() const;

private:
  MpiJob() = default;
  int rank = 0, size = 1;
  int64_t stage = 0, replicas = 1, copy = 0;
};

/// How a program runs.
struct ProgramOptions {
  /// Time every node's code: the code must be compiled with profiling.
  bool profile = false;
  /// Microbatches per run: inputs and outputs hold them stacked on the
  /// first axis.
  int64_t microbatches = 1;
  /// Threads of the code's parallel loops (the images of a batch).
  int64_t threads = 1;
  /// The MPI job this process is a rank of, when it runs one stage of a
  /// split program; null: the program runs whole here. Must outlive the
  /// program.
  const MpiJob *job = nullptr;
};

/// Whether `options` can run: at least one microbatch, and no profile of
/// one stage (a profile times the model whole). The one check of these,
/// made before any compiling or loading.
bool checkProgramOptions(const ProgramOptions &options, std::string &error);

/// Compiled code loaded with its interface and weights.
class Program {
public:
  /// `module` describes `executable`'s entry and holds its weights.
  static std::unique_ptr<Program> create(LoweredModule module,
                                         Executable executable,
                                         const ProgramOptions &options,
                                         std::string &error);
  /// Loads an artifact folder (Artifact.h): its code, interface and
  /// weights. The folder must hold the stage the options' job runs (or a
  /// whole program without one), and be profiled iff the options profile.
  static std::unique_ptr<Program> open(const std::string &dir,
                                       const ProgramOptions &options,
                                       std::string &error);

  const std::string &getFunction() const { return module.function; }
  const LoweredModule &getModule() const { return module; }
  const ProgramOptions &getOptions() const { return options; }
  const std::string &getTransfers() const { return module.transfers; }
  int64_t getMicrobatches() const { return options.microbatches; }
  /// The threads the code's oneDNN calls and parallel loops run on:
  /// ProgramOptions::threads, or 1 for code linked to no OpenMP runtime.
  int getThreads() const { return threads; }
  /// The entry's inputs and outputs (for one microbatch): with dynamic
  /// dims, the sizes the last setInputShapes or bind gave them (-1 before).
  const std::vector<TensorSpec> &getInputs() const { return inputs; }
  const std::vector<TensorSpec> &getOutputs() const { return outputs; }
  /// Whether an input or output has dynamic dims: the code was compiled
  /// once for any size; each bind gives the sizes of its run.
  bool hasDynamicDims() const;
  /// Sets every dynamic dim from the shapes of the inputs the caller will
  /// bind (in the entry's order), so that getInputs/getOutputs give the
  /// sizes of their buffers. Fails when a shape does not fit its input or
  /// two inputs give one symbol different sizes. A no-op check for static
  /// programs.
  bool setInputShapes(const std::vector<std::vector<int64_t>> &shapes,
                      std::string &error);
  /// Every microbatch's tensor, stacked: [M * d0, ...], or [M] for a scalar.
  std::vector<int64_t> getStackedShape(const TensorSpec &spec) const;
  /// Whether a caller's tensor of `shape` holds the M microbatches of
  /// `spec`: [M * d0, ...] (concatenated) and [M, d0, ...] (np.stack) hold
  /// the same bytes; for M = 1 so does the spec's own shape.
  bool acceptsShape(const TensorSpec &spec,
                    const std::vector<int64_t> &shape) const;
  /// "[32, 32] (4 microbatches of [8, 32])", as messages describe the
  /// tensor a caller gives.
  std::string describeShape(const TensorSpec &spec) const;
  int64_t getStackedBytes(const TensorSpec &spec) const;

  /// Binds one caller tensor per input and per output, in the entry's
  /// order, each holding every microbatch (see acceptsShape), of the spec's
  /// element type. The memory must outlive the runs.
  bool bind(const std::vector<HostTensor> &inputs,
            const std::vector<HostTensor> &outputs, std::string &error);
  /// Runs every microbatch once (under a distributed job: one pipelined
  /// pass, this rank computing its copy's microbatches). Returns the start
  /// and end time.
  std::optional<std::pair<double, double>> run(std::string &error);
  /// One warm-up run, then `runs` timed ones (profile counters start after
  /// the warm-up).
  std::optional<Timing> measure(unsigned runs, std::string &error);
  /// Copies `bytes` into the weight named `name` (a training step's next
  /// value of it), which the following runs read. CPU programs only.
  bool setWeight(const std::string &name, const void *data, size_t bytes,
                 std::string &error);
  /// After measure() of a profiling program: node name -> mean seconds per
  /// microbatch. Nodes sharing a name share the mean of their times.
  std::map<std::string, double> getProfile(unsigned runs) const;
  /// The number of profiled nodes and the seconds inside them per run.
  std::pair<size_t, double> getProfileTotal(unsigned runs) const;
  /// Under a distributed job, after the runs: the copies of a replicated
  /// stage send their microbatches' outputs to its first rank.
  bool collectOutputs(std::string &error);

  ~Program();

private:
  Program(LoweredModule module, Executable executable,
          const ProgramOptions &options);
  LoweredModule module;
  Executable executable;
  ProgramOptions options;
  /// module.inputs and outputs with this run's sizes for dynamic dims.
  std::vector<TensorSpec> inputs, outputs;
  int threads = 1;
  /// One bound call per microbatch (weights are shared).
  std::vector<Executable::Arguments> calls;
  std::vector<uint8_t *> boundOutputs;
  /// The weights as the code takes them: host buffers, or for GPU code
  /// their copies in device memory.
  std::vector<uint8_t *> weightPointers;
  GpuRuntime *gpu = nullptr;
  std::vector<GpuRuntime::DevicePointer> deviceWeights;
  /// GPU code: the bound inputs and outputs, page-locked while bound.
  std::vector<GpuRuntime::PinnedPointer> pinned;
  bool placeWeights(std::string &error);
  /// The compiled program's profile counters and transfers are process
  /// state: one run at a time.
  std::mutex running;
  double now() const;
  std::optional<std::pair<double, double>> runOnce(std::string &error);
};

/// "[8, 32]", as messages show shapes.
std::string formatShape(const std::vector<int64_t> &shape);
/// A spec's shape with its dynamic dims by name: "[batch, 3, 224, 224]".
std::string formatDims(const TensorSpec &spec);

/// Every microbatch of a tensor of `shape`, stacked on the first axis:
/// [M * d0, ...], or [M] for a scalar (the tensor itself for M = 1).
std::vector<int64_t> stackShape(const std::vector<int64_t> &shape,
                                int64_t microbatches);

/// Seeded values for an input of `microbatches` stacked microbatches:
/// floats uniform in [-1, 1), integers in [0, 10), booleans; one stream per
/// graph input, so that a rank holding some inputs draws the same values as
/// the whole model.
void fillSeeded(uint8_t *data, const TensorSpec &spec, int64_t microbatches,
                uint64_t seed);

/// Median and minimum seconds per run over the timed runs (a run: every
/// microbatch once; per microbatch when `microbatches` > 1).
struct TimeSummary {
  size_t runs = 0;
  double min = 0, median = 0;
};
TimeSummary summarizeTimes(const Timing &timing, int64_t microbatches);

/// What the simulator predicts for a pass of a split program: its total
/// seconds and the steady state's seconds per sample.
struct Simulated {
  double total = 0, perSample = 0;
  /// The cluster the module's costs price ("default: 8 x v100"), and
  /// whether its devices are accelerators: a CPU run is then on other
  /// hardware than the one simulated, which the report says.
  std::string cluster;
  bool onAccelerators = false;
};

/// The simulator's prediction beside a measured run of a split program.
struct Prediction {
  /// Simulated seconds per run (one microbatch), its steady state and the
  /// whole pass.
  double perRun = 0, steadyPerRun = 0, total = 0;
  /// Measured median over predicted (0 without a prediction).
  double measuredOverSimulated = 0;
  /// Simulated::cluster and Simulated::onAccelerators.
  std::string cluster;
  bool onAccelerators = false;
};
Prediction predict(const Simulated &simulated, int64_t microbatches,
                   const TimeSummary &measured);

} // namespace placer::runtime

#endif // PLACER_RUNTIME_PROGRAM_H
