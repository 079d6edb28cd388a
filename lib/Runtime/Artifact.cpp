//===- Artifact.cpp - A compiled program as a folder ----------------------===//
#include "placer/Runtime/Artifact.h"
#include "placer/Runtime/GpuRuntime.h"

#include "placer/Runtime/PlainJson.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

using namespace placer::runtime;
namespace fs = std::filesystem;

#ifndef PLACER_VERSION
#error "PLACER_VERSION must be defined by the build"
#endif

const char *placer::runtime::getPlacerVersion() { return PLACER_VERSION; }

bool placer::runtime::readTextFile(const std::string &path, std::string &text,
                                   std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read " + path;
    return false;
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  text = contents.str();
  return true;
}

bool placer::runtime::writeTextFile(const std::string &path,
                                    const std::string &text,
                                    std::string &error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

namespace {

constexpr const char *kManifestFile = "manifest.json";
constexpr const char *kProgramFile = "program.json";
constexpr const char *kFormat = "placer-artifact";

std::string joinPath(const std::string &dir, const std::string &name) {
  return (fs::path(dir) / name).string();
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

json::Value printShape(const std::vector<int64_t> &shape) {
  json::Array dims;
  for (int64_t d : shape)
    dims.emplace_back(d);
  return json::Value(std::move(dims));
}

/// A tensor's shape: sizes, and a dynamic dim's symbol as a string.
json::Value printDims(const TensorSpec &spec) {
  json::Array dims;
  for (size_t d = 0; d < spec.shape.size(); ++d)
    if (spec.shape[d] < 0)
      dims.emplace_back(spec.dimNames[d]);
    else
      dims.emplace_back(spec.shape[d]);
  return json::Value(std::move(dims));
}

json::Value printTensors(const std::vector<TensorSpec> &specs,
                         const std::vector<int64_t> *offsets = nullptr) {
  json::Array tensors;
  for (size_t i = 0; i < specs.size(); ++i) {
    const TensorSpec &spec = specs[i];
    json::Object tensor{{"name", spec.name},
                        {"graph_index", spec.graphIndex},
                        {"element_type", spec.elementType},
                        {"element_bytes", spec.elementBytes},
                        {"shape", printDims(spec)}};
    if (offsets)
      tensor["offset"] = (*offsets)[i];
    // A training step's result: the weight or state it is the next value
    // of (placer.updates).
    if (!spec.updates.empty())
      tensor["updates"] = spec.updates;
    if (spec.replica)
      tensor["replica"] = true;
    if (const std::optional<ShardSpec> &shard = spec.shard)
      tensor["shard"] = json::Object{{"axis", shard->axis},
                                     {"blocks", shard->blocks},
                                     {"index", shard->index},
                                     {"count", shard->count},
                                     {"first_rank", shard->firstRank},
                                     {"rank_stride", shard->rankStride}};
    tensors.emplace_back(std::move(tensor));
  }
  return json::Value(std::move(tensors));
}

json::Value printStrings(const std::vector<std::string> &strings) {
  json::Array array;
  for (const std::string &s : strings)
    array.emplace_back(s);
  return json::Value(std::move(array));
}

//===----------------------------------------------------------------------===//
// Parsing: every field checked, every problem named by its path
//===----------------------------------------------------------------------===//

/// Reads the fields of one JSON object; the first problem sticks and names
/// the file and the field's path.
class Reader {
public:
  Reader(const std::string &file, std::string &error)
      : file(file), error(error) {}

  bool ok() const { return error.empty(); }

  bool fail(const std::string &path, const std::string &message) {
    if (error.empty())
      error = file + ": " + path + ": " + message;
    return false;
  }

  const json::Value *field(const json::Object &object, const std::string &path,
                           const std::string &key) {
    auto it = object.find(key);
    if (it == object.end()) {
      fail(join(path, key), "missing");
      return nullptr;
    }
    return &it->second;
  }

  static std::string join(const std::string &path, const std::string &key) {
    return path.empty() ? key : path + "." + key;
  }

  bool getString(const json::Object &object, const std::string &path,
                 const std::string &key, std::string &out) {
    const json::Value *value = field(object, path, key);
    if (!value)
      return false;
    if (!value->getString())
      return fail(join(path, key), "expected a string");
    out = *value->getString();
    return true;
  }

  bool getBool(const json::Object &object, const std::string &path,
               const std::string &key, bool &out) {
    const json::Value *value = field(object, path, key);
    if (!value)
      return false;
    if (!value->getBool())
      return fail(join(path, key), "expected true or false");
    out = *value->getBool();
    return true;
  }

  bool getInteger(const json::Object &object, const std::string &path,
                  const std::string &key, int64_t &out, int64_t min) {
    const json::Value *value = field(object, path, key);
    if (!value)
      return false;
    std::optional<int64_t> integer = value->getInteger();
    if (!integer || *integer < min)
      return fail(join(path, key),
                  "expected an integer of at least " + std::to_string(min));
    out = *integer;
    return true;
  }

  /// A training state's slice (beside "updates"): its axis and blocks
  /// within the shape, its member index within the group's ranks.
  bool getShard(const json::Object &tensor, const std::string &path,
                TensorSpec &spec) {
    std::string at = join(path, "shard");
    const json::Object *shard = tensor.at("shard").getObject();
    if (!shard)
      return fail(at, "expected an object");
    ShardSpec out;
    if (!getInteger(*shard, at, "axis", out.axis, 0) ||
        !getInteger(*shard, at, "blocks", out.blocks, 1) ||
        !getInteger(*shard, at, "index", out.index, 0) ||
        !getInteger(*shard, at, "count", out.count, 2) ||
        !getInteger(*shard, at, "first_rank", out.firstRank, 0) ||
        !getInteger(*shard, at, "rank_stride", out.rankStride, 1))
      return false;
    if (spec.updates.empty())
      return fail(at, "only beside \"updates\"");
    if (out.index >= out.count)
      return fail(join(at, "index"), "not below \"count\"");
    if (out.axis >= static_cast<int64_t>(spec.shape.size()) ||
        spec.shape[out.axis] < 0 || spec.shape[out.axis] % out.blocks != 0)
      return fail(join(at, "axis"), "not an axis of the shape that its "
                                    "blocks divide");
    if (out.firstRank + (out.count - 1) * out.rankStride >
        std::numeric_limits<int32_t>::max())
      return fail(join(at, "first_rank"), "the group's ranks exceed 32 bits");
    spec.shard = out;
    return true;
  }

  /// With `dimNames`, a dim may also be a symbol (a dynamic dim: -1 in
  /// `shape`, its name in `dimNames`).
  bool getShape(const json::Object &object, const std::string &path,
                std::vector<int64_t> &shape,
                std::vector<std::string> *dimNames = nullptr) {
    const json::Value *value = field(object, path, "shape");
    if (!value)
      return false;
    if (!value->getArray())
      return fail(join(path, "shape"), "expected an array of dims");
    shape.clear();
    std::vector<std::string> names;
    bool dynamic = false;
    for (const json::Value &dim : *value->getArray()) {
      const std::string *symbol = dim.getString();
      if (dimNames && symbol && !symbol->empty()) {
        shape.push_back(-1);
        names.push_back(*symbol);
        dynamic = true;
        continue;
      }
      std::optional<int64_t> d = dim.getInteger();
      if (!d || *d < 0 || *d > (int64_t(1) << 40))
        return fail(join(path, "shape"),
                    dimNames ? "expected non-negative dims or dim names"
                             : "expected non-negative dims");
      shape.push_back(*d);
      names.emplace_back();
    }
    if (dimNames)
      *dimNames = dynamic ? std::move(names) : std::vector<std::string>();
    // The byte size must stay far from overflow: 2^48 bytes at most.
    double elements = 1;
    for (int64_t d : shape)
      elements *= static_cast<double>(std::max<int64_t>(d, 1));
    if (elements > double(int64_t(1) << 45))
      return fail(join(path, "shape"), "larger than any tensor Placer runs");
    return true;
  }

  bool getTensors(const json::Object &object, const std::string &key,
                  std::vector<TensorSpec> &specs,
                  std::vector<int64_t> *offsets) {
    const json::Value *value = field(object, "", key);
    if (!value)
      return false;
    if (!value->getArray())
      return fail(key, "expected an array of tensors");
    const json::Array &items = *value->getArray();
    for (size_t i = 0; i < items.size(); ++i) {
      std::string path = key + "[" + std::to_string(i) + "]";
      const json::Object *tensor = items[i].getObject();
      if (!tensor)
        return fail(path, "expected an object");
      TensorSpec spec;
      int64_t offset = 0;
      if (!getString(*tensor, path, "name", spec.name) ||
          !getInteger(*tensor, path, "graph_index", spec.graphIndex, 0) ||
          !getString(*tensor, path, "element_type", spec.elementType) ||
          !getInteger(*tensor, path, "element_bytes", spec.elementBytes, 1) ||
          // Weights have fixed shapes; inputs and outputs may have symbols.
          !getShape(*tensor, path, spec.shape,
                    offsets ? nullptr : &spec.dimNames) ||
          (offsets && !getInteger(*tensor, path, "offset", offset, 0)) ||
          (tensor->count("updates") &&
           !getString(*tensor, path, "updates", spec.updates)) ||
          (tensor->count("replica") &&
           !getBool(*tensor, path, "replica", spec.replica)))
        return false;
      if (spec.replica && spec.updates.empty())
        return fail(join(path, "replica"), "only beside \"updates\"");
      if (tensor->count("shard") && !getShard(*tensor, path, spec))
        return false;
      if (spec.elementBytes > 16)
        return fail(join(path, "element_bytes"), "at most 16");
      specs.push_back(std::move(spec));
      if (offsets)
        offsets->push_back(offset);
    }
    return true;
  }

  bool getStrings(const json::Object &object, const std::string &key,
                  std::vector<std::string> &out) {
    const json::Value *value = field(object, "", key);
    if (!value)
      return false;
    if (!value->getArray())
      return fail(key, "expected an array of strings");
    for (const json::Value &item : *value->getArray()) {
      if (!item.getString())
        return fail(key, "expected an array of strings");
      out.push_back(*item.getString());
    }
    return true;
  }

private:
  const std::string &file;
  std::string &error;
};

/// A relative file name inside the artifact folder: paths from a manifest
/// never leave it.
bool isPlainFileName(const std::string &name) {
  return !name.empty() && name.find('/') == std::string::npos &&
         name != "." && name != "..";
}

/// Parses a manifest's text and checks what every artifact file starts
/// with: a JSON object of Placer's artifact format and format version,
/// written by this Placer.
std::optional<json::Value> parseArtifactJson(const std::string &text,
                                             const std::string &path,
                                             std::string &error) {
  std::string syntax;
  std::optional<json::Value> root = json::parse(text, syntax);
  if (!root) {
    error = path + ": not JSON: " + syntax;
    return std::nullopt;
  }
  Reader reader(path, error);
  const json::Object *object = root->getObject();
  if (!object) {
    reader.fail("(root)", "expected an object");
    return std::nullopt;
  }
  std::string format, placerVersion;
  int64_t version = 0;
  if (!reader.getString(*object, "", "format", format))
    return std::nullopt;
  if (format != kFormat) {
    reader.fail("format", "'" + format + "' is not a Placer artifact");
    return std::nullopt;
  }
  if (!reader.getInteger(*object, "", "format_version", version, 0) ||
      !reader.getString(*object, "", "placer_version", placerVersion))
    return std::nullopt;
  if (version != Manifest::kFormatVersion) {
    reader.fail("format_version", "artifact format " + std::to_string(version) +
                                      ", this runtime reads format " +
                                      std::to_string(Manifest::kFormatVersion));
    return std::nullopt;
  }
  if (placerVersion != getPlacerVersion()) {
    reader.fail("placer_version",
                "written by Placer " + placerVersion + ", this runtime is " +
                    getPlacerVersion() + ": compile the model again");
    return std::nullopt;
  }
  return root;
}

} // namespace

void placer::runtime::layOutWeights(Manifest &manifest) {
  manifest.weightOffsets.clear();
  int64_t offset = 0;
  for (const TensorSpec &weight : manifest.weights) {
    manifest.weightOffsets.push_back(offset);
    offset += (weight.getByteSize() + 63) / 64 * 64;
  }
  manifest.weightsBytes = offset;
}

std::string placer::runtime::printManifest(const Manifest &m) {
  json::Object root{{"format", kFormat},
                    {"format_version", Manifest::kFormatVersion},
                    {"placer_version", m.placerVersion},
                    {"llvm_version", m.llvmVersion},
                    {"library", m.library},
                    {"entry", m.entry},
                    {"device_kind", m.deviceKind},
                    {"target", m.target},
                    {"cpu", m.cpu},
                    {"gpu_chip", m.gpuChip},
                    {"math_mode", m.mathMode},
                    {"precision", m.precision},
                    {"stage", m.stage},
                    {"transfers", m.transfers},
                    {"inputs", printTensors(m.inputs)},
                    {"outputs", printTensors(m.outputs)},
                    {"weights", printTensors(m.weights, &m.weightOffsets)},
                    {"weights_file", m.weightsFile},
                    {"weights_bytes", m.weightsBytes},
                    {"profile_nodes", printStrings(m.profileNodes)}};
  return json::print(json::Value(std::move(root)));
}

std::optional<Manifest> placer::runtime::parseManifest(const std::string &text,
                                                       const std::string &path,
                                                       std::string &error) {
  std::optional<json::Value> root = parseArtifactJson(text, path, error);
  if (!root)
    return std::nullopt;
  const json::Object *object = root->getObject();
  Reader reader(path, error);
  Manifest m;
  m.placerVersion = getPlacerVersion();
  if (!reader.getString(*object, "", "llvm_version", m.llvmVersion) ||
      !reader.getString(*object, "", "library", m.library) ||
      !reader.getString(*object, "", "entry", m.entry) ||
      !reader.getString(*object, "", "device_kind", m.deviceKind) ||
      !reader.getString(*object, "", "target", m.target) ||
      !reader.getString(*object, "", "cpu", m.cpu) ||
      !reader.getString(*object, "", "gpu_chip", m.gpuChip) ||
      !reader.getString(*object, "", "math_mode", m.mathMode) ||
      !reader.getString(*object, "", "precision", m.precision) ||
      !reader.getInteger(*object, "", "stage", m.stage, -1) ||
      !reader.getString(*object, "", "transfers", m.transfers) ||
      !reader.getTensors(*object, "inputs", m.inputs, nullptr) ||
      !reader.getTensors(*object, "outputs", m.outputs, nullptr) ||
      !reader.getTensors(*object, "weights", m.weights, &m.weightOffsets) ||
      !reader.getString(*object, "", "weights_file", m.weightsFile) ||
      !reader.getInteger(*object, "", "weights_bytes", m.weightsBytes, 0) ||
      !reader.getStrings(*object, "profile_nodes", m.profileNodes))
    return std::nullopt;
  if (m.deviceKind != "cpu" && m.deviceKind != "gpu") {
    reader.fail("device_kind", "expected cpu or gpu");
    return std::nullopt;
  }
  if ((m.deviceKind == "gpu") != !m.gpuChip.empty()) {
    reader.fail("gpu_chip", "expected a chip exactly for GPU code");
    return std::nullopt;
  }
  if (m.mathMode != "fp32" && m.mathMode != "tf32") {
    reader.fail("math_mode", "expected fp32 or tf32");
    return std::nullopt;
  }
  if (m.precision != "fp32" && m.precision != "bf16" && m.precision != "fp16") {
    reader.fail("precision", "expected fp32, bf16 or fp16");
    return std::nullopt;
  }
  if (!isPlainFileName(m.library)) {
    reader.fail("library", "expected a file name inside the artifact folder");
    return std::nullopt;
  }
  if (!isPlainFileName(m.weightsFile)) {
    reader.fail("weights_file",
                "expected a file name inside the artifact folder");
    return std::nullopt;
  }
  for (size_t i = 0; i < m.weights.size(); ++i)
    if (m.weightOffsets[i] % 64 != 0 ||
        m.weightOffsets[i] + m.weights[i].getByteSize() > m.weightsBytes) {
      reader.fail("weights[" + std::to_string(i) + "].offset",
                  "outside the " + std::to_string(m.weightsBytes) +
                      " bytes of the weights file, or not 64-byte aligned");
      return std::nullopt;
    }
  return m;
}

std::string
placer::runtime::printProgramManifest(const ProgramShape &program) {
  json::Array outputs;
  for (const auto &[rank, name, shape] : program.outputs)
    outputs.emplace_back(json::Object{
        {"rank", rank}, {"name", name}, {"shape", printShape(shape)}});
  json::Array rankStages;
  for (int64_t stage : program.rankStages)
    rankStages.emplace_back(stage);
  json::Object root{{"format", kFormat},
                    {"format_version", Manifest::kFormatVersion},
                    {"placer_version", getPlacerVersion()},
                    {"stages", program.stages},
                    {"rank_stages", json::Value(std::move(rankStages))},
                    {"input_names", printStrings(program.inputNames)},
                    {"outputs", json::Value(std::move(outputs))}};
  return json::print(json::Value(std::move(root)));
}

std::optional<ProgramShape>
placer::runtime::parseProgramManifest(const std::string &text,
                                      const std::string &path,
                                      std::string &error) {
  std::optional<json::Value> root = parseArtifactJson(text, path, error);
  if (!root)
    return std::nullopt;
  const json::Object *object = root->getObject();
  Reader reader(path, error);
  ProgramShape program;
  if (!reader.getInteger(*object, "", "stages", program.stages, 1) ||
      !reader.getStrings(*object, "input_names", program.inputNames))
    return std::nullopt;
  const json::Value *ranks = reader.field(*object, "", "rank_stages");
  if (!ranks)
    return std::nullopt;
  if (!ranks->getArray() || ranks->getArray()->empty()) {
    reader.fail("rank_stages", "expected a stage per rank");
    return std::nullopt;
  }
  for (const json::Value &stage : *ranks->getArray()) {
    std::optional<int64_t> s = stage.getInteger();
    if (!s || *s < 0 || *s >= program.stages) {
      reader.fail("rank_stages", "expected stages below " +
                                     std::to_string(program.stages));
      return std::nullopt;
    }
    program.rankStages.push_back(*s);
  }
  const json::Value *outputs = reader.field(*object, "", "outputs");
  if (!outputs)
    return std::nullopt;
  if (!outputs->getArray()) {
    reader.fail("outputs", "expected an array");
    return std::nullopt;
  }
  for (size_t i = 0; i < outputs->getArray()->size(); ++i) {
    std::string path = "outputs[" + std::to_string(i) + "]";
    const json::Object *entry = (*outputs->getArray())[i].getObject();
    int64_t rank = 0;
    std::string name;
    std::vector<int64_t> shape;
    if (!entry) {
      reader.fail(path, "expected an object");
      return std::nullopt;
    }
    if (!reader.getInteger(*entry, path, "rank", rank, 0) ||
        !reader.getString(*entry, path, "name", name) ||
        !reader.getShape(*entry, path, shape))
      return std::nullopt;
    if (rank >= static_cast<int64_t>(program.rankStages.size())) {
      reader.fail(path + ".rank", "no such rank");
      return std::nullopt;
    }
    program.outputs.emplace_back(static_cast<int>(rank), name, shape);
  }
  return program;
}

bool placer::runtime::isSplitArtifact(const std::string &dir) {
  return fs::exists(joinPath(dir, kProgramFile));
}

std::string placer::runtime::getStageFolder(const std::string &dir,
                                            int64_t stage) {
  return joinPath(dir, "stage-" + std::to_string(stage));
}

bool placer::runtime::writeArtifact(const std::string &dir, Manifest manifest,
                                    const std::vector<const Buffer *> &weights,
                                    const std::string &libraryPath,
                                    std::string &error) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  layOutWeights(manifest);
  std::string weightsPath = joinPath(dir, manifest.weightsFile);
  {
    std::ofstream out(weightsPath, std::ios::binary | std::ios::trunc);
    for (size_t i = 0; i < weights.size(); ++i) {
      out.seekp(manifest.weightOffsets[i]);
      out.write(reinterpret_cast<const char *>(weights[i]->data()),
                manifest.weights[i].getByteSize());
    }
    // The file ends at the laid-out total: pad after a last weight whose
    // size is not a multiple of 64.
    out.seekp(0, std::ios::end);
    if (static_cast<int64_t>(out.tellp()) < manifest.weightsBytes) {
      out.seekp(manifest.weightsBytes - 1);
      out.put(0);
    }
    if (!out) {
      error = "cannot write " + weightsPath;
      return false;
    }
  }
  fs::copy_file(libraryPath, joinPath(dir, manifest.library),
                fs::copy_options::overwrite_existing, ec);
  if (ec) {
    error = "cannot copy " + libraryPath + " to " + dir + ": " + ec.message();
    return false;
  }
  return writeTextFile(joinPath(dir, kManifestFile), printManifest(manifest),
                   error);
}

bool placer::runtime::writeProgramManifest(const std::string &dir,
                                           const ProgramShape &program,
                                           std::string &error) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  return writeTextFile(joinPath(dir, kProgramFile), printProgramManifest(program),
                   error);
}

std::optional<LoadedArtifact>
placer::runtime::loadArtifact(const std::string &dir, std::string &error) {
  std::string manifestPath = joinPath(dir, kManifestFile), text;
  if (!readTextFile(manifestPath, text, error)) {
    error += " (an artifact folder holds manifest.json: write one with "
             "placer-run MODEL.mlir --compile-only DIR)";
    return std::nullopt;
  }
  std::optional<Manifest> manifest = parseManifest(text, manifestPath, error);
  if (!manifest)
    return std::nullopt;
  GpuRuntime *gpu = nullptr;
  if (manifest->deviceKind == "gpu") {
    // Its code calls the CUDA runtime, which must be loaded (globally)
    // before it, on a GPU that runs its PTX.
    gpu = GpuRuntime::get(error);
    if (!gpu || !gpu->canRun(manifest->gpuChip, error)) {
      error = manifestPath + ": device_kind: the code is for a gpu (" +
              manifest->gpuChip + "): " + error;
      return std::nullopt;
    }
  }
  LoadedArtifact artifact;
  artifact.manifest = std::move(*manifest);
  const Manifest &m = artifact.manifest;

  std::string weightsPath = joinPath(dir, m.weightsFile);
  std::ifstream in(weightsPath, std::ios::binary);
  if (!in) {
    error = "cannot read the weights file " + weightsPath;
    return std::nullopt;
  }
  std::error_code ec;
  uint64_t size = fs::file_size(weightsPath, ec);
  if (ec || size != static_cast<uint64_t>(m.weightsBytes)) {
    error = weightsPath + ": " + std::to_string(ec ? 0 : size) +
            " bytes, the manifest's weights_bytes says " +
            std::to_string(m.weightsBytes) + " (truncated or replaced?)";
    return std::nullopt;
  }
  for (size_t i = 0; i < m.weights.size(); ++i) {
    Buffer buffer(m.weights[i].getByteSize());
    in.seekg(m.weightOffsets[i]);
    in.read(reinterpret_cast<char *>(buffer.data()), buffer.size());
    if (!in) {
      error = weightsPath + ": cannot read weight '" + m.weights[i].name +
              "' at offset " + std::to_string(m.weightOffsets[i]);
      return std::nullopt;
    }
    artifact.weights.push_back(std::move(buffer));
  }

  artifact.libraryPath = fs::absolute(joinPath(dir, m.library)).string();
  std::optional<Executable> executable =
      Executable::load(artifact.libraryPath, m.entry, error);
  if (!executable)
    return std::nullopt;
  // GPU code loads its kernels as it is loaded (JIT-compiling their PTX).
  if (gpu && gpu->takeError(error)) {
    error = artifact.libraryPath + ": " + error;
    return std::nullopt;
  }
  artifact.executable = std::move(*executable);
  return artifact;
}

std::optional<ProgramShape>
placer::runtime::readProgramManifest(const std::string &dir,
                                     std::string &error) {
  std::string path = joinPath(dir, kProgramFile), text;
  if (!readTextFile(path, text, error))
    return std::nullopt;
  return parseProgramManifest(text, path, error);
}
