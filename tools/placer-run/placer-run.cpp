//===- placer-run.cpp - Compile a placed model and run it -----------------===//
//
//   placer-run MODEL.mlir [--input NAME=FILE.npy]... [--seed N]
//              --output-dir DIR [--microbatches M] [--repeat N]
//              [--report FILE.json]
//   mpirun -n K placer-run SPLIT.mlir --microbatches M ...
//   placer-run MODEL.mlir --profile FILE.json [--profile-kind KIND] [--repeat N]
//
// A shell over placer::runtime::Session (include/placer/Runtime/Session.h):
// options, .npy files and printing. The session compiles the model ahead of
// time into a cached shared object and runs it on the given or seeded-random
// inputs (M microbatches stacked on the first axis); every graph output is
// written as DIR/<output name>.npy. Alone, a split module runs merged back
// into one program; under mpirun with one rank per device, each rank
// compiles and runs its own stage and the stages stream microbatches to each
// other over MPI. With --profile it times every node instead and writes the
// times as a profile that --placer-estimate-costs reads.
//
//===----------------------------------------------------------------------===//

#include "placer/InitAll.h"
#include "placer/Runtime/Artifact.h"
#include "placer/Runtime/Npy.h"
#include "placer/Runtime/Session.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cmath>
#include <cstring>
#include <map>

using namespace placer::runtime;
namespace cl = llvm::cl;

namespace {

/// The command line. Declared in main (no global state): cl::opt registers
/// itself when constructed.
struct Options {
  cl::opt<std::string> model{
      cl::Positional, cl::Required,
      cl::desc("MODEL.mlir, or an artifact folder written by --compile-only")};
  cl::opt<std::string> compileOnly{
      "compile-only",
      cl::desc("Compile the module into an artifact folder (code, manifest, "
               "weights file; a split module: one folder per stage) and stop; "
               "`placer-run DIR` runs it"),
      cl::value_desc("DIR")};
  cl::list<std::string> inputs{
      "input", cl::desc("NAME=FILE.npy: the value of graph input NAME"),
      cl::value_desc("NAME=FILE.npy")};
  cl::opt<uint64_t> seed{"seed", cl::desc("Seed of the inputs not given"),
                         cl::init(0)};
  cl::opt<std::string> outputDir{"output-dir",
                                 cl::desc("Where outputs are written"),
                                 cl::value_desc("DIR")};
  cl::opt<std::string> profile{
      "profile",
      cl::desc("Time every node over the runs and write the mean seconds per "
               "run as a profile (node name -> device kind -> seconds) for "
               "--placer-estimate-costs"),
      cl::value_desc("FILE.json")};
  cl::opt<std::string> profileKind{
      "profile-kind", cl::desc("The device kind the profile is for"),
      cl::init("cpu"), cl::value_desc("KIND")};
  cl::opt<unsigned> repeat{
      "repeat",
      cl::desc("Timed runs after the first (a run: every microbatch once)"),
      cl::init(0)};
  cl::opt<int64_t> microbatches{
      "microbatches",
      cl::desc("Microbatches per run: inputs hold them stacked on the first "
               "axis, and so do outputs"),
      cl::init(1)};
  cl::opt<std::string> transfers{
      "transfers",
      cl::desc("Under mpirun: pipelined (non-blocking, double-buffered, "
               "libplacer_rt) or blocking (upstream mpi.send/recv)"),
      cl::init("pipelined")};
  cl::opt<double> transferTimeout{
      "transfer-timeout",
      cl::desc("Under mpirun: seconds a transfer may wait before the run "
               "fails"),
      cl::init(60.0)};
  cl::opt<std::string> report{"report", cl::desc("Write a JSON report here"),
                              cl::value_desc("FILE.json")};
  cl::opt<std::string> cacheDir{
      "cache-dir",
      cl::desc("Compiled models are kept here (default: the user cache "
               "folder, placer/)"),
      cl::value_desc("DIR")};
};

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error checkOptions(const Options &options) {
  if (options.outputDir.empty() && options.profile.empty() &&
      options.compileOnly.empty())
    return error("give --output-dir DIR (outputs) or --profile FILE.json");
  if (options.microbatches < 1)
    return error("--microbatches must be at least 1");
  if (options.transfers != "pipelined" && options.transfers != "blocking")
    return error("--transfers must be 'pipelined' or 'blocking', not '" +
                 options.transfers + "'");
  if (options.transferTimeout <= 0)
    return error("--transfer-timeout must be positive");
  return llvm::Error::success();
}

/// --input NAME=FILE.npy, by name.
llvm::Expected<std::map<std::string, std::string>>
parseInputFlags(const Options &options) {
  std::map<std::string, std::string> given;
  for (const std::string &entry : options.inputs) {
    auto [name, file] = llvm::StringRef(entry).split('=');
    if (name.empty() || file.empty())
      return error("--input expects NAME=FILE.npy, got '" + entry + "'");
    given[name.str()] = file.str();
  }
  return given;
}

/// A file name for an output: graph names may hold '/' and worse, and must
/// never leave the output folder.
std::string fileNameFor(llvm::StringRef name) {
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

std::string outputPath(const Options &options, llvm::StringRef name) {
  llvm::SmallString<256> path(options.outputDir);
  llvm::sys::path::append(path, fileNameFor(name) + ".npy");
  return std::string(path);
}

/// Under mpirun every rank must run the same model with the same flags.
uint64_t launchIdentity(const Options &options, int argc, char **argv) {
  std::string identity;
  llvm::SmallString<256> path(options.model);
  if (llvm::sys::fs::is_directory(path))
    llvm::sys::path::append(path, "program.json");
  if (auto text = llvm::MemoryBuffer::getFile(path))
    identity = (*text)->getBuffer().str();
  for (int i = 1; i < argc; ++i)
    identity += std::string("\0", 1) + argv[i];
  return llvm::xxh3_64bits(identity);
}

/// Every input and output of the session in aligned buffers (64 bytes,
/// for vector loads), all microbatches stacked: inputs read from --input
/// files or seeded, outputs zeroed.
struct Arrays {
  std::vector<Buffer> inputs, outputs;
};

llvm::Expected<Arrays>
prepareArrays(const Session &session, const Options &options,
              const std::map<std::string, std::string> &given) {
  Arrays arrays;
  for (const TensorSpec &spec : session.getInputs()) {
    auto file = given.find(spec.name);
    Buffer buffer(session.getStackedBytes(spec));
    if (file == given.end()) {
      fillSeeded(buffer.data(), spec, session.getMicrobatches(), options.seed);
      arrays.inputs.push_back(std::move(buffer));
      continue;
    }
    std::string message;
    std::optional<NpyArray> array = readNpy(file->second, message);
    if (!array)
      return error(message);
    std::string dtype = npyDtypeOf(spec.elementType);
    if (array->dtype != dtype || !session.acceptsShape(spec, array->shape))
      return error(file->second + ": input '" + spec.name + "' needs dtype " +
                   dtype + " and shape " + session.describeShape(spec) +
                   ", the file has " + array->dtype + " " +
                   formatShape(array->shape));
    std::memcpy(buffer.data(), array->bytes.data(), array->bytes.size());
    arrays.inputs.push_back(std::move(buffer));
  }
  for (const TensorSpec &spec : session.getOutputs())
    arrays.outputs.emplace_back(session.getStackedBytes(spec));
  return arrays;
}

llvm::Error bindArrays(Session &session, Arrays &arrays) {
  auto view = [&](const TensorSpec &spec, Buffer &buffer) {
    return HostTensor{spec.elementType, session.getStackedShape(spec),
                      buffer.data()};
  };
  std::vector<HostTensor> inputs, outputs;
  for (auto [spec, array] : llvm::zip(session.getInputs(), arrays.inputs))
    inputs.push_back(view(spec, array));
  for (auto [spec, array] : llvm::zip(session.getOutputs(), arrays.outputs))
    outputs.push_back(view(spec, array));
  return session.bind(inputs, outputs);
}

llvm::Error writeOutputs(const Session &session, const Arrays &arrays,
                         const Options &options) {
  if (std::error_code ec = llvm::sys::fs::create_directories(options.outputDir))
    return error("cannot create " + options.outputDir + ": " + ec.message());
  for (auto [spec, buffer] : llvm::zip(session.getOutputs(), arrays.outputs)) {
    NpyArray array{npyDtypeOf(spec.elementType), session.getStackedShape(spec),
                   std::vector<uint8_t>(buffer.data(),
                                        buffer.data() + buffer.size())};
    if (array.dtype.empty())
      return error("output '" + spec.name + "' has element type " +
                   spec.elementType + ", which .npy cannot hold");
    std::string message;
    if (!writeNpy(outputPath(options, spec.name), array, message))
      return error(message);
  }
  return llvm::Error::success();
}

llvm::Error writeProfile(const Session &session, const Timing &timing,
                         const Options &options) {
  unsigned runs = timing.starts.size();
  llvm::json::Object profile;
  for (const auto &[name, seconds] : session.getProfile(runs))
    profile[name] = llvm::json::Object{{options.profileKind, seconds}};
  std::error_code ec;
  llvm::raw_fd_ostream os(options.profile, ec);
  if (ec)
    return error("cannot write " + options.profile + ": " + ec.message());
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(profile))) << "\n";
  auto [nodes, inNodes] = session.getProfileTotal(runs);
  double total = 0;
  for (auto [start, end] : llvm::zip(timing.starts, timing.ends))
    total += end - start;
  int64_t samples = int64_t(runs) * session.getMicrobatches();
  llvm::outs() << llvm::formatv(
      "profile: {0} nodes, {1:e} s per run inside nodes of {2:e} s per run "
      "({3} runs, kind '{4}') -> {5}\n",
      nodes, inNodes, total / samples, samples,
      options.profileKind.getValue(), options.profile.getValue());
  return llvm::Error::success();
}

/// Samples per run: the first dimension of the first graph output.
int64_t samplesPerRun(const ProgramShape &program) {
  if (program.outputs.empty())
    return 1;
  const std::vector<int64_t> &shape = std::get<2>(program.outputs.front());
  return shape.empty() ? 1 : shape.front();
}

void printTimes(const TimeSummary &times, int64_t samples,
                const std::optional<Prediction> &prediction,
                const Options &options, const MpiJob *job,
                llvm::StringRef function) {
  if (times.runs == 0)
    return;
  bool distributed = job && job->isDistributed();
  llvm::outs() << llvm::formatv(
      "{0}: {1} runs{2}, {3:e} s per run (min), {4:e} s (median), {5:e} s "
      "per sample (median, {6} samples per run)\n",
      distributed ? "pipeline of " + std::to_string(job->getSize()) + " ranks"
                  : function.str(),
      times.runs,
      options.microbatches > 1
          ? " of " + std::to_string(options.microbatches) + " microbatches"
          : std::string(),
      times.min, times.median, times.median / samples, samples);
  if (prediction)
    llvm::outs() << llvm::formatv(
        "simulated (--placer-simulate, the module's costs): {0:e} s per run, "
        "measured / simulated = {1:f2}\n",
        prediction->perRun, prediction->measuredOverSimulated);
}

void printRanks(llvm::ArrayRef<RankFigures> ranks) {
  for (auto [rank, figures] : llvm::enumerate(ranks))
    llvm::outs() << llvm::formatv(
        "  rank {0}: compute {1:e} s, waiting on receives {2:e} s, on sends "
        "{3:e} s, sent {4} bytes in {5} messages (per run)\n",
        rank, figures.compute, figures.recvWait, figures.sendWait,
        int64_t(std::llround(figures.bytesSent)),
        int64_t(std::llround(figures.messagesSent)));
}

/// Every graph output, whichever rank wrote it.
llvm::json::Array describeOutputs(const ProgramShape &program,
                                  const Options &options, bool distributed) {
  llvm::json::Array outputs;
  if (options.outputDir.empty())
    return outputs;
  for (const auto &[rank, name, shape] : program.outputs) {
    llvm::json::Object entry{
        {"name", name},
        {"file", outputPath(options, name)},
        {"shape", llvm::json::Array(stackShape(shape, options.microbatches))}};
    if (distributed)
      entry["rank"] = rank;
    outputs.push_back(std::move(entry));
  }
  return outputs;
}

SessionOptions getSessionOptions(const Options &options, MpiJob *job) {
  SessionOptions sessionOptions;
  sessionOptions.profile = !options.profile.empty();
  sessionOptions.microbatches = options.microbatches;
  sessionOptions.transfers = options.transfers;
  sessionOptions.cacheDir = options.cacheDir;
  sessionOptions.job = job;
  return sessionOptions;
}

/// --compile-only DIR: the whole module's artifact, or for a split module
/// one per stage (DIR/stage-<k>) and the ranks' program (DIR/program.json).
llvm::Error compileArtifacts(mlir::ModuleOp module, const Options &options,
                             const MpiJob *job) {
  if (job && job->isDistributed())
    return error("--compile-only compiles every stage in one process: run "
                 "it without mpirun");
  ProgramShape program = describeProgram(module);
  SessionOptions sessionOptions = getSessionOptions(options, nullptr);
  // Every parameter in the weights file: retrained weights need no
  // recompilation.
  sessionOptions.inlineWeights = false;
  std::vector<std::pair<int64_t, std::string>> folders;
  if (program.stages == 0)
    folders.emplace_back(-1, options.compileOnly);
  for (int64_t stage = 0; stage < program.stages; ++stage)
    folders.emplace_back(stage, getStageFolder(options.compileOnly, stage));
  for (const auto &[stage, folder] : folders) {
    sessionOptions.stage = stage;
    auto session = Session::create(module, sessionOptions);
    if (!session)
      return session.takeError();
    if (llvm::Error e = (*session)->writeArtifact(folder))
      return e;
    llvm::outs() << "wrote " << folder << " ("
                 << (stage < 0 ? std::string("whole program")
                               : "stage " + std::to_string(stage))
                 << ", entry " << (*session)->getFunction() << ")\n";
  }
  if (program.stages == 0)
    return llvm::Error::success();
  ProgramManifest manifest{program.inputNames, program.outputs, program.stages,
                           program.rankStages};
  std::string message;
  if (!writeProgramManifest(options.compileOnly, manifest, message))
    return error(message);
  return llvm::Error::success();
}

/// What a run needs besides its session: the program's shape and, for a
/// module with costs, the simulator's prediction.
struct Loaded {
  std::unique_ptr<Session> session;
  ProgramShape program;
  std::optional<llvm::json::Object> simulated;
};

/// An artifact folder: a whole program, or under mpirun the stage of this
/// rank in a split one.
llvm::Expected<Loaded> openArtifact(const Options &options, MpiJob *job,
                                    int argc, char **argv) {
  Loaded loaded;
  std::string dir = options.model, message;
  bool distributed = job && job->isDistributed();
  if (isSplitArtifact(dir)) {
    std::optional<ProgramManifest> manifest = readProgramManifest(dir, message);
    if (!manifest)
      return error(message);
    loaded.program = ProgramShape{manifest->inputNames, manifest->outputs,
                                  manifest->stages, manifest->rankStages};
    if (!distributed)
      return error(dir + " holds a split program of " +
                   llvm::Twine(manifest->stages) +
                   " stages: run it with mpirun, one rank per device");
    if (llvm::Error e = job->assignStage(loaded.program,
                                         launchIdentity(options, argc, argv)))
      return std::move(e);
    dir = getStageFolder(dir, job->getStage());
  } else if (distributed) {
    return error(dir + " holds a whole program: run it without mpirun (or "
                       "compile a split module)");
  }
  auto session = Session::open(dir, getSessionOptions(options, job));
  if (!session)
    return session.takeError();
  loaded.session = std::move(*session);
  if (loaded.program.stages == 0) {
    for (const TensorSpec &spec : loaded.session->getInputs())
      loaded.program.inputNames.push_back(spec.name);
    for (const TensorSpec &spec : loaded.session->getOutputs())
      loaded.program.outputs.emplace_back(0, spec.name, spec.shape);
  }
  return std::move(loaded);
}

/// A module: compiled here (or taken from the cache).
llvm::Expected<Loaded> compileModule(mlir::ModuleOp module,
                                     const Options &options, MpiJob *job,
                                     int argc, char **argv) {
  Loaded loaded;
  loaded.program = describeProgram(module);
  if (job && job->isDistributed())
    if (llvm::Error e = job->assignStage(loaded.program,
                                         launchIdentity(options, argc, argv)))
      return std::move(e);
  if (!job || job->getRank() == 0)
    loaded.simulated = simulateQuietly(module, options.microbatches);
  auto session = Session::create(module, getSessionOptions(options, job));
  if (!session)
    return session.takeError();
  loaded.session = std::move(*session);
  return std::move(loaded);
}

/// Everything after the command line; a failure is the message to print.
llvm::Error runTool(const Options &options, MpiJob *job, int argc,
                    char **argv) {
  if (llvm::Error e = checkOptions(options))
    return e;
  auto given = parseInputFlags(options);
  if (!given)
    return given.takeError();
  bool distributed = job && job->isDistributed();
  if (distributed && !options.profile.empty())
    return error("--profile times the model whole: run it without mpirun");

  mlir::DialectRegistry registry;
  placer::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  bool isArtifact = llvm::sys::fs::is_directory(options.model.getValue());
  if (isArtifact && !options.compileOnly.empty())
    return error(options.model + " is an artifact already compiled");
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (!isArtifact) {
    module = mlir::parseSourceFile<mlir::ModuleOp>(
        options.model, sourceMgr, mlir::ParserConfig(&context));
    if (!module)
      return error("cannot parse " + options.model);
    if (!options.compileOnly.empty())
      return compileArtifacts(*module, options, job);
  }
  llvm::Expected<Loaded> loaded =
      isArtifact ? openArtifact(options, job, argc, argv)
                 : compileModule(*module, options, job, argc, argv);
  if (!loaded)
    return loaded.takeError();
  Session &session = *loaded->session;
  const ProgramShape &program = loaded->program;
  for (const auto &[name, file] : *given)
    if (!program.hasInput(name))
      return error("the model has no input named '" + name + "'");

  auto arrays = prepareArrays(session, options, *given);
  if (!arrays)
    return arrays.takeError();
  if (llvm::Error e = bindArrays(session, *arrays))
    return e;

  bool profiling = !options.profile.empty();
  unsigned runs = profiling || distributed ? std::max(1u, unsigned(options.repeat))
                                           : unsigned(options.repeat);
  auto timing = session.measure(runs);
  if (!timing)
    return timing.takeError();
  if (distributed)
    if (llvm::Error e = job->gather(*timing))
      return e;
  if (profiling)
    if (llvm::Error e = writeProfile(session, *timing, options))
      return e;
  if (!options.outputDir.empty()) {
    if (llvm::Error e = session.collectOutputs())
      return e;
    if (!distributed || job->getCopy() == 0)
      if (llvm::Error e = writeOutputs(session, *arrays, options))
        return e;
  }
  if (job && job->getRank() != 0)
    return llvm::Error::success();

  TimeSummary times = summarizeTimes(*timing, options.microbatches);
  std::optional<Prediction> prediction;
  if (loaded->simulated && times.runs > 0)
    prediction = predict(*loaded->simulated, options.microbatches, times);
  int64_t samples = samplesPerRun(program);
  printTimes(times, samples, prediction, options, job, session.getFunction());
  llvm::json::Object report{
      {"model", options.model.getValue()},
      {"function", session.getFunction()},
      {"cached", session.isCached()},
      {"compile_seconds", session.getCompileSeconds()},
      {"microbatches", int64_t(options.microbatches)},
      {"outputs", describeOutputs(program, options, distributed)}};
  addTimesToReport(report, times, samples, prediction);
  if (distributed) {
    printRanks(timing->ranks);
    report["ranks"] = getRanksReport(timing->ranks);
    report["transfers"] = options.transfers.getValue();
  }
  if (options.report.empty())
    return llvm::Error::success();
  std::error_code ec;
  llvm::raw_fd_ostream os(options.report, ec);
  if (ec)
    return error("cannot write " + options.report + ": " + ec.message());
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  Options options;
  cl::ParseCommandLineOptions(
      argc, argv,
      "Placer runner: compile a graph module ahead of time and run it, alone "
      "or one MPI rank per device\n");
  std::unique_ptr<MpiJob> job;
  if (MpiJob::launchedByMpi()) {
    auto started = MpiJob::start(&argc, &argv, options.transferTimeout);
    if (!started) {
      llvm::errs() << "placer-run: error: "
                   << llvm::toString(started.takeError()) << "\n";
      return 1;
    }
    job = std::move(*started);
  }
  llvm::Error failure = runTool(options, job.get(), argc, argv);
  if (!failure)
    return 0;
  // One write: mpirun's banner for the aborted job must not land inside the
  // line (stderr is unbuffered).
  std::string line = "placer-run: error: ";
  if (job && job->isDistributed())
    line += "rank " + std::to_string(job->getRank()) + ": ";
  line += llvm::toString(std::move(failure)) + "\n";
  llvm::errs() << line;
  // Under mpirun, a failing rank ends the whole job: its peers would wait
  // for it otherwise.
  if (job && job->isDistributed())
    job->abort(1);
  return 1;
}
