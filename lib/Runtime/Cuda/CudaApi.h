//===- CudaApi.h - CUDA, cuBLAS, cuDNN symbols the runtime uses -*- C++ -*-===//
//
// The CUDA runtime library builds where no CUDA is installed (the build
// machine, CI) and loads the driver, cuBLAS and cuDNN when it first needs
// them, as IREE's CUDA driver does with its dynamic symbol table: the few
// types, constants and functions it uses are declared here, one table per
// library. CheckDeclarations.cpp, compiled where the real headers exist
// (scripts/gpu-check.sh), checks every declaration against them.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_RUNTIME_CUDA_CUDAAPI_H
#define PLACER_LIB_RUNTIME_CUDA_CUDAAPI_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace placer::cuda {

//===----------------------------------------------------------------------===//
// Types and constants (cuda.h, cublas_api.h, cudnn_*.h)
//===----------------------------------------------------------------------===//

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUmemoryPool = struct CUmemPoolHandle_st *;
using CUdevice_attribute = int;
using CUjit_option = int;
using CUmemPool_attribute = int;
using CUpointer_attribute = int;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUjit_option CU_JIT_OPTIMIZATION_LEVEL = 7;
constexpr CUmemPool_attribute CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;
constexpr CUpointer_attribute CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
constexpr unsigned CU_MEMORYTYPE_DEVICE = 2;
constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;

using cublasHandle_t = struct cublasContext *;
using cublasStatus_t = int;
using cublasOperation_t = int;
using cublasMath_t = int;
constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
constexpr cublasOperation_t CUBLAS_OP_N = 0;
constexpr cublasOperation_t CUBLAS_OP_T = 1;
constexpr cublasMath_t CUBLAS_DEFAULT_MATH = 0;
constexpr cublasMath_t CUBLAS_TF32_TENSOR_OP_MATH = 3;
using cudaDataType = int;
using cublasComputeType_t = int;
using cublasGemmAlgo_t = int;
constexpr cudaDataType CUDA_R_32F = 0;
constexpr cudaDataType CUDA_R_16F = 2;
constexpr cudaDataType CUDA_R_16BF = 14;
constexpr cublasComputeType_t CUBLAS_COMPUTE_32F = 68;
constexpr cublasGemmAlgo_t CUBLAS_GEMM_DEFAULT = -1;

using cudnnHandle_t = struct cudnnContext *;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct *;
using cudnnFilterDescriptor_t = struct cudnnFilterStruct *;
using cudnnConvolutionDescriptor_t = struct cudnnConvolutionStruct *;
using cudnnActivationDescriptor_t = struct cudnnActivationStruct *;
using cudnnStatus_t = int;
using cudnnDataType_t = int;
using cudnnTensorFormat_t = int;
using cudnnConvolutionMode_t = int;
using cudnnConvolutionFwdAlgo_t = int;
using cudnnMathType_t = int;
using cudnnDeterminism_t = int;
using cudnnActivationMode_t = int;
using cudnnNanPropagation_t = int;
constexpr cudnnStatus_t CUDNN_STATUS_SUCCESS = 0;
constexpr cudnnDataType_t CUDNN_DATA_FLOAT = 0;
constexpr cudnnDataType_t CUDNN_DATA_HALF = 2;
constexpr cudnnDataType_t CUDNN_DATA_BFLOAT16 = 9;
constexpr cudnnTensorFormat_t CUDNN_TENSOR_NCHW = 0;
constexpr cudnnTensorFormat_t CUDNN_TENSOR_NHWC = 1;
constexpr cudnnConvolutionMode_t CUDNN_CROSS_CORRELATION = 1;
constexpr cudnnMathType_t CUDNN_DEFAULT_MATH = 0;
constexpr cudnnMathType_t CUDNN_FMA_MATH = 3;
constexpr cudnnActivationMode_t CUDNN_ACTIVATION_RELU = 1;
constexpr cudnnNanPropagation_t CUDNN_PROPAGATE_NAN = 1;

struct cudnnConvolutionFwdAlgoPerf_t {
  cudnnConvolutionFwdAlgo_t algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  cudnnDeterminism_t determinism;
  cudnnMathType_t mathType;
  int reserved[3];
};

//===----------------------------------------------------------------------===//
// Functions: X(name, return type, parameter list)
//===----------------------------------------------------------------------===//

#define PLACER_CUDA_DRIVER_FUNCTIONS(X)                                        \
  X(cuInit, CUresult, (unsigned int))                                          \
  X(cuGetErrorString, CUresult, (CUresult, const char **))                     \
  X(cuDeviceGetCount, CUresult, (int *))                                       \
  X(cuDeviceGet, CUresult, (CUdevice *, int))                                  \
  X(cuDeviceGetName, CUresult, (char *, int, CUdevice))                        \
  X(cuDeviceGetAttribute, CUresult, (int *, CUdevice_attribute, CUdevice))     \
  X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext *, CUdevice))               \
  X(cuCtxSetCurrent, CUresult, (CUcontext))                                    \
  X(cuCtxSynchronize, CUresult, ())                                            \
  X(cuModuleLoadDataEx, CUresult,                                              \
    (CUmodule *, const void *, unsigned int, CUjit_option *, void **))         \
  X(cuModuleUnload, CUresult, (CUmodule))                                      \
  X(cuModuleGetFunction, CUresult, (CUfunction *, CUmodule, const char *))     \
  X(cuLaunchKernel, CUresult,                                                  \
    (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,       \
     unsigned int, unsigned int, unsigned int, CUstream, void **, void **))    \
  X(cuStreamCreate, CUresult, (CUstream *, unsigned int))                      \
  X(cuStreamSynchronize, CUresult, (CUstream))                                 \
  X(cuStreamDestroy_v2, CUresult, (CUstream))                                  \
  X(cuStreamWaitEvent, CUresult, (CUstream, CUevent, unsigned int))            \
  X(cuEventCreate, CUresult, (CUevent *, unsigned int))                        \
  X(cuEventRecord, CUresult, (CUevent, CUstream))                              \
  X(cuEventSynchronize, CUresult, (CUevent))                                   \
  X(cuEventDestroy_v2, CUresult, (CUevent))                                    \
  X(cuEventElapsedTime, CUresult, (float *, CUevent, CUevent))                 \
  X(cuMemAlloc_v2, CUresult, (CUdeviceptr *, size_t))                          \
  X(cuMemFree_v2, CUresult, (CUdeviceptr))                                     \
  X(cuMemAllocAsync, CUresult, (CUdeviceptr *, size_t, CUstream))              \
  X(cuMemFreeAsync, CUresult, (CUdeviceptr, CUstream))                         \
  X(cuDeviceGetDefaultMemPool, CUresult, (CUmemoryPool *, CUdevice))           \
  X(cuMemPoolSetAttribute, CUresult,                                           \
    (CUmemoryPool, CUmemPool_attribute, void *))                               \
  X(cuMemcpy, CUresult, (CUdeviceptr, CUdeviceptr, size_t))                    \
  X(cuPointerGetAttribute, CUresult,                                           \
    (void *, CUpointer_attribute, CUdeviceptr))                                \
  X(cuMemHostRegister_v2, CUresult, (void *, size_t, unsigned int))            \
  X(cuMemHostUnregister, CUresult, (void *))                                   \
  X(cuMemcpyAsync, CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream))     \
  X(cuMemsetD32Async, CUresult, (CUdeviceptr, unsigned int, size_t, CUstream)) \
  X(cuMemsetD16Async, CUresult, (CUdeviceptr, unsigned short, size_t, CUstream))

#define PLACER_CUBLAS_FUNCTIONS(X)                                             \
  X(cublasCreate_v2, cublasStatus_t, (cublasHandle_t *))                       \
  X(cublasSetStream_v2, cublasStatus_t, (cublasHandle_t, CUstream))            \
  X(cublasSetMathMode, cublasStatus_t, (cublasHandle_t, cublasMath_t))         \
  X(cublasGetStatusString, const char *, (cublasStatus_t))                     \
  X(cublasSgemmStridedBatched, cublasStatus_t,                                 \
    (cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,      \
     const float *, const float *, int, long long int, const float *, int,     \
     long long int, const float *, float *, int, long long int, int))          \
  X(cublasGemmStridedBatchedEx, cublasStatus_t,                                \
    (cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,      \
     const void *, const void *, cudaDataType, int, long long int,             \
     const void *, cudaDataType, int, long long int, const void *, void *,     \
     cudaDataType, int, long long int, int, cublasComputeType_t,               \
     cublasGemmAlgo_t))

#define PLACER_CUDNN_FUNCTIONS(X)                                              \
  X(cudnnCreate, cudnnStatus_t, (cudnnHandle_t *))                             \
  X(cudnnSetStream, cudnnStatus_t, (cudnnHandle_t, CUstream))                  \
  X(cudnnGetErrorString, const char *, (cudnnStatus_t))                        \
  X(cudnnCreateTensorDescriptor, cudnnStatus_t, (cudnnTensorDescriptor_t *))   \
  X(cudnnSetTensor4dDescriptorEx, cudnnStatus_t,                               \
    (cudnnTensorDescriptor_t, cudnnDataType_t, int, int, int, int, int, int,   \
     int, int))                                                                \
  X(cudnnCreateFilterDescriptor, cudnnStatus_t, (cudnnFilterDescriptor_t *))   \
  X(cudnnSetFilter4dDescriptor, cudnnStatus_t,                                 \
    (cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int, int,  \
     int, int))                                                                \
  X(cudnnCreateConvolutionDescriptor, cudnnStatus_t,                           \
    (cudnnConvolutionDescriptor_t *))                                          \
  X(cudnnSetConvolution2dDescriptor, cudnnStatus_t,                            \
    (cudnnConvolutionDescriptor_t, int, int, int, int, int, int,               \
     cudnnConvolutionMode_t, cudnnDataType_t))                                 \
  X(cudnnSetConvolutionGroupCount, cudnnStatus_t,                              \
    (cudnnConvolutionDescriptor_t, int))                                       \
  X(cudnnSetConvolutionMathType, cudnnStatus_t,                                \
    (cudnnConvolutionDescriptor_t, cudnnMathType_t))                           \
  X(cudnnFindConvolutionForwardAlgorithm, cudnnStatus_t,                       \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, int *,        \
     cudnnConvolutionFwdAlgoPerf_t *))                                         \
  X(cudnnGetConvolutionForwardWorkspaceSize, cudnnStatus_t,                    \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t,                    \
     cudnnConvolutionFwdAlgo_t, size_t *))                                     \
  X(cudnnConvolutionForward, cudnnStatus_t,                                    \
    (cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,       \
     cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t,      \
     cudnnConvolutionFwdAlgo_t, void *, size_t, const void *,                  \
     cudnnTensorDescriptor_t, void *))                                         \
  X(cudnnCreateActivationDescriptor, cudnnStatus_t,                            \
    (cudnnActivationDescriptor_t *))                                           \
  X(cudnnSetActivationDescriptor, cudnnStatus_t,                               \
    (cudnnActivationDescriptor_t, cudnnActivationMode_t,                       \
     cudnnNanPropagation_t, double))                                           \
  X(cudnnDestroyTensorDescriptor, cudnnStatus_t, (cudnnTensorDescriptor_t))    \
  X(cudnnConvolutionBiasActivationForward, cudnnStatus_t,                      \
    (cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,       \
     cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t,      \
     cudnnConvolutionFwdAlgo_t, void *, size_t, const void *,                  \
     cudnnTensorDescriptor_t, const void *, cudnnTensorDescriptor_t,           \
     const void *, cudnnActivationDescriptor_t, cudnnTensorDescriptor_t,       \
     void *))

#define PLACER_CUDA_DECLARE_POINTER(name, ret, params)                         \
  ret(*name) params = nullptr;

/// The driver API (libcuda.so.1), loaded with its every function or not at
/// all.
struct DriverApi {
  PLACER_CUDA_DRIVER_FUNCTIONS(PLACER_CUDA_DECLARE_POINTER)
};
struct CublasApi {
  PLACER_CUBLAS_FUNCTIONS(PLACER_CUDA_DECLARE_POINTER)
};
struct CudnnApi {
  PLACER_CUDNN_FUNCTIONS(PLACER_CUDA_DECLARE_POINTER)
};

/// Each loads its library (the first of its usual names that opens) and
/// every function of its table; on failure nothing, and `error` names the
/// library or the missing function.
const DriverApi *loadDriver(std::string &error);
const CublasApi *loadCublas(std::string &error);
const CudnnApi *loadCudnn(std::string &error);

} // namespace placer::cuda

#endif // PLACER_LIB_RUNTIME_CUDA_CUDAAPI_H
