//===- placer-run.cpp - Compile a placed model and run it -----------------===//
//
//   placer-run MODEL.mlir [--input NAME=FILE.npy]... [--seed N]
//              --output-dir DIR [--microbatches M] [--repeat N]
//              [--report FILE.json]
//   mpirun -n K placer-run SPLIT.mlir --microbatches M ...
//   placer-run MODEL.mlir --profile FILE.json [--profile-kind KIND] [--repeat
//   N]
//
// A shell over the runtime library: a Session (Session.h) compiles the model
// ahead of time into a cached shared object or an artifact folder, and a
// launch (Launch.h, shared with the runtime-only runner) runs it on the
// given or seeded-random inputs (M microbatches stacked on the first axis);
// every graph output is written as DIR/<output name>.npy. Alone, a split
// module runs merged back into one program; under mpirun with one rank per
// device, each rank compiles and runs its own stage and the stages stream
// microbatches to each other over MPI. With --profile it times every node
// instead and writes the times as a profile that --placer-estimate-costs
// reads. `placer-run MODEL.mlir --compile-only DIR` writes an artifact
// folder, and `placer-run DIR` runs one (Artifact.h).
//
//===----------------------------------------------------------------------===//

#include "placer/Compiler/Session.h"
#include "placer/InitAll.h"
#include "placer/Runtime/Artifact.h"
#include "placer/Runtime/Launch.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace placer::runtime;
namespace cl = llvm::cl;

namespace {

/// The command line. Declared in main (no global state): cl::opt registers
/// itself when constructed.
struct Options {
  /// Only these show in --help: the libraries linked in register hundreds
  /// of their own (LLVM's code generators').
  cl::OptionCategory category{"placer-run options"};
  cl::opt<std::string> model{
      cl::Positional, cl::Required,
      cl::desc("MODEL.mlir, or an artifact folder written by --compile-only"),
      cl::cat(category)};
  cl::opt<std::string> compileOnly{
      "compile-only",
      cl::desc("Compile the module into an artifact folder (code, manifest, "
               "weights file; a split module: one folder per stage) and stop; "
               "`placer-run DIR` runs it"),
      cl::value_desc("DIR"), cl::cat(category)};
  cl::list<std::string> inputs{
      "input", cl::desc("NAME=FILE.npy: the value of graph input NAME"),
      cl::value_desc("NAME=FILE.npy"), cl::cat(category)};
  cl::opt<uint64_t> seed{"seed", cl::desc("Seed of the inputs not given"),
                         cl::init(0), cl::cat(category)};
  cl::opt<std::string> outputDir{"output-dir",
                                 cl::desc("Where outputs are written"),
                                 cl::value_desc("DIR"), cl::cat(category)};
  cl::opt<std::string> profile{
      "profile",
      cl::desc("Time every node over the runs and write the mean seconds per "
               "run as a profile (node name -> device kind -> seconds) for "
               "--placer-estimate-costs"),
      cl::value_desc("FILE.json"), cl::cat(category)};
  cl::opt<std::string> profileKind{
      "profile-kind", cl::desc("The device kind the profile is for"),
      cl::init("cpu"), cl::value_desc("KIND"), cl::cat(category)};
  cl::opt<unsigned> repeat{
      "repeat",
      cl::desc("Timed runs after the first (a run: every microbatch once)"),
      cl::init(0), cl::cat(category)};
  cl::opt<int64_t> threads{
      "threads",
      cl::desc("Threads of the code's parallel loops (the images of a "
               "batch); under mpirun, per rank"),
      cl::init(1), cl::cat(category)};
  cl::opt<int64_t> microbatches{
      "microbatches",
      cl::desc("Microbatches per run: inputs hold them stacked on the first "
               "axis, and so do outputs"),
      cl::init(1), cl::cat(category)};
  cl::opt<std::string> transfers{
      "transfers",
      cl::desc("Under mpirun: pipelined (non-blocking, double-buffered, "
               "libplacer_rt) or blocking (upstream mpi.send/recv)"),
      cl::init("pipelined"), cl::cat(category)};
  cl::opt<double> transferTimeout{
      "transfer-timeout",
      cl::desc("Under mpirun: seconds a transfer may wait before the run "
               "fails"),
      cl::init(60.0), cl::cat(category)};
  cl::opt<int64_t> trainSteps{
      "train-steps",
      cl::desc("A training step (placer-opt --placer-build-training): run S "
               "optimizer steps on the given batch, each feeding the next "
               "weights back; writes DIR/loss.npy, the loss of each step"),
      cl::init(0), cl::value_desc("S"), cl::cat(category)};
  cl::opt<std::string> saveWeights{
      "save-weights",
      cl::desc("With --train-steps: write <name>.npy of every weight and "
               "optimizer state after the last step here"),
      cl::value_desc("DIR"), cl::cat(category)};
  cl::opt<std::string> report{"report", cl::desc("Write a JSON report here"),
                              cl::value_desc("FILE.json"), cl::cat(category)};
  cl::opt<std::string> target{
      "target",
      cl::desc("With --compile-only: cpu (this machine), cpu-portable (a "
               "CPU whose runtime may lack oneDNN and libomp: sequential "
               "loops, generated convolutions and products) or cuda (an "
               "NVIDIA GPU: kernels as PTX, convolutions and products as "
               "calls of the CUDA runtime)"),
      cl::init("cpu"), cl::cat(category)};
  cl::opt<std::string> gpuChip{
      "gpu-chip", cl::desc("With --target=cuda: the NVIDIA chip"),
      cl::init("sm_90"), cl::value_desc("sm_XY"), cl::cat(category)};
  cl::opt<bool> gpuTf32{
      "gpu-tf32",
      cl::desc("With --target=cuda: convolutions and products may use TF32 "
               "tensor cores (default: strict fp32)"),
      cl::init(false), cl::cat(category)};
  cl::opt<std::string> gpuPrecision{
      "gpu-precision",
      cl::desc("With --target=cuda: fp32, or bf16 / fp16 (convolutions and "
               "products in that type on tensor cores, accumulating in f32; "
               "softmax, normalizations and sums in f32; weights stored in "
               "it; inputs and outputs f32), as PyTorch's autocast"),
      cl::init("fp32"), cl::value_desc("fp32|bf16|fp16"), cl::cat(category)};
  cl::opt<bool> gpuChannelsLast{
      "gpu-channels-last",
      cl::desc("With --target=cuda: convolutions on NHWC activations and "
               "filters, which cuDNN's tensor-core kernels take"),
      cl::init(false), cl::cat(category)};
  cl::opt<std::string> cacheDir{
      "cache-dir",
      cl::desc("Compiled models are kept here (default: the user cache "
               "folder, placer/)"),
      cl::value_desc("DIR"), cl::cat(category)};
};

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The settings a launch takes; checks them.
llvm::Expected<LaunchOptions> getLaunchOptions(const Options &options) {
  LaunchOptions launch;
  launch.model = options.model;
  launch.seed = options.seed;
  launch.outputDir = options.outputDir;
  launch.profile = options.profile;
  launch.profileKind = options.profileKind;
  launch.report = options.report;
  launch.repeat = options.repeat;
  launch.microbatches = options.microbatches;
  launch.threads = options.threads;
  launch.transferTimeout = options.transferTimeout;
  launch.trainSteps = options.trainSteps;
  launch.saveWeights = options.saveWeights;
  std::string message;
  std::vector<std::string> inputs(options.inputs.begin(), options.inputs.end());
  if (!parseLaunchOptions(inputs, launch, message))
    return error(message);
  if (options.transfers != "pipelined" && options.transfers != "blocking")
    return error("--transfers must be 'pipelined' or 'blocking', not '" +
                 options.transfers + "'");
  return launch;
}

/// The GPU code's options, for a run or a compile: refused where they
/// would be ignored.
llvm::Error checkGpuOptions(const Options &options) {
  const std::string &precision = options.gpuPrecision;
  if (precision != "fp32" && precision != "bf16" && precision != "fp16")
    return error("--gpu-precision must be fp32, bf16 or fp16, not '" +
                 precision + "'");
  if (precision != "fp32" && options.target != "cuda")
    return error("--gpu-precision is for --target=cuda code; CPU code "
                 "computes in half precision after placer-opt "
                 "--placer-autocast");
  if (options.gpuChannelsLast && options.target != "cuda")
    return error("--gpu-channels-last is for --target=cuda code (CPU "
                 "convolutions are channels-last already)");
  return llvm::Error::success();
}

SessionOptions getSessionOptions(const Options &options, MpiJob *job) {
  SessionOptions sessionOptions;
  sessionOptions.profile = !options.profile.empty();
  sessionOptions.microbatches = options.microbatches;
  sessionOptions.accumulateGradients = options.trainSteps > 0;
  sessionOptions.threads = options.threads;
  sessionOptions.transfers = options.transfers;
  sessionOptions.cacheDir = options.cacheDir;
  sessionOptions.job = job;
  sessionOptions.target = options.target;
  sessionOptions.gpuChip = options.gpuChip;
  sessionOptions.tf32 = options.gpuTf32;
  sessionOptions.precision = options.gpuPrecision;
  sessionOptions.gpuChannelsLast = options.gpuChannelsLast;
  return sessionOptions;
}

/// --compile-only DIR: the whole module's artifact, or for a split module
/// one per stage (DIR/stage-<k>) and the ranks' program (DIR/program.json).
llvm::Error compileArtifacts(mlir::ModuleOp module, const Options &options,
                             const MpiJob *job) {
  if (job && job->isDistributed())
    return error("--compile-only compiles every stage in one process: run "
                 "it without mpirun");
  llvm::Expected<ProgramShape> described = describeProgram(module);
  if (!described)
    return described.takeError();
  ProgramShape &program = *described;
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
    llvm::Expected<Manifest> manifest =
        compileArtifact(module, sessionOptions, folder);
    if (!manifest)
      return manifest.takeError();
    llvm::outs() << "wrote " << folder << " ("
                 << (stage < 0 ? std::string("whole program")
                               : "stage " + std::to_string(stage))
                 << ", entry " << manifest->entry
                 << (manifest->gpuChip.empty() ? std::string()
                                               : ", cuda " + manifest->gpuChip)
                 << ")\n";
  }
  if (program.stages == 0)
    return llvm::Error::success();
  std::string message;
  if (!writeProgramManifest(options.compileOnly, program, message))
    return error(message);
  return llvm::Error::success();
}

/// A module: compiled here (or taken from the cache).
llvm::Expected<std::unique_ptr<Session>>
compileModule(mlir::ModuleOp module, const Options &options, MpiJob *job,
              uint64_t identity, Launch &launch) {
  llvm::Expected<ProgramShape> shape = describeProgram(module);
  if (!shape)
    return shape.takeError();
  launch.shape = std::move(*shape);
  std::string message;
  if (job && job->isDistributed() &&
      !job->assignStage(launch.shape, identity, message))
    return error(message);
  if (!job || job->getRank() == 0)
    launch.simulated = simulateQuietly(module, options.microbatches);
  auto session = Session::create(module, getSessionOptions(options, job));
  if (!session)
    return session.takeError();
  launch.program = &(*session)->getProgram();
  launch.cached = (*session)->isCached();
  launch.compileSeconds = (*session)->getCompileSeconds();
  return session;
}

/// Everything after the command line; a failure is the message to print.
llvm::Error runTool(const Options &options, MpiJob *job, int argc,
                    char **argv) {
  bool isArtifact = llvm::sys::fs::is_directory(options.model.getValue());
  bool compileOnly = !options.compileOnly.empty();
  if (llvm::Error error = checkGpuOptions(options))
    return error;
  llvm::Expected<LaunchOptions> launchOptions = LaunchOptions();
  if (compileOnly) {
    if (isArtifact)
      return error(options.model + " is an artifact already compiled");
  } else {
    if (options.target != "cpu")
      return error("--target=" + options.target +
                   " code runs on its device, not here: compile it with "
                   "--compile-only DIR");
    launchOptions = getLaunchOptions(options);
    if (!launchOptions)
      return launchOptions.takeError();
  }

  mlir::DialectRegistry registry;
  placer::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (!isArtifact) {
    module = mlir::parseSourceFile<mlir::ModuleOp>(
        options.model, sourceMgr, mlir::ParserConfig(&context));
    if (!module)
      return error("cannot parse " + options.model);
  }
  if (compileOnly)
    return compileArtifacts(*module, options, job);

  uint64_t identity = getLaunchIdentity(options.model, argc, argv);
  Launch launch;
  // Whichever owns the program: a session over a compiled module, or the
  // artifact's program.
  std::unique_ptr<Session> session;
  std::unique_ptr<Program> artifact;
  std::string message;
  if (isArtifact) {
    artifact = openArtifact(*launchOptions, job, identity, launch, message);
    if (!artifact)
      return error(message);
  } else {
    auto compiled = compileModule(*module, options, job, identity, launch);
    if (!compiled)
      return compiled.takeError();
    session = std::move(*compiled);
  }
  if (!runLaunch(launch, *launchOptions, job, message))
    return error(message);
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // A library linked in registers an undocumented `threads` option of its
  // own; --threads is placer-run's (the code's parallel loops).
  if (cl::Option *taken = cl::getRegisteredOptions().lookup("threads"))
    taken->removeArgument();
  Options options;
  cl::HideUnrelatedOptions(options.category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "Placer runner: compile a graph module ahead of time and run it, alone "
      "or one MPI rank per device\n");
  std::unique_ptr<MpiJob> job;
  if (MpiJob::launchedByMpi()) {
    std::string message;
    job = MpiJob::start(&argc, &argv, options.transferTimeout, message);
    if (!job)
      return failLaunch(message, nullptr);
  }
  llvm::Error failure = runTool(options, job.get(), argc, argv);
  if (!failure)
    return 0;
  llvm::outs().flush();
  return failLaunch(llvm::toString(std::move(failure)), job.get());
}
