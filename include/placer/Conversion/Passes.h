//===- Passes.h - Placer's conversions --------------------------*- C++ -*-===//
#ifndef PLACER_CONVERSION_PASSES_H
#define PLACER_CONVERSION_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace placer {

#define GEN_PASS_DECL
#include "placer/Conversion/Passes.h.inc"

/// The argument attribute that marks a weight argument (graph::attrs).
inline constexpr llvm::StringLiteral kWeightAttrName = graph::attrs::kWeight;

/// The unit argument attribute that marks a function argument whose buffer
/// holds the same values at every call (a model weight, once its graph
/// attributes are gone): placer-cpu-library-calls lets the runtime keep a
/// reordered copy of such a convolution weight.
inline constexpr llvm::StringLiteral kConstantArgAttrName = "placer.constant";

/// Whether the library calls take `op` as a product, by its indexing maps
/// and element type (f32, static shapes), whatever its operands' layouts:
/// C[b..., m, n] += A[b..., m|k, k|m] * B[b..., k|n, n|k], batch dimensions
/// shared or absent from one operand, in f32, or bf16 A and B into an f32 C
/// (placer_cpu_matmul_bf16). placer-tile-and-vectorize leaves these to
/// placer-cpu-library-calls when told to.
bool isLibraryContraction(mlir::linalg::LinalgOp op);

/// Whether `op`, on tensors, is the elementwise op after a convolution that
/// placer-cpu-library-calls{epilogues} folds into the convolution's call
/// (a chain of bias, residual, linear, clamp and HardSwish steps on the
/// convolution's result): placer-tile-and-vectorize then leaves it whole.
bool isConvEpilogue(mlir::linalg::GenericOp op);

/// Everything after the graph lowering down to the LLVM dialect: register
/// tiling and vectorization of contractions, one-shot bufferization (identity layouts at function boundaries, results as out
/// parameters), deallocation, loops for the other ops, and convert-to-llvm. Entry functions
/// get a C interface (`_mlir_ciface_<name>`).
/// Transfers of stage functions (dist.send/recv) are lowered after
/// deallocation as `transfers` says. The upstream passes are named by
/// their registered arguments: an error says so when they are not
/// registered (placer::registerAllPasses does it).
/// With `parallelLoops`, the batch loops (scf.forall) become OpenMP
/// parallel loops (the code then links LLVM's libomp); without, sequential
/// loops (code for machines without libomp: a GPU split's CPU stages).
/// With `libraryCalls`, f32 convolutions and products become calls of
/// libplacer_rt's oneDNN functions (placer-cpu-library-calls) instead of
/// generated loops (code for machines whose runtime has no oneDNN: the
/// same CPU stages).
llvm::Error buildLowerToLLVMPipeline(
    mlir::OpPassManager &pm,
    const LowerDistToMPIOptions &transfers = LowerDistToMPIOptions(),
    bool parallelLoops = true, bool libraryCalls = true);

/// Where GPU code goes: the NVIDIA chip (`sm_90`), PTX features (empty:
/// +ptx80, which sm_90 needs) and whether library calls may use TF32.
struct GpuTarget {
  std::string chip = "sm_90";
  std::string features;
  bool tf32 = false;
  /// Convolutions on NHWC activations and filters (placer-channels-last
  /// first), which cuDNN's tensor-core kernels take.
  bool channelsLast = false;
  /// Fuse chains of elementwise ops into one kernel. Profiled programs
  /// fuse too, so that they time the code that runs: a node fused into its
  /// consumer then reports next to nothing, and the consumer both.
  bool fuseElementwise = true;
};

/// From linalg on tensors to the LLVM dialect for an NVIDIA GPU: kernels
/// compiled to PTX for `target.chip` inside a gpu.binary, convolutions and
/// matrix products as runtime calls, activations in device memory.
llvm::Error buildLowerToNVVMPipeline(mlir::OpPassManager &pm,
                                     const GpuTarget &target);

/// Whether `operand` of `call` is only read: an operand other than the
/// output of a library call placer-gpu-library-calls made (every operand of
/// any other call may be written).
bool isReadOnlyGpuLibraryOperand(mlir::CallOpInterface call,
                                 mlir::OpOperand &operand);

#define GEN_PASS_REGISTRATION
#include "placer/Conversion/Passes.h.inc"

/// Registers --placer-lower-to-llvm (graph lowering + buildLowerToLLVMPipeline).
void registerLowerToLLVMPipeline();
void registerLowerToNVVMPipeline();

} // namespace placer

#endif // PLACER_CONVERSION_PASSES_H
