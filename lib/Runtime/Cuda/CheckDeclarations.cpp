//===- CheckDeclarations.cpp - CudaApi.h against the real CUDA headers ----===//
//
// Compiled only where CUDA, cuBLAS and cuDNN headers exist (the target
// placer-cuda-check-declarations, which scripts/gpu-check.sh builds): every
// constant of CudaApi.h equals the header's, every function of its tables
// takes and returns arguments of the same sizes and kinds, and the one
// struct has the header's layout. Compiling is the test.
//
//===----------------------------------------------------------------------===//
#include "CudaApi.h"

#include <cublas_v2.h>
#include <cuda.h>
#include <cudnn.h>

#include <cstddef>
#include <type_traits>

namespace {

template <typename A, typename B> constexpr bool sameKind() {
  return sizeof(A) == sizeof(B) &&
         std::is_pointer_v<A> == std::is_pointer_v<B> &&
         std::is_floating_point_v<A> == std::is_floating_point_v<B>;
}

/// Same arity, and each argument and the result alike in size and kind:
/// what the calling convention sees.
template <typename R1, typename... A1, typename R2, typename... A2>
constexpr bool sameAbi(R1 (*)(A1...), R2 (*)(A2...)) {
  if constexpr (sizeof...(A1) != sizeof...(A2))
    return false;
  else
    return sameKind<R1, R2>() && (sameKind<A1, A2>() && ...);
}

} // namespace

#define PLACER_CHECK_FUNCTION(name, ret, params)                               \
  static_assert(sameAbi(&::name, static_cast<ret(*) params>(nullptr)),         \
                #name " differs from the header");
PLACER_CUDA_DRIVER_FUNCTIONS(PLACER_CHECK_FUNCTION)
PLACER_CUBLAS_FUNCTIONS(PLACER_CHECK_FUNCTION)
PLACER_CUDNN_FUNCTIONS(PLACER_CHECK_FUNCTION)

#define PLACER_CHECK_CONSTANT(name)                                            \
  static_assert(static_cast<long long>(placer::cuda::name) ==                  \
                    static_cast<long long>(::name),                            \
                #name " differs from the header");
PLACER_CHECK_CONSTANT(CUDA_SUCCESS)
PLACER_CHECK_CONSTANT(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
PLACER_CHECK_CONSTANT(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
PLACER_CHECK_CONSTANT(CU_JIT_ERROR_LOG_BUFFER)
PLACER_CHECK_CONSTANT(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
PLACER_CHECK_CONSTANT(CU_JIT_OPTIMIZATION_LEVEL)
PLACER_CHECK_CONSTANT(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
PLACER_CHECK_CONSTANT(CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
PLACER_CHECK_CONSTANT(CU_MEMORYTYPE_DEVICE)
PLACER_CHECK_CONSTANT(CU_STREAM_NON_BLOCKING)
PLACER_CHECK_CONSTANT(CU_EVENT_DISABLE_TIMING)
PLACER_CHECK_CONSTANT(CUBLAS_STATUS_SUCCESS)
PLACER_CHECK_CONSTANT(CUBLAS_OP_N)
PLACER_CHECK_CONSTANT(CUBLAS_OP_T)
PLACER_CHECK_CONSTANT(CUBLAS_DEFAULT_MATH)
PLACER_CHECK_CONSTANT(CUBLAS_TF32_TENSOR_OP_MATH)
PLACER_CHECK_CONSTANT(CUDA_R_32F)
PLACER_CHECK_CONSTANT(CUDA_R_16F)
PLACER_CHECK_CONSTANT(CUDA_R_16BF)
PLACER_CHECK_CONSTANT(CUBLAS_COMPUTE_32F)
PLACER_CHECK_CONSTANT(CUBLAS_GEMM_DEFAULT)
PLACER_CHECK_CONSTANT(CUDNN_STATUS_SUCCESS)
PLACER_CHECK_CONSTANT(CUDNN_DATA_FLOAT)
PLACER_CHECK_CONSTANT(CUDNN_DATA_HALF)
PLACER_CHECK_CONSTANT(CUDNN_DATA_BFLOAT16)
PLACER_CHECK_CONSTANT(CUDNN_TENSOR_NCHW)
PLACER_CHECK_CONSTANT(CUDNN_TENSOR_NHWC)
PLACER_CHECK_CONSTANT(CUDNN_CROSS_CORRELATION)
PLACER_CHECK_CONSTANT(CUDNN_DEFAULT_MATH)
PLACER_CHECK_CONSTANT(CUDNN_FMA_MATH)
PLACER_CHECK_CONSTANT(CUDNN_ACTIVATION_RELU)
PLACER_CHECK_CONSTANT(CUDNN_PROPAGATE_NAN)

using Perf = placer::cuda::cudnnConvolutionFwdAlgoPerf_t;
static_assert(sizeof(Perf) == sizeof(::cudnnConvolutionFwdAlgoPerf_t));
static_assert(offsetof(Perf, time) ==
              offsetof(::cudnnConvolutionFwdAlgoPerf_t, time));
static_assert(offsetof(Perf, memory) ==
              offsetof(::cudnnConvolutionFwdAlgoPerf_t, memory));
static_assert(offsetof(Perf, mathType) ==
              offsetof(::cudnnConvolutionFwdAlgoPerf_t, mathType));

int main() { return 0; }
