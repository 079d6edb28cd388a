//===- Session.cpp - Compile a module once, run it on caller buffers ------===//

#include "placer/Runtime/Session.h"

#include "placer/Runtime/Artifact.h"

#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Runtime/DistHooks.h"
#include "placer/Runtime/ProfileHooks.h"
#include "placer/Transforms/Simulation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

using namespace placer;
using namespace placer::runtime;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string placer::runtime::formatShape(llvm::ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(
                        shape, [](int64_t d) { return std::to_string(d); }),
                    ", ") +
         "]";
}

static double steadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

//===----------------------------------------------------------------------===//
// The program's shape
//===----------------------------------------------------------------------===//

bool ProgramShape::hasInput(llvm::StringRef name) const {
  return llvm::is_contained(inputNames, name);
}

ProgramShape placer::runtime::describeProgram(mlir::ModuleOp module) {
  ProgramShape shape;
  auto record = [&](mlir::func::FuncOp func, int rank) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto name = func.getArgAttrOfType<mlir::StringAttr>(i, "graph.name"))
        if (!shape.hasInput(name.getValue()))
          shape.inputNames.push_back(name.str());
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      if (auto name =
              func.getResultAttrOfType<mlir::StringAttr>(i, "graph.name")) {
        auto type = mlir::cast<mlir::ShapedType>(func.getResultTypes()[i]);
        shape.outputs.emplace_back(
            rank, name.str(),
            std::vector<int64_t>(type.getShape().begin(),
                                 type.getShape().end()));
      }
  };
  auto programs = llvm::to_vector(module.getOps<dist::ProgramOp>());
  if (programs.size() == 1) {
    dist::ProgramOp program = programs.front();
    shape.stages = program.getStages().size();
    for (int64_t stage : program.getRankStages())
      shape.rankStages.push_back(stage);
    for (auto [stage, ref] : llvm::enumerate(program.getStages()))
      if (auto func =
              mlir::SymbolTable::lookupNearestSymbolFrom<mlir::func::FuncOp>(
                  module, mlir::cast<mlir::SymbolRefAttr>(ref)))
        record(func, llvm::find(shape.rankStages, int64_t(stage)) -
                         shape.rankStages.begin());
    return shape;
  }
  for (auto func : module.getOps<mlir::func::FuncOp>())
    if (func.isPublic() && !func.isDeclaration())
      record(func, 0);
  return shape;
}

//===----------------------------------------------------------------------===//
// MPI jobs
//===----------------------------------------------------------------------===//

std::array<double, RankFigures::kCount> RankFigures::pack() const {
  return {compute, recvWait, sendWait, bytesSent, messagesSent, bytesReceived};
}

RankFigures RankFigures::unpack(const double *v) {
  return {v[0], v[1], v[2], v[3], v[4], v[5]};
}

bool MpiJob::launchedByMpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") ||
         std::getenv("PMI_RANK");
}

llvm::Expected<std::unique_ptr<MpiJob>>
MpiJob::start(int *argc, char ***argv, double transferTimeout) {
  std::unique_ptr<MpiJob> job(new MpiJob());
  if (placer_dist_init(argc, argv, &job->rank, &job->size))
    return error("cannot start MPI");
  placer_dist_set_timeout(transferTimeout);
  return std::move(job);
}

MpiJob::~MpiJob() { placer_dist_finalize(); }

void MpiJob::abort(int code) const {
  placer_dist_abort(code);
  // placer_dist_abort does not return; this keeps [[noreturn]] honest.
  std::_Exit(code);
}

double MpiJob::now() const { return placer_dist_time(); }

llvm::Error MpiJob::assignStage(const ProgramShape &program,
                                uint64_t identity) {
  if (program.stages == 0)
    return error("the module is not split (no dist.program): run it "
                 "without mpirun, or split it with --partition-devices");
  int64_t devices = program.rankStages.size();
  if (devices != size)
    return error(
        "the program has " + llvm::Twine(program.stages) + " stages on " +
        llvm::Twine(devices) +
        " devices (copies of replicated stages included), one per rank: "
        "start it with mpirun -n " +
        llvm::Twine(devices) + ", not " + llvm::Twine(size));
  if (!placer_dist_same(identity))
    return error("the ranks were started with different models or flags");
  stage = program.rankStages[rank];
  int64_t first =
      llvm::find(program.rankStages, stage) - program.rankStages.begin();
  replicas = llvm::count(program.rankStages, stage);
  copy = rank - first;
  placer_dist_set_copy(replicas, copy);
  return llvm::Error::success();
}

llvm::Error MpiJob::gather(Timing &timing) const {
  std::vector<double> local(timing.starts);
  local.insert(local.end(), timing.ends.begin(), timing.ends.end());
  auto packed = timing.mine.pack();
  local.insert(local.end(), packed.begin(), packed.end());
  std::vector<double> all(local.size() * size);
  if (placer_dist_gather(local.data(), local.size(), all.data()))
    return error("cannot gather the ranks' figures");
  if (rank != 0)
    return llvm::Error::success();
  size_t runs = timing.starts.size();
  timing.ranks.clear();
  for (int r = 0; r < size; ++r) {
    const double *row = all.data() + r * local.size();
    for (size_t i = 0; i < runs; ++i) {
      timing.starts[i] = std::min(timing.starts[i], row[i]);
      timing.ends[i] = std::max(timing.ends[i], row[runs + i]);
    }
    timing.ranks.push_back(RankFigures::unpack(row + 2 * runs));
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Sessions
//===----------------------------------------------------------------------===//

std::string placer::runtime::getDefaultCacheDir() {
  llvm::SmallString<256> dir;
  if (!llvm::sys::path::cache_directory(dir))
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/false, dir);
  llvm::sys::path::append(dir, "placer");
  return std::string(dir);
}

llvm::Expected<std::unique_ptr<Session>>
Session::create(mlir::ModuleOp module, const SessionOptions &options) {
  if (options.microbatches < 1)
    return error("microbatches must be at least 1, got " +
                 llvm::Twine(options.microbatches));
  if (options.transfers != "pipelined" && options.transfers != "blocking")
    return error("transfers must be 'pipelined' or 'blocking', not '" +
                 options.transfers + "'");
  bool distributed = options.job && options.job->isDistributed();
  if (distributed && options.profile)
    return error("--profile times the model whole: run it without mpirun");
  std::unique_ptr<Session> session(new Session());
  session->options = options;

  ExecutionOptions execution;
  execution.profile = options.profile;
  execution.stage = distributed ? options.job->getStage() : options.stage;
  execution.transfers = options.transfers;
  execution.inlineWeights = options.inlineWeights;
  // Lowering rewrites the module in place: the caller keeps the graph.
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
  llvm::Expected<LoweredModule> lowered = lowerForExecution(*copy, execution);
  if (!lowered)
    return lowered.takeError();
  session->lowered = std::move(*lowered);

  std::string cacheDir =
      options.cacheDir.empty() ? getDefaultCacheDir() : options.cacheDir;
  double start = steadySeconds();
  llvm::Expected<std::string> library = compileToSharedObject(
      *copy, session->lowered.function, cacheDir, session->cached);
  if (!library)
    return library.takeError();
  session->compileSeconds = steadySeconds() - start;
  session->libraryPath = *library;
  std::string message;
  std::optional<Executable> executable =
      Executable::load(*library, session->lowered.function, message);
  if (!executable)
    return error(message);
  session->executable = std::move(*executable);
  return std::move(session);
}

/// The host's target triple and CPU, as the compiled code was made for.
static std::pair<std::string, std::string> getHostTarget() {
  return {llvm::sys::getDefaultTargetTriple(),
          llvm::sys::getHostCPUName().str()};
}

llvm::Error Session::writeArtifact(llvm::StringRef dir) const {
  Manifest manifest;
  manifest.placerVersion = getPlacerVersion();
  manifest.llvmVersion = LLVM_VERSION_STRING;
  manifest.entry = lowered.function;
  std::tie(manifest.target, manifest.cpu) = getHostTarget();
  manifest.stage = options.job && options.job->isDistributed()
                       ? options.job->getStage()
                       : options.stage;
  manifest.transfers = options.transfers;
  manifest.inputs = lowered.inputs;
  manifest.weights = lowered.weights;
  manifest.outputs = lowered.outputs;
  manifest.profileNodes = lowered.profileNodes;
  std::vector<const Buffer *> weights;
  for (const Buffer &weight : lowered.weightData)
    weights.push_back(&weight);
  std::string message;
  if (!placer::runtime::writeArtifact(dir.str(), std::move(manifest), weights,
                                      libraryPath, message))
    return error(message);
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<Session>>
Session::open(llvm::StringRef dir, const SessionOptions &options) {
  if (options.microbatches < 1)
    return error("microbatches must be at least 1, got " +
                 llvm::Twine(options.microbatches));
  std::string message;
  std::optional<LoadedArtifact> artifact = loadArtifact(dir.str(), message);
  if (!artifact)
    return error(message);
  const Manifest &manifest = artifact->manifest;
  bool distributed = options.job && options.job->isDistributed();
  int64_t stage = distributed ? options.job->getStage() : -1;
  if (manifest.stage != stage)
    return error(dir + ": holds " +
                 (manifest.stage < 0
                      ? std::string("a whole program")
                      : "stage " + std::to_string(manifest.stage)) +
                 ", this process runs " +
                 (stage < 0 ? std::string("the whole program")
                            : "stage " + std::to_string(stage)));
  if (options.profile != !manifest.profileNodes.empty())
    return error(dir + ": " +
                 (options.profile ? "compiled without profiling: compile it "
                                    "with --profile to profile it"
                                  : "compiled with profiling: run it with "
                                    "--profile"));
  std::unique_ptr<Session> session(new Session());
  session->options = options;
  session->options.transfers = manifest.transfers;
  session->lowered.function = manifest.entry;
  session->lowered.inputs = manifest.inputs;
  session->lowered.weights = manifest.weights;
  session->lowered.outputs = manifest.outputs;
  session->lowered.weightData = std::move(artifact->weights);
  session->lowered.profileNodes = manifest.profileNodes;
  session->libraryPath = artifact->libraryPath;
  session->cached = true;
  session->executable = std::move(artifact->executable);
  return std::move(session);
}

std::vector<int64_t> placer::runtime::stackShape(llvm::ArrayRef<int64_t> shape,
                                                int64_t microbatches) {
  if (shape.empty())
    return {microbatches};
  std::vector<int64_t> stacked(shape.begin(), shape.end());
  stacked[0] *= microbatches;
  return stacked;
}

std::vector<int64_t> Session::getStackedShape(const TensorSpec &spec) const {
  return stackShape(spec.shape, options.microbatches);
}

bool Session::acceptsShape(const TensorSpec &spec,
                           llvm::ArrayRef<int64_t> shape) const {
  int64_t m = options.microbatches;
  std::vector<int64_t> stacked = spec.shape;
  stacked.insert(stacked.begin(), m);
  return shape == llvm::ArrayRef(getStackedShape(spec)) ||
         shape == llvm::ArrayRef(stacked) ||
         (m == 1 && shape == llvm::ArrayRef(spec.shape));
}

std::string Session::describeShape(const TensorSpec &spec) const {
  int64_t m = options.microbatches;
  return formatShape(getStackedShape(spec)) +
         (m > 1 ? " (" + std::to_string(m) + " microbatches of " +
                      formatShape(spec.shape) + ")"
                : std::string());
}

int64_t Session::getStackedBytes(const TensorSpec &spec) const {
  return spec.getByteSize() * options.microbatches;
}

/// Whether `tensor` holds the M microbatches of `spec`.
static llvm::Error checkTensor(const Session &session, const TensorSpec &spec,
                               const HostTensor &tensor, llvm::StringRef role) {
  if (!tensor.data)
    return error(role + " '" + spec.name + "' has no data");
  if (tensor.elementType == spec.elementType &&
      session.acceptsShape(spec, tensor.shape))
    return llvm::Error::success();
  return error(role + " '" + spec.name + "' needs " + spec.elementType + " " +
               session.describeShape(spec) + ", got " + tensor.elementType +
               " " + formatShape(tensor.shape));
}

llvm::Error Session::bind(llvm::ArrayRef<HostTensor> inputs,
                          llvm::ArrayRef<HostTensor> outputs) {
  if (inputs.size() != lowered.inputs.size() ||
      outputs.size() != lowered.outputs.size())
    return error("'" + lowered.function + "' takes " +
                 llvm::Twine(lowered.inputs.size()) + " inputs and " +
                 llvm::Twine(lowered.outputs.size()) + " outputs, got " +
                 llvm::Twine(inputs.size()) + " and " +
                 llvm::Twine(outputs.size()));
  for (auto [spec, tensor] : llvm::zip(lowered.inputs, inputs))
    if (llvm::Error e = checkTensor(*this, spec, tensor, "input"))
      return e;
  for (auto [spec, tensor] : llvm::zip(lowered.outputs, outputs))
    if (llvm::Error e = checkTensor(*this, spec, tensor, "output"))
      return e;

  std::vector<const TensorSpec *> specs;
  for (const std::vector<TensorSpec> *group :
       {&lowered.inputs, &lowered.weights, &lowered.outputs})
    for (const TensorSpec &spec : *group)
      specs.push_back(&spec);
  std::lock_guard<std::mutex> lock(running);
  calls.clear();
  boundOutputs.clear();
  for (const HostTensor &tensor : outputs)
    boundOutputs.push_back(static_cast<uint8_t *>(tensor.data));
  for (int64_t m = 0; m < options.microbatches; ++m) {
    std::vector<uint8_t *> data;
    for (auto [tensor, spec] : llvm::zip(inputs, lowered.inputs))
      data.push_back(static_cast<uint8_t *>(tensor.data) +
                     m * spec.getByteSize());
    for (Buffer &weight : lowered.weightData)
      data.push_back(weight.data());
    for (auto [tensor, spec] : llvm::zip(outputs, lowered.outputs))
      data.push_back(static_cast<uint8_t *>(tensor.data) +
                     m * spec.getByteSize());
    calls.push_back(Executable::bind(data, specs));
  }
  return llvm::Error::success();
}

double Session::now() const {
  return options.job ? options.job->now() : steadySeconds();
}

llvm::Expected<std::pair<double, double>> Session::run() {
  std::lock_guard<std::mutex> lock(running);
  return runOnce();
}

llvm::Expected<std::pair<double, double>> Session::runOnce() {
  if (calls.empty())
    return error("no buffers bound to '" + lowered.function +
                 "': bind its inputs and outputs before running it");
  const MpiJob *job = options.job;
  bool distributed = job && job->isDistributed();
  if (distributed) {
    if (placer_dist_barrier())
      return error("the ranks could not meet before a run");
    placer_dist_begin(options.microbatches);
  }
  double start = now();
  for (auto [m, call] : llvm::enumerate(calls)) {
    if (distributed) {
      if (!job->runs(m))
        continue;
      placer_dist_set_microbatch(m);
    }
    executable->run(call);
  }
  if (distributed)
    placer_dist_end();
  return std::make_pair(start, now());
}

llvm::Expected<Timing> Session::measure(unsigned runs) {
  std::lock_guard<std::mutex> lock(running);
  if (auto warmup = runOnce(); !warmup)
    return warmup.takeError();
  // The warm-up run is not part of the profile.
  if (options.profile && placer_profile_reset(lowered.profileNodes.size()))
    return error("out of memory for the profile counters");
  bool distributed = options.job && options.job->isDistributed();
  Timing timing;
  for (unsigned r = 0; r < runs; ++r) {
    auto times = runOnce();
    if (!times)
      return times.takeError();
    auto [start, end] = *times;
    timing.starts.push_back(start);
    timing.ends.push_back(end);
    if (!distributed)
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
  timing.ranks = {timing.mine};
  return timing;
}

std::map<std::string, double> Session::getProfile(unsigned runs) const {
  std::map<std::string, std::pair<double, int>> byName;
  const double *totals = placer_profile_totals();
  double samples = double(std::max(1u, runs)) * options.microbatches;
  for (auto [i, node] : llvm::enumerate(lowered.profileNodes)) {
    auto &[seconds, count] = byName[node];
    seconds += totals ? totals[i] / samples : 0.0;
    ++count;
  }
  std::map<std::string, double> profile;
  for (const auto &[name, entry] : byName)
    profile[name] = entry.first / entry.second;
  return profile;
}

std::pair<size_t, double> Session::getProfileTotal(unsigned runs) const {
  const double *totals = placer_profile_totals();
  double samples = double(std::max(1u, runs)) * options.microbatches;
  double inNodes = 0;
  for (size_t i = 0; totals && i < lowered.profileNodes.size(); ++i)
    inNodes += totals[i] / samples;
  return {lowered.profileNodes.size(), inNodes};
}

llvm::Error Session::collectOutputs() {
  if (!options.job || !options.job->isDistributed())
    return llvm::Error::success();
  for (auto [spec, data] : llvm::zip(lowered.outputs, boundOutputs))
    if (placer_dist_collect(data, spec.getByteSize()))
      return error("cannot collect output '" + spec.name +
                   "' from the copies of stage " +
                   llvm::Twine(options.job->getStage()));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Inputs, times, predictions
//===----------------------------------------------------------------------===//

void placer::runtime::fillSeeded(uint8_t *data, const TensorSpec &spec,
                                 int64_t microbatches, uint64_t seed) {
  std::seed_seq sequence{seed, static_cast<uint64_t>(spec.graphIndex)};
  std::mt19937_64 rng(sequence);
  int64_t n = spec.getNumElements() * microbatches;
  llvm::StringRef type = spec.elementType;
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> integer(0, 9);
  for (int64_t i = 0; i < n; ++i) {
    if (type == "f32") {
      float v = real(rng);
      std::memcpy(data + 4 * i, &v, 4);
    } else if (type == "f64") {
      double v = real(rng);
      std::memcpy(data + 8 * i, &v, 8);
    } else if (type == "i64") {
      int64_t v = integer(rng);
      std::memcpy(data + 8 * i, &v, 8);
    } else if (type == "i32") {
      int32_t v = integer(rng);
      std::memcpy(data + 4 * i, &v, 4);
    } else {
      data[i * spec.elementBytes] = integer(rng) % 2;
    }
  }
}

TimeSummary placer::runtime::summarizeTimes(const Timing &timing,
                                            int64_t microbatches) {
  std::vector<double> times;
  for (auto [start, end] : llvm::zip(timing.starts, timing.ends))
    times.push_back((end - start) / microbatches);
  TimeSummary summary;
  summary.runs = times.size();
  if (times.empty())
    return summary;
  std::sort(times.begin(), times.end());
  summary.min = times.front();
  summary.median = times[times.size() / 2];
  return summary;
}

std::optional<llvm::json::Object>
placer::runtime::simulateQuietly(mlir::ModuleOp module, int64_t microbatches) {
  if (module.getOps<dist::ProgramOp>().empty() ||
      !module->hasAttr("placer.cluster"))
    return std::nullopt;
  mlir::ScopedDiagnosticHandler quiet(
      module.getContext(), [](mlir::Diagnostic &) { return mlir::success(); });
  SimulationSettings settings;
  settings.microbatches = microbatches;
  mlir::FailureOr<Simulation> simulation = simulate(module, settings);
  if (mlir::failed(simulation))
    return std::nullopt;
  return std::move(simulation->report);
}

Prediction placer::runtime::predict(const llvm::json::Object &simulated,
                                    int64_t microbatches,
                                    const TimeSummary &measured) {
  Prediction prediction;
  prediction.total = simulated.getNumber("total").value_or(0);
  prediction.perRun = prediction.total / microbatches;
  prediction.steadyPerRun =
      simulated.getNumber("time_per_sample").value_or(0);
  prediction.measuredOverSimulated =
      prediction.perRun > 0 ? measured.median / prediction.perRun : 0.0;
  return prediction;
}

void placer::runtime::addTimesToReport(
    llvm::json::Object &report, const TimeSummary &times,
    int64_t samplesPerRun, const std::optional<Prediction> &prediction) {
  if (times.runs == 0)
    return;
  double samples = double(samplesPerRun);
  report["repeat"] = static_cast<int64_t>(times.runs);
  report["samples_per_run"] = samplesPerRun;
  report["seconds_per_run"] =
      llvm::json::Object{{"min", times.min}, {"median", times.median}};
  report["seconds_per_sample"] = llvm::json::Object{
      {"min", times.min / samples}, {"median", times.median / samples}};
  if (!prediction)
    return;
  report["simulated"] = llvm::json::Object{
      {"seconds_per_run", prediction->perRun},
      {"steady_state_seconds_per_run", prediction->steadyPerRun},
      {"total_seconds", prediction->total},
      {"measured_over_simulated", prediction->measuredOverSimulated}};
}

llvm::json::Array
placer::runtime::getRanksReport(llvm::ArrayRef<RankFigures> ranks) {
  llvm::json::Array perRank;
  for (auto [rank, figures] : llvm::enumerate(ranks))
    perRank.push_back(llvm::json::Object{
        {"rank", int64_t(rank)},
        {"compute_seconds", figures.compute},
        {"recv_wait_seconds", figures.recvWait},
        {"send_wait_seconds", figures.sendWait},
        {"bytes_sent", int64_t(std::llround(figures.bytesSent))},
        {"messages_sent", int64_t(std::llround(figures.messagesSent))},
        {"bytes_received", int64_t(std::llround(figures.bytesReceived))}});
  return perRank;
}
