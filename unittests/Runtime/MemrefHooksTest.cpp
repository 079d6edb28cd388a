//===- MemrefHooksTest.cpp - libplacer_rt's memrefCopy --------------------===//
//
// memrefCopy copies strided views (a padded activation's centre, a slice)
// with one memmove per contiguous block: checked against element-by-element
// copies for views whose trailing axes are contiguous on both sides, on one
// side only, and not at all.
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"

#include <cstdint>
#include <numeric>
#include <vector>

extern "C" {
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};
void memrefCopy(int64_t elementSize, UnrankedMemRef *source,
                UnrankedMemRef *target);
}

namespace {

/// A ranked descriptor of rank 3 over `data`.
struct View3 {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
};

/// Copies `src` into `dst` through memrefCopy.
void copy(View3 &src, View3 &dst) {
  UnrankedMemRef from{3, &src}, to{3, &dst};
  memrefCopy(sizeof(float), &from, &to);
}

float at(const View3 &v, int64_t i, int64_t j, int64_t k) {
  return v.aligned[v.offset + i * v.strides[0] + j * v.strides[1] +
                   k * v.strides[2]];
}

/// Every element of `dst` equals `src`'s, and `buffer` outside the view is
/// untouched (-1).
void expectCopied(const View3 &src, const View3 &dst,
                  const std::vector<float> &buffer, size_t viewElements) {
  for (int64_t i = 0; i < src.sizes[0]; ++i)
    for (int64_t j = 0; j < src.sizes[1]; ++j)
      for (int64_t k = 0; k < src.sizes[2]; ++k)
        ASSERT_EQ(at(dst, i, j, k), at(src, i, j, k)) << i << "," << j << "," << k;
  size_t untouched = 0;
  for (float v : buffer)
    untouched += v == -1.0f;
  EXPECT_EQ(untouched, buffer.size() - viewElements);
}

std::vector<float> iota(size_t n) {
  std::vector<float> values(n);
  std::iota(values.begin(), values.end(), 0.0f);
  return values;
}

TEST(MemrefCopy, IntoAPaddedCentre) {
  // [2, 3, 4] into the centre of [2, 5, 6] (a margin of 1): rows are
  // contiguous on both sides.
  std::vector<float> in = iota(24), padded(2 * 5 * 6, -1.0f);
  View3 src{in.data(), in.data(), 0, {2, 3, 4}, {12, 4, 1}};
  View3 dst{padded.data(), padded.data(), 7, {2, 3, 4}, {30, 6, 1}};
  copy(src, dst);
  expectCopied(src, dst, padded, 24);
}

TEST(MemrefCopy, TransposedAndWhole) {
  // A transposed source (no contiguous axis) into a contiguous target.
  std::vector<float> in = iota(24), out(24, -1.0f);
  View3 src{in.data(), in.data(), 0, {4, 3, 2}, {1, 4, 12}};
  View3 dst{out.data(), out.data(), 0, {4, 3, 2}, {6, 2, 1}};
  copy(src, dst);
  expectCopied(src, dst, out, 24);
  // Both contiguous: one block.
  std::vector<float> again(24, -1.0f);
  View3 whole{again.data(), again.data(), 0, {4, 3, 2}, {6, 2, 1}};
  copy(dst, whole);
  expectCopied(dst, whole, again, 24);
}

TEST(MemrefCopy, UnitAxesAndEmptyViews) {
  // A unit axis with any stride does not break a block; an empty view
  // copies nothing.
  std::vector<float> in = iota(8), out(16, -1.0f);
  View3 src{in.data(), in.data(), 0, {2, 1, 4}, {4, 99, 1}};
  View3 dst{out.data(), out.data(), 2, {2, 1, 4}, {8, 7, 1}};
  copy(src, dst);
  expectCopied(src, dst, out, 8);
  std::vector<float> untouched(4, -1.0f);
  View3 empty{untouched.data(), untouched.data(), 0, {2, 0, 2}, {2, 2, 1}};
  copy(empty, empty);
  EXPECT_EQ(untouched, std::vector<float>(4, -1.0f));
}

} // namespace
