//===- LowerToLLVM.cpp - From linalg on tensors to the LLVM dialect -------===//
//
// Register tiling of the contractions, then the upstream passes down to
// LLVM as one textual pipeline, so that it reads like the mlir-opt command
// line it replaces (docs/Execution.md).
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

// Up to deallocation: buffers and their lifetimes. Transfers are lowered
// after it (their buffers are plain memrefs by then).
static constexpr llvm::StringLiteral kBufferizePipeline =
    "canonicalize,"
    "cse,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{modify-public-functions hoist-static-allocs},"
    "buffer-deallocation-pipeline";

static constexpr llvm::StringLiteral kLowerToLLVMPipeline =
    "func.func(convert-linalg-to-loops),"
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

static void addTextualPipeline(OpPassManager &pm, llvm::StringRef pipeline) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    llvm::report_fatal_error(
        llvm::Twine("placer: the LLVM lowering pipeline does not parse (are "
                    "the upstream passes registered?): ") +
        errors);
}

void placer::buildLowerToLLVMPipeline(OpPassManager &pm,
                                      const LowerDistToMPIOptions &transfers) {
  pm.addNestedPass<func::FuncOp>(createTileAndVectorize());
  pm.addNestedPass<func::FuncOp>(
      createApproximateMath(ApproximateMathOptions{{"tanh", "erf"}}));
  addTextualPipeline(pm, kBufferizePipeline);
  pm.addPass(createLowerDistToMPI(transfers));
  addTextualPipeline(pm, kLowerToLLVMPipeline);
}

void placer::registerLowerToLLVMPipeline() {
  PassPipelineRegistration<>(
      "placer-lower-to-llvm",
      "Lower graph.node ops to the LLVM dialect (graph -> linalg -> loops -> "
      "LLVM), with C interfaces for entry functions",
      [](OpPassManager &pm) {
        pm.addPass(createLowerGraphToLinalg());
        buildLowerToLLVMPipeline(pm);
      });
}
