//===- ShapeFoldingTest.cpp - The shape-arithmetic evaluator --------------===//
#include "Import/ShapeFolding.h"

#include <gtest/gtest.h>

using namespace placer::detail;
using onnx::TensorProto;

namespace {

KnownTensor ints(std::vector<int64_t> dims, std::vector<int64_t> values) {
  KnownTensor t;
  t.dataType = TensorProto::INT64;
  t.dims = std::move(dims);
  t.ints = std::move(values);
  return t;
}

onnx::NodeProto node(const char *opType, int numOutputs = 1) {
  onnx::NodeProto n;
  n.set_op_type(opType);
  for (int i = 0; i < numOutputs; ++i)
    n.add_output("out" + std::to_string(i));
  return n;
}

void addIntAttr(onnx::NodeProto &n, const char *name, int64_t value) {
  auto *attr = n.add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(value);
}

TEST(ShapeFolding, ShapeOfStaticInput) {
  std::vector<int64_t> shape = {1, 128, 1024};
  auto out = evaluateNode(node("Shape"), {nullptr}, {&shape});
  ASSERT_TRUE(out);
  EXPECT_EQ((*out)[0].dims, std::vector<int64_t>({3}));
  EXPECT_EQ((*out)[0].ints, shape);
}

TEST(ShapeFolding, ShapeNeedsAStaticInput) {
  EXPECT_FALSE(evaluateNode(node("Shape"), {nullptr}, {nullptr}));
}

TEST(ShapeFolding, GatherNegativeIndex) {
  KnownTensor data = ints({3}, {1, 128, 1024});
  KnownTensor index = ints({}, {-1});
  onnx::NodeProto gather = node("Gather");
  addIntAttr(gather, "axis", 0);
  auto out = evaluateNode(gather, {&data, &index}, {nullptr, nullptr});
  ASSERT_TRUE(out);
  EXPECT_TRUE((*out)[0].dims.empty());
  EXPECT_EQ((*out)[0].ints, std::vector<int64_t>({1024}));
}

TEST(ShapeFolding, GatherOutOfRangeIsNotFolded) {
  KnownTensor data = ints({3}, {1, 2, 3});
  KnownTensor index = ints({}, {3});
  EXPECT_FALSE(evaluateNode(node("Gather"), {&data, &index}, {}));
}

TEST(ShapeFolding, IntegerDivTruncatesAndBroadcasts) {
  KnownTensor a = ints({2}, {1024, -7});
  KnownTensor b = ints({}, {16});
  auto out = evaluateNode(node("Div"), {&a, &b}, {});
  ASSERT_TRUE(out);
  EXPECT_EQ((*out)[0].ints, std::vector<int64_t>({64, 0}));
  KnownTensor zero = ints({}, {0});
  EXPECT_FALSE(evaluateNode(node("Div"), {&a, &zero}, {}));
}

TEST(ShapeFolding, IntegerOverflowIsNotFolded) {
  KnownTensor big = ints({}, {INT64_MAX});
  KnownTensor two = ints({}, {2});
  EXPECT_FALSE(evaluateNode(node("Mul"), {&big, &two}, {}));
}

TEST(ShapeFolding, SliceClampsInt64MaxEnd) {
  KnownTensor data = ints({4}, {1, 128, 16, 64});
  KnownTensor starts = ints({1}, {1});
  KnownTensor ends = ints({1}, {INT64_MAX});
  auto out =
      evaluateNode(node("Slice"), {&data, &starts, &ends}, {});
  ASSERT_TRUE(out);
  EXPECT_EQ((*out)[0].ints, std::vector<int64_t>({128, 16, 64}));
}

TEST(ShapeFolding, ConcatAndUnsqueeze) {
  KnownTensor scalar = ints({}, {128});
  KnownTensor axes = ints({1}, {0});
  auto unsq = evaluateNode(node("Unsqueeze"), {&scalar, &axes}, {});
  ASSERT_TRUE(unsq);
  EXPECT_EQ((*unsq)[0].dims, std::vector<int64_t>({1}));
  KnownTensor head = ints({1}, {1});
  onnx::NodeProto concat = node("Concat");
  addIntAttr(concat, "axis", 0);
  auto out = evaluateNode(concat, {&head, &(*unsq)[0]}, {});
  ASSERT_TRUE(out);
  EXPECT_EQ((*out)[0].ints, std::vector<int64_t>({1, 128}));
}

TEST(ShapeFolding, RangeAndReshape) {
  KnownTensor start = ints({}, {0}), limit = ints({}, {6}), delta = ints({}, {2});
  auto range = evaluateNode(node("Range"), {&start, &limit, &delta}, {});
  ASSERT_TRUE(range);
  EXPECT_EQ((*range)[0].ints, std::vector<int64_t>({0, 2, 4}));
  KnownTensor shape = ints({2}, {-1, 1});
  auto reshaped = evaluateNode(node("Reshape"), {&(*range)[0], &shape}, {});
  ASSERT_TRUE(reshaped);
  EXPECT_EQ((*reshaped)[0].dims, std::vector<int64_t>({3, 1}));
}

// A hostile shape input: sizes whose product overflows, a second -1, a
// negative size. None is folded (the fuzzer found the overflow).
TEST(ShapeFolding, ReshapeToImpossibleSizesIsNotFolded) {
  KnownTensor x = ints({3}, {0, 2, 4});
  for (std::vector<int64_t> sizes :
       {std::vector<int64_t>{17179869185, 3959422988, -1},
        std::vector<int64_t>{-1, -1}, std::vector<int64_t>{-3, -1}}) {
    KnownTensor shape = ints({static_cast<int64_t>(sizes.size())}, sizes);
    EXPECT_FALSE(evaluateNode(node("Reshape"), {&x, &shape}, {}));
  }
}

TEST(ShapeFolding, UnknownOpsAndDomainsAreNotFolded) {
  KnownTensor a = ints({1}, {1});
  EXPECT_FALSE(evaluateNode(node("MatMul"), {&a, &a}, {}));
  onnx::NodeProto custom = node("Add");
  custom.set_domain("com.example");
  EXPECT_FALSE(evaluateNode(custom, {&a, &a}, {}));
}

TEST(ShapeFolding, ReadsRawAndTypedTensors) {
  TensorProto typed;
  typed.set_data_type(TensorProto::INT64);
  typed.add_dims(2);
  typed.add_int64_data(3);
  typed.add_int64_data(-4);
  auto t = readKnownTensor(typed);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->ints, std::vector<int64_t>({3, -4}));

  TensorProto raw;
  raw.set_data_type(TensorProto::INT32);
  raw.add_dims(1);
  int32_t value = 77;
  raw.set_raw_data(&value, sizeof(value));
  t = readKnownTensor(raw);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->ints, std::vector<int64_t>({77}));

  raw.set_raw_data("abc"); // 3 bytes cannot be one int32
  EXPECT_FALSE(readKnownTensor(raw));
}

} // namespace

namespace {

// Swin's window padding: (7 - 56 % 7) % 7 with Python's floored Mod, and
// C's remainder with fmod = 1.
TEST(ShapeFolding, ModFloorsOrTruncates) {
  KnownTensor a = ints({3}, {56, -5, 5});
  KnownTensor b = ints({}, {-3});
  auto floored = evaluateNode(node("Mod"), {&a, &b}, {});
  ASSERT_TRUE(floored);
  EXPECT_EQ((*floored)[0].ints, std::vector<int64_t>({-1, -2, -1}));
  onnx::NodeProto fmod = node("Mod");
  addIntAttr(fmod, "fmod", 1);
  auto truncated = evaluateNode(fmod, {&a, &b}, {});
  ASSERT_TRUE(truncated);
  EXPECT_EQ((*truncated)[0].ints, std::vector<int64_t>({2, -2, 2}));
  KnownTensor zero = ints({}, {0});
  EXPECT_FALSE(evaluateNode(node("Mod"), {&a, &zero}, {}));
}

// The pads of Swin's Pad: a [4, 2] reshape reversed by rows
// (Slice -1:INT64_MIN:-1), then transposed.
TEST(ShapeFolding, RowSliceAndTransposeOfPads) {
  KnownTensor pairs = ints({4, 2}, {0, 0, 0, 0, 0, 3, 0, 5});
  KnownTensor start = ints({1}, {-1}), end = ints({1}, {INT64_MIN + 1}),
              axis = ints({1}, {0}), step = ints({1}, {-1});
  auto reversed =
      evaluateNode(node("Slice"), {&pairs, &start, &end, &axis, &step}, {});
  ASSERT_TRUE(reversed);
  EXPECT_EQ((*reversed)[0].dims, std::vector<int64_t>({4, 2}));
  EXPECT_EQ((*reversed)[0].ints,
            std::vector<int64_t>({0, 5, 0, 3, 0, 0, 0, 0}));
  auto transposed = evaluateNode(node("Transpose"), {&(*reversed)[0]}, {});
  ASSERT_TRUE(transposed);
  EXPECT_EQ((*transposed)[0].dims, std::vector<int64_t>({2, 4}));
  EXPECT_EQ((*transposed)[0].ints,
            std::vector<int64_t>({0, 0, 0, 0, 5, 3, 0, 0}));
}

} // namespace
