//===- CpuLibraryCalls.cpp - Convolutions and products over oneDNN --------===//
//
// The placer_cpu_* functions that placer-cpu-library-calls makes compiled
// code call (include/placer/Runtime/CpuLibraryCalls.h). oneDNN's
// convolutions are fastest on channels-last (NHWC) activations and blocked
// weights: measured single-threaded on this machine class, a 3x3 64->64
// convolution at 56x56 takes 1.42 ms on NHWC against 2.85 ms on NCHW (its
// im2col kernel), a depthwise one 0.19 ms against 3.2 ms. So convolutions
// run on NHWC: channels-last programs pass NHWC buffers (as N C H W views,
// no reorder), an NCHW caller's input and output are reordered around the
// call, and a model weight is reordered once and kept. An epilogue (bias,
// activation, residual) runs as post-ops while the output is written.
// Products are oneDNN's SGEMM on the buffers as they are; bfloat16 products
// (accumulated in f32) its matmul primitive on bf16 kernels where the CPU
// has them (AVX512-BF16, AMX), else widened to f32 for SGEMM.
//
// Compiled primitives are kept by shape (creating one takes 0.1-5 ms,
// finding it again a map lookup). Calls are serialised by one lock: the
// scratch buffers are shared, and oneDNN runs each call on the OpenMP
// threads itself (`--threads`).
//
//===----------------------------------------------------------------------===//

#include "placer/Runtime/CpuLibraryCalls.h"

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace {

/// The first error since the host last looked.
struct ErrorSlot {
  std::mutex mutex;
  std::string message;
};

ErrorSlot &errorSlot() {
  static ErrorSlot *slot = new ErrorSlot; // never destroyed: see State
  return *slot;
}

void recordError(const std::string &message) {
  ErrorSlot &slot = errorSlot();
  std::lock_guard<std::mutex> lock(slot.mutex);
  if (slot.message.empty())
    slot.message = message;
}

/// A 64-byte aligned buffer that only grows.
class Buffer {
public:
  Buffer() = default;
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() { std::free(data); }

  /// At least `bytes`, or null when memory is short.
  void *reserve(size_t bytes) {
    if (bytes <= capacity)
      return data;
    std::free(data);
    capacity = 0;
    data = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (data)
      capacity = bytes;
    return data;
  }

private:
  void *data = nullptr;
  size_t capacity = 0;
};

/// One convolution shape: its primitive and how the caller's buffers get
/// to and from the layouts it runs on (a reorder, or none where they
/// agree).
struct Convolution {
  dnnl_primitive_t conv = nullptr;
  dnnl_primitive_t toSrc = nullptr, toWeights = nullptr, toDst = nullptr,
                   fromDst = nullptr;
  dnnl_memory_t userSrc = nullptr, src = nullptr, userWeights = nullptr,
                weights = nullptr, userDst = nullptr, dst = nullptr,
                bias = nullptr, residual = nullptr;
  size_t srcBytes = 0, weightBytes = 0, dstBytes = 0;
  /// The post-op that adds the residual, or -1.
  int residualPostOp = -1;
  /// Whether oneDNN took none of the epilogue (no implementation has
  /// those post-ops for this shape): applied by hand after the call.
  bool epilogueByHand = false;
};

/// One bfloat16 product shape: oneDNN's matmul primitive (bf16 operands, f32
/// result) and the memory objects each call points at its buffers.
struct HalfProduct {
  dnnl_primitive_t matmul = nullptr;
  dnnl_memory_t a = nullptr, b = nullptr, c = nullptr;
};

/// Everything kept between calls. Never destroyed: programs may run from
/// static destructors' time, and oneDNN's own state may be gone by then.
struct State {
  std::mutex mutex;
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  std::map<std::vector<int64_t>, std::unique_ptr<Convolution>> convolutions;
  std::map<std::vector<int64_t>, std::unique_ptr<HalfProduct>> halfProducts;
  /// Reordered model weights by their address and the convolution whose
  /// layout they are in.
  std::map<std::pair<const void *, const Convolution *>, Buffer> weights;
  Buffer srcScratch, weightScratch, dstScratch;
};

State &state() {
  static State *state = new State;
  return *state;
}

/// A oneDNN call's status as an error naming `what`; true on success.
bool check(dnnl_status_t status, const char *what) {
  if (status == dnnl_success)
    return true;
  recordError(std::string("oneDNN: ") + what + ": " +
              dnnl_status2str(status));
  return false;
}

bool ensureEngine(State &s) {
  if (s.engine)
    return true;
  if (!check(dnnl_engine_create(&s.engine, dnnl_cpu, 0), "creating the engine"))
    return false;
  if (!check(dnnl_stream_create(&s.stream, s.engine, dnnl_stream_default_flags),
             "creating a stream")) {
    dnnl_engine_destroy(s.engine);
    s.engine = nullptr;
    return false;
  }
  return true;
}

void destroy(Convolution &c) {
  for (dnnl_primitive_t p : {c.conv, c.toSrc, c.toWeights, c.toDst, c.fromDst})
    if (p)
      dnnl_primitive_destroy(p);
  for (dnnl_memory_t m : {c.userSrc, c.src, c.userWeights, c.weights, c.userDst,
                          c.dst, c.bias, c.residual})
    if (m)
      dnnl_memory_destroy(m);
}

/// A reorder from `from` to `to`, or none (null, true) when they agree.
bool makeReorder(State &s, const dnnl_memory_desc_t &from,
                 const dnnl_memory_desc_t &to, dnnl_primitive_t &reorder) {
  if (dnnl_memory_desc_equal(&from, &to))
    return true;
  dnnl_primitive_desc_t pd = nullptr;
  if (!check(dnnl_reorder_primitive_desc_create(&pd, &from, s.engine, &to,
                                                s.engine, nullptr),
             "a layout reorder"))
    return false;
  bool ok = check(dnnl_primitive_create(&reorder, pd), "a layout reorder");
  dnnl_primitive_desc_destroy(pd);
  return ok;
}

bool makeMemory(State &s, const dnnl_memory_desc_t &desc,
                dnnl_memory_t &memory) {
  return check(dnnl_memory_create(&memory, &desc, s.engine, DNNL_MEMORY_NONE),
               "a memory object");
}

/// One step of a convolution's epilogue (placer_epilogue_step).
struct Step {
  int kind;
  float alpha, beta;
};

/// The parameters of one convolution call, which identify its primitive.
struct ConvShape {
  dnnl_dims_t srcDims, srcStrides, weightDims, weightStrides, dstDims,
      dstStrides, strides, dilations, padLeft, padRight, residualStrides;
  int weightRank = 4;
  bool accumulate = false;
  std::vector<Step> epilogue;
  int64_t biasStride = 1;

  bool hasBias() const {
    return !epilogue.empty() && epilogue.front().kind == PLACER_EPILOGUE_BIAS;
  }
  bool hasResidual() const {
    for (const Step &step : epilogue)
      if (step.kind == PLACER_EPILOGUE_RESIDUAL)
        return true;
    return false;
  }

  std::vector<int64_t> key() const {
    std::vector<int64_t> key;
    for (const dnnl_dims_t *dims :
         {&srcDims, &srcStrides, &dstDims, &dstStrides})
      key.insert(key.end(), *dims, *dims + 4);
    key.insert(key.end(), weightDims, weightDims + weightRank);
    key.insert(key.end(), weightStrides, weightStrides + weightRank);
    for (const dnnl_dims_t *dims : {&strides, &dilations, &padLeft, &padRight})
      key.insert(key.end(), *dims, *dims + 2);
    key.push_back(accumulate);
    for (const Step &step : epilogue) {
      uint32_t alpha, beta;
      std::memcpy(&alpha, &step.alpha, sizeof alpha);
      std::memcpy(&beta, &step.beta, sizeof beta);
      key.insert(key.end(), {step.kind, alpha, beta});
    }
    if (hasBias())
      key.push_back(biasStride);
    if (hasResidual())
      key.insert(key.end(), residualStrides, residualStrides + 4);
    return key;
  }
};

/// The attributes of a convolution: y's old values summed (accumulate),
/// then, `withEpilogue`, the epilogue's steps after a leading bias as
/// post-ops; `residualPostOp` is the residual's post-op index. False when
/// oneDNN takes none of them.
bool makeAttributes(const ConvShape &shape, bool withEpilogue,
                    const dnnl_memory_desc_t &residual,
                    dnnl_primitive_attr_t &attr, int &residualPostOp) {
  attr = nullptr;
  residualPostOp = -1;
  dnnl_post_ops_t postOps = nullptr;
  bool ok = dnnl_primitive_attr_create(&attr) == dnnl_success &&
            dnnl_post_ops_create(&postOps) == dnnl_success;
  int index = 0;
  // y += conv: the output's old values, reordered into dst, summed.
  if (ok && shape.accumulate) {
    ok = dnnl_post_ops_append_sum(postOps, 1.0f) == dnnl_success;
    ++index;
  }
  for (size_t i = shape.hasBias() ? 1 : 0;
       ok && withEpilogue && i < shape.epilogue.size(); ++i, ++index) {
    const Step &step = shape.epilogue[i];
    switch (step.kind) {
    case PLACER_EPILOGUE_RESIDUAL:
      ok = dnnl_post_ops_append_binary(postOps, dnnl_binary_add, &residual) ==
           dnnl_success;
      residualPostOp = index;
      break;
    case PLACER_EPILOGUE_LINEAR:
      ok = dnnl_post_ops_append_eltwise(postOps, 1.0f, dnnl_eltwise_linear,
                                        step.alpha, step.beta) == dnnl_success;
      break;
    case PLACER_EPILOGUE_CLIP:
      ok = (step.alpha == 0.0f && step.beta == INFINITY
                ? dnnl_post_ops_append_eltwise(postOps, 1.0f, dnnl_eltwise_relu,
                                               0.0f, 0.0f)
                : dnnl_post_ops_append_eltwise(postOps, 1.0f, dnnl_eltwise_clip,
                                               step.alpha, step.beta)) ==
           dnnl_success;
      break;
    case PLACER_EPILOGUE_HARDSWISH:
      ok = dnnl_post_ops_append_eltwise(postOps, 1.0f, dnnl_eltwise_hardswish,
                                        0.0f, 0.0f) == dnnl_success;
      break;
    case PLACER_EPILOGUE_SIGMOID:
      ok = dnnl_post_ops_append_eltwise(postOps, 1.0f, dnnl_eltwise_logistic,
                                        0.0f, 0.0f) == dnnl_success;
      break;
    case PLACER_EPILOGUE_SWISH: // x * sigmoid(alpha x), alpha = 1
      ok = dnnl_post_ops_append_eltwise(postOps, 1.0f, dnnl_eltwise_swish, 1.0f,
                                        0.0f) == dnnl_success;
      break;
    default:
      ok = false;
    }
  }
  ok = ok && dnnl_primitive_attr_set_post_ops(attr, postOps) == dnnl_success;
  if (postOps)
    dnnl_post_ops_destroy(postOps);
  if (!ok && attr) {
    dnnl_primitive_attr_destroy(attr);
    attr = nullptr;
  }
  return ok;
}

/// Whether `strides` lay N C H W `dims` out as dense NHWC.
bool isDenseNhwc(const dnnl_dims_t dims, const dnnl_dims_t strides) {
  return strides[1] == 1 && strides[3] == dims[1] &&
         strides[2] == dims[3] * dims[1] &&
         strides[0] == dims[2] * dims[3] * dims[1];
}

std::unique_ptr<Convolution> createConvolution(State &s,
                                               const ConvShape &shape) {
  auto c = std::make_unique<Convolution>();
  dnnl_memory_desc_t userSrc, userWeights, userDst, src, dst, anyWeights;
  bool ok =
      check(dnnl_memory_desc_init_by_strides(&userSrc, 4, shape.srcDims,
                                             dnnl_f32, shape.srcStrides),
            "the input's layout") &&
      check(dnnl_memory_desc_init_by_strides(&userWeights, shape.weightRank,
                                             shape.weightDims, dnnl_f32,
                                             shape.weightStrides),
            "the weights' layout") &&
      check(dnnl_memory_desc_init_by_strides(&userDst, 4, shape.dstDims,
                                             dnnl_f32, shape.dstStrides),
            "the output's layout") &&
      check(dnnl_memory_desc_init_by_tag(&src, 4, shape.srcDims, dnnl_f32,
                                         dnnl_nhwc),
            "the input's layout") &&
      check(dnnl_memory_desc_init_by_tag(&dst, 4, shape.dstDims, dnnl_f32,
                                         dnnl_nhwc),
            "the output's layout") &&
      check(dnnl_memory_desc_init_by_tag(&anyWeights, shape.weightRank,
                                         shape.weightDims, dnnl_f32,
                                         dnnl_format_tag_any),
            "the weights' layout");
  if (!ok)
    return nullptr;
  dnnl_memory_desc_t bias, residual;
  if (shape.hasResidual() &&
      !check(dnnl_memory_desc_init_by_strides(&residual, 4, shape.dstDims,
                                              dnnl_f32, shape.residualStrides),
             "the residual's layout"))
    return nullptr;
  const dnnl_dims_t biasDims = {shape.dstDims[1]};
  const dnnl_dims_t biasStrides = {shape.biasStride};
  if (shape.hasBias() && !check(dnnl_memory_desc_init_by_strides(
                                    &bias, 1, biasDims, dnnl_f32, biasStrides),
                                "the bias's layout"))
    return nullptr;
  // With the epilogue's steps as a bias and post-ops, or, where no
  // implementation takes them, without (applied by hand after the call).
  // oneDNN 2.6 adds a residual laid out unlike its NHWC output wrongly
  // (measured: off by up to 2.0 on a 1x1 convolution): such an epilogue
  // goes by hand.
  dnnl_primitive_desc_t pd = nullptr;
  for (bool withEpilogue : {true, false}) {
    if (!withEpilogue && shape.epilogue.empty())
      break;
    if (withEpilogue && shape.hasResidual() &&
        !(isDenseNhwc(shape.dstDims, shape.dstStrides) &&
          isDenseNhwc(shape.dstDims, shape.residualStrides)))
      continue;
    dnnl_convolution_desc_t desc;
    if (!check(dnnl_dilated_convolution_forward_desc_init(
                   &desc, dnnl_forward_inference, dnnl_convolution_direct, &src,
                   &anyWeights,
                   withEpilogue && shape.hasBias() ? &bias : nullptr, &dst,
                   shape.strides, shape.dilations, shape.padLeft,
                   shape.padRight),
               "a convolution"))
      return nullptr;
    dnnl_primitive_attr_t attr = nullptr;
    if (!makeAttributes(shape, withEpilogue, residual, attr, c->residualPostOp))
      continue;
    dnnl_status_t status =
        dnnl_primitive_desc_create(&pd, &desc, attr, s.engine, nullptr);
    if (attr)
      dnnl_primitive_attr_destroy(attr);
    if (status == dnnl_success) {
      c->epilogueByHand = !withEpilogue;
      if (!withEpilogue)
        c->residualPostOp = -1;
      break;
    }
    pd = nullptr;
    if (!withEpilogue || shape.epilogue.empty()) {
      check(status, "a convolution");
      return nullptr;
    }
  }
  if (!pd) {
    recordError("oneDNN: a convolution: no implementation");
    return nullptr;
  }
  const dnnl_memory_desc_t *weights =
      dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  ok =
      check(dnnl_primitive_create(&c->conv, pd), "a convolution") &&
      makeReorder(s, userSrc, src, c->toSrc) &&
      makeReorder(s, userWeights, *weights, c->toWeights) &&
      makeReorder(s, dst, userDst, c->fromDst) &&
      (!shape.accumulate || makeReorder(s, userDst, dst, c->toDst)) &&
      makeMemory(s, userSrc, c->userSrc) && makeMemory(s, src, c->src) &&
      makeMemory(s, userWeights, c->userWeights) &&
      makeMemory(s, *weights, c->weights) &&
      makeMemory(s, userDst, c->userDst) && makeMemory(s, dst, c->dst) &&
      (c->epilogueByHand || !shape.hasBias() || makeMemory(s, bias, c->bias)) &&
      (c->residualPostOp < 0 || makeMemory(s, residual, c->residual));
  c->srcBytes = dnnl_memory_desc_get_size(&src);
  c->weightBytes = dnnl_memory_desc_get_size(weights);
  c->dstBytes = dnnl_memory_desc_get_size(&dst);
  dnnl_primitive_desc_destroy(pd);
  if (!ok) {
    destroy(*c);
    return nullptr;
  }
  return c;
}

bool execute(State &s, dnnl_primitive_t primitive,
             const std::vector<dnnl_exec_arg_t> &args, const char *what) {
  return check(dnnl_primitive_execute(primitive, s.stream,
                                      static_cast<int>(args.size()),
                                      args.data()),
               what) &&
         check(dnnl_stream_wait(s.stream), what);
}

/// Runs `reorder` from `from` to `to`; with none, `to` is `from`.
bool reorder(State &s, dnnl_primitive_t reorder, dnnl_memory_t from,
             dnnl_memory_t to, const char *what) {
  if (!reorder)
    return true;
  return execute(s, reorder, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}},
                 what);
}

/// Points `memory` at `data` (the caller's buffer, or scratch of `bytes`
/// when `data` is null); false when scratch is short.
bool bind(dnnl_memory_t memory, void *data) {
  if (!data) {
    recordError("out of memory for a convolution's scratch buffers");
    return false;
  }
  return check(dnnl_memory_set_data_handle(memory, data), "binding a buffer");
}

template <typename MemRef> float *dataOf(const MemRef &m) {
  return m.aligned + m.offset;
}

/// A descriptor's sizes, "[2, 3, 4]".
template <typename MemRef> std::string describe(const MemRef &m) {
  std::string text = "[";
  for (size_t i = 0; i < std::size(m.sizes); ++i)
    text += (i ? ", " : "") + std::to_string(m.sizes[i]);
  return text + "]";
}

/// The weights in the layout `c` runs on: the caller's buffer where the
/// layouts agree, else a reordered copy, kept for a model's weights
/// (`constant`) and made again into scratch for others; null on failure.
void *weightsFor(State &s, Convolution &c, void *weights, bool constant) {
  if (!c.toWeights)
    return weights;
  if (!constant) {
    void *copy = s.weightScratch.reserve(c.weightBytes);
    if (!bind(c.weights, copy) || !bind(c.userWeights, weights) ||
        !reorder(s, c.toWeights, c.userWeights, c.weights, "weights reorder"))
      return nullptr;
    return copy;
  }
  auto [kept, inserted] = s.weights.try_emplace({weights, &c});
  void *copy = kept->second.reserve(c.weightBytes);
  if (!inserted)
    return copy;
  if (!bind(c.weights, copy) || !bind(c.userWeights, weights) ||
      !reorder(s, c.toWeights, c.userWeights, c.weights, "weights reorder")) {
    s.weights.erase(kept);
    return nullptr;
  }
  return copy;
}

/// The buffers an epilogue's steps read.
struct EpilogueOperands {
  const placer_memref1_f32 *bias = nullptr;
  const placer_memref4_f32 *residual = nullptr;
};

/// v after `steps`, one element at a time: the epilogue where oneDNN took
/// none of it.
float applyEpilogue(const std::vector<Step> &steps, float v, float bias,
                    float residual) {
  for (const Step &step : steps) {
    switch (step.kind) {
    case PLACER_EPILOGUE_BIAS:
      v += bias;
      break;
    case PLACER_EPILOGUE_RESIDUAL:
      v += residual;
      break;
    case PLACER_EPILOGUE_LINEAR:
      v = step.alpha * v + step.beta;
      break;
    case PLACER_EPILOGUE_CLIP:
      v = std::min(std::max(v, step.alpha), step.beta);
      break;
    case PLACER_EPILOGUE_HARDSWISH:
      v = v * std::min(std::max(v / 6.0f + 0.5f, 0.0f), 1.0f);
      break;
    case PLACER_EPILOGUE_SIGMOID:
      v = 1.0f / (1.0f + std::exp(-v));
      break;
    case PLACER_EPILOGUE_SWISH:
      v = v / (1.0f + std::exp(-v));
      break;
    }
  }
  return v;
}

void applyEpilogue(const placer_memref4_f32 &y, const std::vector<Step> &steps,
                   const EpilogueOperands &operands) {
  const placer_memref1_f32 *bias = operands.bias;
  const placer_memref4_f32 *residual = operands.residual;
  for (int64_t n = 0; n < y.sizes[0]; ++n)
    for (int64_t c = 0; c < y.sizes[1]; ++c) {
      float b = bias ? dataOf(*bias)[c * bias->strides[0]] : 0.0f;
      for (int64_t h = 0; h < y.sizes[2]; ++h)
        for (int64_t w = 0; w < y.sizes[3]; ++w) {
          float &v = dataOf(y)[n * y.strides[0] + c * y.strides[1] +
                               h * y.strides[2] + w * y.strides[3]];
          float r = residual ? dataOf(*residual)[n * residual->strides[0] +
                                                 c * residual->strides[1] +
                                                 h * residual->strides[2] +
                                                 w * residual->strides[3]]
                             : 0.0f;
          v = applyEpilogue(steps, v, b, r);
        }
    }
}

/// y (+)= conv(x, w), then `epilogue` (empty when accumulating).
void convolve(placer_memref4_f32 *x, placer_memref4_f32 *w,
              placer_memref4_f32 *y, int64_t strideH, int64_t strideW,
              int64_t padH, int64_t padW, int64_t dilationH, int64_t dilationW,
              int64_t groups, int32_t accumulate, int32_t constantWeights,
              std::vector<Step> epilogue, const EpilogueOperands &operands) {
  int64_t channels = x->sizes[1], filters = w->sizes[0];
  if (groups < 1 || channels != w->sizes[1] * groups ||
      filters % groups != 0 || y->sizes[1] != filters ||
      y->sizes[0] != x->sizes[0] || strideH < 1 || strideW < 1 ||
      dilationH < 1 || dilationW < 1 || padH < 0 || padW < 0) {
    recordError("placer_cpu_conv2d_f32: input " + describe(*x) +
                ", weights " + describe(*w) + ", output " + describe(*y) +
                " and " + std::to_string(groups) +
                " groups do not make a convolution");
    return;
  }
  // Rows and columns after the input that the output needs (its padding
  // on that side); where it needs fewer than the input has, the input is
  // read as if it ended there.
  ConvShape shape;
  int64_t extent[2] = {x->sizes[2], x->sizes[3]};
  int64_t pads[2] = {padH, padW}, strides[2] = {strideH, strideW},
          dilations[2] = {dilationH, dilationW};
  for (int d = 0; d < 2; ++d) {
    int64_t needed = (y->sizes[2 + d] - 1) * strides[d] +
                     (w->sizes[2 + d] - 1) * dilations[d] + 1;
    int64_t after = needed - extent[d] - pads[d];
    if (after < 0) {
      extent[d] += after;
      after = 0;
    }
    if (extent[d] < 1) {
      recordError("placer_cpu_conv2d_f32: output " + describe(*y) +
                  " reads no row or column of input " + describe(*x));
      return;
    }
    shape.strides[d] = strides[d];
    shape.dilations[d] = dilations[d] - 1; // oneDNN: 0 = no dilation
    shape.padLeft[d] = pads[d];
    shape.padRight[d] = after;
  }
  const int64_t srcDims[4] = {x->sizes[0], channels, extent[0], extent[1]};
  for (int i = 0; i < 4; ++i) {
    shape.srcDims[i] = srcDims[i];
    shape.srcStrides[i] = x->strides[i];
    shape.dstDims[i] = y->sizes[i];
    shape.dstStrides[i] = y->strides[i];
  }
  if (groups == 1) {
    for (int i = 0; i < 4; ++i) {
      shape.weightDims[i] = w->sizes[i];
      shape.weightStrides[i] = w->strides[i];
    }
  } else {
    // [F, C/G, KH, KW] as [G, F/G, C/G, KH, KW].
    shape.weightRank = 5;
    shape.weightDims[0] = groups;
    shape.weightStrides[0] = filters / groups * w->strides[0];
    shape.weightDims[1] = filters / groups;
    for (int i = 0; i < 4; ++i) {
      if (i > 0)
        shape.weightDims[1 + i] = w->sizes[i];
      shape.weightStrides[1 + i] = w->strides[i];
    }
  }
  shape.accumulate = accumulate != 0;
  shape.epilogue = std::move(epilogue);
  if (shape.hasBias())
    shape.biasStride = operands.bias->strides[0];
  if (shape.hasResidual())
    for (int i = 0; i < 4; ++i)
      shape.residualStrides[i] = operands.residual->strides[i];
  for (int64_t size : y->sizes)
    if (size == 0)
      return;

  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!ensureEngine(s))
    return;
  std::vector<int64_t> key = shape.key();
  auto found = s.convolutions.find(key);
  if (found == s.convolutions.end()) {
    std::unique_ptr<Convolution> created = createConvolution(s, shape);
    if (!created)
      return;
    found = s.convolutions.emplace(key, std::move(created)).first;
  }
  Convolution &c = *found->second;

  void *weights = weightsFor(s, c, dataOf(*w), constantWeights != 0);
  if (!weights || !bind(c.weights, weights))
    return;

  dnnl_memory_t src = c.userSrc, dst = c.userDst;
  if (!bind(c.userSrc, dataOf(*x)) || !bind(c.userDst, dataOf(*y)))
    return;
  if (c.toSrc) {
    if (!bind(c.src, s.srcScratch.reserve(c.srcBytes)) ||
        !reorder(s, c.toSrc, c.userSrc, c.src, "input reorder"))
      return;
    src = c.src;
  }
  if (c.fromDst) {
    if (!bind(c.dst, s.dstScratch.reserve(c.dstBytes)) ||
        (accumulate && !reorder(s, c.toDst, c.userDst, c.dst, "output reorder")))
      return;
    dst = c.dst;
  }
  std::vector<dnnl_exec_arg_t> args = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, c.weights}, {DNNL_ARG_DST, dst}};
  if (c.bias) {
    if (!bind(c.bias, dataOf(*operands.bias)))
      return;
    args.push_back({DNNL_ARG_BIAS, c.bias});
  }
  if (c.residual) {
    if (!bind(c.residual, dataOf(*operands.residual)))
      return;
    args.push_back(
        {DNNL_ARG_ATTR_MULTIPLE_POST_OP(c.residualPostOp) | DNNL_ARG_SRC_1,
         c.residual});
  }
  if (!execute(s, c.conv, args, "convolution") ||
      !reorder(s, c.fromDst, c.dst, c.userDst, "output reorder"))
    return;
  if (c.epilogueByHand)
    applyEpilogue(*y, shape.epilogue, operands);
}

} // namespace

extern "C" void _mlir_ciface_placer_cpu_conv2d_f32(
    placer_memref4_f32 *x, placer_memref4_f32 *w, placer_memref4_f32 *y,
    int64_t strideH, int64_t strideW, int64_t padH, int64_t padW,
    int64_t dilationH, int64_t dilationW, int64_t groups, int32_t accumulate,
    int32_t constantWeights) {
  convolve(x, w, y, strideH, strideW, padH, padW, dilationH, dilationW, groups,
           accumulate, constantWeights, {}, {});
}

extern "C" void _mlir_ciface_placer_cpu_conv2d_epilogue_f32(
    placer_memref4_f32 *x, placer_memref4_f32 *w, placer_memref4_f32 *y,
    placer_memref1_f32 *bias, placer_memref4_f32 *residual,
    placer_memref1_f32 *steps, int64_t strideH, int64_t strideW, int64_t padH,
    int64_t padW, int64_t dilationH, int64_t dilationW, int64_t groups,
    int32_t constantWeights) {
  // The steps, checked against what they read.
  std::vector<Step> epilogue;
  EpilogueOperands operands;
  std::string problem;
  if (steps->sizes[0] % 3 != 0)
    problem = "has " + std::to_string(steps->sizes[0]) +
              " numbers, not triples (kind, alpha, beta)";
  for (int64_t i = 0; problem.empty() && i + 2 < steps->sizes[0]; i += 3) {
    const float *triple = dataOf(*steps) + i * steps->strides[0];
    int64_t stride = steps->strides[0];
    Step step{static_cast<int>(triple[0]), triple[stride], triple[2 * stride]};
    std::string where = "step " + std::to_string(i / 3);
    if (static_cast<float>(step.kind) != triple[0] ||
        step.kind < PLACER_EPILOGUE_BIAS || step.kind > PLACER_EPILOGUE_SWISH)
      problem = where + " has no kind " + std::to_string(triple[0]);
    else if (step.kind == PLACER_EPILOGUE_BIAS && i != 0)
      problem = where + " adds the bias, which only the first step may";
    else if (step.kind == PLACER_EPILOGUE_BIAS && bias->sizes[0] != w->sizes[0])
      problem = where + " adds bias " + describe(*bias) + " to " +
                std::to_string(w->sizes[0]) + " channels";
    else if (step.kind == PLACER_EPILOGUE_RESIDUAL &&
             !std::equal(std::begin(y->sizes), std::end(y->sizes),
                         std::begin(residual->sizes)))
      problem = where + " adds residual " + describe(*residual) +
                " to output " + describe(*y);
    if (step.kind == PLACER_EPILOGUE_BIAS)
      operands.bias = bias;
    if (step.kind == PLACER_EPILOGUE_RESIDUAL)
      operands.residual = residual;
    // Two linear steps as one: oneDNN 2.6 computes two linear post-ops in
    // a row wrongly (measured: x / 6 then + 0.5 off by up to 2.7).
    if (step.kind == PLACER_EPILOGUE_LINEAR && !epilogue.empty() &&
        epilogue.back().kind == PLACER_EPILOGUE_LINEAR) {
      Step &last = epilogue.back();
      last.beta = step.alpha * last.beta + step.beta;
      last.alpha *= step.alpha;
      continue;
    }
    epilogue.push_back(step);
  }
  if (!problem.empty()) {
    recordError("placer_cpu_conv2d_epilogue_f32: the epilogue " + problem);
    return;
  }
  convolve(x, w, y, strideH, strideW, padH, padW, dilationH, dilationW, groups,
           0, constantWeights, std::move(epilogue), operands);
}

namespace {

/// A product call's dimensions: per batch, op(A) is M x K, op(B) K x N and C
/// M x N, each matrix's rows `ld*` elements apart.
struct ProductShape {
  int64_t batch = 0, m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
};

/// The shape of `function`'s call on `a`, `b`, `c`, or std::nullopt (after
/// recording why) when they make no product or their rows are strided.
template <typename MemRefA, typename MemRefB>
std::optional<ProductShape>
getProductShape(const char *function, const MemRefA &a, const MemRefB &b,
                const placer_memref3_f32 &c, bool transA, bool transB) {
  ProductShape shape;
  shape.batch = c.sizes[0];
  shape.m = c.sizes[1];
  shape.n = c.sizes[2];
  shape.k = transA ? a.sizes[1] : a.sizes[2];
  bool shapesAgree = a.sizes[transA ? 2 : 1] == shape.m &&
                     b.sizes[transB ? 2 : 1] == shape.k &&
                     b.sizes[transB ? 1 : 2] == shape.n &&
                     (a.sizes[0] == shape.batch || a.sizes[0] == 1) &&
                     (b.sizes[0] == shape.batch || b.sizes[0] == 1);
  bool unitRows = a.strides[2] == 1 && b.strides[2] == 1 && c.strides[2] == 1;
  if (!shapesAgree || !unitRows) {
    recordError(
        std::string(function) + ": " + describe(a) + (transA ? "^T" : "") +
        " x " + describe(b) + (transB ? "^T" : "") + " -> " + describe(c) +
        (shapesAgree ? " with rows of non-unit stride" : " is not a product"));
    return std::nullopt;
  }
  // A leading dimension must cover a row even where there is one row.
  auto leading = [](const auto &x) -> int64_t {
    return x.strides[1] > x.sizes[2] ? x.strides[1]
                                     : (x.sizes[2] > 0 ? x.sizes[2] : 1);
  };
  shape.lda = leading(a);
  shape.ldb = leading(b);
  shape.ldc = leading(c);
  // A shared B and batches of A and C laid out as one taller matrix each
  // (a [197, 1, 768] sequence times a [768, 2304] weight): one product of
  // batch * m rows rather than a matrix-vector product per batch, each
  // reading all of B (ViT-B/16's projections: 50 ms to 2 ms).
  if (shape.batch > 1 && b.sizes[0] == 1 && a.sizes[0] == shape.batch &&
      !transA && a.strides[0] == shape.m * shape.lda &&
      c.strides[0] == shape.m * shape.ldc) {
    shape.m *= shape.batch;
    shape.batch = 1;
  }
  return shape;
}

} // namespace

extern "C" void
_mlir_ciface_placer_cpu_matmul_f32(placer_memref3_f32 *a, placer_memref3_f32 *b,
                                   placer_memref3_f32 *c, int32_t transA,
                                   int32_t transB, int32_t accumulate) {
  std::optional<ProductShape> shape =
      getProductShape("placer_cpu_matmul_f32", *a, *b, *c, transA, transB);
  if (!shape || shape->m == 0 || shape->n == 0)
    return;
  auto [batch, m, n, k, lda, ldb, ldc] = *shape;
  for (int64_t i = 0; i < batch; ++i) {
    const float *aData =
        dataOf(*a) + (a->sizes[0] == 1 ? 0 : i * a->strides[0]);
    const float *bData =
        dataOf(*b) + (b->sizes[0] == 1 ? 0 : i * b->strides[0]);
    float *cData = dataOf(*c) + i * c->strides[0];
    if (k == 0) {
      if (!accumulate)
        for (int64_t r = 0; r < m; ++r)
          std::memset(cData + r * c->strides[1], 0, n * sizeof(float));
      continue;
    }
    if (!check(dnnl_sgemm(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, 1.0f,
                          aData, lda, bData, ldb, accumulate ? 1.0f : 0.0f,
                          cData, ldc),
               "sgemm"))
      return;
  }
}

namespace {

/// Whether oneDNN runs bfloat16 products on the CPU's own bf16 instructions
/// (AVX512-BF16 or AMX; its ISA levels include the ones below them).
bool hasNativeBf16() {
  return (dnnl_get_effective_cpu_isa() & dnnl_cpu_isa_avx512_core_bf16) ==
         dnnl_cpu_isa_avx512_core_bf16;
}

float widen(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

void destroy(HalfProduct &p) {
  if (p.matmul)
    dnnl_primitive_destroy(p.matmul);
  for (dnnl_memory_t m : {p.a, p.b, p.c})
    if (m)
      dnnl_memory_destroy(m);
}

/// The primitive of C (+)= op(A) op(B) for one matrix of each, A and B
/// bf16 with leading dimensions lda and ldb, C f32 with ldc.
HalfProduct *getHalfProduct(State &s, int64_t m, int64_t n, int64_t k,
                            int64_t lda, int64_t ldb, int64_t ldc, bool transA,
                            bool transB, bool accumulate) {
  std::vector<int64_t> key = {m,   n,      k,      lda,       ldb,
                              ldc, transA, transB, accumulate};
  auto found = s.halfProducts.find(key);
  if (found != s.halfProducts.end())
    return found->second.get();
  if (!ensureEngine(s))
    return nullptr;
  dnnl_dims_t aDims = {m, k}, bDims = {k, n}, cDims = {m, n};
  dnnl_dims_t aStrides = {transA ? 1 : lda, transA ? lda : 1};
  dnnl_dims_t bStrides = {transB ? 1 : ldb, transB ? ldb : 1};
  dnnl_dims_t cStrides = {ldc, 1};
  dnnl_memory_desc_t aDesc, bDesc, cDesc;
  if (!check(dnnl_memory_desc_init_by_strides(&aDesc, 2, aDims, dnnl_bf16,
                                              aStrides),
             "a bf16 product's A") ||
      !check(dnnl_memory_desc_init_by_strides(&bDesc, 2, bDims, dnnl_bf16,
                                              bStrides),
             "a bf16 product's B") ||
      !check(dnnl_memory_desc_init_by_strides(&cDesc, 2, cDims, dnnl_f32,
                                              cStrides),
             "a bf16 product's C"))
    return nullptr;
  dnnl_matmul_desc_t desc;
  if (!check(dnnl_matmul_desc_init(&desc, &aDesc, &bDesc, nullptr, &cDesc),
             "a bf16 product"))
    return nullptr;
  dnnl_primitive_attr_t attr = nullptr;
  if (accumulate) {
    dnnl_post_ops_t ops = nullptr;
    bool ok =
        check(dnnl_primitive_attr_create(&attr), "a bf16 product") &&
        check(dnnl_post_ops_create(&ops), "a bf16 product") &&
        check(dnnl_post_ops_append_sum(ops, 1.0f), "a bf16 product") &&
        check(dnnl_primitive_attr_set_post_ops(attr, ops), "a bf16 product");
    if (ops)
      dnnl_post_ops_destroy(ops);
    if (!ok) {
      if (attr)
        dnnl_primitive_attr_destroy(attr);
      return nullptr;
    }
  }
  dnnl_primitive_desc_t pd = nullptr;
  bool made =
      check(dnnl_primitive_desc_create(&pd, &desc, attr, s.engine, nullptr),
            "a bf16 product");
  if (attr)
    dnnl_primitive_attr_destroy(attr);
  if (!made)
    return nullptr;
  auto product = std::make_unique<HalfProduct>();
  bool ok =
      check(dnnl_primitive_create(&product->matmul, pd), "a bf16 product") &&
      makeMemory(s, aDesc, product->a) && makeMemory(s, bDesc, product->b) &&
      makeMemory(s, cDesc, product->c);
  dnnl_primitive_desc_destroy(pd);
  if (!ok) {
    destroy(*product);
    return nullptr;
  }
  return s.halfProducts.emplace(key, std::move(product)).first->second.get();
}

/// `rows` x `cols` of bf16 `from` (leading dimension `ld`) as dense f32.
float *widenMatrix(Buffer &scratch, const uint16_t *from, int64_t rows,
                   int64_t cols, int64_t ld) {
  auto *to = static_cast<float *>(
      scratch.reserve(static_cast<size_t>(rows * cols) * sizeof(float)));
  if (!to)
    return nullptr;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      to[r * cols + c] = widen(from[r * ld + c]);
  return to;
}

} // namespace

extern "C" void _mlir_ciface_placer_cpu_matmul_bf16(
    placer_memref3_bf16 *a, placer_memref3_bf16 *b, placer_memref3_f32 *c,
    int32_t transA, int32_t transB, int32_t accumulate) {
  std::optional<ProductShape> shape =
      getProductShape("placer_cpu_matmul_bf16", *a, *b, *c, transA, transB);
  if (!shape || shape->m == 0 || shape->n == 0)
    return;
  auto [batch, m, n, k, lda, ldb, ldc] = *shape;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  HalfProduct *product = k > 0 && hasNativeBf16()
                             ? getHalfProduct(s, m, n, k, lda, ldb, ldc, transA,
                                              transB, accumulate)
                             : nullptr;
  for (int64_t i = 0; i < batch; ++i) {
    const uint16_t *aData =
        a->aligned + a->offset + (a->sizes[0] == 1 ? 0 : i * a->strides[0]);
    const uint16_t *bData =
        b->aligned + b->offset + (b->sizes[0] == 1 ? 0 : i * b->strides[0]);
    float *cData = dataOf(*c) + i * c->strides[0];
    if (k == 0) {
      if (!accumulate)
        for (int64_t r = 0; r < m; ++r)
          std::memset(cData + r * c->strides[1], 0, n * sizeof(float));
      continue;
    }
    if (product) {
      if (!bind(product->a, const_cast<uint16_t *>(aData)) ||
          !bind(product->b, const_cast<uint16_t *>(bData)) ||
          !bind(product->c, cData) ||
          !execute(s, product->matmul,
                   {{DNNL_ARG_SRC, product->a},
                    {DNNL_ARG_WEIGHTS, product->b},
                    {DNNL_ARG_DST, product->c}},
                   "a bf16 product"))
        return;
      continue;
    }
    // Without bf16 kernels: both operands widened (exactly) for SGEMM.
    int64_t aRows = a->sizes[1], aCols = a->sizes[2];
    int64_t bRows = b->sizes[1], bCols = b->sizes[2];
    if (batch == 1 && m != c->sizes[1]) // the stacked rows above
      aRows = m;
    float *wideA = widenMatrix(s.srcScratch, aData, aRows, aCols, lda);
    float *wideB = widenMatrix(s.weightScratch, bData, bRows, bCols, ldb);
    if (!wideA || !wideB) {
      recordError("out of memory for a bf16 product's widened operands");
      return;
    }
    if (!check(dnnl_sgemm(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, 1.0f,
                          wideA, aCols, wideB, bCols, accumulate ? 1.0f : 0.0f,
                          cData, ldc),
               "sgemm"))
      return;
  }
}

extern "C" int placer_cpu_native_bf16(void) { return hasNativeBf16() ? 1 : 0; }

extern "C" int placer_cpu_library_take_error(char *buffer, size_t size) {
  ErrorSlot &slot = errorSlot();
  std::lock_guard<std::mutex> lock(slot.mutex);
  if (slot.message.empty())
    return 0;
  if (buffer && size > 0) {
    size_t length = slot.message.size() < size - 1 ? slot.message.size()
                                                   : size - 1;
    std::memcpy(buffer, slot.message.data(), length);
    buffer[length] = '\0';
  }
  slot.message.clear();
  return 1;
}

extern "C" void placer_cpu_library_release(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto &entry : s.convolutions)
    destroy(*entry.second);
  s.convolutions.clear();
  for (auto &entry : s.halfProducts)
    destroy(*entry.second);
  s.halfProducts.clear();
  s.weights.clear();
}
