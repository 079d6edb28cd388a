//===- placer-run.cpp - Compile a placed model and run it -----------------===//
//
//   placer-run MODEL.mlir [--input NAME=FILE.npy]... [--seed N]
//              --output-dir DIR [--microbatches M] [--repeat N]
//              [--report FILE.json]
//   mpirun -n K placer-run SPLIT.mlir --microbatches M ...
//   placer-run MODEL.mlir --profile FILE.json [--profile-kind KIND] [--repeat N]
//
// Lowers the model, compiles it ahead of time into a cached shared object,
// runs it on the given or seeded-random inputs (M microbatches stacked on
// the first axis), and writes every graph output as DIR/<output name>.npy.
// Alone, it runs a split module merged back into one program; under mpirun
// with one rank per device, each rank compiles and runs its own stage and
// the stages stream microbatches to each other over MPI. With --profile it
// times every node instead and writes the times as a profile that
// --placer-estimate-costs reads.
//
//===----------------------------------------------------------------------===//

#include "placer/Dialect/Dist/BufferizableOpInterfaceImpl.h"
#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Runtime/DistHooks.h"
#include "placer/Runtime/Npy.h"
#include "placer/Runtime/ProfileHooks.h"
#include "placer/Runtime/Runner.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <array>
#include <map>
#include <set>
#include <tuple>
#include <random>

using namespace placer::runtime;
namespace cl = llvm::cl;

static cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                                      cl::desc("MODEL.mlir"));
static cl::list<std::string> inputFiles(
    "input", cl::desc("NAME=FILE.npy: the value of graph input NAME"),
    cl::value_desc("NAME=FILE.npy"));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of the inputs not given"),
                              cl::init(0));
static cl::opt<std::string> outputDir("output-dir",
                                      cl::desc("Where outputs are written"),
                                      cl::value_desc("DIR"));
static cl::opt<std::string> profilePath(
    "profile",
    cl::desc("Time every node over the runs and write the mean seconds per "
             "run as a profile (node name -> device kind -> seconds) for "
             "--placer-estimate-costs"),
    cl::value_desc("FILE.json"));
static cl::opt<std::string> profileKind(
    "profile-kind", cl::desc("The device kind the profile is for"),
    cl::init("cpu"), cl::value_desc("KIND"));
static cl::opt<unsigned> repeat(
    "repeat",
    cl::desc("Timed runs after the first (a run: every microbatch once)"),
    cl::init(0));
static cl::opt<int64_t> microbatches(
    "microbatches",
    cl::desc("Microbatches per run: inputs hold them stacked on the first "
             "axis, and so do outputs"),
    cl::init(1));
static cl::opt<std::string> transfers(
    "transfers",
    cl::desc("Under mpirun: pipelined (non-blocking, double-buffered, "
             "libplacer_rt) or blocking (upstream mpi.send/recv)"),
    cl::init("pipelined"));
static cl::opt<double> transferTimeout(
    "transfer-timeout",
    cl::desc("Under mpirun: seconds a transfer may wait before the run fails"),
    cl::init(60.0));
static cl::opt<std::string> reportPath("report",
                                       cl::desc("Write a JSON report here"),
                                       cl::value_desc("FILE.json"));
static cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Compiled models are kept here (default: the user cache "
             "folder, placer/)"),
    cl::value_desc("DIR"));

namespace {
/// This process's place in an MPI job (rank 0 of 1 when run alone), and
/// which copy of its stage it runs: copy c of r takes the microbatches m
/// with m mod r = c.
struct Job {
  bool mpi = false;
  int rank = 0, size = 1;
  int64_t stage = 0, replicas = 1, copy = 0;
  bool isDistributed() const { return size > 1; }
  bool runs(int64_t microbatch) const { return microbatch % replicas == copy; }
};
Job job;
} // namespace

/// Under mpirun, a failing rank ends the whole job: its peers would wait
/// for it otherwise.
static int fail(const llvm::Twine &message) {
  // One write: mpirun's banner for the aborted job must not land inside
  // the line (stderr is unbuffered).
  std::string line = "placer-run: error: ";
  if (job.isDistributed())
    line += "rank " + std::to_string(job.rank) + ": ";
  line += message.str() + "\n";
  llvm::errs() << line;
  if (job.isDistributed())
    placer_dist_abort(1);
  if (job.mpi)
    placer_dist_finalize();
  return 1;
}

static bool launchedByMpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") ||
         std::getenv("PMI_RANK");
}

/// A file name for an output: graph names may hold '/' and worse, and must
/// never leave the output folder.
static std::string fileNameFor(llvm::StringRef name) {
  std::string file;
  for (char c : name)
    file += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' ||
             c == '_' || c == '.')
                ? c
                : '_';
  if (file.empty() || file[0] == '.')
    file = "_" + file;
  return file;
}

static std::string defaultCacheDir() {
  llvm::SmallString<256> dir;
  if (!llvm::sys::path::cache_directory(dir))
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/false, dir);
  llvm::sys::path::append(dir, "placer");
  return std::string(dir);
}

/// Seeded values: floats uniform in [-1, 1), integers in [0, 10), booleans;
/// one stream per graph input, so that a rank holding some inputs draws the
/// same values as the whole model.
static void fillRandom(Buffer &buffer, const TensorSpec &spec) {
  std::seed_seq sequence{static_cast<uint64_t>(seed),
                         static_cast<uint64_t>(spec.graphIndex)};
  std::mt19937_64 rng(sequence);
  int64_t n = spec.getNumElements() * microbatches;
  llvm::StringRef type = spec.elementType;
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> integer(0, 9);
  for (int64_t i = 0; i < n; ++i) {
    if (type == "f32") {
      float v = real(rng);
      std::memcpy(buffer.data() + 4 * i, &v, 4);
    } else if (type == "f64") {
      double v = real(rng);
      std::memcpy(buffer.data() + 8 * i, &v, 8);
    } else if (type == "i64") {
      int64_t v = integer(rng);
      std::memcpy(buffer.data() + 8 * i, &v, 8);
    } else if (type == "i32") {
      int32_t v = integer(rng);
      std::memcpy(buffer.data() + 4 * i, &v, 4);
    } else {
      buffer.data()[i * spec.elementBytes] = integer(rng) % 2;
    }
  }
}

/// The profile: node name -> {kind: mean seconds per run}. Nodes sharing a
/// name (unnamed ones fall back to their output or op type) share the mean
/// of their times, as --placer-estimate-costs applies one entry to all.
static llvm::Error writeProfile(const std::vector<std::string> &nodes,
                                const double *totals, unsigned runs,
                                const std::vector<double> &times) {
  std::map<std::string, std::pair<double, int>> byName;
  double inNodes = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto &[seconds, count] = byName[nodes[i]];
    seconds += totals[i] / runs;
    ++count;
    inNodes += totals[i] / runs;
  }
  llvm::json::Object profile;
  for (const auto &[name, entry] : byName)
    profile[name] =
        llvm::json::Object{{profileKind, entry.first / entry.second}};
  std::error_code ec;
  llvm::raw_fd_ostream os(profilePath, ec);
  if (ec)
    return llvm::createStringError("cannot write " + profilePath + ": " +
                                   ec.message());
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(profile))) << "\n";
  double total = 0;
  for (double t : times)
    total += t;
  llvm::outs() << llvm::formatv(
      "profile: {0} nodes, {1:e} s per run inside nodes of {2:e} s per run "
      "({3} runs, kind '{4}') -> {5}\n",
      nodes.size(), inNodes, total / runs, runs, profileKind.getValue(),
      profilePath.getValue());
  return llvm::Error::success();
}

/// "[8, 32]"
static std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(shape,
                                    [](int64_t d) { return std::to_string(d); }),
                    ", ") +
         "]";
}

/// A tensor of every microbatch, stacked on the first axis: [M * d0, ...],
/// or [M] for a scalar.
static std::vector<int64_t> stackedShape(const TensorSpec &spec) {
  std::vector<int64_t> shape = spec.shape;
  if (shape.empty())
    return {microbatches};
  shape[0] *= microbatches;
  return shape;
}

/// An input's M microbatches from a .npy file: [M * d0, ...] (concatenated)
/// or [M, d0, ...] (np.stack) hold the same bytes.
static llvm::Error readInput(llvm::StringRef file, const TensorSpec &spec,
                             Buffer &buffer) {
  llvm::Expected<NpyArray> array = readNpy(file);
  if (!array)
    return array.takeError();
  std::vector<int64_t> stacked = spec.shape;
  stacked.insert(stacked.begin(), microbatches);
  bool shapeOk = array->shape == stackedShape(spec) || array->shape == stacked;
  if (array->dtype != npyDtypeOf(spec.elementType) || !shapeOk)
    return llvm::createStringError(
        file + ": input '" + spec.name + "' needs dtype " +
        npyDtypeOf(spec.elementType) + " and shape " +
        shapeString(stackedShape(spec)) +
        (microbatches > 1 ? " (" + std::to_string(microbatches) +
                                " microbatches of " + shapeString(spec.shape) +
                                ")"
                          : std::string()) +
        ", the file has " + array->dtype + " " + shapeString(array->shape));
  std::memcpy(buffer.data(), array->bytes.data(), array->bytes.size());
  return llvm::Error::success();
}

/// What the split program looks like before lowering: the graph's inputs
/// (to check --input names), which stage each rank runs, and which rank
/// computes (or, for a replicated stage, collects) which graph output.
struct ProgramShape {
  std::set<std::string> inputNames;
  /// (rank, output name, type) of every graph output.
  std::vector<std::tuple<int, std::string, mlir::Type>> outputs;
  int64_t stages = 0;
  /// Per rank, the stage it runs (dist::ProgramOp::getRankStages).
  llvm::SmallVector<int64_t> rankStages;
};

static ProgramShape describe(mlir::ModuleOp module) {
  ProgramShape shape;
  auto record = [&](mlir::func::FuncOp func, int rank) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto name = func.getArgAttrOfType<mlir::StringAttr>(i, "graph.name"))
        shape.inputNames.insert(name.str());
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      if (auto name =
              func.getResultAttrOfType<mlir::StringAttr>(i, "graph.name"))
        shape.outputs.emplace_back(rank, name.str(), func.getResultTypes()[i]);
  };
  auto programs = llvm::to_vector(module.getOps<placer::dist::ProgramOp>());
  if (programs.size() == 1) {
    placer::dist::ProgramOp program = programs.front();
    shape.stages = program.getStages().size();
    shape.rankStages = program.getRankStages();
    for (auto [stage, ref] : llvm::enumerate(program.getStages()))
      if (auto func = mlir::SymbolTable::lookupNearestSymbolFrom<
              mlir::func::FuncOp>(module, mlir::cast<mlir::SymbolRefAttr>(ref)))
        record(func, llvm::find(shape.rankStages, int64_t(stage)) -
                         shape.rankStages.begin());
    return shape;
  }
  for (auto func : module.getOps<mlir::func::FuncOp>())
    if (func.isPublic() && !func.isDeclaration())
      record(func, 0);
  return shape;
}

/// --placer-simulate on a copy of the split module for the same number of
/// microbatches: its report, or nothing when the module has no cluster or
/// costs to simulate with.
static std::optional<llvm::json::Object> simulate(mlir::ModuleOp module) {
  if (module.getOps<placer::dist::ProgramOp>().empty() ||
      !module->hasAttr("placer.cluster"))
    return std::nullopt;
  llvm::SmallString<128> path;
  if (llvm::sys::fs::createTemporaryFile("placer-simulate", "json", path))
    return std::nullopt;
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
  mlir::ScopedDiagnosticHandler quiet(module.getContext(),
                                      [](mlir::Diagnostic &) {
                                        return mlir::success();
                                      });
  mlir::PassManager pm(module.getContext());
  placer::SimulateOptions options;
  options.microbatches = microbatches;
  options.report = std::string(path);
  pm.addPass(placer::createSimulate(options));
  std::optional<llvm::json::Object> report;
  if (mlir::succeeded(pm.run(*copy)))
    if (auto text = llvm::MemoryBuffer::getFile(path))
      if (auto json = llvm::json::parse((*text)->getBuffer()))
        if (llvm::json::Object *root = json->getAsObject())
          report = std::move(*root);
  llvm::sys::fs::remove(path);
  return report;
}

/// What a rank measured over its timed runs, averaged per run; gathered on
/// rank 0 as a flat array of doubles.
struct RankFigures {
  double compute = 0, recvWait = 0, sendWait = 0;
  double bytesSent = 0, messagesSent = 0, bytesReceived = 0;
  static constexpr int kCount = 6;
  std::array<double, kCount> pack() const {
    return {compute, recvWait, sendWait, bytesSent, messagesSent,
            bytesReceived};
  }
  static RankFigures unpack(const double *v) {
    return {v[0], v[1], v[2], v[3], v[4], v[5]};
  }
};

static double now() {
  if (job.mpi)
    return placer_dist_time();
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static llvm::Error checkOptions() {
  if (outputDir.empty() && profilePath.empty())
    return error("give --output-dir DIR (outputs) or --profile FILE.json");
  if (microbatches < 1)
    return error("--microbatches must be at least 1");
  if (transfers != "pipelined" && transfers != "blocking")
    return error("--transfers must be 'pipelined' or 'blocking', not '" +
                 transfers + "'");
  if (transferTimeout <= 0)
    return error("--transfer-timeout must be positive");
  return llvm::Error::success();
}

/// --input NAME=FILE.npy, by name.
static llvm::Expected<std::map<std::string, std::string>> inputFlags() {
  std::map<std::string, std::string> given;
  for (const std::string &entry : inputFiles) {
    auto [name, file] = llvm::StringRef(entry).split('=');
    if (name.empty() || file.empty())
      return error("--input expects NAME=FILE.npy, got '" + entry + "'");
    given[name.str()] = file.str();
  }
  return given;
}

/// Under mpirun: a split module with one rank per device (copies of
/// replicated stages included), and every rank started with the same model
/// and flags (compared through a hash). Records which copy of which stage
/// this rank runs.
static llvm::Error checkLaunch(const ProgramShape &program, int argc,
                               char **argv) {
  if (!profilePath.empty())
    return error("--profile times the model whole: run it without mpirun");
  if (program.stages == 0)
    return error("the module is not split (no dist.program): run it "
                 "without mpirun, or split it with --partition-devices");
  int64_t devices = program.rankStages.size();
  if (devices != job.size)
    return error(
        "the program has " + llvm::Twine(program.stages) + " stages on " +
        llvm::Twine(devices) +
        " devices (copies of replicated stages included), one per rank: "
        "start it with mpirun -n " +
        llvm::Twine(devices) + ", not " + llvm::Twine(job.size));
  std::string identity;
  if (auto text = llvm::MemoryBuffer::getFile(modelPath))
    identity = (*text)->getBuffer().str();
  for (int i = 1; i < argc; ++i)
    identity += std::string("\0", 1) + argv[i];
  if (!placer_dist_same(llvm::xxh3_64bits(identity)))
    return error("the ranks were started with different models or flags");
  job.stage = program.rankStages[job.rank];
  int64_t first =
      llvm::find(program.rankStages, job.stage) - program.rankStages.begin();
  job.replicas = llvm::count(program.rankStages, job.stage);
  job.copy = job.rank - first;
  placer_dist_set_copy(job.replicas, job.copy);
  return llvm::Error::success();
}

namespace {
/// Every microbatch's inputs and outputs, and one bound call per microbatch
/// (weights are shared).
struct Microbatches {
  std::vector<Buffer> inputs, outputs;
  std::vector<Executable::Arguments> calls;
};
} // namespace

static llvm::Expected<Microbatches>
prepare(LoweredModule &lowered,
        const std::map<std::string, std::string> &given) {
  Microbatches batches;
  for (const TensorSpec &spec : lowered.inputs) {
    Buffer buffer(spec.getByteSize() * microbatches);
    auto file = given.find(spec.name);
    if (file == given.end())
      fillRandom(buffer, spec);
    else if (llvm::Error error = readInput(file->second, spec, buffer))
      return std::move(error);
    batches.inputs.push_back(std::move(buffer));
  }
  for (const TensorSpec &spec : lowered.outputs)
    batches.outputs.emplace_back(spec.getByteSize() * microbatches);

  std::vector<const TensorSpec *> specs;
  for (const std::vector<TensorSpec> *group :
       {&lowered.inputs, &lowered.weights, &lowered.outputs})
    for (const TensorSpec &spec : *group)
      specs.push_back(&spec);
  for (int64_t m = 0; m < microbatches; ++m) {
    std::vector<uint8_t *> data;
    for (auto [buffer, spec] : llvm::zip(batches.inputs, lowered.inputs))
      data.push_back(buffer.data() + m * spec.getByteSize());
    for (Buffer &weight : lowered.weightData)
      data.push_back(weight.data());
    for (auto [buffer, spec] : llvm::zip(batches.outputs, lowered.outputs))
      data.push_back(buffer.data() + m * spec.getByteSize());
    batches.calls.push_back(Executable::bind(data, specs));
  }
  return batches;
}

namespace {
/// The timed runs: each run's start and end on this rank, and what this
/// rank measured per run.
struct Timing {
  std::vector<double> starts, ends;
  RankFigures mine;
};
} // namespace

/// One warm-up run, then the timed ones. A run is every microbatch once; in
/// a pipeline it starts together on all ranks, each rank computing its
/// copy's microbatches, and ends when every send of this rank has
/// completed.
static Timing measure(const Executable &executable, Microbatches &batches,
                      int64_t numProfiled) {
  bool profiling = !profilePath.empty();
  auto runAll = [&]() -> std::pair<double, double> {
    if (job.isDistributed()) {
      if (placer_dist_barrier())
        fail("the ranks could not meet before a run");
      placer_dist_begin(microbatches);
    }
    double start = now();
    for (auto [m, call] : llvm::enumerate(batches.calls)) {
      if (!job.runs(m))
        continue;
      if (job.isDistributed())
        placer_dist_set_microbatch(m);
      executable.run(call);
    }
    if (job.isDistributed())
      placer_dist_end();
    return {start, now()};
  };
  runAll();
  // The warm-up run is not part of the profile.
  if (profiling)
    placer_profile_reset(numProfiled);
  unsigned runs = profiling || job.isDistributed()
                      ? std::max(1u, unsigned(repeat))
                      : unsigned(repeat);
  Timing timing;
  for (unsigned r = 0; r < runs; ++r) {
    auto [start, end] = runAll();
    timing.starts.push_back(start);
    timing.ends.push_back(end);
    if (!job.isDistributed())
      continue;
    const placer_dist_stats *stats = placer_dist_get_stats();
    RankFigures &mine = timing.mine;
    mine.recvWait += stats->recv_wait_seconds / runs;
    mine.sendWait += stats->send_wait_seconds / runs;
    mine.compute +=
        (end - start - stats->recv_wait_seconds - stats->send_wait_seconds) /
        runs;
    mine.bytesSent += double(stats->bytes_sent) / runs;
    mine.messagesSent += double(stats->messages_sent) / runs;
    mine.bytesReceived += double(stats->bytes_received) / runs;
  }
  return timing;
}

/// On rank 0: every rank's figures, and the pipeline's runs from the
/// earliest start to the latest end over all ranks (MPI_Wtime: one clock on
/// one machine).
static llvm::Error gather(Timing &timing, std::vector<RankFigures> &ranks) {
  std::vector<double> local(timing.starts);
  local.insert(local.end(), timing.ends.begin(), timing.ends.end());
  auto packed = timing.mine.pack();
  local.insert(local.end(), packed.begin(), packed.end());
  std::vector<double> all(local.size() * job.size);
  if (placer_dist_gather(local.data(), local.size(), all.data()))
    return error("cannot gather the ranks' figures");
  if (job.rank != 0)
    return llvm::Error::success();
  size_t runs = timing.starts.size();
  ranks.clear();
  for (int r = 0; r < job.size; ++r) {
    const double *row = all.data() + r * local.size();
    for (size_t i = 0; i < runs; ++i) {
      timing.starts[i] = std::min(timing.starts[i], row[i]);
      timing.ends[i] = std::max(timing.ends[i], row[runs + i]);
    }
    ranks.push_back(RankFigures::unpack(row + 2 * runs));
  }
  return llvm::Error::success();
}

/// This rank's graph outputs as DIR/<name>.npy, microbatches concatenated;
/// a replicated stage's first rank writes them with its copies'
/// microbatches.
static llvm::Error writeOutputs(const LoweredModule &lowered,
                                Microbatches &batches) {
  for (auto [spec, buffer] : llvm::zip(lowered.outputs, batches.outputs))
    if (placer_dist_collect(buffer.data(), spec.getByteSize()))
      return error("cannot collect output '" + spec.name +
                   "' from the copies of stage " + llvm::Twine(job.stage));
  if (job.copy != 0)
    return llvm::Error::success();
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return error("cannot create " + outputDir + ": " + ec.message());
  for (auto [spec, buffer] : llvm::zip(lowered.outputs, batches.outputs)) {
    NpyArray array{npyDtypeOf(spec.elementType), stackedShape(spec),
                   std::vector<uint8_t>(buffer.data(),
                                        buffer.data() + buffer.size())};
    if (array.dtype.empty())
      return error("output '" + spec.name + "' has element type " +
                   spec.elementType + ", which .npy cannot hold");
    llvm::SmallString<256> path(outputDir);
    llvm::sys::path::append(path, fileNameFor(spec.name) + ".npy");
    if (llvm::Error error = writeNpy(path, array))
      return error;
  }
  return llvm::Error::success();
}

/// Times per run (one microbatch) and per sample, printed and reported;
/// with the simulator's prediction when there is one.
static void reportTimes(llvm::json::Object &report, Timing &timing,
                        const ProgramShape &program, llvm::StringRef function,
                        const std::optional<llvm::json::Object> &simulated) {
  std::vector<double> times;
  for (auto [start, end] : llvm::zip(timing.starts, timing.ends))
    times.push_back((end - start) / microbatches);
  if (times.empty())
    return;
  std::sort(times.begin(), times.end());
  double median = times[times.size() / 2];
  int64_t samples = 1;
  if (!program.outputs.empty()) {
    auto shape =
        mlir::cast<mlir::ShapedType>(std::get<2>(program.outputs.front()))
            .getShape();
    samples = shape.empty() ? 1 : shape.front();
  }
  llvm::outs() << llvm::formatv(
      "{0}: {1} runs{2}, {3:e} s per run (min), {4:e} s (median), {5:e} s "
      "per sample (median, {6} samples per run)\n",
      job.isDistributed() ? "pipeline of " + std::to_string(job.size) +
                                " ranks"
                          : function.str(),
      times.size(),
      microbatches > 1 ? " of " + std::to_string(microbatches) +
                             " microbatches"
                       : std::string(),
      times.front(), median, median / samples, samples);
  report["repeat"] = static_cast<int64_t>(times.size());
  report["samples_per_run"] = samples;
  report["seconds_per_run"] =
      llvm::json::Object{{"min", times.front()}, {"median", median}};
  report["seconds_per_sample"] = llvm::json::Object{
      {"min", times.front() / samples}, {"median", median / samples}};
  if (!simulated)
    return;
  double total = simulated->getNumber("total").value_or(0);
  double predicted = total / microbatches;
  double ratio = predicted > 0 ? median / predicted : 0.0;
  llvm::outs() << llvm::formatv(
      "simulated (--placer-simulate, the module's costs): {0:e} s per run, "
      "measured / simulated = {1:f2}\n",
      predicted, ratio);
  report["simulated"] = llvm::json::Object{
      {"seconds_per_run", predicted},
      {"steady_state_seconds_per_run",
       simulated->getNumber("time_per_sample").value_or(0)},
      {"total_seconds", total},
      {"measured_over_simulated", ratio}};
}

/// Each rank's compute and wait times and bytes, per run.
static void reportRanks(llvm::json::Object &report,
                        const std::vector<RankFigures> &ranks) {
  llvm::json::Array perRank;
  for (auto [rank, figures] : llvm::enumerate(ranks)) {
    int64_t bytesSent = std::llround(figures.bytesSent);
    int64_t messagesSent = std::llround(figures.messagesSent);
    llvm::outs() << llvm::formatv(
        "  rank {0}: compute {1:e} s, waiting on receives {2:e} s, on sends "
        "{3:e} s, sent {4} bytes in {5} messages (per run)\n",
        rank, figures.compute, figures.recvWait, figures.sendWait, bytesSent,
        messagesSent);
    perRank.push_back(llvm::json::Object{
        {"rank", int64_t(rank)},
        {"compute_seconds", figures.compute},
        {"recv_wait_seconds", figures.recvWait},
        {"send_wait_seconds", figures.sendWait},
        {"bytes_sent", bytesSent},
        {"messages_sent", messagesSent},
        {"bytes_received", int64_t(std::llround(figures.bytesReceived))}});
  }
  report["ranks"] = std::move(perRank);
  report["transfers"] = transfers.getValue();
}

/// Every graph output, whichever rank wrote it.
static llvm::json::Array reportOutputs(const ProgramShape &program) {
  llvm::json::Array outputs;
  if (outputDir.empty())
    return outputs;
  for (const auto &[rank, name, type] : program.outputs) {
    auto tensor = mlir::cast<mlir::ShapedType>(type);
    TensorSpec spec;
    spec.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    llvm::SmallString<256> path(outputDir);
    llvm::sys::path::append(path, fileNameFor(name) + ".npy");
    llvm::json::Object entry{{"name", name},
                             {"file", std::string(path)},
                             {"shape", llvm::json::Array(stackedShape(spec))}};
    if (job.isDistributed())
      entry["rank"] = rank;
    outputs.push_back(std::move(entry));
  }
  return outputs;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "Placer runner: compile a graph module ahead of time and run it, alone "
      "or one MPI rank per device\n");
  if (launchedByMpi()) {
    if (placer_dist_init(&argc, &argv, &job.rank, &job.size))
      return fail("cannot start MPI");
    job.mpi = true;
    placer_dist_set_timeout(transferTimeout);
  }

  mlir::DialectRegistry registry;
  registry.insert<placer::graph::GraphDialect, placer::dist::DistDialect,
                  placer::PlacerDialect>();
  mlir::registerAllDialects(registry);
  placer::dist::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllPasses();
  mlir::MLIRContext context(registry);

  // Flags first: a bad one fails before any compilation.
  if (llvm::Error error = checkOptions())
    return fail(llvm::toString(std::move(error)));
  auto given = inputFlags();
  if (!given)
    return fail(llvm::toString(given.takeError()));

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(modelPath, sourceMgr,
                                            mlir::ParserConfig(&context));
  if (!module)
    return fail("cannot parse " + modelPath);
  ProgramShape program = describe(*module);
  for (const auto &[name, file] : *given)
    if (!program.inputNames.count(name))
      return fail("the model has no input named '" + name + "'");
  if (job.isDistributed())
    if (llvm::Error error = checkLaunch(program, argc, argv))
      return fail(llvm::toString(std::move(error)));
  std::optional<llvm::json::Object> simulated;
  if (job.rank == 0)
    simulated = simulate(*module);

  bool profiling = !profilePath.empty();
  placer::runtime::ExecutionOptions options;
  options.profile = profiling;
  options.stage = job.isDistributed() ? job.stage : -1;
  options.transfers = transfers;
  llvm::Expected<LoweredModule> lowered = lowerForExecution(*module, options);
  if (!lowered)
    return fail(llvm::toString(lowered.takeError()));
  bool cached = false;
  std::string cache = cacheDir.empty() ? defaultCacheDir() : cacheDir;
  auto compileStart = std::chrono::steady_clock::now();
  llvm::Expected<std::string> library =
      compileToSharedObject(*module, lowered->function, cache, cached);
  if (!library)
    return fail(llvm::toString(library.takeError()));
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();
  llvm::Expected<Executable> executable =
      Executable::load(*library, lowered->function);
  if (!executable)
    return fail(llvm::toString(executable.takeError()));
  llvm::Expected<Microbatches> batches = prepare(*lowered, *given);
  if (!batches)
    return fail(llvm::toString(batches.takeError()));

  int64_t numProfiled = lowered->profileNodes.size();
  if (profiling && placer_profile_reset(numProfiled))
    return fail("out of memory for the profile counters");
  Timing timing = measure(*executable, *batches, numProfiled);
  std::vector<RankFigures> ranks{timing.mine};
  if (job.isDistributed())
    if (llvm::Error error = gather(timing, ranks))
      return fail(llvm::toString(std::move(error)));

  if (profiling) {
    std::vector<double> times;
    for (auto [start, end] : llvm::zip(timing.starts, timing.ends))
      times.push_back(end - start);
    if (llvm::Error error =
            writeProfile(lowered->profileNodes, placer_profile_totals(),
                         times.size() * microbatches, times))
      return fail(llvm::toString(std::move(error)));
  }
  if (!outputDir.empty())
    if (llvm::Error error = writeOutputs(*lowered, *batches))
      return fail(llvm::toString(std::move(error)));
  if (job.rank != 0) {
    placer_dist_finalize();
    return 0;
  }

  llvm::json::Object report{{"model", modelPath},
                            {"function", lowered->function},
                            {"cached", cached},
                            {"compile_seconds", compileSeconds},
                            {"microbatches", int64_t(microbatches)},
                            {"outputs", reportOutputs(program)}};
  reportTimes(report, timing, program, lowered->function, simulated);
  if (job.isDistributed())
    reportRanks(report, ranks);
  if (!reportPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(reportPath, ec);
    if (ec)
      return fail("cannot write " + reportPath + ": " + ec.message());
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  }
  if (job.mpi)
    placer_dist_finalize();
  return 0;
}
