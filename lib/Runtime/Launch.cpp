//===- Launch.cpp - What placer-run does with a loaded program ------------===//

#include "placer/Runtime/Launch.h"

#include "placer/Runtime/Artifact.h"
#include "placer/Runtime/CpuLibraryCalls.h"
#include "placer/Runtime/Npy.h"
#include "placer/Runtime/PlainJson.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

using namespace placer::runtime;
namespace fs = std::filesystem;

bool placer::runtime::parseLaunchOptions(
    const std::vector<std::string> &inputFlags, LaunchOptions &options,
    std::string &error) {
  auto fail = [&](const char *message) {
    error = message;
    return false;
  };
  if (options.outputDir.empty() && options.profile.empty())
    return fail("give --output-dir DIR (outputs) or --profile FILE.json");
  if (options.microbatches < 1)
    return fail("--microbatches must be at least 1");
  if (!(options.transferTimeout > 0))
    return fail("--transfer-timeout must be positive");
  if (options.trainSteps < 0)
    return fail("--train-steps must not be negative");
  if (!options.saveWeights.empty() && options.trainSteps == 0)
    return fail("--save-weights needs --train-steps");
  if (options.trainSteps > 0 && options.outputDir.empty())
    return fail(
        "--train-steps needs --output-dir DIR (it writes DIR/loss.npy)");
  for (const std::string &flag : inputFlags) {
    size_t equals = flag.find('=');
    if (equals == 0 || equals == std::string::npos ||
        equals + 1 == flag.size()) {
      error = "--input expects NAME=FILE.npy, got '" + flag + "'";
      return false;
    }
    options.inputs[flag.substr(0, equals)] = flag.substr(equals + 1);
  }
  return true;
}

uint64_t placer::runtime::getLaunchIdentity(const std::string &model, int argc,
                                            char **argv) {
  std::string identity, unreadable;
  fs::path path(model);
  std::error_code ec;
  if (fs::is_directory(path, ec))
    path /= "program.json";
  // An unreadable model fails later, with its own message.
  if (!readTextFile(path.string(), identity, unreadable))
    identity.clear();
  for (int i = 1; i < argc; ++i)
    identity += std::string("\0", 1) + argv[i];
  // FNV-1a: equal on every rank, which is all it needs to be.
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : identity)
    hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

std::unique_ptr<Program>
placer::runtime::openArtifact(const LaunchOptions &options, MpiJob *job,
                              uint64_t identity, Launch &launch,
                              std::string &error) {
  std::string dir = options.model;
  bool distributed = job && job->isDistributed();
  if (isSplitArtifact(dir)) {
    std::optional<ProgramShape> shape = readProgramManifest(dir, error);
    if (!shape)
      return nullptr;
    launch.shape = std::move(*shape);
    if (!distributed) {
      error = dir + " holds a split program of " +
              std::to_string(launch.shape.stages) +
              " stages: run it with mpirun, one rank per device";
      return nullptr;
    }
    if (!job->assignStage(launch.shape, identity, error))
      return nullptr;
    dir = getStageFolder(dir, job->getStage());
  } else if (distributed) {
    error = dir + " holds a whole program: run it without mpirun (or "
                  "compile a split module)";
    return nullptr;
  }
  ProgramOptions programOptions;
  programOptions.profile = !options.profile.empty();
  // A training step's microbatches are in its graph (each averaged before
  // the update): one run takes them all.
  programOptions.microbatches =
      options.trainSteps > 0 ? 1 : options.microbatches;
  programOptions.threads = options.threads;
  programOptions.job = job;
  std::unique_ptr<Program> program = Program::open(dir, programOptions, error);
  if (!program)
    return nullptr;
  if (launch.shape.stages == 0) {
    for (const TensorSpec &spec : program->getInputs())
      launch.shape.inputNames.push_back(spec.name);
    for (const TensorSpec &spec : program->getOutputs())
      launch.shape.outputs.emplace_back(0, spec.name, spec.shape);
  }
  launch.program = program.get();
  return program;
}

namespace {

std::string outputPath(const std::string &dir, const std::string &name) {
  return (fs::path(dir) / npyFileName(name)).string();
}

/// Every input and output of the program in aligned buffers (64 bytes,
/// for vector loads), all microbatches stacked: inputs read from --input
/// files or seeded, outputs zeroed.
struct Arrays {
  std::vector<Buffer> inputs, outputs;
};

std::optional<Arrays> prepareArrays(Program &program,
                                    const LaunchOptions &options,
                                    std::string &error) {
  // The files first: with dynamic dims, their shapes size the program.
  std::vector<std::optional<NpyArray>> files;
  std::vector<std::vector<int64_t>> shapes;
  for (const TensorSpec &spec : program.getInputs()) {
    auto file = options.inputs.find(spec.name);
    files.emplace_back();
    if (file != options.inputs.end()) {
      files.back() = readNpy(file->second, error);
      if (!files.back())
        return std::nullopt;
      shapes.push_back(files.back()->shape);
    } else if (spec.hasDynamicDims()) {
      error = "input '" + spec.name + "' has dynamic dims " + formatDims(spec) +
              ": give it with --input " + spec.name + "=FILE.npy";
      return std::nullopt;
    } else {
      shapes.push_back(spec.shape);
    }
  }
  if (!program.setInputShapes(shapes, error))
    return std::nullopt;

  Arrays arrays;
  for (size_t i = 0; i < files.size(); ++i) {
    const TensorSpec &spec = program.getInputs()[i];
    Buffer buffer(program.getStackedBytes(spec));
    if (!files[i]) {
      fillSeeded(buffer.data(), spec, program.getMicrobatches(), options.seed);
      arrays.inputs.push_back(std::move(buffer));
      continue;
    }
    const NpyArray &array = *files[i];
    const std::string &path = options.inputs.at(spec.name);
    std::string dtype = npyDtypeOf(spec.elementType);
    if (array.dtype != dtype || !program.acceptsShape(spec, array.shape)) {
      error = path + ": input '" + spec.name + "' needs dtype " + dtype +
              " and shape " + program.describeShape(spec) + ", the file has " +
              array.dtype + " " + formatShape(array.shape);
      return std::nullopt;
    }
    if (!array.bytes.empty()) // an empty tensor's data may be null
      std::memcpy(buffer.data(), array.bytes.data(), array.bytes.size());
    arrays.inputs.push_back(std::move(buffer));
  }
  for (const TensorSpec &spec : program.getOutputs())
    arrays.outputs.emplace_back(program.getStackedBytes(spec));
  return arrays;
}

bool bindArrays(Program &program, Arrays &arrays, std::string &error) {
  auto view = [&](const TensorSpec &spec, Buffer &buffer) {
    return HostTensor{spec.elementType, program.getStackedShape(spec),
                      buffer.data()};
  };
  std::vector<HostTensor> inputs, outputs;
  for (size_t i = 0; i < arrays.inputs.size(); ++i)
    inputs.push_back(view(program.getInputs()[i], arrays.inputs[i]));
  for (size_t i = 0; i < arrays.outputs.size(); ++i)
    outputs.push_back(view(program.getOutputs()[i], arrays.outputs[i]));
  return program.bind(inputs, outputs, error);
}

bool writeOutputs(const Program &program, const Arrays &arrays,
                  const LaunchOptions &options, std::string &error) {
  std::error_code ec;
  fs::create_directories(options.outputDir, ec);
  if (ec) {
    error = "cannot create " + options.outputDir + ": " + ec.message();
    return false;
  }
  for (size_t i = 0; i < arrays.outputs.size(); ++i) {
    const TensorSpec &spec = program.getOutputs()[i];
    const Buffer &buffer = arrays.outputs[i];
    NpyArray array{
        npyDtypeOf(spec.elementType), program.getStackedShape(spec),
        std::vector<uint8_t>(buffer.data(), buffer.data() + buffer.size())};
    if (array.dtype.empty()) {
      error = "output '" + spec.name + "' has element type " +
              spec.elementType + ", which .npy cannot hold";
      return false;
    }
    if (!writeNpy(outputPath(options.outputDir, spec.name), array, error))
      return false;
  }
  return true;
}

bool writeJson(const std::string &path, const json::Value &value,
               std::string &error) {
  return writeTextFile(path, json::print(value) + "\n", error);
}

bool writeProfile(const Program &program, const Timing &timing,
                  const LaunchOptions &options, std::string &error) {
  unsigned runs = timing.starts.size();
  json::Object profile;
  for (const auto &[name, seconds] : program.getProfile(runs))
    profile[name] = json::Object{{options.profileKind, seconds}};
  if (!writeJson(options.profile, profile, error))
    return false;
  auto [nodes, inNodes] = program.getProfileTotal(runs);
  double total = 0;
  for (size_t i = 0; i < timing.starts.size(); ++i)
    total += timing.ends[i] - timing.starts[i];
  int64_t samples = int64_t(runs) * program.getMicrobatches();
  std::printf("profile: %zu nodes, %e s per run inside nodes of %e s per run "
              "(%lld runs, kind '%s') -> %s\n",
              nodes, inNodes, total / samples, (long long)samples,
              options.profileKind.c_str(), options.profile.c_str());
  return true;
}

/// Samples per run: the first dimension of the first graph output.
int64_t samplesPerRun(const ProgramShape &shape) {
  if (shape.outputs.empty())
    return 1;
  const std::vector<int64_t> &dims = std::get<2>(shape.outputs.front());
  return dims.empty() ? 1 : dims.front();
}

void printTimes(const TimeSummary &times, int64_t samples,
                const std::optional<Prediction> &prediction,
                const LaunchOptions &options, const MpiJob *job,
                const std::string &function) {
  if (times.runs == 0)
    return;
  bool distributed = job && job->isDistributed();
  std::string who =
      distributed ? "pipeline of " + std::to_string(job->getSize()) + " ranks"
                  : function;
  std::string of =
      options.microbatches > 1
          ? " of " + std::to_string(options.microbatches) + " microbatches"
          : std::string();
  std::printf("%s: %zu runs%s, %e s per run (min), %e s (median), %e s per "
              "sample (median, %lld samples per run)\n",
              who.c_str(), times.runs, of.c_str(), times.min, times.median,
              times.median / samples, (long long)samples);
  if (prediction)
    std::printf("simulated (--placer-simulate, the module's costs for "
                "cluster %s): %e s per run, measured / simulated = %.2f%s\n",
                prediction->cluster.c_str(), prediction->perRun,
                prediction->measuredOverSimulated,
                prediction->onAccelerators
                    ? " (this run was on this machine's CPU, not on the "
                      "cluster's accelerators)"
                    : "");
}

void printRanks(const std::vector<RankFigures> &ranks) {
  for (size_t rank = 0; rank < ranks.size(); ++rank) {
    const RankFigures &figures = ranks[rank];
    std::printf("  rank %zu: compute %e s, waiting on receives %e s, on sends "
                "%e s, sent %lld bytes in %lld messages (per run)\n",
                rank, figures.compute, figures.recvWait, figures.sendWait,
                (long long)std::llround(figures.bytesSent),
                (long long)std::llround(figures.messagesSent));
  }
}

/// Every graph output, whichever rank wrote it.
json::Array describeOutputs(const ProgramShape &shape,
                            const LaunchOptions &options, bool distributed) {
  json::Array outputs;
  if (options.outputDir.empty())
    return outputs;
  for (const auto &[rank, name, dims] : shape.outputs) {
    json::Array stacked;
    for (int64_t d : stackShape(dims, options.microbatches))
      stacked.push_back(d);
    json::Object entry{{"name", name},
                       {"file", outputPath(options.outputDir, name)},
                       {"shape", stacked}};
    if (distributed)
      entry["rank"] = rank;
    outputs.push_back(std::move(entry));
  }
  return outputs;
}

/// The report's timed runs: repeat, samples_per_run, seconds per run and
/// per sample, the prediction.
void addTimes(json::Object &report, const TimeSummary &times,
              int64_t samplesPerRun,
              const std::optional<Prediction> &prediction) {
  if (times.runs == 0)
    return;
  double samples = double(samplesPerRun);
  report["repeat"] = static_cast<int64_t>(times.runs);
  report["samples_per_run"] = samplesPerRun;
  report["seconds_per_run"] =
      json::Object{{"min", times.min}, {"median", times.median}};
  report["seconds_per_sample"] = json::Object{
      {"min", times.min / samples}, {"median", times.median / samples}};
  if (!prediction)
    return;
  report["simulated"] = json::Object{
      {"seconds_per_run", prediction->perRun},
      {"steady_state_seconds_per_run", prediction->steadyPerRun},
      {"total_seconds", prediction->total},
      {"measured_over_simulated", prediction->measuredOverSimulated},
      {"cluster", prediction->cluster},
      {"cluster_has_accelerators", prediction->onAccelerators}};
}

/// What every report says: the model, its function, the compilation and
/// the run's settings.
/// How a model whose inputs or outputs are half precision computes: each
/// operation widened to f32 and rounded back (the generated code has no
/// native f16 or bf16 arithmetic), products and reductions summed in f32
/// (docs/Execution.md, "Inputs, outputs, report"). Empty for other models.
json::Object describeHalfPrecision(const Program &program) {
  json::Object arithmetic;
  auto note = [&](const TensorSpec &spec) {
    if (spec.elementType == "f16")
      arithmetic["f16"] =
          "stored in f16; each operation computed in f32 and rounded to it, "
          "products and reductions accumulated in f32";
    // bfloat16 products go to oneDNN (placer_cpu_matmul_bf16), on the
    // CPU's bf16 instructions where it has them.
    if (spec.elementType == "bf16")
      arithmetic["bf16"] =
          placer_cpu_native_bf16()
              ? "stored in bf16; products on oneDNN's bf16 kernels "
                "(AVX512-BF16/AMX) accumulated in f32; other operations "
                "computed in f32 and rounded to it, reductions accumulated "
                "in f32"
              : "stored in bf16; each operation computed in f32 and rounded "
                "to it, products (widened to f32, this CPU has no bf16 "
                "instructions) and reductions accumulated in f32";
  };
  for (const TensorSpec &spec : program.getInputs())
    note(spec);
  for (const TensorSpec &spec : program.getOutputs())
    note(spec);
  return arithmetic;
}

json::Object describeRun(const Launch &launch, const LaunchOptions &options) {
  json::Object run{{"model", options.model},
                   {"function", launch.program->getFunction()},
                   {"cached", launch.cached},
                   {"compile_seconds", launch.compileSeconds},
                   {"microbatches", options.microbatches},
                   {"threads", int64_t(launch.program->getThreads())}};
  json::Object arithmetic = describeHalfPrecision(*launch.program);
  if (!arithmetic.empty())
    run["half_precision"] = std::move(arithmetic);
  return run;
}

/// Every rank's compute and wait times and bytes, per run.
json::Array describeRanks(const std::vector<RankFigures> &ranks) {
  json::Array perRank;
  for (size_t rank = 0; rank < ranks.size(); ++rank) {
    const RankFigures &f = ranks[rank];
    perRank.push_back(json::Object{
        {"rank", int64_t(rank)},
        {"compute_seconds", f.compute},
        {"recv_wait_seconds", f.recvWait},
        {"send_wait_seconds", f.sendWait},
        {"bytes_sent", int64_t(std::llround(f.bytesSent))},
        {"messages_sent", int64_t(std::llround(f.messagesSent))},
        {"bytes_received", int64_t(std::llround(f.bytesReceived))},
        {"peak_resident_bytes", int64_t(std::llround(f.peakResident))}});
  }
  return perRank;
}

} // namespace

/// Writes `array` as DIR/<name>.npy, creating DIR.
static bool writeArray(const std::string &dir, const std::string &name,
                       const NpyArray &array, std::string &error) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  return writeNpy(outputPath(dir, name), array, error);
}

/// `--train-steps`: runs the step `options.trainSteps` times on the bound
/// batch, copying each output that updates a weight or optimizer state
/// into it after every step; writes the losses (and the weights). Under
/// mpirun every rank runs its stage's part of each step and updates its
/// own weights; the rank that computes the loss writes it, each rank the
/// weights it updates.
static bool runTraining(const Launch &launch, Program &program, Arrays &arrays,
                        const LaunchOptions &options, MpiJob *job,
                        std::string &error) {
  bool distributed = job && job->isDistributed();
  const std::vector<TensorSpec> &outputs = program.getOutputs();
  std::optional<size_t> loss;
  bool updates = false;
  for (size_t i = 0; i < outputs.size(); ++i) {
    updates |= !outputs[i].updates.empty();
    if (outputs[i].name == "loss" && outputs[i].shape.empty() &&
        outputs[i].elementType == "f32")
      loss = i;
  }
  // Under mpirun the loss is one rank's and each rank updates its own.
  bool anyLoss = std::any_of(
      launch.shape.outputs.begin(), launch.shape.outputs.end(),
      [](const auto &output) { return std::get<1>(output) == "loss"; });
  if (distributed ? !anyLoss : (!loss || !updates)) {
    error = "--train-steps runs a training step (placer-opt "
            "--placer-build-training): this model has no f32 'loss' output "
            "and weight updates";
    return false;
  }
  std::vector<float> losses;
  Timing timing;
  RankFigures &mine = timing.mine;
  // The ranks' figures leave the first step out when there are others: it
  // also sets up the connections and touches every buffer first.
  int64_t counted = options.trainSteps > 1 ? 1 : 0;
  double steps = double(options.trainSteps - counted);
  for (int64_t step = 0; step < options.trainSteps; ++step) {
    std::optional<std::pair<double, double>> times = program.run(error);
    if (!times)
      return false;
    timing.starts.push_back(times->first);
    timing.ends.push_back(times->second);
    if (distributed && step >= counted)
      mine.addRun(times->first, times->second, 1.0 / steps);
    if (loss) {
      float value;
      std::memcpy(&value, arrays.outputs[*loss].data(), sizeof value);
      losses.push_back(value);
    }
    for (size_t i = 0; i < outputs.size(); ++i)
      if (!outputs[i].updates.empty() &&
          !program.setWeight(outputs[i].updates, arrays.outputs[i].data(),
                             arrays.outputs[i].size(), error))
        return false;
  }
  mine.peakResident = getPeakResidentBytes();
  timing.ranks = {mine};
  if (distributed && !job->gather(timing, error))
    return false;

  bool writes = !distributed || job->getCopy() == 0;
  if (loss && writes &&
      !writeArray(options.outputDir, "loss",
                  NpyArray{"<f4",
                           {options.trainSteps},
                           std::vector<uint8_t>(
                               reinterpret_cast<const uint8_t *>(losses.data()),
                               reinterpret_cast<const uint8_t *>(
                                   losses.data() + losses.size()))},
                  error))
    return false;
  for (size_t i = 0;
       writes && !options.saveWeights.empty() && i < outputs.size(); ++i) {
    // A replica's copy equals the one its home rank saves.
    if (outputs[i].updates.empty() || outputs[i].replica)
      continue;
    NpyArray array{npyDtypeOf(outputs[i].elementType),
                   program.getStackedShape(outputs[i]),
                   std::vector<uint8_t>(arrays.outputs[i].data(),
                                        arrays.outputs[i].data() +
                                            arrays.outputs[i].size())};
    // A tensor-parallel group's slices are gathered (by all its members)
    // and saved whole by its first.
    if (const std::optional<ShardSpec> &shard = outputs[i].shard) {
      if (!distributed) {
        error = "'" + outputs[i].updates +
                "' is one slice of a tensor-parallel group's state: run the "
                "split program under mpirun";
        return false;
      }
      array.bytes = job->gatherShard(outputs[i], arrays.outputs[i].data());
      array.shape = outputs[i].shape;
      array.shape[shard->axis] *= shard->count;
      if (shard->index != 0)
        continue;
    }
    if (!writeArray(options.saveWeights, outputs[i].updates, array, error))
      return false;
  }
  if (job && job->getRank() != 0)
    return true;

  // Seconds per step (the first included: every step does the same work).
  TimeSummary times = summarizeTimes(timing, 1);
  std::string who =
      distributed ? "pipeline of " + std::to_string(job->getSize()) + " ranks"
                  : program.getFunction();
  std::printf("%s: %zu training steps, %e s per step (min), %e s (median)\n",
              who.c_str(), times.runs, times.min, times.median);
  json::Object report = describeRun(launch, options);
  report["train_steps"] = options.trainSteps;
  report["seconds_per_step"] =
      json::Object{{"min", times.min}, {"median", times.median}};
  report["peak_resident_bytes"] = int64_t(std::llround(mine.peakResident));
  if (distributed) {
    printRanks(timing.ranks);
    report["ranks"] = describeRanks(timing.ranks);
  }
  std::fflush(stdout);
  return options.report.empty() || writeJson(options.report, report, error);
}

bool placer::runtime::runLaunch(const Launch &launch,
                                const LaunchOptions &options, MpiJob *job,
                                std::string &error) {
  Program &program = *launch.program;
  // Ranks times threads beyond the cores: the threads take turns, and the
  // pipeline's timings say little.
  unsigned cores = std::thread::hardware_concurrency();
  int ranks = job ? job->getSize() : 1;
  if (cores > 0 && (!job || job->getRank() == 0) &&
      int64_t(ranks) * options.threads > int64_t(cores))
    std::fprintf(stderr,
                 "placer-run: warning: %d rank(s) x %lld thread(s) exceed the "
                 "%u cores of this machine\n",
                 ranks, (long long)options.threads, cores);
  for (const auto &[name, file] : options.inputs)
    if (!launch.shape.hasInput(name)) {
      error = "the model has no input named '" + name + "'";
      return false;
    }
  std::optional<Arrays> arrays = prepareArrays(program, options, error);
  if (!arrays || !bindArrays(program, *arrays, error))
    return false;
  if (options.trainSteps > 0)
    return runTraining(launch, program, *arrays, options, job, error);

  bool distributed = job && job->isDistributed();
  bool profiling = !options.profile.empty();
  // A profile and a pipeline's figures need a timed run.
  unsigned runs =
      profiling || distributed ? std::max(1u, options.repeat) : options.repeat;
  std::optional<Timing> timing = program.measure(runs, error);
  if (!timing)
    return false;
  if (distributed && !job->gather(*timing, error))
    return false;
  if (profiling && !writeProfile(program, *timing, options, error))
    return false;
  if (!options.outputDir.empty()) {
    if (!program.collectOutputs(error))
      return false;
    if ((!distributed || job->getCopy() == 0) &&
        !writeOutputs(program, *arrays, options, error))
      return false;
  }
  if (job && job->getRank() != 0)
    return true;

  TimeSummary times = summarizeTimes(*timing, options.microbatches);
  std::optional<Prediction> prediction;
  if (launch.simulated && times.runs > 0)
    prediction = predict(*launch.simulated, options.microbatches, times);
  int64_t samples = samplesPerRun(launch.shape);
  printTimes(times, samples, prediction, options, job, program.getFunction());
  json::Object report = describeRun(launch, options);
  report["outputs"] = describeOutputs(launch.shape, options, distributed);
  addTimes(report, times, samples, prediction);
  if (distributed) {
    printRanks(timing->ranks);
    report["ranks"] = describeRanks(timing->ranks);
    report["transfers"] = program.getTransfers();
  }
  std::fflush(stdout);
  return options.report.empty() || writeJson(options.report, report, error);
}

int placer::runtime::failLaunch(const std::string &message, const MpiJob *job) {
  // One write: mpirun's banner for the aborted job must not land inside the
  // line (stderr is unbuffered).
  std::string line = "placer-run: error: ";
  if (job && job->isDistributed())
    line += "rank " + std::to_string(job->getRank()) + ": ";
  line += message + "\n";
  std::fflush(stdout);
  std::fwrite(line.data(), 1, line.size(), stderr);
  if (job && job->isDistributed())
    job->abort(1);
  return 1;
}
