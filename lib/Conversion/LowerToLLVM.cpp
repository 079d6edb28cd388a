//===- LowerToLLVM.cpp - From linalg on tensors to the LLVM dialect -------===//
//
// Register tiling of the contractions, then the upstream passes down to
// LLVM as one textual pipeline, so that it reads like the mlir-opt command
// line it replaces (docs/Execution.md).
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/Error.h"
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

static llvm::Error addTextualPipeline(OpPassManager &pm,
                                      llvm::StringRef pipeline) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the LLVM lowering pipeline does not parse (are the upstream passes "
        "registered?): " +
            errors);
  return llvm::Error::success();
}

llvm::Error
placer::buildLowerToLLVMPipeline(OpPassManager &pm,
                                 const LowerDistToMPIOptions &transfers) {
  pm.addNestedPass<func::FuncOp>(createTileAndVectorize());
  pm.addNestedPass<func::FuncOp>(
      createApproximateMath(ApproximateMathOptions{{"tanh", "erf"}}));
  if (llvm::Error error = addTextualPipeline(pm, kBufferizePipeline))
    return error;
  pm.addPass(createLowerDistToMPI(transfers));
  return addTextualPipeline(pm, kLowerToLLVMPipeline);
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
