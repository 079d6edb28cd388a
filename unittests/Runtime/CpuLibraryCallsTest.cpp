//===- CpuLibraryCallsTest.cpp - libplacer_rt's oneDNN calls --------------===//
//
// placer_cpu_conv2d_f32 and placer_cpu_matmul_f32 against plain loops in
// double precision: padding (both sides and the side the output needs),
// strides, dilations, groups and depthwise, accumulate and overwrite, kept
// weights, strided views; products with every transpose, a broadcast
// operand, accumulation and leading dimensions wider than a row; bad
// shapes recorded as errors, not crashes.
//
//===----------------------------------------------------------------------===//

#include "placer/Runtime/CpuLibraryCalls.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

/// Deterministic values in [-1, 1).
std::vector<float> values(size_t n, unsigned seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (float &x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return v;
}

placer_memref4_f32 view4(std::vector<float> &data, std::array<int64_t, 4> sizes,
                         int64_t offset = 0) {
  placer_memref4_f32 m;
  m.allocated = m.aligned = data.data();
  m.offset = offset;
  int64_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    m.sizes[i] = sizes[i];
    m.strides[i] = stride;
    stride *= sizes[i];
  }
  return m;
}

float &at(const placer_memref4_f32 &m, int64_t a, int64_t b, int64_t c,
          int64_t d) {
  return m.aligned[m.offset + a * m.strides[0] + b * m.strides[1] +
                   c * m.strides[2] + d * m.strides[3]];
}

struct ConvParams {
  int64_t stride = 1, pad = 0, dilation = 1, groups = 1;
};

/// y (+)= conv(x, w) by loops, in double.
std::vector<double> referenceConv(const placer_memref4_f32 &x,
                                  const placer_memref4_f32 &w,
                                  const placer_memref4_f32 &y,
                                  const ConvParams &p, bool accumulate) {
  int64_t n = y.sizes[0], f = y.sizes[1], oh = y.sizes[2], ow = y.sizes[3];
  int64_t cg = w.sizes[1], fg = f / p.groups;
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < f; ++o)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double sum = accumulate ? at(y, b, o, i, j) : 0.0;
          int64_t g = o / fg;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t r = 0; r < w.sizes[2]; ++r)
              for (int64_t s = 0; s < w.sizes[3]; ++s) {
                int64_t h = i * p.stride + r * p.dilation - p.pad;
                int64_t v = j * p.stride + s * p.dilation - p.pad;
                if (h < 0 || v < 0 || h >= x.sizes[2] || v >= x.sizes[3])
                  continue;
                sum += static_cast<double>(at(x, b, g * cg + c, h, v)) *
                       at(w, o, c, r, s);
              }
          out.push_back(sum);
        }
  return out;
}

std::string takeError() {
  char buffer[512];
  return placer_cpu_library_take_error(buffer, sizeof(buffer)) ? buffer : "";
}

void expectNear(const placer_memref4_f32 &y, const std::vector<double> &want) {
  size_t k = 0;
  for (int64_t a = 0; a < y.sizes[0]; ++a)
    for (int64_t b = 0; b < y.sizes[1]; ++b)
      for (int64_t c = 0; c < y.sizes[2]; ++c)
        for (int64_t d = 0; d < y.sizes[3]; ++d, ++k)
          ASSERT_NEAR(at(y, a, b, c, d), want[k], 1e-4 * (1 + std::fabs(want[k])))
              << "at [" << a << ", " << b << ", " << c << ", " << d << "]";
}

placer_memref4_f32 nhwcView4(std::vector<float> &data,
                             std::array<int64_t, 4> sizes);

/// Runs one convolution call (on N C H W views of NHWC data with `nhwc`)
/// and compares it with the loops.
void checkConv(std::array<int64_t, 4> xSizes, std::array<int64_t, 4> wSizes,
               const ConvParams &p, bool accumulate, bool constant,
               bool nhwc = false) {
  auto outSize = [&](int d) {
    return (xSizes[2 + d] + 2 * p.pad - p.dilation * (wSizes[2 + d] - 1) - 1) /
               p.stride +
           1;
  };
  std::array<int64_t, 4> ySizes = {xSizes[0], wSizes[0], outSize(0),
                                   outSize(1)};
  std::vector<float> xData = values(xSizes[0] * xSizes[1] * xSizes[2] * xSizes[3], 1);
  std::vector<float> wData = values(wSizes[0] * wSizes[1] * wSizes[2] * wSizes[3], 2);
  std::vector<float> yData = values(ySizes[0] * ySizes[1] * ySizes[2] * ySizes[3], 3);
  auto activation =
      nhwc ? nhwcView4 : [](std::vector<float> &d, std::array<int64_t, 4> s) {
        return view4(d, s);
      };
  placer_memref4_f32 x = activation(xData, xSizes), w = view4(wData, wSizes),
                     y = activation(yData, ySizes);
  std::vector<double> want = referenceConv(x, w, y, p, accumulate);
  // Twice: the second call finds the primitive (and kept weights) again.
  for (int round = 0; round < 2; ++round) {
    std::vector<float> fresh = values(yData.size(), 3);
    yData = fresh;
    _mlir_ciface_placer_cpu_conv2d_f32(&x, &w, &y, p.stride, p.stride, p.pad,
                                       p.pad, p.dilation, p.dilation, p.groups,
                                       accumulate, constant);
    ASSERT_EQ(takeError(), "");
    expectNear(y, want);
  }
}

TEST(CpuLibraryCalls, Convolutions) {
  checkConv({1, 3, 10, 10}, {8, 3, 3, 3}, {2, 0, 1, 1}, false, true);
  checkConv({2, 4, 9, 9}, {6, 4, 3, 3}, {1, 1, 1, 1}, true, false);
  checkConv({1, 4, 11, 11}, {5, 4, 3, 3}, {1, 2, 2, 1}, false, true);
  checkConv({1, 3, 12, 12}, {4, 3, 7, 7}, {2, 3, 1, 1}, false, true);
  // The output needs fewer columns than the input has (stride 2 over 10).
  checkConv({1, 2, 10, 10}, {2, 2, 3, 3}, {2, 0, 1, 1}, false, false);
  // Grouped and depthwise.
  checkConv({1, 8, 7, 7}, {12, 2, 3, 3}, {1, 1, 1, 4}, false, true);
  checkConv({2, 16, 8, 8}, {16, 1, 3, 3}, {2, 1, 1, 16}, true, true);
}

TEST(CpuLibraryCalls, KeptWeightsAreForgottenOnRelease) {
  // Constant weights are kept by address: a release forgets them, so new
  // values at the same address are read again.
  std::vector<float> xData = values(1 * 2 * 5 * 5, 4), wData(3 * 2 * 3 * 3, 1.0f),
                     yData(1 * 3 * 3 * 3);
  placer_memref4_f32 x = view4(xData, {1, 2, 5, 5}), w = view4(wData, {3, 2, 3, 3}),
                     y = view4(yData, {1, 3, 3, 3});
  _mlir_ciface_placer_cpu_conv2d_f32(&x, &w, &y, 1, 1, 0, 0, 1, 1, 1, 0, 1);
  ASSERT_EQ(takeError(), "");
  expectNear(y, referenceConv(x, w, y, {}, false));
  placer_cpu_library_release();
  for (float &v : wData)
    v = 2.0f;
  _mlir_ciface_placer_cpu_conv2d_f32(&x, &w, &y, 1, 1, 0, 0, 1, 1, 1, 0, 1);
  ASSERT_EQ(takeError(), "");
  expectNear(y, referenceConv(x, w, y, {}, false));
}

TEST(CpuLibraryCalls, StridedViews) {
  // The centre of a larger buffer as the input, a channel slice as the
  // output: oneDNN reads and writes them in place.
  std::vector<float> big = values(1 * 4 * 12 * 12, 5);
  placer_memref4_f32 x = view4(big, {1, 4, 12, 12});
  x.sizes[2] = x.sizes[3] = 8;
  x.offset = 2 * 12 + 2;
  std::vector<float> wData = values(3 * 4 * 3 * 3, 6);
  placer_memref4_f32 w = view4(wData, {3, 4, 3, 3});
  std::vector<float> yBig(1 * 5 * 6 * 6, -7.0f);
  placer_memref4_f32 y = view4(yBig, {1, 5, 6, 6});
  y.sizes[1] = 3;
  y.offset = 36;
  std::vector<double> want = referenceConv(x, w, y, {}, false);
  _mlir_ciface_placer_cpu_conv2d_f32(&x, &w, &y, 1, 1, 0, 0, 1, 1, 1, 0, 0);
  ASSERT_EQ(takeError(), "");
  expectNear(y, want);
  // Channels outside the slice are untouched.
  EXPECT_EQ(yBig[0], -7.0f);
  EXPECT_EQ(yBig.back(), -7.0f);
}

TEST(CpuLibraryCalls, BadConvolutionIsAnError) {
  std::vector<float> data(64);
  placer_memref4_f32 x = view4(data, {1, 3, 4, 4}), w = view4(data, {2, 2, 1, 1}),
                     y = view4(data, {1, 2, 4, 4});
  _mlir_ciface_placer_cpu_conv2d_f32(&x, &w, &y, 1, 1, 0, 0, 1, 1, 1, 0, 0);
  std::string error = takeError();
  EXPECT_NE(error.find("do not make a convolution"), std::string::npos) << error;
  EXPECT_NE(error.find("[1, 3, 4, 4]"), std::string::npos) << error;
  EXPECT_EQ(takeError(), "");
}

//===----------------------------------------------------------------------===//
// Epilogues
//===----------------------------------------------------------------------===//

/// An N C H W view of channels-last (NHWC) data.
placer_memref4_f32 nhwcView4(std::vector<float> &data,
                             std::array<int64_t, 4> sizes) {
  placer_memref4_f32 m = view4(data, sizes);
  m.strides[1] = 1;
  m.strides[3] = sizes[1];
  m.strides[2] = sizes[3] * sizes[1];
  m.strides[0] = sizes[2] * sizes[3] * sizes[1];
  return m;
}

placer_memref1_f32 view1(std::vector<float> &data) {
  placer_memref1_f32 m;
  m.allocated = m.aligned = data.data();
  m.offset = 0;
  m.sizes[0] = static_cast<int64_t>(data.size());
  m.strides[0] = 1;
  return m;
}

/// `conv` (in y's element order) after the epilogue `steps`, in double.
std::vector<double> referenceEpilogue(std::vector<double> conv,
                                      const placer_memref4_f32 &y,
                                      const std::vector<float> &steps,
                                      const std::vector<float> &bias,
                                      const placer_memref4_f32 &residual) {
  size_t k = 0;
  for (int64_t a = 0; a < y.sizes[0]; ++a)
    for (int64_t b = 0; b < y.sizes[1]; ++b)
      for (int64_t c = 0; c < y.sizes[2]; ++c)
        for (int64_t d = 0; d < y.sizes[3]; ++d, ++k) {
          double &v = conv[k];
          for (size_t i = 0; i + 2 < steps.size(); i += 3) {
            double alpha = steps[i + 1], beta = steps[i + 2];
            switch (static_cast<int>(steps[i])) {
            case PLACER_EPILOGUE_BIAS:
              v += bias[b];
              break;
            case PLACER_EPILOGUE_RESIDUAL:
              v += at(residual, a, b, c, d);
              break;
            case PLACER_EPILOGUE_LINEAR:
              v = alpha * v + beta;
              break;
            case PLACER_EPILOGUE_CLIP:
              v = std::min(std::max(v, alpha), beta);
              break;
            case PLACER_EPILOGUE_HARDSWISH:
              v = v * std::min(std::max(v / 6 + 0.5, 0.0), 1.0);
              break;
            case PLACER_EPILOGUE_SIGMOID:
              v = 1 / (1 + std::exp(-v));
              break;
            case PLACER_EPILOGUE_SWISH:
              v = v / (1 + std::exp(-v));
              break;
            }
          }
        }
  return conv;
}

/// One epilogue call on NHWC buffers (or NCHW ones) against the loops,
/// twice (the second finds the primitive again).
void checkEpilogue(std::array<int64_t, 4> xSizes, std::array<int64_t, 4> wSizes,
                   int64_t groups, std::vector<float> steps, bool nhwc = true,
                   ConvParams p = {}) {
  p.groups = groups;
  auto outSize = [&](int d) {
    return (xSizes[2 + d] + 2 * p.pad - p.dilation * (wSizes[2 + d] - 1) - 1) /
               p.stride +
           1;
  };
  std::array<int64_t, 4> ySizes = {xSizes[0], wSizes[0], outSize(0),
                                   outSize(1)};
  auto count = [](std::array<int64_t, 4> s) {
    return s[0] * s[1] * s[2] * s[3];
  };
  std::vector<float> xData = values(count(xSizes), 11),
                     wData = values(count(wSizes), 12),
                     rData = values(count(ySizes), 13),
                     bias = values(wSizes[0], 14), yData(count(ySizes));
  // Inputs of a few units: clamps and HardSwish's bends are crossed.
  for (float &v : xData)
    v *= 4.0f;
  auto view =
      nhwc ? nhwcView4 : [](std::vector<float> &d, std::array<int64_t, 4> s) {
        return view4(d, s);
      };
  placer_memref4_f32 x = view(xData, xSizes), w = view4(wData, wSizes),
                     y = view(yData, ySizes), r = view(rData, ySizes);
  placer_memref1_f32 b = view1(bias), table = view1(steps);
  std::vector<double> want =
      referenceEpilogue(referenceConv(x, w, y, p, false), y, steps, bias, r);
  for (int round = 0; round < 2; ++round) {
    std::fill(yData.begin(), yData.end(), -3.0f);
    _mlir_ciface_placer_cpu_conv2d_epilogue_f32(
        &x, &w, &y, &b, &r, &table, p.stride, p.stride, p.pad, p.pad,
        p.dilation, p.dilation, groups, 1);
    ASSERT_EQ(takeError(), "");
    expectNear(y, want);
  }
}

TEST(CpuLibraryCalls, Epilogues) {
  const float inf = INFINITY;
  // Bias and ReLU6 (MobileNet-V2), bias and ReLU (ResNet).
  checkEpilogue({1, 8, 5, 5}, {16, 8, 1, 1}, 1, {1, 0, 0, 4, 0, 6});
  checkEpilogue({2, 4, 6, 6}, {8, 4, 3, 3}, 1, {1, 0, 0, 4, 0, inf});
  // HardSwish after a bias; a depthwise convolution's.
  checkEpilogue({1, 8, 5, 5}, {8, 8, 1, 1}, 1, {1, 0, 0, 5, 0, 0});
  checkEpilogue({1, 16, 6, 6}, {16, 1, 3, 3}, 16, {1, 0, 0, 5, 0, 0});
  // SiLU after a bias (EfficientNet), on a depthwise convolution too; a
  // sigmoid.
  checkEpilogue({1, 8, 5, 5}, {16, 8, 1, 1}, 1, {1, 0, 0, 7, 0, 0});
  checkEpilogue({1, 16, 6, 6}, {16, 1, 3, 3}, 16, {1, 0, 0, 7, 0, 0});
  checkEpilogue({2, 4, 6, 6}, {8, 4, 3, 3}, 1, {1, 0, 0, 6, 0, 0});
  // HardSigmoid as two linear steps and a clamp (taken as one linear step:
  // oneDNN 2.6 gets two in a row wrong).
  checkEpilogue({1, 8, 5, 5}, {16, 8, 1, 1}, 1,
                {3, 1.0f / 6, 0, 3, 1, 0.5f, 4, 0, 1});
  // A residual and a ReLU after the bias: post-ops on NHWC buffers, by
  // hand on NCHW ones.
  checkEpilogue({1, 8, 5, 5}, {16, 8, 1, 1}, 1, {1, 0, 0, 2, 0, 0, 4, 0, inf});
  checkEpilogue({1, 8, 5, 5}, {16, 8, 1, 1}, 1, {1, 0, 0, 2, 0, 0, 4, 0, inf},
                /*nhwc=*/false);
  // No steps: the convolution alone.
  checkEpilogue({1, 8, 5, 5}, {16, 8, 1, 1}, 1, {});
}

// Depthwise convolutions (EfficientNet's, MobileNet's) with epilogues:
// channel counts that are no multiple of 16, windows at the padding and
// inside, strides, dilations, every step kind oneDNN takes as a post-op.
TEST(CpuLibraryCalls, DepthwiseEpilogues) {
  const float inf = INFINITY;
  ConvParams padded{1, 1, 1, 1}, strided{2, 1, 1, 1}, wide{1, 2, 1, 1},
      dilated{1, 2, 2, 1};
  // SiLU (EfficientNet) at 144 channels over 10 columns: columns 1-8 are
  // one block.
  checkEpilogue({1, 144, 10, 10}, {144, 1, 3, 3}, 144, {1, 0, 0, 7, 0, 0}, true,
                padded);
  // 24 channels (16 + 8) with stride 2; 40 (16 + 16 + 8) with a 5x5
  // window and ReLU6; 3 channels (a partial block) dilated, with a residual
  // and ReLU.
  checkEpilogue({1, 24, 9, 9}, {24, 1, 3, 3}, 24, {1, 0, 0, 7, 0, 0}, true,
                strided);
  checkEpilogue({1, 40, 7, 12}, {40, 1, 5, 5}, 40, {1, 0, 0, 4, 0, 6}, true,
                wide);
  checkEpilogue({2, 3, 9, 9}, {3, 1, 3, 3}, 3, {1, 0, 0, 2, 0, 0, 4, 0, inf},
                true, dilated);
  // HardSwish, a sigmoid, a linear step; no bias.
  checkEpilogue({1, 20, 6, 11}, {20, 1, 3, 3}, 20, {5, 0, 0}, true, padded);
  checkEpilogue({1, 20, 6, 11}, {20, 1, 3, 3}, 20, {6, 0, 0, 3, 2, -1}, true,
                strided);
}

TEST(CpuLibraryCalls, DepthwiseConvolutions) {
  // Without an epilogue, on NHWC and NCHW data, a model's weights kept and
  // not.
  for (bool constant : {false, true})
    for (bool nhwc : {true, false}) {
      checkConv({1, 32, 11, 11}, {32, 1, 3, 3}, {2, 1, 1, 32}, false, constant,
                nhwc);
      checkConv({2, 8, 5, 5}, {8, 1, 3, 3}, {1, 1, 1, 8}, false, constant,
                nhwc);
      // Accumulating into y: oneDNN's (a sum post-op).
      checkConv({2, 8, 5, 5}, {8, 1, 3, 3}, {1, 1, 1, 8}, true, constant, nhwc);
    }
}

TEST(CpuLibraryCalls, BadEpilogueIsAnError) {
  std::vector<float> xData(1 * 4 * 3 * 3), wData(8 * 4), yData(8 * 3 * 3),
      bias(8), shortBias(3);
  placer_memref4_f32 x = view4(xData, {1, 4, 3, 3}),
                     w = view4(wData, {8, 4, 1, 1}),
                     y = view4(yData, {1, 8, 3, 3}),
                     r = view4(yData, {1, 8, 3, 3});
  placer_memref4_f32 smallR = view4(xData, {1, 4, 3, 3});
  placer_memref1_f32 b = view1(bias), sb = view1(shortBias);
  auto run = [&](std::vector<float> steps, placer_memref1_f32 &bb,
                 placer_memref4_f32 &rr) {
    placer_memref1_f32 table = view1(steps);
    std::fill(yData.begin(), yData.end(), -7.0f);
    _mlir_ciface_placer_cpu_conv2d_epilogue_f32(&x, &w, &y, &bb, &rr, &table, 1,
                                                1, 0, 0, 1, 1, 1, 0);
    EXPECT_EQ(yData[0], -7.0f) << "an output was written";
    return takeError();
  };
  EXPECT_NE(run({1, 0}, b, r).find("not triples"), std::string::npos);
  EXPECT_NE(run({9, 0, 0}, b, r).find("step 0 has no kind 9"),
            std::string::npos);
  EXPECT_NE(run({4, 0, 6, 1, 0, 0}, b, r).find("only the first step"),
            std::string::npos);
  EXPECT_NE(run({1, 0, 0}, sb, r).find("adds bias [3] to 8 channels"),
            std::string::npos);
  EXPECT_NE(run({2, 0, 0}, b, smallR)
                .find("adds residual [1, 4, 3, 3] to output [1, 8, 3, 3]"),
            std::string::npos);
}

placer_memref3_f32 view3(std::vector<float> &data, std::array<int64_t, 3> sizes,
                         int64_t rowStride = 0) {
  placer_memref3_f32 m;
  m.allocated = m.aligned = data.data();
  m.offset = 0;
  m.sizes[0] = sizes[0];
  m.sizes[1] = sizes[1];
  m.sizes[2] = sizes[2];
  m.strides[2] = 1;
  m.strides[1] = rowStride ? rowStride : sizes[2];
  m.strides[0] = m.strides[1] * sizes[1];
  return m;
}

float &at(const placer_memref3_f32 &m, int64_t a, int64_t b, int64_t c) {
  return m.aligned[m.offset + a * m.strides[0] + b * m.strides[1] +
                   c * m.strides[2]];
}

void checkMatmul(int64_t batch, int64_t m, int64_t n, int64_t k, bool transA,
                 bool transB, bool broadcastB, bool accumulate,
                 int64_t padding) {
  std::array<int64_t, 3> aSizes = {batch, transA ? k : m, transA ? m : k};
  std::array<int64_t, 3> bSizes = {broadcastB ? 1 : batch, transB ? n : k,
                                   transB ? k : n};
  std::vector<float> aData = values(batch * aSizes[1] * (aSizes[2] + padding), 7);
  std::vector<float> bData = values(bSizes[0] * bSizes[1] * (bSizes[2] + padding), 8);
  std::vector<float> cData = values(batch * m * (n + padding), 9);
  placer_memref3_f32 a = view3(aData, aSizes, aSizes[2] + padding),
                     b = view3(bData, bSizes, bSizes[2] + padding),
                     c = view3(cData, {batch, m, n}, n + padding);
  std::vector<double> want;
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t s = 0; s < n; ++s) {
        double sum = accumulate ? at(c, i, r, s) : 0.0;
        for (int64_t t = 0; t < k; ++t)
          sum += static_cast<double>(transA ? at(a, i, t, r) : at(a, i, r, t)) *
                 (transB ? at(b, broadcastB ? 0 : i, s, t)
                         : at(b, broadcastB ? 0 : i, t, s));
        want.push_back(sum);
      }
  _mlir_ciface_placer_cpu_matmul_f32(&a, &b, &c, transA, transB, accumulate);
  ASSERT_EQ(takeError(), "");
  size_t idx = 0;
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t s = 0; s < n; ++s, ++idx)
        ASSERT_NEAR(at(c, i, r, s), want[idx], 1e-4 * (1 + std::fabs(want[idx])))
            << "at [" << i << ", " << r << ", " << s << "]";
}

TEST(CpuLibraryCalls, Products) {
  for (bool transA : {false, true})
    for (bool transB : {false, true})
      checkMatmul(2, 5, 7, 9, transA, transB, false, false, 0);
  checkMatmul(3, 4, 6, 5, false, true, /*broadcastB=*/true, false, 0);
  // A shared B with batches of single rows (a sequence-first [197, 1, 768]
  // activation times a weight) and with padded rows, accumulating: one
  // product of the stacked rows.
  checkMatmul(7, 1, 6, 5, false, false, true, false, 0);
  checkMatmul(4, 3, 5, 6, false, false, true, true, /*padding=*/2);
  checkMatmul(2, 8, 3, 4, false, false, false, /*accumulate=*/true, 0);
  // Rows wider than the matrix (a slice of a fused projection), and a
  // single row.
  checkMatmul(1, 6, 5, 4, false, false, false, false, /*padding=*/3);
  checkMatmul(1, 1, 9, 5, false, true, false, false, 0);
  // An empty reduction overwrites with zeros or leaves the output.
  checkMatmul(1, 3, 4, 0, false, false, false, false, 0);
  checkMatmul(1, 3, 4, 0, false, false, false, true, 0);
}

TEST(CpuLibraryCalls, BadProductIsAnError) {
  std::vector<float> data(64);
  placer_memref3_f32 a = view3(data, {1, 2, 3}), b = view3(data, {1, 4, 5}),
                     c = view3(data, {1, 2, 5});
  _mlir_ciface_placer_cpu_matmul_f32(&a, &b, &c, 0, 0, 0);
  std::string error = takeError();
  EXPECT_NE(error.find("is not a product"), std::string::npos) << error;
  a.strides[2] = 2;
  b = view3(data, {1, 3, 5});
  _mlir_ciface_placer_cpu_matmul_f32(&a, &b, &c, 0, 0, 0);
  error = takeError();
  EXPECT_NE(error.find("non-unit stride"), std::string::npos) << error;
}

} // namespace
