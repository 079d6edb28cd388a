//===- Session.h - Compile a module once, run it on caller buffers -*- C++ -*-===//
//
// The runtime as a library: placer-run, the C API and the Python package are
// shells over it. A Session lowers and compiles a graph module (whole, a
// split module merged back, or one stage of a split module for an MPI rank;
// the compiled code is cached on disk), binds the caller's input and output
// buffers, and runs, times or profiles the program. Under MPI an `MpiJob`
// says which stage this rank runs; the Session then runs its share of a
// pipelined pass and the job gathers every rank's figures.
//
// Nothing here exits or aborts on bad input: every failure is an llvm::Error
// with the message a user reads.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_RUNTIME_SESSION_H
#define PLACER_RUNTIME_SESSION_H

#include "placer/Runtime/Runner.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace placer::runtime {

/// A tensor in memory the caller owns: element type (MLIR spelling: f32,
/// i64, i1 ...), shape and data, C order.
struct HostTensor {
  std::string elementType;
  std::vector<int64_t> shape;
  void *data = nullptr;
};

/// What a module looks like before lowering: its graph inputs, which stage
/// each rank of a split module runs, and which rank computes (or, for a
/// replicated stage, collects) which graph output.
struct ProgramShape {
  std::vector<std::string> inputNames;
  /// (rank, output name, shape) of every graph output.
  std::vector<std::tuple<int, std::string, std::vector<int64_t>>> outputs;
  /// 0 when the module is not split.
  int64_t stages = 0;
  /// Per rank, the stage it runs (dist::ProgramOp::getRankStages).
  std::vector<int64_t> rankStages;
  bool hasInput(llvm::StringRef name) const;
};
ProgramShape describeProgram(mlir::ModuleOp module);

/// What a rank measured over its timed runs, averaged per run.
struct RankFigures {
  double compute = 0, recvWait = 0, sendWait = 0;
  double bytesSent = 0, messagesSent = 0, bytesReceived = 0;
  static constexpr int kCount = 6;
  std::array<double, kCount> pack() const;
  static RankFigures unpack(const double *values);
};

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
  static llvm::Expected<std::unique_ptr<MpiJob>>
  start(int *argc, char ***argv, double transferTimeout);
  ~MpiJob();
  MpiJob(const MpiJob &) = delete;
  MpiJob &operator=(const MpiJob &) = delete;

  int getRank() const { return rank; }
  int getSize() const { return size; }
  /// More than one rank: the ranks run the stages of a split module.
  bool isDistributed() const { return size > 1; }
  int64_t getStage() const { return stage; }
  int64_t getReplicas() const { return replicas; }
  int64_t getCopy() const { return copy; }
  bool runs(int64_t microbatch) const {
    return microbatch % replicas == copy;
  }

  /// Checks that the program is split with one rank per device (copies of
  /// replicated stages included) and that every rank was started with the
  /// same `identity` (a hash of model and flags); picks this rank's stage.
  llvm::Error assignStage(const ProgramShape &program, uint64_t identity);
  /// On rank 0: the pipeline's runs from the earliest start to the latest
  /// end over all ranks, and every rank's figures (a collective).
  llvm::Error gather(Timing &timing) const;
  /// Ends every rank of the job with `code`: a failing rank's peers would
  /// wait for it otherwise.
  [[noreturn]] void abort(int code) const;
  double now() const;

private:
  MpiJob() = default;
  int rank = 0, size = 1;
  int64_t stage = 0, replicas = 1, copy = 0;
};

struct SessionOptions {
  /// Time every node's code (placer_profile_enter/exit).
  bool profile = false;
  /// Microbatches per run: inputs and outputs hold them stacked on the
  /// first axis.
  int64_t microbatches = 1;
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
  /// that an artifact's weights file holds them all (writeArtifact).
  bool inlineWeights = true;
};

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
  /// Loads an artifact folder (Artifact.h) written by writeArtifact: its
  /// code, interface and weights; nothing is compiled. The folder must hold
  /// the stage the options' job runs (or a whole program without one), and
  /// be profiled iff the options profile; its code's transfers are used.
  static llvm::Expected<std::unique_ptr<Session>>
  open(llvm::StringRef dir, const SessionOptions &options);
  /// Writes the compiled program as an artifact folder: the code, a
  /// manifest, and the weights in a file of their own.
  llvm::Error writeArtifact(llvm::StringRef dir) const;

  const std::string &getFunction() const { return lowered.function; }
  bool isCached() const { return cached; }
  double getCompileSeconds() const { return compileSeconds; }
  int64_t getMicrobatches() const { return options.microbatches; }
  bool isProfiling() const { return options.profile; }
  /// The entry's inputs and outputs (for one microbatch).
  llvm::ArrayRef<TensorSpec> getInputs() const { return lowered.inputs; }
  llvm::ArrayRef<TensorSpec> getOutputs() const { return lowered.outputs; }
  /// Every microbatch's tensor, stacked: [M * d0, ...], or [M] for a scalar.
  std::vector<int64_t> getStackedShape(const TensorSpec &spec) const;
  /// Whether a caller's tensor of `shape` holds the M microbatches of
  /// `spec`: [M * d0, ...] (concatenated) and [M, d0, ...] (np.stack) hold
  /// the same bytes; for M = 1 so does the spec's own shape.
  bool acceptsShape(const TensorSpec &spec, llvm::ArrayRef<int64_t> shape) const;
  /// "[32, 32] (4 microbatches of [8, 32])", as messages describe the
  /// tensor a caller gives.
  std::string describeShape(const TensorSpec &spec) const;
  int64_t getStackedBytes(const TensorSpec &spec) const;

  /// Binds one caller tensor per input and per output, in the entry's
  /// order, each holding every microbatch: shaped [M * d0, ...] or
  /// [M, d0, ...] (for M = 1 also the spec's own shape), of the spec's
  /// element type. The memory must outlive the runs.
  llvm::Error bind(llvm::ArrayRef<HostTensor> inputs,
                   llvm::ArrayRef<HostTensor> outputs);
  /// Runs every microbatch once (under a distributed job: one pipelined
  /// pass, this rank computing its copy's microbatches). Returns the start
  /// and end time.
  llvm::Expected<std::pair<double, double>> run();
  /// One warm-up run, then `runs` timed ones (profile counters start after
  /// the warm-up).
  llvm::Expected<Timing> measure(unsigned runs);
  /// After measure() of a profiling session: node name -> mean seconds per
  /// microbatch. Nodes sharing a name share the mean of their times.
  std::map<std::string, double> getProfile(unsigned runs) const;
  /// The number of profiled nodes and the seconds inside them per run.
  std::pair<size_t, double> getProfileTotal(unsigned runs) const;
  /// Under a distributed job, after the runs: the copies of a replicated
  /// stage send their microbatches' outputs to its first rank.
  llvm::Error collectOutputs();

private:
  Session() = default;
  SessionOptions options;
  LoweredModule lowered;
  /// The compiled code (in the cache, or in an artifact folder).
  std::string libraryPath;
  bool cached = false;
  double compileSeconds = 0;
  std::optional<Executable> executable;
  /// One bound call per microbatch (weights are shared).
  std::vector<Executable::Arguments> calls;
  std::vector<uint8_t *> boundOutputs;
  /// The compiled program's profile counters and transfers are process
  /// state: one run at a time.
  std::mutex running;
  double now() const;
  llvm::Expected<std::pair<double, double>> runOnce();
};

/// "[8, 32]", as messages show shapes.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Every microbatch of a tensor of `shape`, stacked on the first axis:
/// [M * d0, ...], or [M] for a scalar.
std::vector<int64_t> stackShape(llvm::ArrayRef<int64_t> shape,
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

/// The simulator's prediction beside a measured run of a split module.
struct Prediction {
  /// Simulated seconds per run (one microbatch), its steady state and the
  /// whole pass.
  double perRun = 0, steadyPerRun = 0, total = 0;
  /// Measured median over predicted (0 without a prediction).
  double measuredOverSimulated = 0;
};
Prediction predict(const llvm::json::Object &simulated, int64_t microbatches,
                   const TimeSummary &measured);

/// The report of timed runs (docs/Execution.md "Inputs, outputs, report"):
/// repeat, samples_per_run, seconds per run and per sample, the prediction.
void addTimesToReport(llvm::json::Object &report, const TimeSummary &times,
                      int64_t samplesPerRun,
                      const std::optional<Prediction> &prediction);
/// Every rank's compute and wait times and bytes, per run.
llvm::json::Array getRanksReport(llvm::ArrayRef<RankFigures> ranks);

/// --placer-simulate on a copy of a split module for `microbatches`
/// samples: its report, or nothing when the module has no cluster or costs
/// to simulate with (its diagnostics are dropped).
std::optional<llvm::json::Object> simulateQuietly(mlir::ModuleOp module,
                                                  int64_t microbatches);

} // namespace placer::runtime

#endif // PLACER_RUNTIME_SESSION_H
