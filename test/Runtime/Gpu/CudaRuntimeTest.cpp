//===- CudaRuntimeTest.cpp - libplacer_cuda_rt on a real GPU --------------===//
//
// The `gpu`-labelled test of the CUDA runtime (ctest -L gpu). Plain C++ (no
// GoogleTest, no MLIR), so that the runtime-only build runs it on a GPU
// machine. Without a GPU it prints why and exits 77, which ctest reports
// as skipped. With one it checks the mgpu* path on a hand-written PTX
// kernel, error recording, and the cuDNN convolutions and cuBLAS products
// (f32, and bf16 / f16 as --gpu-precision calls them) against plain loops
// on the CPU.
//
//===----------------------------------------------------------------------===//
#include "placer/Runtime/CudaRuntime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void *mgpuStreamCreate();
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
}

template <int Rank, typename T = float> struct MemRef {
  T *allocated, *aligned;
  int64_t offset, sizes[Rank], strides[Rank];
};
/// Half-precision elements as their 16 bits.
template <int Rank> using HalfMemRef = MemRef<Rank, uint16_t>;

extern "C" void _mlir_ciface_placer_gpu_conv2d_f32(
    MemRef<4> *x, MemRef<4> *w, MemRef<4> *y, int64_t strideH, int64_t strideW,
    int64_t padH, int64_t padW, int64_t dilationH, int64_t dilationW,
    int64_t groups, int32_t accumulate, int32_t tf32);
extern "C" void _mlir_ciface_placer_gpu_conv2d_bias_relu_f32(
    MemRef<4> *x, MemRef<4> *w, MemRef<4> *y, MemRef<1> *bias,
    MemRef<4> *residual, int64_t strideH, int64_t strideW, int64_t padH,
    int64_t padW, int64_t dilationH, int64_t dilationW, int64_t groups,
    int32_t withResidual, int32_t tf32);
extern "C" void _mlir_ciface_placer_gpu_matmul_f32(MemRef<3> *a, MemRef<3> *b,
                                                   MemRef<3> *c, int32_t transA,
                                                   int32_t transB,
                                                   int32_t accumulate,
                                                   int32_t tf32);
using HalfMatmul = void(HalfMemRef<3> *, HalfMemRef<3> *, MemRef<3> *, int32_t,
                        int32_t, int32_t, int32_t);
using HalfConv = void(HalfMemRef<4> *, HalfMemRef<4> *, HalfMemRef<4> *,
                      int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                      int64_t, int32_t, int32_t);
extern "C" HalfMatmul _mlir_ciface_placer_gpu_matmul_bf16,
    _mlir_ciface_placer_gpu_matmul_f16;
extern "C" HalfConv _mlir_ciface_placer_gpu_conv2d_bf16,
    _mlir_ciface_placer_gpu_conv2d_f16;

namespace {

int failures = 0;

void expect(bool ok, const std::string &what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  failures += !ok;
}

std::string takeError() {
  char message[4096] = {0};
  return placer_cuda_take_error(message, sizeof(message)) ? message : "";
}

/// A device copy of `host` (floats, or half values' bits), and back.
template <typename T> T *upload(const std::vector<T> &host) {
  return static_cast<T *>(
      placer_cuda_upload(host.data(), host.size() * sizeof(T)));
}
template <typename T> std::vector<T> download(T *device, size_t count) {
  std::vector<T> host(count);
  mgpuMemcpy(host.data(), device, count * sizeof(T), mgpuStreamCreate());
  return host;
}

std::vector<float> random(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> values(count);
  for (float &v : values)
    v = dist(rng);
  return values;
}

/// max |a - b| / max |b|.
double relativeError(const std::vector<float> &a, const std::vector<float> &b) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::fabs(double(a[i]) - b[i]));
    scale = std::max(scale, std::fabs(double(b[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

template <int Rank, typename T = float>
MemRef<Rank, T> contiguous(T *data, const std::vector<int64_t> &sizes) {
  MemRef<Rank, T> m{data, data, 0, {}, {}};
  int64_t stride = 1;
  for (int i = Rank - 1; i >= 0; --i) {
    m.sizes[i] = sizes[i];
    m.strides[i] = stride;
    stride *= sizes[i];
  }
  return m;
}

// A kernel adding 1 to n floats, one thread each: PTX for any chip from
// sm_70 up, JIT-compiled by the driver.
const char *kAddOnePtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry add_one(.param .u64 data, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [data];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra $L_done;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd4], %f2;
$L_done:
  ret;
}
)";

void testKernel() {
  void *module = mgpuModuleLoadJIT(const_cast<char *>(kAddOnePtx), 2);
  void *function = mgpuModuleGetFunction(module, "add_one");
  std::vector<float> host = random(1000, 1);
  void *stream = mgpuStreamCreate();
  void *data = mgpuMemAlloc(host.size() * sizeof(float), stream, false);
  mgpuMemcpy(data, host.data(), host.size() * sizeof(float), stream);
  uint32_t n = host.size();
  void *params[] = {&data, &n};
  mgpuLaunchKernel(function, 4, 1, 1, 256, 1, 1, 0, stream, params, nullptr, 2);
  // A copy to host memory is there when the call returns (the code's
  // stream synchronizations do not wait).
  std::vector<float> result(host.size());
  mgpuMemcpy(result.data(), data, host.size() * sizeof(float), stream);
  mgpuMemFree(data, stream);
  mgpuStreamDestroy(stream);
  mgpuModuleUnload(module);
  bool equal = true;
  for (size_t i = 0; i < host.size(); ++i)
    equal = equal && result[i] == host[i] + 1.0f;
  std::string error = takeError();
  expect(equal && error.empty(),
         "PTX kernel through mgpu* adds 1 to 1000 floats" +
             (error.empty() ? "" : " (" + error + ")"));

  // Every region of the code gets the device's one stream.
  void *again = mgpuStreamCreate();
  expect(again == stream, "all work goes to one stream");
  mgpuStreamDestroy(again);
}

/// A small buffer freed is handed out again for the same size (no driver
/// call each way); a different size gets another.
void testSmallBuffers() {
  void *stream = mgpuStreamCreate();
  void *a = mgpuMemAlloc(12345, stream, false);
  mgpuMemFree(a, stream);
  void *b = mgpuMemAlloc(12345, stream, false);
  void *c = mgpuMemAlloc(12345, stream, false);
  mgpuMemFree(b, stream);
  mgpuMemFree(c, stream);
  std::string error = takeError();
  expect(error.empty() && a && b == a && c && c != a,
         "small buffers kept for reuse" +
             (error.empty() ? "" : " (" + error + ")"));
}

/// Node times on the GPU's clock: events around each node's work, read at
/// the synchronization that ends a run, nothing waiting before it.
std::vector<std::pair<int64_t, double>> profiled;
void addProfiled(int64_t node, double seconds) {
  profiled.emplace_back(node, seconds);
}

void testProfile() {
  void *module = mgpuModuleLoadJIT(const_cast<char *>(kAddOnePtx), 2);
  void *function = mgpuModuleGetFunction(module, "add_one");
  const uint32_t n = 1 << 24;
  void *stream = mgpuStreamCreate();
  void *data = mgpuMemAlloc(size_t(n) * sizeof(float), stream, false);
  void *params[] = {&data, const_cast<uint32_t *>(&n)};
  auto passes = [&](int count) {
    for (int i = 0; i < count; ++i)
      mgpuLaunchKernel(function, n / 256, 1, 1, 256, 1, 1, 0, stream, params,
                       nullptr, 2);
  };
  placer_cuda_profile(addProfiled);
  // Before the run: no node's. Node 3: 20 passes over 64 MiB and the 10
  // between the run's start and it (an input's copy, say); node 5: nothing
  // of its own, but the 10 passes between it and node 3 (work between
  // nodes counts as the next node's); node 6: nothing.
  passes(10);
  placer_cuda_profile_begin_run();
  passes(10);
  placer_cuda_profile_enter(3);
  passes(20);
  placer_cuda_profile_exit(3);
  passes(10);
  placer_cuda_profile_enter(5);
  placer_cuda_profile_exit(5);
  placer_cuda_profile_enter(6);
  placer_cuda_profile_exit(6);
  bool nothingYet = profiled.empty();
  placer_cuda_synchronize();
  placer_cuda_profile(nullptr);
  // Once stopped, nodes are not timed.
  placer_cuda_profile_enter(7);
  placer_cuda_profile_exit(7);
  placer_cuda_synchronize();
  mgpuMemFree(data, stream);
  mgpuModuleUnload(module);
  std::string error = takeError();
  // A pass moves 128 MiB, at most ~5 TB/s: at least 25 us each.
  auto seconds = [&](size_t i) {
    return i < profiled.size() ? profiled[i].second : -1.0;
  };
  bool ok = error.empty() && nothingYet && profiled.size() == 3 &&
            profiled[0].first == 3 && profiled[1].first == 5 &&
            profiled[2].first == 6 && seconds(0) > 30 * 25e-6 &&
            seconds(0) < 1.0 && seconds(1) > 10 * 25e-6 &&
            seconds(1) < seconds(0) / 2 && seconds(2) >= 0 && seconds(2) < 2e-5;
  char line[256];
  std::snprintf(line, sizeof(line),
                "profile by events: %zu nodes timed, node 3 %.3f ms, node 5 "
                "%.3f ms, node 6 %.4f ms",
                profiled.size(), seconds(0) * 1e3, seconds(1) * 1e3,
                seconds(2) * 1e3);
  expect(ok, line + (error.empty() ? "" : " (" + error + ")"));
}

void testErrors() {
  void *module = mgpuModuleLoadJIT(const_cast<char *>("not ptx"), 2);
  std::string error = takeError();
  expect(!module && error.find("compiling a kernel's PTX") == 0,
         "bad PTX is a recorded error: " + error);
  expect(takeError().empty(), "taking the error clears it");
  // After a failure, calls do nothing until the host takes the error.
  mgpuModuleLoadJIT(const_cast<char *>("not ptx either"), 2);
  void *memory = mgpuMemAlloc(64, nullptr, false);
  expect(!memory, "calls after a recorded error do nothing");
  takeError();
}

/// Convolution parameters beside the input's shape.
struct Conv {
  int64_t filters, kernel, stride = 1, pad = 0, dilation = 1, groups = 1;
  int32_t accumulate = 1, tf32 = 0;
};

/// The N C H W sizes of a convolution's x (given), w and y.
struct ConvShapes {
  std::vector<int64_t> x, w, y;
  ConvShapes(std::vector<int64_t> xs, const Conv &c)
      : x(std::move(xs)), w{c.filters, x[1] / c.groups, c.kernel, c.kernel} {
    auto outSize = [&](int64_t in) {
      return (in + 2 * c.pad - c.dilation * (c.kernel - 1) - 1) / c.stride + 1;
    };
    y = {x[0], c.filters, outSize(x[2]), outSize(x[3])};
  }
  static size_t count(const std::vector<int64_t> &s) {
    return size_t(s[0] * s[1] * s[2] * s[3]);
  }
};

/// y[n, f, i, j] (+)= sum x[n, g*C + c, i*s - p + a*d, j*s - p + b*d]
/// w[f, c, a, b], x zero outside its bounds.
std::vector<float> referenceConv(const std::vector<float> &x,
                                 const std::vector<float> &w,
                                 std::vector<float> y, const int64_t xs[4],
                                 const int64_t ws[4], const int64_t ys[4],
                                 const Conv &c) {
  int64_t perGroup = ws[0] / c.groups;
  for (int64_t n = 0; n < ys[0]; ++n)
    for (int64_t f = 0; f < ys[1]; ++f)
      for (int64_t i = 0; i < ys[2]; ++i)
        for (int64_t j = 0; j < ys[3]; ++j) {
          double sum = 0;
          int64_t g = f / perGroup;
          for (int64_t ch = 0; ch < ws[1]; ++ch)
            for (int64_t a = 0; a < ws[2]; ++a)
              for (int64_t b = 0; b < ws[3]; ++b) {
                int64_t row = i * c.stride - c.pad + a * c.dilation;
                int64_t col = j * c.stride - c.pad + b * c.dilation;
                if (row < 0 || row >= xs[2] || col < 0 || col >= xs[3])
                  continue;
                sum +=
                    double(
                        x[((n * xs[1] + g * ws[1] + ch) * xs[2] + row) * xs[3] +
                          col]) *
                    w[((f * ws[1] + ch) * ws[2] + a) * ws[3] + b];
              }
          float &out = y[((n * ys[1] + f) * ys[2] + i) * ys[3] + j];
          out = (c.accumulate ? out : 0.0f) + sum;
        }
  return y;
}

void testConv(const char *name, std::vector<int64_t> shape, const Conv &c) {
  ConvShapes shapes(std::move(shape), c);
  const std::vector<int64_t> &xs = shapes.x, &ws = shapes.w, &ys = shapes.y;
  auto count = ConvShapes::count;
  // y starts at 0.5: accumulated into, or overwritten.
  std::vector<float> x = random(count(xs), 2), w = random(count(ws), 3),
                     y(count(ys), 0.5f);
  std::vector<float> expected =
      referenceConv(x, w, y, xs.data(), ws.data(), ys.data(), c);
  float *dx = upload(x), *dw = upload(w), *dy = upload(y);
  MemRef<4> mx = contiguous<4>(dx, xs), mw = contiguous<4>(dw, ws),
            my = contiguous<4>(dy, ys);
  _mlir_ciface_placer_gpu_conv2d_f32(&mx, &mw, &my, c.stride, c.stride, c.pad,
                                     c.pad, c.dilation, c.dilation, c.groups,
                                     c.accumulate, c.tf32);
  std::vector<float> result = download(dy, y.size());
  std::string error = takeError();
  double rel = relativeError(result, expected);
  double tolerance = c.tf32 ? 1e-2 : 1e-4;
  char line[256];
  std::snprintf(line, sizeof(line), "conv %s: relative error %.2e (<= %.0e)",
                name, rel, tolerance);
  expect(error.empty() && rel <= tolerance,
         line + (error.empty() ? "" : " (" + error + ")"));
  for (float *p : {dx, dw, dy})
    placer_cuda_free(p);
}

/// The fused call: y = relu(conv(x, w) + bias (+ residual)), against the
/// loops; the residual in its own layout when `stridedResidual` (every
/// other column of a wider buffer).
void testConvBiasRelu(const char *name, std::vector<int64_t> shape,
                      const Conv &c, bool withResidual,
                      bool stridedResidual = false) {
  ConvShapes shapes(std::move(shape), c);
  const std::vector<int64_t> &xs = shapes.x, &ws = shapes.w, &ys = shapes.y;
  size_t count = ConvShapes::count(ys);
  std::vector<float> x = random(ConvShapes::count(xs), 4),
                     w = random(ConvShapes::count(ws), 5),
                     bias = random(size_t(c.filters), 6),
                     residual = random(2 * count, 7), y(count, -9.0f);
  Conv overwrite = c;
  overwrite.accumulate = 0;
  std::vector<float> expected =
      referenceConv(x, w, y, xs.data(), ws.data(), ys.data(), overwrite);
  int64_t spatial = ys[2] * ys[3];
  for (size_t i = 0; i < count; ++i) {
    int64_t channel = int64_t(i) / spatial % ys[1];
    float r = withResidual ? residual[stridedResidual ? 2 * i : i] : 0.0f;
    expected[i] = std::max(0.0f, expected[i] + bias[channel] + r);
  }
  float *dx = upload(x), *dw = upload(w), *dy = upload(y), *db = upload(bias),
        *dr = upload(residual);
  MemRef<4> mx = contiguous<4>(dx, xs), mw = contiguous<4>(dw, ws),
            my = contiguous<4>(dy, ys), mr = contiguous<4>(dr, ys);
  if (stridedResidual)
    for (int64_t &stride : mr.strides)
      stride *= 2;
  MemRef<1> mb = contiguous<1>(db, {c.filters});
  _mlir_ciface_placer_gpu_conv2d_bias_relu_f32(
      &mx, &mw, &my, &mb, withResidual ? &mr : &my, c.stride, c.stride, c.pad,
      c.pad, c.dilation, c.dilation, c.groups, withResidual, c.tf32);
  std::vector<float> result = download(dy, count);
  std::string error = takeError();
  double rel = relativeError(result, expected);
  double tolerance = c.tf32 ? 1e-2 : 1e-4;
  char line[256];
  std::snprintf(line, sizeof(line),
                "conv + bias%s + relu %s: relative error %.2e (<= %.0e)",
                withResidual ? " + residual" : "", name, rel, tolerance);
  expect(error.empty() && rel <= tolerance,
         line + (error.empty() ? "" : " (" + error + ")"));
  for (float *p : {dx, dw, dy, db, dr})
    placer_cuda_free(p);
}

/// C[3] += op(A) op(B) (C = op(A) op(B) unless `accumulate`); a broadcast
/// operand has one batch, read for all.
void testMatmul(int32_t transA, int32_t transB, bool broadcastA = false,
                bool broadcastB = false, bool accumulate = true) {
  const int64_t batch = 3, m = 5, n = 7, k = 9;
  int64_t batchA = broadcastA ? 1 : batch, batchB = broadcastB ? 1 : batch;
  std::vector<int64_t> as = {batchA, transA ? k : m, transA ? m : k};
  std::vector<int64_t> bs = {batchB, transB ? n : k, transB ? k : n};
  std::vector<int64_t> cs = {batch, m, n};
  std::vector<float> a = random(batchA * m * k, 4),
                     b = random(batchB * k * n, 5), c(batch * m * n, 1.0f);
  std::vector<float> expected(c.size(), accumulate ? 1.0f : 0.0f);
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        int64_t pa = broadcastA ? 0 : p, pb = broadcastB ? 0 : p;
        for (int64_t q = 0; q < k; ++q)
          sum += double(a[pa * m * k + (transA ? q * m + i : i * k + q)]) *
                 b[pb * k * n + (transB ? j * k + q : q * n + j)];
        expected[(p * m + i) * n + j] += sum;
      }
  float *da = upload(a), *db = upload(b), *dc = upload(c);
  MemRef<3> ma = contiguous<3>(da, as), mb = contiguous<3>(db, bs),
            mc = contiguous<3>(dc, cs);
  _mlir_ciface_placer_gpu_matmul_f32(&ma, &mb, &mc, transA, transB, accumulate,
                                     0);
  std::vector<float> result = download(dc, c.size());
  std::string error = takeError();
  double rel = relativeError(result, expected);
  char line[256];
  std::snprintf(line, sizeof(line),
                "matmul trans_a=%d trans_b=%d%s%s%s: relative error %.2e",
                transA, transB, broadcastA ? " broadcast a" : "",
                broadcastB ? " broadcast b" : "",
                accumulate ? "" : " overwrite", rel);
  expect(error.empty() && rel <= 1e-5,
         line + (error.empty() ? "" : " (" + error + ")"));
  for (float *p : {da, db, dc})
    placer_cuda_free(p);
}

/// A half-precision type: its name, the calls taking it, and the
/// conversions (round to nearest even) the test rounds its data with.
struct Half {
  const char *name;
  HalfMatmul *matmul;
  HalfConv *conv;
  uint16_t (*round)(float);
  float (*widen)(uint16_t);
  double tolerance; // of a result rounded to the type once
};

uint16_t roundBf16(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}
float widenBf16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float v;
  std::memcpy(&v, &u, 4);
  return v;
}
uint16_t roundF16(float v) {
  _Float16 h = static_cast<_Float16>(v);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
float widenF16(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return static_cast<float>(h);
}

const Half kBf16 = {"bf16",
                    _mlir_ciface_placer_gpu_matmul_bf16,
                    _mlir_ciface_placer_gpu_conv2d_bf16,
                    roundBf16,
                    widenBf16,
                    1e-2};
const Half kF16 = {"f16",
                   _mlir_ciface_placer_gpu_matmul_f16,
                   _mlir_ciface_placer_gpu_conv2d_f16,
                   roundF16,
                   widenF16,
                   2e-3};

/// `values` rounded to `half`: the bits, and the values they hold.
std::vector<uint16_t> roundAll(const Half &half, std::vector<float> &values) {
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    bits[i] = half.round(values[i]);
    values[i] = half.widen(bits[i]);
  }
  return bits;
}

/// C (+)= op(A) op(B) with half A and B into an f32 C: products of half
/// values are exact in f32, so only the summation order differs.
void testHalfMatmul(const Half &half, int32_t transA, int32_t transB,
                    bool accumulate) {
  const int64_t batch = 2, m = 33, n = 17, k = 64;
  std::vector<int64_t> as = {batch, transA ? k : m, transA ? m : k};
  std::vector<int64_t> bs = {batch, transB ? n : k, transB ? k : n};
  std::vector<float> a = random(batch * m * k, 8), b = random(batch * k * n, 9),
                     c(batch * m * n, 1.0f);
  std::vector<uint16_t> ha = roundAll(half, a), hb = roundAll(half, b);
  std::vector<float> expected(c.size(), accumulate ? 1.0f : 0.0f);
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t q = 0; q < k; ++q)
          sum += double(a[p * m * k + (transA ? q * m + i : i * k + q)]) *
                 b[p * k * n + (transB ? j * k + q : q * n + j)];
        expected[(p * m + i) * n + j] += sum;
      }
  uint16_t *da = upload(ha), *db = upload(hb);
  float *dc = upload(c);
  HalfMemRef<3> ma = contiguous<3>(da, as), mb = contiguous<3>(db, bs);
  MemRef<3> mc = contiguous<3>(dc, {batch, m, n});
  half.matmul(&ma, &mb, &mc, transA, transB, accumulate, 0);
  std::vector<float> result = download(dc, c.size());
  std::string error = takeError();
  double rel = relativeError(result, expected);
  char line[256];
  std::snprintf(line, sizeof(line),
                "matmul %s trans_a=%d trans_b=%d%s: relative error %.2e",
                half.name, transA, transB, accumulate ? "" : " overwrite", rel);
  expect(error.empty() && rel <= 1e-4,
         line + (error.empty() ? "" : " (" + error + ")"));
  placer_cuda_free(da);
  placer_cuda_free(db);
  placer_cuda_free(dc);
}

/// `sizes` (N C H W) laid out channels-last: the view, and the permutation
/// of NCHW-ordered values into that memory order and back.
template <typename T>
MemRef<4, T> channelsLast(T *data, const std::vector<int64_t> &s) {
  return MemRef<4, T>{data,
                      data,
                      0,
                      {s[0], s[1], s[2], s[3]},
                      {s[1] * s[2] * s[3], 1, s[3] * s[1], s[1]}};
}
template <typename T>
std::vector<T> toChannelsLast(const std::vector<T> &nchw,
                              const std::vector<int64_t> &s,
                              bool back = false) {
  std::vector<T> out(nchw.size());
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < s[1]; ++c)
      for (int64_t h = 0; h < s[2]; ++h)
        for (int64_t w = 0; w < s[3]; ++w) {
          size_t i = ((n * s[1] + c) * s[2] + h) * s[3] + w;
          size_t j = ((n * s[2] + h) * s[3] + w) * s[1] + c;
          (back ? out[i] : out[j]) = nchw[back ? j : i];
        }
  return out;
}

/// y = `convolve`(x, w) on device copies laid out NCHW or (`nhwc`) NHWC,
/// y starting as `garbage` (it is overwritten); y in NCHW order.
template <typename T, typename Convolve>
std::vector<T> convolveOnDevice(const ConvShapes &s, const std::vector<T> &x,
                                const std::vector<T> &w, T garbage, bool nhwc,
                                Convolve convolve) {
  auto arrange = [&](const std::vector<T> &v, const std::vector<int64_t> &at) {
    return nhwc ? toChannelsLast(v, at) : v;
  };
  auto view = [&](T *data, const std::vector<int64_t> &at) {
    return nhwc ? channelsLast(data, at) : contiguous<4>(data, at);
  };
  T *dx = upload(arrange(x, s.x)), *dw = upload(arrange(w, s.w)),
    *dy = upload(std::vector<T>(ConvShapes::count(s.y), garbage));
  MemRef<4, T> mx = view(dx, s.x), mw = view(dw, s.w), my = view(dy, s.y);
  convolve(&mx, &mw, &my);
  std::vector<T> y = download(dy, ConvShapes::count(s.y));
  for (T *p : {dx, dw, dy})
    placer_cuda_free(p);
  return nhwc ? toChannelsLast(y, s.y, /*back=*/true) : y;
}

/// y = conv(x, w) overwritten, f32 or (`half` non-null) all half, summed in
/// f32 and rounded once into y; with `nhwc`, --gpu-channels-last's calls:
/// x, w (F KH KW C) and y NHWC, passed as N C H W views.
void testConvIn(const char *name, std::vector<int64_t> shape, const Conv &c,
                const Half *half, bool nhwc) {
  ConvShapes s(std::move(shape), c);
  std::vector<float> x = random(ConvShapes::count(s.x), 12),
                     w = random(ConvShapes::count(s.w), 13);
  std::vector<uint16_t> hx, hw;
  if (half) {
    hx = roundAll(*half, x);
    hw = roundAll(*half, w);
  }
  Conv overwrite = c;
  overwrite.accumulate = 0;
  std::vector<float> expected =
      referenceConv(x, w, std::vector<float>(ConvShapes::count(s.y), 0.0f),
                    s.x.data(), s.w.data(), s.y.data(), overwrite);
  std::vector<float> result;
  if (half) {
    for (uint16_t bits : convolveOnDevice<uint16_t>(
             s, hx, hw, 0x7fc0, nhwc, [&](auto *mx, auto *mw, auto *my) {
               half->conv(mx, mw, my, c.stride, c.stride, c.pad, c.pad,
                          c.dilation, c.dilation, c.groups, 0, 0);
             }))
      result.push_back(half->widen(bits));
  } else {
    result = convolveOnDevice<float>(
        s, x, w, 7.0f, nhwc, [&](auto *mx, auto *mw, auto *my) {
          _mlir_ciface_placer_gpu_conv2d_f32(mx, mw, my, c.stride, c.stride,
                                             c.pad, c.pad, c.dilation,
                                             c.dilation, c.groups, 0, c.tf32);
        });
  }
  std::string error = takeError();
  double rel = relativeError(result, expected);
  double tolerance = half ? half->tolerance : c.tf32 ? 1e-2 : 1e-4;
  char line[256];
  std::snprintf(line, sizeof(line),
                "conv%s %s %s: relative error %.2e (<= %.0e)",
                nhwc ? " channels-last" : "", half ? half->name : "f32", name,
                rel, tolerance);
  expect(error.empty() && rel <= tolerance,
         line + (error.empty() ? "" : " (" + error + ")"));
}

void testBadShapes() {
  std::vector<float> data(64, 0.0f);
  float *d = upload(data);
  MemRef<4> x = contiguous<4>(d, {1, 4, 2, 2}),
            w = contiguous<4>(d, {2, 3, 1, 1}),
            y = contiguous<4>(d, {1, 2, 2, 2});
  _mlir_ciface_placer_gpu_conv2d_f32(&x, &w, &y, 1, 1, 0, 0, 1, 1, 1, 1, 0);
  std::string error = takeError();
  expect(error.find("placer_gpu_conv2d_f32: shapes cuDNN cannot take") == 0,
         "mismatched channels are a recorded error: " + error);
  placer_cuda_free(d);
}

} // namespace

int main() {
  char message[1024] = {0};
  if (placer_cuda_open(message, sizeof(message)) != 0) {
    std::printf("skipped: no GPU here: %s\n", message);
    return 77;
  }
  std::printf("GPU: %s, sm_%d\n", placer_cuda_device_name(),
              placer_cuda_compute_capability());
  testKernel();
  testSmallBuffers();
  testProfile();
  testErrors();
  testConv("3x3", {2, 3, 9, 9}, {4, 3});
  testConv("3x3 pad 1, overwriting y", {2, 3, 9, 9},
           {4, 3, 1, 1, 1, 1, /*accumulate=*/0});
  testConv("3x3 stride 2 dilation 2 groups 2", {1, 4, 11, 11},
           {6, 3, 2, 0, 2, 2});
  testConv("depthwise 3x3 pad 1", {2, 8, 7, 7}, {8, 3, 1, 1, 1, 8});
  testConv("7x7 stride 2 pad 3", {2, 3, 20, 20}, {8, 7, 2, 3});
  testConv("1x1 stride 2", {2, 16, 8, 8}, {32, 1, 2});
  testConv("3x3 tf32", {2, 16, 12, 12}, {16, 3, 1, 0, 1, 1, 1, 1});
  testConvBiasRelu("3x3 pad 1", {2, 8, 9, 9}, {16, 3, 1, 1}, false);
  testConvBiasRelu("1x1", {2, 16, 7, 7}, {32, 1}, true);
  testConvBiasRelu("3x3 stride 2, strided residual", {1, 8, 10, 10},
                   {8, 3, 2, 1}, true, /*stridedResidual=*/true);
  testConvBiasRelu("3x3 tf32", {2, 16, 12, 12},
                   {16, 3, 1, 1, 1, 1, 0, /*tf32=*/1}, true);
  for (int32_t transA : {0, 1})
    for (int32_t transB : {0, 1})
      testMatmul(transA, transB);
  testMatmul(0, 1, /*broadcastA=*/false, /*broadcastB=*/true);
  testMatmul(1, 0, /*broadcastA=*/true, /*broadcastB=*/false);
  // A 1x1 convolution's call: the weight for every image, C overwritten.
  testMatmul(0, 0, /*broadcastA=*/true, /*broadcastB=*/false,
             /*accumulate=*/false);
  for (const Half *half : {&kBf16, &kF16}) {
    for (int32_t transA : {0, 1})
      for (int32_t transB : {0, 1})
        testHalfMatmul(*half, transA, transB, /*accumulate=*/transA == transB);
    testConvIn("3x3 pad 1", {2, 16, 9, 9}, {32, 3, 1, 1}, half, false);
    testConvIn("depthwise 3x3 stride 2", {2, 16, 9, 9}, {16, 3, 2, 1, 1, 16},
               half, false);
    testConvIn("1x1", {2, 32, 7, 7}, {64, 1}, half, false);
  }
  testConvIn("3x3 pad 1", {2, 16, 9, 9}, {32, 3, 1, 1}, nullptr, true);
  testConvIn("3x3 tf32", {2, 16, 9, 9}, {32, 3, 1, 1, 1, 1, 0, 1}, nullptr,
             true);
  testConvIn("depthwise 3x3 stride 2", {2, 16, 9, 9}, {16, 3, 2, 1, 1, 16},
             nullptr, true);
  testConvIn("3x3", {2, 16, 9, 9}, {32, 3, 1, 1}, &kBf16, true);
  testConvIn("1x1", {2, 32, 7, 7}, {64, 1}, &kF16, true);
  testBadShapes();
  std::printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
