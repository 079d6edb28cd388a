//===- LibraryCalls.cpp - Convolutions over cuDNN, products over cuBLAS ---===//
//
// The placer_gpu_* functions the placer-gpu-library-calls pass makes
// compiled code call (signatures in docs/Execution.md, "GPU code"). Each
// accumulates into its output (beta = 1: the code has filled it) unless
// told that the output is to be overwritten (beta = 0); each is
// ordered on the device's one stream with the kernels around it.
// Convolution algorithms are chosen by timing them once per
// shape (cudnnFind..., as PyTorch's benchmark mode does), within the math
// the program was compiled for: strict fp32 (FMA) unless it allows TF32.
// A convolution whose bias, residual add and ReLU follow it
// (placer-gpu-library-calls{epilogues}) is one cuDNN call,
// cudnnConvolutionBiasActivationForward, with the algorithm chosen for the
// plain convolution: the output is written once, not written and read
// back by an elementwise kernel.
//
//===----------------------------------------------------------------------===//
#include "Device.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <type_traits>
#include <vector>

using namespace placer::cuda;

namespace {

/// A memref descriptor as compiled code passes it (C interface); half
/// precision elements as their 16 bits.
template <int Rank, typename T = float> struct StridedMemRef {
  T *allocated, *aligned;
  int64_t offset;
  int64_t sizes[Rank], strides[Rank];
  T *data() const { return aligned + offset; }
};
using HalfMemRef3 = StridedMemRef<3, uint16_t>;
using HalfMemRef4 = StridedMemRef<4, uint16_t>;

/// A descriptor's sizes and strides, whatever its element type: what
/// cuDNN's descriptors are made of.
template <int Rank> struct Shape {
  int64_t sizes[Rank], strides[Rank];
  template <typename T> Shape(const StridedMemRef<Rank, T> &m) {
    std::copy(std::begin(m.sizes), std::end(m.sizes), sizes);
    std::copy(std::begin(m.strides), std::end(m.strides), strides);
  }
};

bool fitsInt(int64_t value) { return value >= 0 && value <= INT_MAX; }

template <int Rank> std::string describe(const Shape<Rank> &m) {
  std::string text = "[";
  for (int i = 0; i < Rank; ++i)
    text += (i ? ", " : "") + std::to_string(m.sizes[i]);
  text += "] strides [";
  for (int i = 0; i < Rank; ++i)
    text += (i ? ", " : "") + std::to_string(m.strides[i]);
  return text + "]";
}

template <int Rank, typename T>
std::string describe(const StridedMemRef<Rank, T> &m) {
  return describe(Shape<Rank>(m));
}

/// cuBLAS and cuDNN, loaded and given a handle on the device's stream the
/// first time a call needs them. Never destroyed (see State).
struct Libraries {
  std::mutex mutex;
  cublasHandle_t cublas = nullptr;
  const CublasApi *cublasApi = nullptr;
  cudnnHandle_t cudnn = nullptr;
  const CudnnApi *cudnnApi = nullptr;
  /// One workspace for every convolution, grown to the largest asked.
  CUdeviceptr workspace = 0;
  size_t workspaceBytes = 0;
  struct Conv {
    cudnnTensorDescriptor_t x = nullptr, y = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    cudnnConvolutionFwdAlgo_t algo = 0;
    size_t workspaceBytes = 0;
    /// The bias of a fused call ([1, F, 1, 1]), made at its first.
    cudnnTensorDescriptor_t bias = nullptr;
  };
  std::map<std::vector<int64_t>, Conv> convs;
  /// ReLU, for the fused calls.
  cudnnActivationDescriptor_t relu = nullptr;
};

Libraries &getLibraries() {
  static Libraries *libraries = new Libraries;
  return *libraries;
}

const CublasApi *getCublas(const Device &d, Libraries &libs) {
  if (libs.cublasApi)
    return libs.cublasApi;
  std::string error;
  const CublasApi *api = loadCublas(error);
  if (!api) {
    fail("placer_gpu_matmul_f32 needs cuBLAS: " + error);
    return nullptr;
  }
  cublasStatus_t status = api->cublasCreate_v2(&libs.cublas);
  if (status == CUBLAS_STATUS_SUCCESS)
    status = api->cublasSetStream_v2(libs.cublas, d.stream);
  if (status != CUBLAS_STATUS_SUCCESS) {
    fail(std::string("creating a cuBLAS handle: ") +
         api->cublasGetStatusString(status));
    return nullptr;
  }
  libs.cublasApi = api;
  return api;
}

const CudnnApi *getCudnn(const Device &d, Libraries &libs) {
  if (libs.cudnnApi)
    return libs.cudnnApi;
  std::string error;
  const CudnnApi *api = loadCudnn(error);
  if (!api) {
    fail("placer_gpu_conv2d_f32 needs cuDNN 9: " + error);
    return nullptr;
  }
  cudnnStatus_t status = api->cudnnCreate(&libs.cudnn);
  if (status == CUDNN_STATUS_SUCCESS)
    status = api->cudnnSetStream(libs.cudnn, d.stream);
  if (status != CUDNN_STATUS_SUCCESS) {
    fail(std::string("creating a cuDNN handle: ") +
         api->cudnnGetErrorString(status));
    return nullptr;
  }
  libs.cudnnApi = api;
  return api;
}

bool checkCudnn(const CudnnApi &api, cudnnStatus_t status, const char *what) {
  if (status == CUDNN_STATUS_SUCCESS)
    return true;
  fail(std::string("placer_gpu_conv2d: ") + what + ": " +
       api.cudnnGetErrorString(status));
  return false;
}

/// Whether the filter `w` (F C KH KW, by its strides) is packed NCHW, or
/// with `nhwc` packed F KH KW C (channels-last code's filters, which
/// cuDNN takes as CUDNN_TENSOR_NHWC).
bool isPackedFilter(const Shape<4> &w, bool nhwc) {
  if (nhwc)
    return w.strides[1] == 1 && w.strides[3] == w.sizes[1] &&
           w.strides[2] == w.sizes[3] * w.strides[3] &&
           w.strides[0] == w.sizes[2] * w.strides[2];
  return w.strides[3] == 1 && w.strides[2] == w.sizes[3] &&
         w.strides[1] == w.sizes[2] * w.sizes[3] &&
         w.strides[0] == w.sizes[1] * w.strides[1];
}

/// Descriptors and the fastest algorithm for one convolution shape, its
/// tensors of `type` (f32, or bf16 / f16 computing in f32: cuDNN's pseudo
/// half configurations, on tensor cores).
bool prepareConv(const Device &d, const CudnnApi &api, Libraries &libs,
                 const Shape<4> &x, const Shape<4> &w, const Shape<4> &y,
                 const int64_t params[7], bool tf32, cudnnDataType_t type,
                 Libraries::Conv &conv) {
  bool tensorOps = tf32 || type != CUDNN_DATA_FLOAT;
  bool ok =
      checkCudnn(api, api.cudnnCreateTensorDescriptor(&conv.x), "descriptor") &&
      checkCudnn(api, api.cudnnCreateTensorDescriptor(&conv.y), "descriptor") &&
      checkCudnn(api, api.cudnnCreateFilterDescriptor(&conv.w), "descriptor") &&
      checkCudnn(api, api.cudnnCreateConvolutionDescriptor(&conv.conv),
                 "descriptor");
  auto tensor = [&](cudnnTensorDescriptor_t desc, const Shape<4> &m) {
    return checkCudnn(api,
                      api.cudnnSetTensor4dDescriptorEx(
                          desc, type, m.sizes[0], m.sizes[1], m.sizes[2],
                          m.sizes[3], m.strides[0], m.strides[1], m.strides[2],
                          m.strides[3]),
                      "describing a tensor");
  };
  ok = ok && tensor(conv.x, x) && tensor(conv.y, y) &&
       checkCudnn(
           api,
           api.cudnnSetFilter4dDescriptor(
               conv.w, type,
               isPackedFilter(w, false) ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC,
               w.sizes[0], w.sizes[1], w.sizes[2], w.sizes[3]),
           "describing the filter") &&
       checkCudnn(api,
                  api.cudnnSetConvolution2dDescriptor(
                      conv.conv, params[5], params[6], params[0], params[1],
                      params[2], params[3], CUDNN_CROSS_CORRELATION,
                      CUDNN_DATA_FLOAT),
                  "describing the convolution") &&
       checkCudnn(api, api.cudnnSetConvolutionGroupCount(conv.conv, params[4]),
                  "setting the groups") &&
       checkCudnn(api,
                  api.cudnnSetConvolutionMathType(conv.conv,
                                                  tensorOps ? CUDNN_DEFAULT_MATH
                                                            : CUDNN_FMA_MATH),
                  "setting the math type");
  if (!ok)
    return false;
  std::array<cudnnConvolutionFwdAlgoPerf_t, 16> perfs{};
  int returned = 0;
  if (!checkCudnn(api,
                  api.cudnnFindConvolutionForwardAlgorithm(
                      libs.cudnn, conv.x, conv.w, conv.conv, conv.y,
                      perfs.size(), &returned, perfs.data()),
                  "choosing an algorithm"))
    return false;
  // Fastest first; in strict fp32 only algorithms without tensor-core math.
  const cudnnConvolutionFwdAlgoPerf_t *chosen = nullptr;
  for (int i = 0; i < returned && !chosen; ++i)
    if (perfs[i].status == CUDNN_STATUS_SUCCESS &&
        (tensorOps || perfs[i].mathType == CUDNN_FMA_MATH))
      chosen = &perfs[i];
  if (!chosen) {
    fail("placer_gpu_conv2d: cuDNN has no " +
         std::string(tensorOps ? "" : "strict fp32 ") + "algorithm for x " +
         describe(x) + ", w " + describe(w));
    return false;
  }
  conv.algo = chosen->algo;
  conv.workspaceBytes = chosen->memory;
  // PLACER_CUDA_LOG=1: each shape's candidates and choice, to stderr.
  if (const char *log = std::getenv("PLACER_CUDA_LOG"); log && *log == '1') {
    std::string line = "placer_gpu_conv2d: x " + describe(x) + ", w " +
                       describe(w) + ": algo " + std::to_string(conv.algo) +
                       " of";
    for (int i = 0; i < returned; ++i)
      line += " [" + std::to_string(perfs[i].algo) + ": " +
              std::to_string(perfs[i].time) + " ms, status " +
              std::to_string(perfs[i].status) + ", math " +
              std::to_string(perfs[i].mathType) + ", " +
              std::to_string(perfs[i].memory) + " B]";
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  if (!checkCudnn(api,
                  api.cudnnSetConvolutionMathType(conv.conv, chosen->mathType),
                  "setting the math type"))
    return false;
  if (conv.workspaceBytes > libs.workspaceBytes) {
    // Convolutions queued before may still use the old one.
    if (libs.workspace &&
        check(d, d.driver->cuStreamSynchronize(d.stream), "running GPU code"))
      (void)d.driver->cuMemFree_v2(libs.workspace);
    libs.workspace = 0;
    libs.workspaceBytes = 0;
    if (!check(d, d.driver->cuMemAlloc_v2(&libs.workspace, conv.workspaceBytes),
               "allocating a cuDNN workspace"))
      return false;
    libs.workspaceBytes = conv.workspaceBytes;
  }
  return true;
}

/// The descriptors and algorithm of y = conv(x, w) (compiled code's
/// placer_gpu_conv2d_* calls), found again or made; null, with the error
/// recorded under `function`'s name, for shapes cuDNN cannot take. Called
/// under the libraries' lock.
Libraries::Conv *findConv(const Device &d, const CudnnApi &api, Libraries &libs,
                          const char *function, const Shape<4> &x,
                          const Shape<4> &w, const Shape<4> &y, int64_t strideH,
                          int64_t strideW, int64_t padH, int64_t padW,
                          int64_t dilationH, int64_t dilationW, int64_t groups,
                          int32_t tf32, cudnnDataType_t type) {
  // cuDNN takes ints, a packed filter, and y of the shape x and w give.
  const int64_t params[7] = {strideH, strideW, dilationH, dilationW,
                             groups,  padH,    padW};
  bool valid = groups > 0 && w.sizes[1] * groups == x.sizes[1] &&
               w.sizes[0] % groups == 0 && y.sizes[0] == x.sizes[0] &&
               y.sizes[1] == w.sizes[0] &&
               (isPackedFilter(w, false) || isPackedFilter(w, true));
  for (int i = 0; i < 4; ++i)
    valid = valid && fitsInt(x.sizes[i]) && fitsInt(x.strides[i]) &&
            fitsInt(w.sizes[i]) && fitsInt(y.sizes[i]) && fitsInt(y.strides[i]);
  for (int i = 0; i < 7; ++i)
    valid = valid && fitsInt(params[i]) && (i >= 5 || params[i] > 0);
  // Output size per spatial dim: (in + 2 pad - dilation (k - 1) - 1) / stride
  // + 1.
  for (int i = 2; i < 4; ++i)
    valid = valid && y.sizes[i] == (x.sizes[i] + 2 * params[i + 3] -
                                    params[i] * (w.sizes[i] - 1) - 1) /
                                           params[i - 2] +
                                       1;
  if (!valid) {
    fail(std::string(function) + ": shapes cuDNN cannot take: x " +
         describe(x) + ", w " + describe(w) + ", y " + describe(y) +
         ", groups " + std::to_string(groups));
    return nullptr;
  }
  std::vector<int64_t> key(params, params + 7);
  key.push_back(tf32);
  key.push_back(type);
  for (const Shape<4> *m : {&x, &w, &y})
    for (int i = 0; i < 4; ++i) {
      key.push_back(m->sizes[i]);
      key.push_back(m->strides[i]);
    }
  auto [it, inserted] = libs.convs.try_emplace(key);
  if (inserted && !prepareConv(d, api, libs, x, w, y, params, tf32 != 0, type,
                               it->second)) {
    libs.convs.erase(it);
    return nullptr;
  }
  return &it->second;
}

/// What each convolution call starts with: the device, cuDNN and the
/// shape's descriptors and algorithm, under the libraries' lock (held while
/// this lives); `conv` is null when any of them failed (the error
/// recorded).
struct ConvCall {
  Libraries &libs = getLibraries();
  std::lock_guard<std::mutex> lock{libs.mutex};
  const CudnnApi *api = nullptr;
  Libraries::Conv *conv = nullptr;

  ConvCall(const char *function, const Shape<4> &x, const Shape<4> &w,
           const Shape<4> &y, int64_t strideH, int64_t strideW, int64_t padH,
           int64_t padW, int64_t dilationH, int64_t dilationW, int64_t groups,
           int32_t tf32, cudnnDataType_t type = CUDNN_DATA_FLOAT) {
    const Device *d = getDevice();
    api = d ? getCudnn(*d, libs) : nullptr;
    if (api)
      conv = findConv(*d, *api, libs, function, x, w, y, strideH, strideW, padH,
                      padW, dilationH, dilationW, groups, tf32, type);
  }
};

/// y (+)= conv(x, w) on cuDNN, the tensors of `type` (T's bits).
template <typename T>
void convolve(const char *function, StridedMemRef<4, T> *x,
              StridedMemRef<4, T> *w, StridedMemRef<4, T> *y, int64_t strideH,
              int64_t strideW, int64_t padH, int64_t padW, int64_t dilationH,
              int64_t dilationW, int64_t groups, int32_t accumulate,
              int32_t tf32, cudnnDataType_t type) {
  ConvCall call(function, *x, *w, *y, strideH, strideW, padH, padW, dilationH,
                dilationW, groups, tf32, type);
  if (!call.conv)
    return;
  const CudnnApi *api = call.api;
  Libraries &libs = call.libs;
  Libraries::Conv *conv = call.conv;
  // Scaling factors are floats for every one of these configurations.
  const float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  (void)checkCudnn(*api,
                   api->cudnnConvolutionForward(
                       libs.cudnn, &one, conv->x, x->data(), conv->w, w->data(),
                       conv->conv, conv->algo,
                       reinterpret_cast<void *>(libs.workspace),
                       conv->workspaceBytes, &beta, conv->y, y->data()),
                   "running the convolution");
}

} // namespace

extern "C" void _mlir_ciface_placer_gpu_conv2d_f32(
    StridedMemRef<4> *x, StridedMemRef<4> *w, StridedMemRef<4> *y,
    int64_t strideH, int64_t strideW, int64_t padH, int64_t padW,
    int64_t dilationH, int64_t dilationW, int64_t groups, int32_t accumulate,
    int32_t tf32) {
  convolve("placer_gpu_conv2d_f32", x, w, y, strideH, strideW, padH, padW,
           dilationH, dilationW, groups, accumulate, tf32, CUDNN_DATA_FLOAT);
}

/// Half-precision tensors, summed in f32 and rounded once into y
/// (placer-gpu-library-calls gives y its own half buffer).
extern "C" void _mlir_ciface_placer_gpu_conv2d_bf16(
    HalfMemRef4 *x, HalfMemRef4 *w, HalfMemRef4 *y, int64_t strideH,
    int64_t strideW, int64_t padH, int64_t padW, int64_t dilationH,
    int64_t dilationW, int64_t groups, int32_t accumulate, int32_t tf32) {
  convolve("placer_gpu_conv2d_bf16", x, w, y, strideH, strideW, padH, padW,
           dilationH, dilationW, groups, accumulate, tf32, CUDNN_DATA_BFLOAT16);
}

extern "C" void _mlir_ciface_placer_gpu_conv2d_f16(
    HalfMemRef4 *x, HalfMemRef4 *w, HalfMemRef4 *y, int64_t strideH,
    int64_t strideW, int64_t padH, int64_t padW, int64_t dilationH,
    int64_t dilationW, int64_t groups, int32_t accumulate, int32_t tf32) {
  convolve("placer_gpu_conv2d_f16", x, w, y, strideH, strideW, padH, padW,
           dilationH, dilationW, groups, accumulate, tf32, CUDNN_DATA_HALF);
}

extern "C" void _mlir_ciface_placer_gpu_conv2d_bias_relu_f32(
    StridedMemRef<4> *x, StridedMemRef<4> *w, StridedMemRef<4> *y,
    StridedMemRef<1> *bias, StridedMemRef<4> *residual, int64_t strideH,
    int64_t strideW, int64_t padH, int64_t padW, int64_t dilationH,
    int64_t dilationW, int64_t groups, int32_t withResidual, int32_t tf32) {
  const char *function = "placer_gpu_conv2d_bias_relu_f32";
  ConvCall call(function, *x, *w, *y, strideH, strideW, padH, padW, dilationH,
                dilationW, groups, tf32);
  if (!call.conv)
    return;
  const CudnnApi *api = call.api;
  Libraries &libs = call.libs;
  Libraries::Conv *conv = call.conv;
  bool valid = bias->sizes[0] == y->sizes[1] && bias->strides[0] == 1;
  for (int i = 0; withResidual && i < 4; ++i)
    valid = valid && residual->sizes[i] == y->sizes[i] &&
            fitsInt(residual->strides[i]);
  if (!valid) {
    fail(std::string(function) + ": bias " + describe(*bias) +
         (withResidual ? ", residual " + describe(*residual) : "") +
         " for output " + describe(*y));
    return;
  }
  // The bias as a [1, F, 1, 1] tensor and ReLU, made once.
  if (!conv->bias &&
      !(checkCudnn(*api, api->cudnnCreateTensorDescriptor(&conv->bias),
                   "describing the bias") &&
        checkCudnn(*api,
                   api->cudnnSetTensor4dDescriptorEx(
                       conv->bias, CUDNN_DATA_FLOAT, 1, y->sizes[1], 1, 1,
                       y->sizes[1], 1, 1, 1),
                   "describing the bias")))
    return;
  if (!libs.relu &&
      !(checkCudnn(*api, api->cudnnCreateActivationDescriptor(&libs.relu),
                   "describing ReLU") &&
        checkCudnn(*api,
                   api->cudnnSetActivationDescriptor(libs.relu,
                                                     CUDNN_ACTIVATION_RELU,
                                                     CUDNN_PROPAGATE_NAN, 0.0),
                   "describing ReLU")))
    return;
  // y = relu(conv(x, w) + alpha2 z + bias): z is the residual (its own
  // strides), or y with alpha2 = 0.
  cudnnTensorDescriptor_t z = conv->y;
  bool ownZ = withResidual &&
              !std::equal(std::begin(residual->strides),
                          std::end(residual->strides), std::begin(y->strides));
  if (ownZ && !(checkCudnn(*api, api->cudnnCreateTensorDescriptor(&z),
                           "describing the residual") &&
                checkCudnn(*api,
                           api->cudnnSetTensor4dDescriptorEx(
                               z, CUDNN_DATA_FLOAT, y->sizes[0], y->sizes[1],
                               y->sizes[2], y->sizes[3], residual->strides[0],
                               residual->strides[1], residual->strides[2],
                               residual->strides[3]),
                           "describing the residual")))
    return;
  const float one = 1.0f, alpha2 = withResidual ? 1.0f : 0.0f;
  (void)checkCudnn(*api,
                   api->cudnnConvolutionBiasActivationForward(
                       libs.cudnn, &one, conv->x, x->data(), conv->w, w->data(),
                       conv->conv, conv->algo,
                       reinterpret_cast<void *>(libs.workspace),
                       conv->workspaceBytes, &alpha2, z,
                       withResidual ? residual->data() : y->data(), conv->bias,
                       bias->data(), libs.relu, conv->y, y->data()),
                   "running the fused convolution");
  if (ownZ)
    (void)api->cudnnDestroyTensorDescriptor(z);
}

namespace {

/// C[batch, M, N] (+)= op(A) op(B), row-major, on cuBLAS: f32 throughout
/// (SGEMM; TF32 tensor cores iff `tf32`), or half-precision A and B
/// (`halfType`: CUDA_R_16BF or CUDA_R_16F) into an f32 C, accumulating in
/// f32 on tensor cores (GemmEx), as a half-precision product lowers.
template <typename T>
void product(const char *name, StridedMemRef<3, T> *a, StridedMemRef<3, T> *b,
             StridedMemRef<3> *c, int32_t transA, int32_t transB,
             int32_t accumulate, int32_t tf32, cudaDataType halfType) {
  const Device *d = getDevice();
  if (!d)
    return;
  Libraries &libs = getLibraries();
  std::lock_guard<std::mutex> lock(libs.mutex);
  const CublasApi *api = getCublas(*d, libs);
  if (!api)
    return;
  // cuBLAS is column-major: it computes C^T = op(B)^T op(A)^T on the same
  // memory, each row-major matrix read as its transpose.
  int64_t batch = c->sizes[0], m = c->sizes[1], n = c->sizes[2];
  int64_t k = transA ? a->sizes[1] : a->sizes[2];
  // An operand of one batch (a broadcast one) is read for every batch.
  bool valid = (a->sizes[0] == batch || a->sizes[0] == 1) &&
               (b->sizes[0] == batch || b->sizes[0] == 1) &&
               (transA ? a->sizes[2] : a->sizes[1]) == m &&
               (transB ? b->sizes[2] : b->sizes[1]) == k &&
               (transB ? b->sizes[1] : b->sizes[2]) == n &&
               a->strides[2] == 1 && b->strides[2] == 1 && c->strides[2] == 1;
  for (int64_t size :
       {a->sizes[1], a->sizes[2], a->strides[1], b->sizes[1], b->sizes[2],
        b->strides[1], c->sizes[1], c->sizes[2], c->strides[1], batch})
    valid = valid && fitsInt(size);
  if (!valid) {
    fail(std::string(name) + ": shapes cuBLAS cannot take: a " + describe(*a) +
         ", b " + describe(*b) + ", c " + describe(*c));
    return;
  }
  const float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  cublasOperation_t opA = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  long long strideA = a->sizes[0] == 1 ? 0 : a->strides[0];
  long long strideB = b->sizes[0] == 1 ? 0 : b->strides[0];
  cublasStatus_t status = api->cublasSetMathMode(
      libs.cublas, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
  if (status == CUBLAS_STATUS_SUCCESS) {
    if constexpr (std::is_same_v<T, float>)
      status = api->cublasSgemmStridedBatched(
          libs.cublas, opB, opA, n, m, k, &one, b->data(), b->strides[1],
          strideB, a->data(), a->strides[1], strideA, &beta, c->data(),
          c->strides[1], c->strides[0], batch);
    else
      status = api->cublasGemmStridedBatchedEx(
          libs.cublas, opB, opA, n, m, k, &one, b->data(), halfType,
          b->strides[1], strideB, a->data(), halfType, a->strides[1], strideA,
          &beta, c->data(), CUDA_R_32F, c->strides[1], c->strides[0], batch,
          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  if (status != CUBLAS_STATUS_SUCCESS)
    fail(std::string(name) + ": " + api->cublasGetStatusString(status));
}

} // namespace

extern "C" void _mlir_ciface_placer_gpu_matmul_f32(
    StridedMemRef<3> *a, StridedMemRef<3> *b, StridedMemRef<3> *c,
    int32_t transA, int32_t transB, int32_t accumulate, int32_t tf32) {
  product("placer_gpu_matmul_f32", a, b, c, transA, transB, accumulate, tf32,
          CUDA_R_32F);
}

extern "C" void _mlir_ciface_placer_gpu_matmul_bf16(
    HalfMemRef3 *a, HalfMemRef3 *b, StridedMemRef<3> *c, int32_t transA,
    int32_t transB, int32_t accumulate, int32_t tf32) {
  product("placer_gpu_matmul_bf16", a, b, c, transA, transB, accumulate, tf32,
          CUDA_R_16BF);
}

extern "C" void _mlir_ciface_placer_gpu_matmul_f16(
    HalfMemRef3 *a, HalfMemRef3 *b, StridedMemRef<3> *c, int32_t transA,
    int32_t transB, int32_t accumulate, int32_t tf32) {
  product("placer_gpu_matmul_f16", a, b, c, transA, transB, accumulate, tf32,
          CUDA_R_16F);
}
