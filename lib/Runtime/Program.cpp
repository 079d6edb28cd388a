//===- Program.cpp - A compiled program, loaded and run -------------------===//

#include "placer/Runtime/Program.h"

#include "placer/Runtime/Artifact.h"
#include "placer/Runtime/CpuLibraryCalls.h"
#include "placer/Runtime/DistHooks.h"
#include "placer/Runtime/GpuRuntime.h"
#include "placer/Runtime/ProfileHooks.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sys/resource.h>

using namespace placer::runtime;

std::string placer::runtime::formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string placer::runtime::formatDims(const TensorSpec &spec) {
  std::string text = "[";
  for (size_t i = 0; i < spec.shape.size(); ++i) {
    bool named = spec.shape[i] < 0 && i < spec.dimNames.size();
    text += (i ? ", " : "") +
            (named ? spec.dimNames[i] : std::to_string(spec.shape[i]));
  }
  return text + "]";
}

static double steadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

//===----------------------------------------------------------------------===//
// MPI jobs
//===----------------------------------------------------------------------===//

std::array<double, RankFigures::kCount> RankFigures::pack() const {
  return {compute,      recvWait,      sendWait,    bytesSent,
          messagesSent, bytesReceived, peakResident};
}

RankFigures RankFigures::unpack(const double *v) {
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
}

void RankFigures::addRun(double start, double end, double weight) {
  const placer_dist_stats *stats = placer_dist_get_stats();
  recvWait += stats->recv_wait_seconds * weight;
  sendWait += stats->send_wait_seconds * weight;
  compute +=
      (end - start - stats->recv_wait_seconds - stats->send_wait_seconds) *
      weight;
  bytesSent += double(stats->bytes_sent) * weight;
  messagesSent += double(stats->messages_sent) * weight;
  bytesReceived += double(stats->bytes_received) * weight;
}

double placer::runtime::getPeakResidentBytes() {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage))
    return 0;
  return double(usage.ru_maxrss) * 1024; // kilobytes on Linux
}

bool MpiJob::launchedByMpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") ||
         std::getenv("PMI_RANK");
}

std::unique_ptr<MpiJob> MpiJob::start(int *argc, char ***argv,
                                      double transferTimeout,
                                      std::string &error) {
  std::unique_ptr<MpiJob> job(new MpiJob());
  int status = placer_dist_init(argc, argv, &job->rank, &job->size);
  if (status == PLACER_DIST_NO_MPI) {
    error = "started by an MPI launcher, but this runtime was built "
            "without MPI";
    return nullptr;
  }
  if (status) {
    error = "cannot start MPI";
    return nullptr;
  }
  placer_dist_set_timeout(transferTimeout);
  return job;
}

MpiJob::~MpiJob() { placer_dist_finalize(); }

void MpiJob::abort(int code) const {
  placer_dist_abort(code);
  // placer_dist_abort does not return; this keeps [[noreturn]] honest.
  std::_Exit(code);
}

double MpiJob::now() const { return placer_dist_time(); }

bool MpiJob::assignStage(const ProgramShape &program, uint64_t identity,
                         std::string &error) {
  if (program.stages == 0) {
    error = "the module is not split (no dist.program): run it without "
            "mpirun, or split it with --partition-devices";
    return false;
  }
  int64_t devices = program.rankStages.size();
  if (devices != size) {
    error = "the program has " + std::to_string(program.stages) +
            " stages on " + std::to_string(devices) +
            " devices (copies of replicated stages included), one per rank: "
            "start it with mpirun -n " +
            std::to_string(devices) + ", not " + std::to_string(size);
    return false;
  }
  if (!placer_dist_same(identity)) {
    error = "the ranks were started with different models or flags";
    return false;
  }
  const std::vector<int64_t> &stages = program.rankStages;
  stage = stages[rank];
  replicas = std::count(stages.begin(), stages.end(), stage);
  copy =
      rank - (std::find(stages.begin(), stages.end(), stage) - stages.begin());
  placer_dist_set_copy(replicas, copy);
  return true;
}

bool MpiJob::gather(Timing &timing, std::string &error) const {
  std::vector<double> local(timing.starts);
  local.insert(local.end(), timing.ends.begin(), timing.ends.end());
  auto packed = timing.mine.pack();
  local.insert(local.end(), packed.begin(), packed.end());
  std::vector<double> all(local.size() * size);
  if (placer_dist_gather(local.data(), local.size(), all.data())) {
    error = "cannot gather the ranks' figures";
    return false;
  }
  if (rank != 0)
    return true;
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
  return true;
}

std::vector<uint8_t> MpiJob::gatherShard(const TensorSpec &spec,
                                         const uint8_t *slice) const {
  const ShardSpec &shard = *spec.shard;
  // Rows: the dims before the axis; the hook puts each member's part of a
  // row side by side, in member order.
  int64_t rows = 1;
  for (int64_t d = 0; d < shard.axis; ++d)
    rows *= spec.shape[d];
  int64_t bytes = spec.getByteSize();
  int64_t rowBytes = rows ? bytes / rows : 0;
  std::vector<uint8_t> gathered(static_cast<size_t>(bytes * shard.count));
  placer_dist_all_gather(slice, gathered.data(), rows, rowBytes,
                         shard.firstRank, shard.count, shard.rankStride);
  if (shard.blocks == 1)
    return gathered;
  // A row of blocked slices comes as [member][block][piece]: the whole
  // holds [block][member][piece].
  std::vector<uint8_t> whole(gathered.size());
  int64_t piece = rowBytes / shard.blocks;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t m = 0; m < shard.count; ++m)
      for (int64_t b = 0; b < shard.blocks; ++b)
        std::memcpy(
            whole.data() +
                (r * shard.count * shard.blocks + b * shard.count + m) * piece,
            gathered.data() + (r * shard.count + m) * rowBytes + b * piece,
            static_cast<size_t>(piece));
  return whole;
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

Program::Program(LoweredModule module, Executable executable,
                 const ProgramOptions &options)
    : module(std::move(module)), executable(std::move(executable)),
      options(options), inputs(this->module.inputs),
      outputs(this->module.outputs) {}

bool Program::hasDynamicDims() const {
  auto dynamic = [](const TensorSpec &spec) { return spec.hasDynamicDims(); };
  return std::any_of(module.inputs.begin(), module.inputs.end(), dynamic) ||
         std::any_of(module.outputs.begin(), module.outputs.end(), dynamic);
}

bool Program::setInputShapes(const std::vector<std::vector<int64_t>> &shapes,
                             std::string &error) {
  if (!hasDynamicDims())
    return true;
  if (shapes.size() != module.inputs.size()) {
    error = "'" + module.function + "' takes " +
            std::to_string(module.inputs.size()) + " inputs, got " +
            std::to_string(shapes.size()) + " shapes";
    return false;
  }
  // Every symbol's size, from the first input that has it.
  std::map<std::string, int64_t> sizes;
  std::map<std::string, std::string> givenBy;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const TensorSpec &spec = module.inputs[i];
    const std::vector<int64_t> &shape = shapes[i];
    bool fits = shape.size() == spec.shape.size();
    for (size_t d = 0; fits && d < shape.size(); ++d)
      fits = shape[d] >= 0 && (spec.shape[d] < 0 || spec.shape[d] == shape[d]);
    if (!fits) {
      error = "input '" + spec.name + "' needs shape " + formatDims(spec) +
              ", got " + formatShape(shape);
      return false;
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      if (spec.shape[d] >= 0)
        continue;
      const std::string &symbol = spec.dimNames[d];
      auto [it, added] = sizes.emplace(symbol, shape[d]);
      if (!added && it->second != shape[d]) {
        error = "input '" + spec.name + "' has " + symbol + " = " +
                std::to_string(shape[d]) + ", but input '" + givenBy[symbol] +
                "' has " + symbol + " = " + std::to_string(it->second);
        return false;
      }
      givenBy.emplace(symbol, spec.name);
    }
  }
  std::vector<TensorSpec> sized;
  for (const TensorSpec &spec : module.outputs) {
    sized.push_back(spec.withSizes(sizes));
    if (sized.back().hasDynamicDims()) {
      error = "output '" + spec.name + "' has shape " + formatDims(spec) +
              ": a dim no input gives is known only after the run";
      return false;
    }
  }
  outputs = std::move(sized);
  inputs.clear();
  for (const TensorSpec &spec : module.inputs)
    inputs.push_back(spec.withSizes(sizes));
  return true;
}

bool placer::runtime::checkProgramOptions(const ProgramOptions &options,
                                          std::string &error) {
  if (options.microbatches < 1) {
    error = "microbatches must be at least 1, got " +
            std::to_string(options.microbatches);
    return false;
  }
  if (options.threads < 1 || options.threads > 1024) {
    error = "threads must be between 1 and 1024, got " +
            std::to_string(options.threads);
    return false;
  }
  if (options.profile && options.job && options.job->isDistributed()) {
    error = "--profile times the model whole: run it without mpirun";
    return false;
  }
  return true;
}

std::unique_ptr<Program> Program::create(LoweredModule module,
                                         Executable executable,
                                         const ProgramOptions &options,
                                         std::string &error) {
  if (!checkProgramOptions(options, error))
    return nullptr;
  std::unique_ptr<Program> program(
      new Program(std::move(module), std::move(executable), options));
  program->threads =
      program->executable.setThreads(static_cast<int>(options.threads));
  if (!program->placeWeights(error))
    return nullptr;
  if (program->hasDynamicDims() && options.microbatches > 1) {
    error = "'" + program->getFunction() +
            "' has dynamic dims: it runs one batch of any size per call, "
            "not microbatches";
    return nullptr;
  }
  return program;
}

Program::~Program() {
  if (gpu && options.profile)
    gpu->stopProfiling();
  // The library's copies of this program's weights are keyed by their
  // addresses, which the next program's may reuse.
  if (!gpu)
    placer_cpu_library_release();
}

bool Program::setWeight(const std::string &name, const void *data, size_t bytes,
                        std::string &error) {
  for (size_t i = 0; i < module.weights.size(); ++i) {
    if (module.weights[i].name != name)
      continue;
    if (i >= module.weightData.size()) {
      error = "weight '" + name +
              "' is in device memory: training steps "
              "run on the CPU";
      return false;
    }
    Buffer &weight = module.weightData[i];
    if (weight.size() != bytes) {
      error = "weight '" + name + "' holds " + std::to_string(weight.size()) +
              " bytes, its next value " + std::to_string(bytes);
      return false;
    }
    std::memcpy(weight.data(), data, bytes);
    return true;
  }
  error = "the program has no weight named '" + name + "'";
  return false;
}

bool Program::placeWeights(std::string &error) {
  if (module.gpuChip.empty()) {
    for (Buffer &weight : module.weightData)
      weightPointers.push_back(weight.data());
    return true;
  }
  // GPU code takes its weights in device memory: uploaded once, here, so
  // that a run copies only its inputs and outputs.
  gpu = GpuRuntime::get(error);
  if (!gpu)
    return false;
  // A profile times the GPU's work (the host only launches it).
  if (options.profile)
    gpu->startProfiling();
  for (size_t i = 0; i < module.weightData.size(); ++i) {
    const Buffer &weight = module.weightData[i];
    GpuRuntime::DevicePointer pointer =
        gpu->upload(weight.data(), weight.size(), error);
    if (!pointer) {
      error = "weight '" + module.weights[i].name + "': " + error;
      return false;
    }
    weightPointers.push_back(static_cast<uint8_t *>(pointer.get()));
    deviceWeights.push_back(std::move(pointer));
  }
  module.weightData.clear();
  return true;
}

static std::string describeStage(int64_t stage, const char *whole) {
  return stage < 0 ? whole : "stage " + std::to_string(stage);
}

std::unique_ptr<Program> Program::open(const std::string &dir,
                                       const ProgramOptions &options,
                                       std::string &error) {
  if (!checkProgramOptions(options, error))
    return nullptr;
  std::optional<LoadedArtifact> artifact = loadArtifact(dir, error);
  if (!artifact)
    return nullptr;
  const Manifest &manifest = artifact->manifest;
  bool distributed = options.job && options.job->isDistributed();
  int64_t stage = distributed ? options.job->getStage() : -1;
  if (manifest.stage != stage) {
    error = dir + ": holds " +
            describeStage(manifest.stage, "a whole program") +
            ", this process runs " + describeStage(stage, "the whole program");
    return nullptr;
  }
  if (options.profile != !manifest.profileNodes.empty()) {
    error = dir + ": " +
            (options.profile ? "compiled without profiling: compile it with "
                               "--profile to profile it"
                             : "compiled with profiling: run it with "
                               "--profile");
    return nullptr;
  }
  LoweredModule module;
  module.function = manifest.entry;
  module.inputs = manifest.inputs;
  module.weights = manifest.weights;
  module.outputs = manifest.outputs;
  module.weightData = std::move(artifact->weights);
  module.profileNodes = manifest.profileNodes;
  module.transfers = manifest.transfers;
  module.gpuChip = manifest.gpuChip;
  return create(std::move(module), std::move(artifact->executable), options,
                error);
}

std::vector<int64_t>
placer::runtime::stackShape(const std::vector<int64_t> &shape,
                            int64_t microbatches) {
  // One microbatch is the tensor itself, a rank-0 one included.
  if (microbatches == 1)
    return shape;
  if (shape.empty())
    return {microbatches};
  std::vector<int64_t> stacked(shape);
  stacked[0] *= microbatches;
  return stacked;
}

std::vector<int64_t> Program::getStackedShape(const TensorSpec &spec) const {
  return stackShape(spec.shape, options.microbatches);
}

bool Program::acceptsShape(const TensorSpec &spec,
                           const std::vector<int64_t> &shape) const {
  int64_t m = options.microbatches;
  std::vector<int64_t> stacked = spec.shape;
  stacked.insert(stacked.begin(), m);
  return shape == getStackedShape(spec) || shape == stacked ||
         (m == 1 && shape == spec.shape);
}

std::string Program::describeShape(const TensorSpec &spec) const {
  int64_t m = options.microbatches;
  return formatShape(getStackedShape(spec)) +
         (m > 1 ? " (" + std::to_string(m) + " microbatches of " +
                      formatShape(spec.shape) + ")"
                : std::string());
}

int64_t Program::getStackedBytes(const TensorSpec &spec) const {
  return spec.getByteSize() * options.microbatches;
}

/// Whether `tensor` holds the M microbatches of `spec`.
static bool checkTensor(const Program &program, const TensorSpec &spec,
                        const HostTensor &tensor, const std::string &role,
                        std::string &error) {
  if (!tensor.data) {
    error = role + " '" + spec.name + "' has no data";
    return false;
  }
  if (tensor.elementType == spec.elementType &&
      program.acceptsShape(spec, tensor.shape))
    return true;
  error = role + " '" + spec.name + "' needs " + spec.elementType + " " +
          program.describeShape(spec) + ", got " + tensor.elementType + " " +
          formatShape(tensor.shape);
  return false;
}

bool Program::bind(const std::vector<HostTensor> &inputs,
                   const std::vector<HostTensor> &outputs, std::string &error) {
  if (inputs.size() != module.inputs.size() ||
      outputs.size() != module.outputs.size()) {
    error = "'" + module.function + "' takes " +
            std::to_string(module.inputs.size()) + " inputs and " +
            std::to_string(module.outputs.size()) + " outputs, got " +
            std::to_string(inputs.size()) + " and " +
            std::to_string(outputs.size());
    return false;
  }
  if (hasDynamicDims()) {
    std::vector<std::vector<int64_t>> shapes;
    for (const HostTensor &tensor : inputs)
      shapes.push_back(tensor.shape);
    if (!setInputShapes(shapes, error))
      return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!checkTensor(*this, this->inputs[i], inputs[i], "input", error))
      return false;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!checkTensor(*this, this->outputs[i], outputs[i], "output", error))
      return false;

  std::vector<const TensorSpec *> specs;
  for (const std::vector<TensorSpec> *group :
       {&this->inputs, &module.weights, &this->outputs})
    for (const TensorSpec &spec : *group)
      specs.push_back(&spec);
  // Microbatch m of a stacked tensor starts m microbatches in.
  auto slice = [](const HostTensor &tensor, const TensorSpec &spec, int64_t m) {
    return static_cast<uint8_t *>(tensor.data) + m * spec.getByteSize();
  };
  std::lock_guard<std::mutex> lock(running);
  calls.clear();
  boundOutputs.clear();
  // GPU code copies its inputs in and outputs out each run: from
  // page-locked memory the copies run at the link's speed, not through the
  // driver's staging buffers.
  pinned.clear();
  if (gpu) {
    for (size_t i = 0; i < inputs.size(); ++i)
      pinned.push_back(
          gpu->pin(inputs[i].data, getStackedBytes(this->inputs[i])));
    for (size_t i = 0; i < outputs.size(); ++i)
      pinned.push_back(
          gpu->pin(outputs[i].data, getStackedBytes(this->outputs[i])));
  }
  for (const HostTensor &tensor : outputs)
    boundOutputs.push_back(static_cast<uint8_t *>(tensor.data));
  for (int64_t m = 0; m < options.microbatches; ++m) {
    std::vector<uint8_t *> data;
    for (size_t i = 0; i < inputs.size(); ++i)
      data.push_back(slice(inputs[i], this->inputs[i], m));
    data.insert(data.end(), weightPointers.begin(), weightPointers.end());
    for (size_t i = 0; i < outputs.size(); ++i)
      data.push_back(slice(outputs[i], this->outputs[i], m));
    calls.push_back(Executable::bind(data, specs));
  }
  return true;
}

double Program::now() const {
  return options.job ? options.job->now() : steadySeconds();
}

std::optional<std::pair<double, double>> Program::run(std::string &error) {
  std::lock_guard<std::mutex> lock(running);
  return runOnce(error);
}

std::optional<std::pair<double, double>> Program::runOnce(std::string &error) {
  if (calls.empty()) {
    error = "no buffers bound to '" + module.function +
            "': bind its inputs and outputs before running it";
    return std::nullopt;
  }
  const MpiJob *job = options.job;
  bool distributed = job && job->isDistributed();
  if (distributed) {
    if (placer_dist_barrier()) {
      error = "the ranks could not meet before a run";
      return std::nullopt;
    }
    placer_dist_begin(options.microbatches);
  }
  double start = now();
  for (size_t m = 0; m < calls.size(); ++m) {
    if (distributed) {
      if (!job->runs(m))
        continue;
      placer_dist_set_microbatch(m);
    }
    if (gpu && options.profile)
      gpu->beginRun();
    executable.run(calls[m]);
    // Compiled code cannot return an error: the CUDA runtime and the CPU
    // library calls record theirs. GPU work may still be queued until the
    // run's end.
    char reason[512];
    if ((gpu && !gpu->finish(error)) ||
        (!gpu && placer_cpu_library_take_error(reason, sizeof(reason)))) {
      error = "'" + module.function + (gpu ? "' on the GPU: " + error
                                           : "': " + std::string(reason));
      if (distributed)
        placer_dist_end();
      return std::nullopt;
    }
  }
  if (distributed)
    placer_dist_end();
  return std::make_pair(start, now());
}

std::optional<Timing> Program::measure(unsigned runs, std::string &error) {
  std::lock_guard<std::mutex> lock(running);
  if (!runOnce(error))
    return std::nullopt;
  // The warm-up run is not part of the profile.
  if (options.profile && placer_profile_reset(module.profileNodes.size())) {
    error = "out of memory for the profile counters";
    return std::nullopt;
  }
  bool distributed = options.job && options.job->isDistributed();
  Timing timing;
  for (unsigned r = 0; r < runs; ++r) {
    auto times = runOnce(error);
    if (!times)
      return std::nullopt;
    auto [start, end] = *times;
    timing.starts.push_back(start);
    timing.ends.push_back(end);
    if (!distributed)
      continue;
    timing.mine.addRun(start, end, 1.0 / runs);
  }
  timing.mine.peakResident = getPeakResidentBytes();
  timing.ranks = {timing.mine};
  return timing;
}

std::map<std::string, double> Program::getProfile(unsigned runs) const {
  std::map<std::string, std::pair<double, int>> byName;
  const double *totals = placer_profile_totals();
  double samples = double(std::max(1u, runs)) * options.microbatches;
  for (size_t i = 0; i < module.profileNodes.size(); ++i) {
    auto &[seconds, count] = byName[module.profileNodes[i]];
    seconds += totals ? totals[i] / samples : 0.0;
    ++count;
  }
  std::map<std::string, double> profile;
  for (const auto &[name, entry] : byName)
    profile[name] = entry.first / entry.second;
  return profile;
}

std::pair<size_t, double> Program::getProfileTotal(unsigned runs) const {
  const double *totals = placer_profile_totals();
  double samples = double(std::max(1u, runs)) * options.microbatches;
  double inNodes = 0;
  for (size_t i = 0; totals && i < module.profileNodes.size(); ++i)
    inNodes += totals[i] / samples;
  return {module.profileNodes.size(), inNodes};
}

bool Program::collectOutputs(std::string &error) {
  if (!options.job || !options.job->isDistributed())
    return true;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (placer_dist_collect(boundOutputs[i], outputs[i].getByteSize())) {
      error = "cannot collect output '" + outputs[i].name +
              "' from the copies of stage " +
              std::to_string(options.job->getStage());
      return false;
    }
  return true;
}

//===----------------------------------------------------------------------===//
// Inputs, times, predictions
//===----------------------------------------------------------------------===//

namespace {

/// `v`'s bfloat16 bits, rounded to nearest even (as the compiled code's
/// truncf rounds); finite `v` only.
uint16_t toBFloat16Bits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

/// `v`'s IEEE half bits, rounded to nearest even, for |v| <= 1 (seeded
/// values): normal halves and, below 2^-14, subnormal ones.
uint16_t toHalfBits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  float magnitude = std::fabs(v);
  // Scaled to the half's unit in the last place and rounded (nearbyint:
  // to even), a subnormal is its bits; a normal one gets its exponent.
  if (magnitude < 0x1p-14f)
    return sign | static_cast<uint16_t>(std::nearbyint(magnitude * 0x1p24f));
  int exponent;
  float fraction = std::frexp(magnitude, &exponent); // in [0.5, 1)
  auto mantissa = static_cast<uint32_t>(std::nearbyint(fraction * 2048.0f));
  if (mantissa == 2048) { // rounded up to the next power of two
    mantissa = 1024;
    ++exponent;
  }
  return sign |
         static_cast<uint16_t>(((exponent + 14) << 10) | (mantissa - 1024));
}

} // namespace

void placer::runtime::fillSeeded(uint8_t *data, const TensorSpec &spec,
                                 int64_t microbatches, uint64_t seed) {
  std::seed_seq sequence{seed, static_cast<uint64_t>(spec.graphIndex)};
  std::mt19937_64 rng(sequence);
  int64_t n = spec.getNumElements() * microbatches;
  const std::string &type = spec.elementType;
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> integer(0, 9);
  for (int64_t i = 0; i < n; ++i) {
    if (type == "f32") {
      float v = real(rng);
      std::memcpy(data + 4 * i, &v, 4);
    } else if (type == "f64") {
      double v = real(rng);
      std::memcpy(data + 8 * i, &v, 8);
    } else if (type == "f16" || type == "bf16") {
      auto v = static_cast<float>(real(rng));
      uint16_t half = type == "f16" ? toHalfBits(v) : toBFloat16Bits(v);
      std::memcpy(data + 2 * i, &half, 2);
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
  for (size_t i = 0; i < timing.starts.size(); ++i)
    times.push_back((timing.ends[i] - timing.starts[i]) / microbatches);
  TimeSummary summary;
  summary.runs = times.size();
  if (times.empty())
    return summary;
  std::sort(times.begin(), times.end());
  summary.min = times.front();
  summary.median = times[times.size() / 2];
  return summary;
}

Prediction placer::runtime::predict(const Simulated &simulated,
                                    int64_t microbatches,
                                    const TimeSummary &measured) {
  Prediction prediction;
  prediction.total = simulated.total;
  prediction.perRun = prediction.total / microbatches;
  prediction.steadyPerRun = simulated.perSample;
  prediction.measuredOverSimulated =
      prediction.perRun > 0 ? measured.median / prediction.perRun : 0.0;
  prediction.cluster = simulated.cluster;
  prediction.onAccelerators = simulated.onAccelerators;
  return prediction;
}
