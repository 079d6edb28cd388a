//===- Passes.td - Placer's conversions --------------------*- tablegen -*-===//
#ifndef PLACER_CONVERSION_PASSES_TD
#define PLACER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerGraphToLinalg : Pass<"placer-lower-graph-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower graph.node ops to linalg, tensor, arith, math and scf";
  let description = [{
    Rewrites every `graph.node` of the module's functions into upstream MLIR
    on tensors: linalg named ops and `linalg.generic`, `tensor`, `arith`,
    `math`, and `scf.for` for the sequential scatters. Each ONNX op type has
    one lowering per opset range, registered by its family's file under
    `lib/Conversion/GraphToLinalg/` (docs/LoweredOps.md is generated from
    that registry). Shapes must be static. Unsigned integer tensors become
    signless; arguments and results keep their declared element type in
    `graph.element_type`. Before rewriting anything the pass checks
    every node and reports, in one error, every op type without a lowering
    and every value with a dynamic shape, naming the nodes.

    `graph.constant` ops up to `inline-limit` bytes become `arith.constant`;
    larger ones (weights) become trailing arguments of their function, marked
    `graph.weight` with the constant's name and value, so a runner supplies
    them from the model's files instead of embedding them in the binary.
    With `inline-weights=false` every floating-point initializer (a model
    parameter, however small) becomes a weight argument; integer ones
    (shapes, indices) and the outputs of Constant nodes stay inlinable.

    With `profile`, each node's code is bracketed by calls to
    `placer_profile_enter(i64)` and `placer_profile_exit(i64)` (from
    `libplacer_rt`), numbered in program order over the module, and the
    module's `placer.profile_nodes` attribute lists the node names by number
    (`placer-run --profile` reads them).
  }];
  let options = [
    Option<"inlineLimit", "inline-limit", "int64_t", /*default=*/"1024",
           "Constants larger than this many bytes become weight arguments">,
    Option<"inlineWeights", "inline-weights", "bool", /*default=*/"true",
           "Inline floating-point initializers up to inline-limit too; false: "
           "every one is a weight argument, so the code holds no parameter "
           "(artifacts, whose weights file can be replaced)">,
    Option<"profile", "profile", "bool", /*default=*/"false",
           "Time every node: bracket its code with profile hook calls">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::func::FuncDialect", "::mlir::scf::SCFDialect",
  ];
}

def TileAndVectorize : Pass<"placer-tile-and-vectorize", "::mlir::func::FuncOp"> {
  let summary = "Register-tile and vectorize contractions (matmuls, convolutions)";
  let description = [{
    Rewrites the hot ops of a lowered model on tensors, before
    bufferization: NCHW convolutions with one group become im2col plus a
    contraction, and every static contraction (matmul, batched or broadcast
    matmul, the im2col product) is tiled into blocks of `m-tile` rows by
    `n-tile` columns of its output, with an inner loop over `k-tile`
    reduction steps, and each block is vectorized into `vector.contract`.
    The accumulator is hoisted out of the reduction loop so it stays in
    registers. Tiles always divide the loops: a size without such a divisor
    (at least 8 columns) leaves the op to the loop lowering. Other ops
    (elementwise, reductions, pooling) keep plain loops, which LLVM's loop
    vectorizer handles.
  }];
  let options = [
    Option<"mTile", "m-tile", "int64_t", /*default=*/"8",
           "Rows of the output per register block (the largest divisor up to this)">,
    Option<"nTile", "n-tile", "int64_t", /*default=*/"32",
           "Columns (vector lanes) of the output per register block">,
    Option<"kTile", "k-tile", "int64_t", /*default=*/"4",
           "Reduction steps per vectorized block">,
    Option<"im2col", "im2col", "bool", /*default=*/"true",
           "Rewrite NCHW convolutions as im2col plus a contraction">,
    Option<"libraryCalls", "library-calls", "bool", /*default=*/"false",
           "Leave static f32 convolutions and the products the library "
           "calls take (placer::isLibraryContraction) to "
           "placer-cpu-library-calls, and give each zero-filled output a "
           "buffer of its own">,
    Option<"parallelElementwise", "parallel-elementwise", "bool",
           /*default=*/"false",
           "Make elementwise ops, transposes of activations and pooling "
           "with at least 16K output elements, and row reductions with at "
           "least 16K elements of work, scf.forall loops over their two "
           "outermost parallel dimensions (threads)">,
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::bufferization::BufferizationDialect",
  ];
}

def ApproximateMath : Pass<"placer-approximate-math", "::mlir::func::FuncOp"> {
  let summary = "Replace math functions by inline polynomial approximations";
  let description = [{
    Rewrites the math ops named in `functions` (tanh, erf, erfc, exp, expm1,
    log, log1p, log2, sin, cos, atan, atan2, asin, acos, cbrt) into
    upstream's polynomial approximations: arithmetic that LLVM vectorizes,
    instead of scalar libm calls on the CPU, and that needs no libdevice on
    a GPU. They are accurate to a few ulp in f32.
  }];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "The math functions to approximate (tanh, erf, exp, ...)",
               "llvm::cl::ZeroOrMore">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def DistinctResults : Pass<"placer-distinct-results", "::mlir::func::FuncOp"> {
  let summary = "Give every returned buffer an allocation of its own";
  let description = [{
    After bufferization, a function may return one buffer in two results: a
    graph output listed twice, or equal empty tensors that CSE merged.
    `buffer-results-to-out-params` turns each result into an output
    parameter and cannot give one allocation to two of them. This pass
    copies each repeated result into a fresh `memref.alloc`, so every
    result is distinct.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LowerDistToMPI : Pass<"placer-lower-dist-to-mpi", "::mlir::ModuleOp"> {
  let summary = "Lower bufferized dist.send/dist.recv to MPI transfers";
  let description = [{
    Runs after bufferization and deallocation, on stage functions selected
    by `--placer-select-stage`: each transfer's peer device becomes the rank
    that runs it (through the function's `dist.ranks`), its channel the MPI
    tag, and its buffer one contiguous byte range (a buffer with a strided
    layout is first copied into a dense one).

    A peer whose stage is replicated (`dist.replicas`) is a group of
    consecutive ranks, and microbatch m goes to or comes from rank
    first + m mod replicas.

    `transfers=pipelined` (the default) calls `placer_dist_send` /
    `placer_dist_recv` of `libplacer_rt` with (pointer, bytes, first rank,
    replicas, tag): non-blocking, double-buffered transfers with timeouts,
    timed per rank (docs/Execution.md). With `progress`, a call to `placer_dist_progress()`
    follows each compute op (a linalg op or an op with regions) of a
    function with pipelined transfers, so that MPI moves messages in flight
    while the function computes. `transfers=blocking` emits upstream's `mpi.send` /
    `mpi.recv` on `mpi.comm_world` instead, lowered by `convert-to-llvm` for
    the ABI named by `mpi-implementation` (a `dlti.map` on the module;
    a replicated peer's rank comes from `placer_dist_route(first,
    replicas)`);
    upstream sends only a memref's first dimension, so buffers are collapsed
    to 1-D, and its datatype table has no f16/bf16/i1 (those are refused).
  }];
  let options = [
    Option<"transfers", "transfers", "std::string", /*default=*/"\"pipelined\"",
           "pipelined (libplacer_rt, non-blocking) or blocking (upstream mpi "
           "dialect)">,
    Option<"mpiImplementation", "mpi-implementation", "std::string",
           /*default=*/"\"OpenMPI\"",
           "MPI ABI of transfers=blocking: OpenMPI or MPICH">,
    Option<"progress", "progress", "bool", /*default=*/"true",
           "transfers=pipelined: call placer_dist_progress after each "
           "compute op of a function with transfers">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::mpi::MPIDialect", "::mlir::DLTIDialect",
  ];
}

#endif // PLACER_CONVERSION_PASSES_TD

def GpuLibraryCalls : Pass<"placer-gpu-library-calls", "::mlir::ModuleOp"> {
  let summary = "Call the GPU runtime's convolution and matrix product";
  let description = [{
    On bufferized code for an NVIDIA GPU: every f32 `linalg.conv_2d_nchw_fchw`
    (and grouped `linalg.conv_2d_ngchw_gfchw` over a view of an NCHW buffer)
    becomes a call of `placer_gpu_conv2d_f32`, and every f32 contraction
    `C[b..., m, n] += A[b..., m|k, k|m] * B[b..., k|n, n|k]` (a
    `linalg.matmul` or a contraction `linalg.generic` whose batch dimensions
    are shared, not broadcast) a call of `placer_gpu_matmul_f32`. Both
    accumulate into their output (beta = 1), which the code has filled, and
    take descriptors of device memory (docs/Execution.md, "GPU code"). The
    CUDA runtime implements them with cuDNN and cuBLAS; contractions of other
    shapes stay generated kernels.

    With `epilogues` (the default), the elementwise op that alone reads an
    overwritten convolution's output goes into the call when its body is a
    bias, optionally a residual add, and ReLU (ResNet's epilogues): the call
    becomes `placer_gpu_conv2d_bias_relu_f32(x, w, y, bias, residual, ...,
    with_residual, tf32)`, which cuDNN runs as one fused convolution
    (`cudnnConvolutionBiasActivationForward`) writing the op's output.
  }];
  let options = [
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "Let the library use TF32 tensor cores (otherwise strict fp32)">,
    Option<"epilogues", "epilogues", "bool", /*default=*/"true",
           "Fold a bias + (residual +) ReLU epilogue into the convolution's "
           "call">,
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def ChannelsLast : Pass<"placer-channels-last", "::mlir::func::FuncOp"> {
  let summary = "Convolutions on channels-last (NHWC) tensors";
  let description = [{
    On tensors: every static f32 `linalg.conv_2d_nchw_fchw` becomes a
    `linalg.conv_2d_nhwc_fhwc` between `linalg.transpose`s (input and init
    to NHWC, weights to FHWC, result back to NCHW), and every grouped
    `linalg.conv_2d_ngchw_gfchw` a `linalg.conv_2d_nhwgc_gfhwc` likewise.
    Transposes then move towards their consumers through elementwise
    `linalg.generic`s (whose full-rank inputs are transposed alike; broadcast
    inputs read through the permutation), constant `tensor.pad`s and
    reshapes, and fold where they meet their inverse, so that activations
    stay NHWC from convolution to convolution. A transpose stays before an
    op that needs NCHW (pooling, reductions, reshapes that mix the channel
    dimension). oneDNN runs NHWC convolutions without reorders
    (placer-cpu-library-calls).
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::bufferization::BufferizationDialect",
  ];
}

def CpuLibraryCalls : Pass<"placer-cpu-library-calls", "::mlir::ModuleOp"> {
  let summary = "Call libplacer_rt's oneDNN convolution and matrix product";
  let description = [{
    On bufferized CPU code: every f32 `linalg.conv_2d_nchw_fchw`,
    `linalg.conv_2d_nhwc_fhwc` and grouped `conv_2d_ngchw_gfchw` /
    `conv_2d_nhwgc_gfhwc` (as placer-channels-last makes them: NHWC
    buffers passed as N C H W views, weights read where their transposed
    copy came from) becomes a call of `placer_cpu_conv2d_f32`, an NCHW 1x1
    one with unit strides and no padding a product per image, and every f32
    contraction `C[b..., m, n] += A[b..., m|k, k|m] * B[b..., k|n, n|k]`
    (batch dimensions shared or absent from one operand) a call of
    `placer_cpu_matmul_f32`; an operand of a product that is a strided view
    is copied into a contiguous buffer around the call. Matching is
    placer-gpu-library-calls': an input that only zero-pads another buffer
    is replaced by it (the call pads), a zero-filled output is overwritten
    rather than accumulated into. A convolution whose weights view an
    argument marked `placer.constant` tells the runtime so (it keeps their
    reordered copy).

    With `epilogues`, the elementwise `linalg.generic` that alone reads an
    overwritten convolution output (its buffer used by nothing else) goes
    into the call when its body is a chain of steps oneDNN applies as the
    convolution writes (post-ops): a per-channel bias first, a residual
    tensor, `x * a + b`, clamps (ReLU, Clip), HardSwish. The call becomes
    `placer_cpu_conv2d_epilogue_f32` writing the generic's output, with the
    steps as a constant (kind, alpha, beta) table, and the intermediate
    buffer goes. libplacer_rt implements the calls with oneDNN
    (include/placer/Runtime/CpuLibraryCalls.h); other ops are untouched.
  }];
  let options = [
    Option<"epilogues", "epilogues", "bool", /*default=*/"true",
           "Fold the elementwise op after a convolution into its call">,
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def GpuBuffers : Pass<"placer-gpu-buffers", "::mlir::func::FuncOp"> {
  let summary = "Keep activations in device memory; copy only inputs and outputs";
  let description = [{
    On bufferized code for a GPU, in each public function: buffers are
    device memory (`memref.alloc`/`dealloc` become `gpu.alloc`/`dealloc`),
    every argument that is not a weight is host memory and gets a device
    copy at entry (`gpu.memcpy` host to device), written ones are copied
    back before returning, constant globals are copied to the device once
    per call, contiguous `memref.copy` becomes `gpu.memcpy` (others a
    `linalg.copy` kernel), and a stage's `dist.send`/`dist.recv` go through
    host buffers (device to host before a send, host to device after a
    receive): the transfer hooks and MPI read host memory. Weight arguments (`graph.weight`) are device
    memory already: the runtime uploads them once when it loads the code.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect", "::placer::dist::DistDialect",
  ];
}

def GpuMapLoops : Pass<"placer-gpu-map-loops", "::mlir::func::FuncOp"> {
  let summary = "Map parallel loops to GPU blocks and threads";
  let description = [{
    Tiles each outermost `scf.parallel` so that its innermost dimension
    runs `block-size` threads per block (a guard skips the threads past its
    end) and every other dimension one block per iteration, and maps the
    tiles to GPU blocks and threads (`convert-parallel-loops-to-gpu` then
    makes the launches). Device work outside parallel loops (a loop nest
    with no parallel dimension, i.e. a full reduction, or scalar code on
    rank-0 buffers) runs as one thread. Afterwards, any load or store left
    on the host (one whose value the host itself uses) is an error naming
    its node: the host must not touch device memory. First, a loop that
    loads and stores one element of a buffer every iteration (a reduction's
    accumulator, at loop-invariant indices, the buffer touched by nothing
    else in the loop) carries it as an `iter_args` value instead: loaded
    before the loop and stored after it, a register rather than a round
    trip to global memory per step.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block along the innermost parallel dimension">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect",
  ];
}

def FuseElementwise : Pass<"placer-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Chains of elementwise linalg ops on tensors as one op";
  let description = [{
    Fuses each elementwise `linalg` op on tensors into its elementwise
    consumer when the consumer is the producer's only user (a batch
    normalization into the activation after it, an addition into the
    activation after a residual connection): upstream's elementwise fusion
    patterns, limited to ops whose loops are all parallel on both sides.
    Upstream's `linalg-fuse-elementwise-ops` also propagates reshapes into
    generic ops, turning a `linalg.matmul` behind a flatten into a generic
    contraction over the unflattened dims that no library call takes.
    On a GPU each op is a kernel that reads and writes device memory once,
    so a fused chain saves a pass over memory per op.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def GpuSplitReductions : Pass<"placer-gpu-split-reductions", "::mlir::func::FuncOp"> {
  let summary = "Reductions with few results split in two, for a GPU's threads";
  let description = [{
    A GPU kernel runs one thread per element of a reduction's result, each
    thread looping over the reduced dimension: a LayerNormalization over
    768 features for 128 tokens is 128 threads of 768 steps each, a few
    percent of the chip. Each `linalg` reduction on tensors over one
    dimension of static size R whose result has P < `threads` / 2
    elements becomes two ops (upstream's `linalg::splitReduction`): S
    partial results per element, thread s reducing elements s, s + S,
    s + 2S, ... (adjacent threads read adjacent addresses), then a
    reduction of the S partials. S is a power of two that divides R,
    leaves each thread at least 4 elements and keeps P * S within
    `threads`; of those, the one with the fewest steps in the slower of
    the two ops, max(R / S, S). The combiner must have a neutral element
    (add, mul, max, min); other reductions, dynamic sizes, and products
    and convolutions (library calls) are left as they are. First, every
    other op whose reduction loops come before a parallel one (a softmax
    over the channels of NCHW activations) has its loops interchanged,
    reductions innermost: upstream's GPU mapping leaves a parallel loop
    inside a sequential one unmapped. Last, every filled empty tensor (a
    reduction's zeros) gets one fill per user into its own
    `bufferization.alloc_tensor`, which CSE leaves apart: once CSE has
    merged equal fills (every LayerNormalization's sums start from the same
    zeros), bufferization would fill one buffer and copy it for every other
    user.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"65536",
           "Threads a split reduction's first op aims at (P * S at most)">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
  ];
}

def GpuNativeMath : Pass<"placer-gpu-native-math", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Math in kernels as the LLVM intrinsics NVPTX implements";
  let description = [{
    Rewrites `math.sqrt`, `floor`, `ceil`, `absf`, `fma`, `roundeven`,
    `trunc` and `copysign` on f32 and f64 inside GPU modules into calls of
    the LLVM intrinsics (`llvm.sqrt.f32`, ...) that LLVM's NVPTX backend
    turns into single PTX instructions, `math.rsqrt` into 1 / sqrt, and
    powers with small constant exponents into products (upstream's
    algebraic simplification). Upstream's NVVM lowering otherwise
    calls CUDA's libdevice (`__nv_sqrtf`, ...), which only a machine with
    CUDA installed can link: the PTX would depend on where it was compiled.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
  ];
}
