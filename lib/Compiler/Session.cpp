//===- Session.cpp - Compile a module once, run it on caller buffers ------===//

#include "placer/Compiler/Session.h"

#include "placer/Runtime/Artifact.h"

#include "placer/Analysis/Cluster.h"
#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Transforms/Passes.h"
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

#include <chrono>

using namespace placer;
using namespace placer::runtime;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static double steadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

//===----------------------------------------------------------------------===//
// The program's shape
//===----------------------------------------------------------------------===//

llvm::Expected<ProgramShape>
placer::runtime::describeProgram(mlir::ModuleOp module) {
  ProgramShape shape;
  std::string problem;
  // Inputs and outputs are arrays (.npy, buffers): a sequence, optional or
  // map at the boundary is refused here, before anything reads its shape.
  auto checkTensor = [&](mlir::Type type, llvm::StringRef kind,
                         llvm::StringRef name) {
    if (!problem.empty() || mlir::isa<mlir::RankedTensorType>(type))
      return true;
    llvm::raw_string_ostream os(problem);
    os << "the program's " << kind << " '" << name << "' has type " << type
       << ": inputs and outputs must be tensors (sequences, optionals and "
          "maps are not supported)";
    return false;
  };
  auto record = [&](mlir::func::FuncOp func, int rank) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto name =
              func.getArgAttrOfType<mlir::StringAttr>(i, "graph.name")) {
        if (!checkTensor(func.getArgumentTypes()[i], "input", name))
          return;
        if (!shape.hasInput(name.str()))
          shape.inputNames.push_back(name.str());
      }
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      if (auto name =
              func.getResultAttrOfType<mlir::StringAttr>(i, "graph.name")) {
        if (!checkTensor(func.getResultTypes()[i], "output", name))
          return;
        auto type = mlir::cast<mlir::ShapedType>(func.getResultTypes()[i]);
        shape.outputs.emplace_back(rank, name.str(),
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
  } else {
    for (auto func : module.getOps<mlir::func::FuncOp>())
      if (func.isPublic() && !func.isDeclaration())
        record(func, 0);
  }
  if (!problem.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), problem);
  return shape;
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

namespace {
/// A module lowered and compiled to a shared object (not loaded).
struct Compiled {
  LoweredModule lowered;
  std::string libraryPath;
  bool cached = false;
  double seconds = 0;
};
} // namespace

/// The microbatches a training step averages (placer.microbatches on its
/// function, or on the function a split program came from), if it does.
static std::optional<int64_t> getAveragedMicrobatches(mlir::ModuleOp module) {
  auto read = [](mlir::Attribute attr) -> std::optional<int64_t> {
    if (auto count = mlir::dyn_cast_or_null<mlir::IntegerAttr>(attr))
      return count.getInt();
    return std::nullopt;
  };
  for (auto program : module.getOps<dist::ProgramOp>())
    if (mlir::DictionaryAttr attrs = program.getGraphAttrsAttr())
      if (auto count = read(attrs.get(placer::kMicrobatchesAttrName)))
        return count;
  for (auto func : module.getOps<mlir::func::FuncOp>())
    if (auto count = read(func->getAttr(placer::kMicrobatchesAttrName)))
      return count;
  return std::nullopt;
}

static ProgramOptions getProgramOptions(const SessionOptions &options) {
  ProgramOptions program;
  program.profile = options.profile;
  // Accumulated microbatches are one run of the step over the whole batch.
  program.microbatches = options.accumulateGradients ? 1 : options.microbatches;
  program.threads = options.threads;
  program.job = options.job;
  return program;
}

static llvm::Expected<Compiled> compile(mlir::ModuleOp module,
                                        const SessionOptions &options) {
  std::string message;
  if (!checkProgramOptions(getProgramOptions(options), message))
    return error(message);
  if (options.transfers != "pipelined" && options.transfers != "blocking")
    return error("transfers must be 'pipelined' or 'blocking', not '" +
                 options.transfers + "'");
  bool distributed = options.job && options.job->isDistributed();
  ExecutionOptions execution;
  execution.profile = options.profile;
  execution.stage = distributed ? options.job->getStage() : options.stage;
  execution.transfers = options.transfers;
  execution.inlineWeights = options.inlineWeights;
  execution.target = options.target;
  execution.gpuChip = options.gpuChip;
  execution.tf32 = options.tf32;
  execution.precision = options.precision;
  execution.gpuChannelsLast = options.gpuChannelsLast;
  // Lowering rewrites the module in place: the caller keeps the graph.
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
  if (options.accumulateGradients) {
    // A step placed and split for a pipeline averages its microbatches
    // already; a whole step gets them here.
    if (std::optional<int64_t> built = getAveragedMicrobatches(*copy)) {
      if (*built != options.microbatches)
        return error("the training step averages " + std::to_string(*built) +
                     " microbatches (placer.microbatches): run it with "
                     "--microbatches " +
                     std::to_string(*built) + ", not " +
                     std::to_string(options.microbatches));
    } else if (options.microbatches > 1) {
      if (!copy->getOps<dist::ProgramOp>().empty())
        return error("this split training step was not built for "
                     "microbatches: run placer-opt "
                     "--placer-accumulate-microbatches before splitting it");
      if (mlir::failed(accumulateMicrobatches(
              *copy, options.microbatches,
              solver::getName(solver::Schedule::Sequential))))
        return error("cannot accumulate the gradients of " +
                     std::to_string(options.microbatches) +
                     " microbatches (see the errors above)");
    }
  }
  llvm::Expected<LoweredModule> lowered = lowerForExecution(*copy, execution);
  if (!lowered)
    return lowered.takeError();
  Compiled compiled;
  compiled.lowered = std::move(*lowered);
  std::string cacheDir =
      options.cacheDir.empty() ? getDefaultCacheDir() : options.cacheDir;
  double start = steadySeconds();
  llvm::Expected<std::string> library = compileToSharedObject(
      *copy, compiled.lowered.function, cacheDir, compiled.cached);
  if (!library)
    return library.takeError();
  compiled.seconds = steadySeconds() - start;
  compiled.libraryPath = *library;
  return std::move(compiled);
}

llvm::Expected<std::unique_ptr<Session>>
Session::create(mlir::ModuleOp module, const SessionOptions &options) {
  if (options.target != "cpu")
    return error("code for '" + options.target +
                 "' does not run in this process: compile it into an "
                 "artifact (compileArtifact, placer-run --compile-only)");
  llvm::Expected<Compiled> compiled = compile(module, options);
  if (!compiled)
    return compiled.takeError();
  std::unique_ptr<Session> session(new Session());
  session->cached = compiled->cached;
  session->compileSeconds = compiled->seconds;
  std::string message;
  std::optional<Executable> executable = Executable::load(
      compiled->libraryPath, compiled->lowered.function, message);
  if (!executable)
    return error(message);
  session->program =
      Program::create(std::move(compiled->lowered), std::move(*executable),
                      getProgramOptions(options), message);
  if (!session->program)
    return error(message);
  return std::move(session);
}

/// The host's target triple and CPU, as the compiled code was made for.
static std::pair<std::string, std::string> getHostTarget() {
  return {llvm::sys::getDefaultTargetTriple(),
          llvm::sys::getHostCPUName().str()};
}

llvm::Expected<Manifest> placer::runtime::compileArtifact(
    mlir::ModuleOp module, const SessionOptions &options, llvm::StringRef dir) {
  llvm::Expected<Compiled> compiled = compile(module, options);
  if (!compiled)
    return compiled.takeError();
  const LoweredModule &lowered = compiled->lowered;
  Manifest manifest;
  manifest.placerVersion = getPlacerVersion();
  manifest.llvmVersion = LLVM_VERSION_STRING;
  manifest.entry = lowered.function;
  std::tie(manifest.target, manifest.cpu) = getHostTarget();
  if (!lowered.gpuChip.empty()) {
    manifest.deviceKind = "gpu";
    manifest.cpu = getPortableHostCpu();
    manifest.gpuChip = lowered.gpuChip;
    manifest.mathMode = lowered.tf32 ? "tf32" : "fp32";
  }
  manifest.precision = lowered.precision;
  manifest.stage = options.job && options.job->isDistributed()
                       ? options.job->getStage()
                       : options.stage;
  manifest.transfers = lowered.transfers;
  manifest.inputs = lowered.inputs;
  manifest.weights = lowered.weights;
  manifest.outputs = lowered.outputs;
  manifest.profileNodes = lowered.profileNodes;
  std::vector<const Buffer *> weights;
  for (const Buffer &weight : lowered.weightData)
    weights.push_back(&weight);
  layOutWeights(manifest);
  std::string message;
  if (!placer::runtime::writeArtifact(dir.str(), manifest, weights,
                                      compiled->libraryPath, message))
    return error(message);
  return manifest;
}

llvm::Error
Session::setInputShapes(llvm::ArrayRef<std::vector<int64_t>> shapes) {
  std::string message;
  if (!program->setInputShapes(shapes.vec(), message))
    return error(message);
  return llvm::Error::success();
}

llvm::Error Session::bind(llvm::ArrayRef<HostTensor> inputs,
                          llvm::ArrayRef<HostTensor> outputs) {
  std::string message;
  if (!program->bind(inputs.vec(), outputs.vec(), message))
    return error(message);
  return llvm::Error::success();
}

llvm::Expected<std::pair<double, double>> Session::run() {
  std::string message;
  if (std::optional<std::pair<double, double>> times = program->run(message))
    return *times;
  return error(message);
}

llvm::Expected<Timing> Session::measure(unsigned runs) {
  std::string message;
  if (std::optional<Timing> timing = program->measure(runs, message))
    return std::move(*timing);
  return error(message);
}

std::optional<Simulated>
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
  const llvm::json::Object &report = simulation->report;
  Simulated simulated{report.getNumber("total").value_or(0),
                      report.getNumber("time_per_sample").value_or(0)};
  mlir::FailureOr<Cluster> cluster = requireCluster(module, "placer-run");
  if (mlir::succeeded(cluster)) {
    llvm::raw_string_ostream os(simulated.cluster);
    os << "'" << cluster->getName() << "' (";
    llvm::interleaveComma(cluster->getKinds(), os, [&](const DeviceKind &kind) {
      os << kind.count << " x " << kind.name;
      simulated.onAccelerators |= kind.isAccelerator;
    });
    os << ")";
  }
  return simulated;
}
