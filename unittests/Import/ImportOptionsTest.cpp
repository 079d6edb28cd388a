//===- ImportOptionsTest.cpp - --dim and --input-shape parsing ------------===//
#include "placer/Import/OnnxImporter.h"

#include <gtest/gtest.h>

using namespace placer;

namespace {

TEST(ParseDimBinding, Valid) {
  std::pair<std::string, int64_t> binding;
  EXPECT_EQ(parseDimBinding("batch=16", binding), "");
  EXPECT_EQ(binding.first, "batch");
  EXPECT_EQ(binding.second, 16);
  EXPECT_EQ(parseDimBinding("seq=0", binding), "");
  EXPECT_EQ(binding.second, 0);
}

TEST(ParseDimBinding, Invalid) {
  std::pair<std::string, int64_t> binding;
  EXPECT_EQ(parseDimBinding("batch", binding),
            "expected NAME=VALUE, got 'batch'");
  EXPECT_EQ(parseDimBinding("=3", binding), "expected NAME=VALUE, got '=3'");
  EXPECT_EQ(parseDimBinding("b=-1", binding),
            "dim 'b' needs a non-negative integer value, got '-1'");
  EXPECT_EQ(parseDimBinding("b=1.5", binding),
            "dim 'b' needs a non-negative integer value, got '1.5'");
  EXPECT_EQ(parseDimBinding("b=", binding),
            "dim 'b' needs a non-negative integer value, got ''");
  EXPECT_EQ(parseDimBinding("b=99999999999999999999", binding),
            "dim 'b' needs a non-negative integer value, got "
            "'99999999999999999999'");
}

TEST(ParseInputShape, Valid) {
  std::pair<std::string, llvm::SmallVector<int64_t>> shape;
  EXPECT_EQ(parseInputShape("input=1x3x224x224", shape), "");
  EXPECT_EQ(shape.first, "input");
  EXPECT_EQ(shape.second, (llvm::SmallVector<int64_t>{1, 3, 224, 224}));
  // A scalar input has the empty shape.
  EXPECT_EQ(parseInputShape("scale=", shape), "");
  EXPECT_TRUE(shape.second.empty());
  // ONNX names may contain '='; the shape follows the last one.
  EXPECT_EQ(parseInputShape("a=b=2", shape), "");
  EXPECT_EQ(shape.first, "a=b");
}

TEST(ParseInputShape, Invalid) {
  std::pair<std::string, llvm::SmallVector<int64_t>> shape;
  EXPECT_EQ(parseInputShape("input", shape),
            "expected NAME=D0xD1x..., got 'input'");
  EXPECT_EQ(parseInputShape("x=1xx2", shape),
            "input 'x': dim '' is not a non-negative integer");
  EXPECT_EQ(parseInputShape("x=1x-2", shape),
            "input 'x': dim '-2' is not a non-negative integer");
}

} // namespace
