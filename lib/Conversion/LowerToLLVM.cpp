//===- LowerToLLVM.cpp - From linalg on tensors to the LLVM dialect -------===//
//
// Convolutions and products as oneDNN calls (or register-tiled where the
// runtime has no oneDNN), then the upstream passes down to LLVM as one
// textual pipeline, so that it reads like the mlir-opt command
// line it replaces (docs/Execution.md).
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

// Up to deallocation: buffers and their lifetimes. Transfers are lowered
// after it (their buffers are plain memrefs by then).
static constexpr llvm::StringLiteral kBufferizePipeline =
    "canonicalize,"
    "cse,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "allow-return-allocs-from-loops "
    "function-boundary-type-conversion=identity-layout-map},"
    "func.func(placer-distinct-results),"
    "buffer-results-to-out-params{modify-public-functions hoist-static-allocs},"
    "buffer-deallocation-pipeline";

// The batch loops (scf.forall) as OpenMP parallel loops. The canonicalizer
// inlines the memref.alloca_scope that convert-scf-to-openmp wraps each body
// in, whose single-block region convert-scf-to-cf would otherwise break.
static constexpr llvm::StringLiteral kParallelLoopsPipeline =
    "func.func(scf-forall-to-parallel),"
    "convert-scf-to-openmp,"
    "canonicalize";

static constexpr llvm::StringLiteral kLowerToLLVMPipeline =
    "convert-vector-to-scf{full-unroll},"
    "convert-bufferization-to-memref,"
    "expand-strided-metadata,"
    "lower-affine,"
    "convert-scf-to-cf,"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "convert-vector-to-llvm{vector-contract-lowering=outerproduct},"
    "convert-to-llvm,"
    "reconcile-unrealized-casts";

static llvm::Error addTextualPipeline(OpPassManager &pm,
                                      llvm::StringRef pipeline) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a lowering pipeline does not parse (are the upstream passes "
        "registered?): " +
            errors);
  return llvm::Error::success();
}

llvm::Error
placer::buildLowerToLLVMPipeline(OpPassManager &pm,
                                 const LowerDistToMPIOptions &transfers,
                                 bool parallelLoops, bool libraryCalls) {
  // oneDNN's convolutions run on NHWC activations without reorders.
  if (libraryCalls) {
    pm.addNestedPass<func::FuncOp>(createChannelsLast());
    pm.addPass(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createFuseElementwise());
  }
  TileAndVectorizeOptions tiling;
  tiling.libraryCalls = libraryCalls;
  tiling.parallelElementwise = parallelLoops;
  pm.addNestedPass<func::FuncOp>(createTileAndVectorize(tiling));
  // Each op's result in a buffer of its own: CSE would otherwise merge the
  // tensor.empty inits of same-shaped results, and bufferization would
  // write a convolution's epilogue into the buffer the convolution reads,
  // which keeps placer-cpu-library-calls from folding the two.
  if (libraryCalls)
    if (llvm::Error error =
            addTextualPipeline(pm, "empty-tensor-to-alloc-tensor"))
      return error;
  if (llvm::Error error = addTextualPipeline(pm, kBufferizePipeline))
    return error;
  // Each buffer freed after its last reader rather than where the
  // deallocation pipeline puts it (before the function returns): peak
  // memory is the live buffers', not every activation's (DenseNet-121 at
  // batch 8: 1004 to ... MB). Transfers copy what they send (DistHooks.c),
  // so a sent buffer may go at once.
  if (llvm::Error error =
          addTextualPipeline(pm, "func.func(optimize-allocation-liveness)"))
    return error;
  // On the bufferized code: the library pads, overwrites and reads views
  // in place of the copies and fills the code has around each op.
  if (libraryCalls) {
    if (llvm::Error error =
            addTextualPipeline(pm, "convert-bufferization-to-memref"))
      return error;
    pm.addPass(createCpuLibraryCalls());
  }
  // After the library calls, which take a convolution's SiLU or sigmoid
  // epilogue by its math.exp: exp (softmax, sigmoid, SiLU) as libm calls
  // keeps the loops around it scalar (EfficientNet-B0's SiLUs were 68% of
  // its time).
  pm.addNestedPass<func::FuncOp>(
      createApproximateMath(ApproximateMathOptions{{"tanh", "erf", "exp"}}));
  pm.addPass(createLowerDistToMPI(transfers));
  if (llvm::Error error =
          addTextualPipeline(pm, "func.func(convert-linalg-to-loops)"))
    return error;
  // Without it, convert-scf-to-cf runs the batch loops in order.
  if (parallelLoops)
    if (llvm::Error error = addTextualPipeline(pm, kParallelLoopsPipeline))
      return error;
  return addTextualPipeline(pm, kLowerToLLVMPipeline);
}

// GPU code (docs/Execution.md, "GPU code"): after bufferization, device
// buffers and library calls, linalg ops become parallel loops and the loops
// kernels; upstream's NVVM pipeline then compiles the kernels to PTX for
// the chip (embedded in the module as a gpu.binary) and lowers the host
// code, whose gpu ops become calls of the mgpu* runtime functions.
static constexpr llvm::StringLiteral kGpuLoopsPipeline =
    "func.func(convert-linalg-to-parallel-loops,placer-gpu-map-loops,"
    // Launch bounds and tile sizes folded to constants, and constants sunk
    // into the kernels: otherwise every bound is a kernel argument, and the
    // index arithmetic and one-trip loops stay in each thread's code.
    "canonicalize,gpu-launch-sink-index-computations),"
    "gpu-kernel-outlining,"
    // Math left in kernels (fma, floor, sqrt, ...) as LLVM intrinsics that
    // NVPTX has instructions for: otherwise convert-gpu-to-nvvm calls
    // libdevice, which only a machine with CUDA installed could link.
    "gpu.module(placer-gpu-native-math),"
    "func.func(gpu-async-region),"
    "canonicalize,"
    "cse";

llvm::Error placer::buildLowerToNVVMPipeline(OpPassManager &pm,
                                             const GpuTarget &target) {
  if (!llvm::StringRef(target.chip).starts_with("sm_"))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--gpu-chip must name an NVIDIA chip "
                                   "(sm_80, sm_90, ...), not '" +
                                       target.chip + "'");
  // cuDNN's tensor-core convolutions take NHWC activations and filters;
  // on NCHW ones its legacy API offers few (a 3x3 convolution in TF32 runs
  // Winograd in FMA math). The transposes move as on the CPU; the weights'
  // stay kernels of their own (measured on a GPU: not yet).
  if (target.channelsLast) {
    pm.addNestedPass<func::FuncOp>(createChannelsLast());
    pm.addPass(createCanonicalizerPass());
  }
  // Each kernel reads and writes device memory once: an activation after
  // a normalization, a residual add, are one kernel, not a pass each.
  if (target.fuseElementwise)
    pm.addNestedPass<func::FuncOp>(createFuseElementwise());
  // A reduction with few results gets threads along the reduced dimension
  // too (a LayerNormalization's rows).
  pm.addNestedPass<func::FuncOp>(createGpuSplitReductions());
  // No libdevice here: every math function is inline arithmetic, in f32
  // for half-precision operands (the approximations are f32 polynomials;
  // --gpu-precision's elementwise code keeps bf16 / f16 arithmetic).
  if (llvm::Error error =
          addTextualPipeline(pm, "func.func(math-extend-to-supported-types)"))
    return error;
  pm.addNestedPass<func::FuncOp>(createApproximateMath(ApproximateMathOptions{
      {"tanh", "erf", "exp", "expm1", "log", "log1p", "log2", "sin", "cos",
       "atan", "atan2", "asin", "acos", "cbrt"}}));
  if (llvm::Error error = addTextualPipeline(pm, kBufferizePipeline))
    return error;
  if (llvm::Error error =
          addTextualPipeline(pm, "convert-bufferization-to-memref"))
    return error;
  pm.addPass(createGpuLibraryCalls(GpuLibraryCallsOptions{target.tf32}));
  pm.addNestedPass<func::FuncOp>(createGpuBuffers());
  // A stage's transfers, on the host buffers placer-gpu-buffers stages them
  // through. No progress calls between ops: each host call ends the GPU
  // stream before it.
  LowerDistToMPIOptions transfers;
  transfers.progress = false;
  pm.addPass(createLowerDistToMPI(transfers));
  if (llvm::Error error = addTextualPipeline(pm, kGpuLoopsPipeline))
    return error;
  // sm_90 needs PTX 8.0 (LLVM's default PTX version aborts on it).
  std::string features = target.features.empty() ? "+ptx80" : target.features;
  return addTextualPipeline(
      pm, ("gpu-lower-to-nvvm-pipeline{cubin-chip=" + target.chip +
           " cubin-features=" + features + " cubin-format=isa}"));
}

void placer::registerLowerToLLVMPipeline() {
  registerPassPipeline(
      "placer-lower-to-llvm",
      "Lower graph.node ops to the LLVM dialect (graph -> linalg -> loops -> "
      "LLVM), with C interfaces for entry functions",
      [](OpPassManager &pm, StringRef,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        pm.addPass(createLowerGraphToLinalg());
        if (llvm::Error error = buildLowerToLLVMPipeline(pm))
          return errorHandler("--placer-lower-to-llvm: " +
                              llvm::toString(std::move(error)));
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)>) {});
}

namespace {
/// --placer-lower-to-nvvm's options.
struct NVVMPipelineOptions : PassPipelineOptions<NVVMPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("The NVIDIA chip (sm_90, ...)"),
                           llvm::cl::init("sm_90")};
  Option<bool> tf32{*this, "tf32",
                    llvm::cl::desc("Library calls may use TF32 tensor cores"),
                    llvm::cl::init(false)};
  Option<bool> channelsLast{
      *this, "channels-last",
      llvm::cl::desc("Convolutions on NHWC activations and filters "
                     "(placer-channels-last)"),
      llvm::cl::init(false)};
};
} // namespace

void placer::registerLowerToNVVMPipeline() {
  registerPassPipeline(
      "placer-lower-to-nvvm",
      "Lower graph.node ops to the LLVM dialect for an NVIDIA GPU (graph -> "
      "linalg -> device buffers, library calls and kernels -> PTX in a "
      "gpu.binary, host code calling the GPU runtime); every weight an "
      "argument in device memory",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        std::unique_ptr<NVVMPipelineOptions> options =
            NVVMPipelineOptions::createFromString(text);
        if (!options)
          return errorHandler("--placer-lower-to-nvvm: bad options '" + text +
                              "'");
        LowerGraphToLinalgOptions graph;
        graph.inlineWeights = false;
        pm.addPass(createLowerGraphToLinalg(graph));
        GpuTarget target;
        target.chip = options->chip;
        target.tf32 = options->tf32;
        target.channelsLast = options->channelsLast;
        if (llvm::Error error = buildLowerToNVVMPipeline(pm, target))
          return errorHandler("--placer-lower-to-nvvm: " +
                              llvm::toString(std::move(error)));
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> print) {
        print(NVVMPipelineOptions());
      });
}
