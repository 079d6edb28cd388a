//===- placer-run.cpp - Compile a placed model and run it -----------------===//
//
//   placer-run MODEL.mlir [--input NAME=FILE.npy]... [--seed N]
//              --output-dir DIR [--repeat N] [--report FILE.json]
//   placer-run MODEL.mlir --profile FILE.json [--profile-kind KIND] [--repeat N]
//
// Lowers the model (merging a split one), compiles it ahead of time into a
// cached shared object, runs it on the given or seeded-random inputs, and
// writes every graph output as DIR/<output name>.npy. With --profile it
// times every node instead and writes the times as a profile that
// --placer-estimate-costs reads.
//
//===----------------------------------------------------------------------===//

#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Runtime/Npy.h"
#include "placer/Runtime/ProfileHooks.h"
#include "placer/Runtime/Runner.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
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
static cl::opt<unsigned> repeat("repeat",
                                cl::desc("Timed runs after the first"),
                                cl::init(0));
static cl::opt<std::string> reportPath("report",
                                       cl::desc("Write a JSON report here"),
                                       cl::value_desc("FILE.json"));
static cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Compiled models are kept here (default: the user cache "
             "folder, placer/)"),
    cl::value_desc("DIR"));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "placer-run: error: " << message << "\n";
  return 1;
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

/// Seeded values: floats uniform in [-1, 1), integers in [0, 10), booleans.
static void fillRandom(Buffer &buffer, const TensorSpec &spec,
                       std::mt19937_64 &rng) {
  int64_t n = spec.getNumElements();
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

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "Placer runner: compile a graph module ahead of time and run it\n");

  mlir::DialectRegistry registry;
  registry.insert<placer::graph::GraphDialect, placer::dist::DistDialect,
                  placer::PlacerDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllPasses();
  mlir::MLIRContext context(registry);

  if (outputDir.empty() && profilePath.empty())
    return fail("give --output-dir DIR (outputs) or --profile FILE.json");
  // Inputs first: a bad flag fails before any compilation.
  std::map<std::string, std::string> given;
  for (const std::string &entry : inputFiles) {
    auto [name, file] = llvm::StringRef(entry).split('=');
    if (name.empty() || file.empty())
      return fail("--input expects NAME=FILE.npy, got '" + entry + "'");
    given[name.str()] = file.str();
  }

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(modelPath, sourceMgr,
                                            mlir::ParserConfig(&context));
  if (!module)
    return fail("cannot parse " + modelPath);

  bool profiling = !profilePath.empty();
  llvm::Expected<LoweredModule> lowered = lowerForExecution(*module, profiling);
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

  // Buffers in argument order: inputs, weights, outputs.
  std::vector<Buffer> inputs, outputs;
  std::mt19937_64 rng(seed);
  for (const TensorSpec &spec : lowered->inputs) {
    Buffer buffer(spec.getByteSize());
    auto file = given.find(spec.name);
    if (file == given.end()) {
      fillRandom(buffer, spec, rng);
    } else {
      llvm::Expected<NpyArray> array = readNpy(file->second);
      if (!array)
        return fail(llvm::toString(array.takeError()));
      if (array->dtype != npyDtypeOf(spec.elementType) ||
          array->shape != spec.shape)
        return fail(file->second + ": input '" + spec.name + "' needs dtype " +
                    npyDtypeOf(spec.elementType) + " and shape [" +
                    llvm::join(llvm::map_range(spec.shape,
                                               [](int64_t d) {
                                                 return std::to_string(d);
                                               }),
                               ", ") +
                    "], the file has " + array->dtype);
      std::memcpy(buffer.data(), array->bytes.data(), array->bytes.size());
      given.erase(file);
    }
    inputs.push_back(std::move(buffer));
  }
  if (!given.empty())
    return fail("the model has no input named '" + given.begin()->first + "'");
  for (const TensorSpec &spec : lowered->outputs)
    outputs.emplace_back(spec.getByteSize());

  std::vector<Buffer *> buffers;
  std::vector<const TensorSpec *> specs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    buffers.push_back(&inputs[i]);
    specs.push_back(&lowered->inputs[i]);
  }
  for (size_t i = 0; i < lowered->weightData.size(); ++i) {
    buffers.push_back(&lowered->weightData[i]);
    specs.push_back(&lowered->weights[i]);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    buffers.push_back(&outputs[i]);
    specs.push_back(&lowered->outputs[i]);
  }

  executable->bind(buffers, specs);
  int64_t numProfiled = lowered->profileNodes.size();
  if (profiling && placer_profile_reset(numProfiled))
    return fail("out of memory for the profile counters");
  executable->run();
  // The warm-up run is not part of the profile.
  if (profiling)
    placer_profile_reset(numProfiled);
  unsigned runs = profiling ? std::max(1u, unsigned(repeat)) : unsigned(repeat);
  std::vector<double> times;
  for (unsigned r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    executable->run();
    times.push_back(std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }

  if (profiling) {
    if (llvm::Error error = writeProfile(lowered->profileNodes,
                                         placer_profile_totals(), runs, times))
      return fail(llvm::toString(std::move(error)));
  }
  if (!outputDir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail("cannot create " + outputDir + ": " + ec.message());
  llvm::json::Array outputReport;
  for (size_t i = 0; i < outputs.size() && !outputDir.empty(); ++i) {
    const TensorSpec &spec = lowered->outputs[i];
    NpyArray array{npyDtypeOf(spec.elementType), spec.shape,
                   std::vector<uint8_t>(outputs[i].data(),
                                        outputs[i].data() + outputs[i].size())};
    if (array.dtype.empty())
      return fail("output '" + spec.name + "' has element type " +
                  spec.elementType + ", which .npy cannot hold");
    llvm::SmallString<256> path(outputDir);
    llvm::sys::path::append(path, fileNameFor(spec.name) + ".npy");
    if (llvm::Error error = writeNpy(path, array))
      return fail(llvm::toString(std::move(error)));
    outputReport.push_back(llvm::json::Object{
        {"name", spec.name}, {"file", std::string(path)},
        {"dtype", array.dtype}, {"shape", llvm::json::Array(spec.shape)}});
  }

  llvm::json::Object report{{"model", modelPath},
                            {"function", lowered->function},
                            {"cached", cached},
                            {"compile_seconds", compileSeconds},
                            {"outputs", std::move(outputReport)}};
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    double median = times[times.size() / 2];
    int64_t samples = lowered->inputs.empty() || lowered->inputs[0].shape.empty()
                          ? 1
                          : lowered->inputs[0].shape[0];
    llvm::outs() << llvm::formatv(
        "{0}: {1} runs, {2:e} s per run (min), {3:e} s (median), {4:e} s per "
        "sample (median, {5} samples per run)\n",
        lowered->function, times.size(), times.front(), median,
        median / samples, samples);
    report["repeat"] = static_cast<int64_t>(times.size());
    report["samples_per_run"] = samples;
    report["seconds_per_run"] =
        llvm::json::Object{{"min", times.front()}, {"median", median}};
    report["seconds_per_sample"] = llvm::json::Object{
        {"min", times.front() / samples}, {"median", median / samples}};
  }
  if (!reportPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(reportPath, ec);
    if (ec)
      return fail("cannot write " + reportPath + ": " + ec.message());
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  }
  return 0;
}
