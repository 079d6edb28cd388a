//===- LoweringCostTest.cpp - The op registry's entries and lookups -------===//
#include "placer/Conversion/OnnxOps.h"

#include <gtest/gtest.h>

namespace {

using placer::OpEntry;
using placer::OpRegistry;

// Every op type the native runtime lowers has a work rule: none falls back
// to the bytes-only estimate of unknown ops.
TEST(OpRegistry, EveryLoweredOpHasAWorkRule) {
  const OpRegistry &registry = placer::getOnnxOps();
  ASSERT_GE(registry.getEntries().size(), 165u);
  size_t lowered = 0;
  for (const OpEntry &entry : registry.getEntries()) {
    if (!entry.lower)
      continue;
    ++lowered;
    EXPECT_TRUE(entry.work.has_value())
        << entry.opType << " (" << entry.family << ") has no work rule";
  }
  EXPECT_GE(lowered, 151u);
}

// Training needs a gradient rule wherever the op is differentiable, and the
// backward factor prices it: an op with a gradient has a factor.
TEST(OpRegistry, EveryGradientHasABackwardFactor) {
  for (const OpEntry &entry : placer::getOnnxOps().getEntries())
    if (entry.gradient)
      EXPECT_TRUE(entry.backwardFactor.has_value())
          << entry.opType << " has a gradient rule but no backward factor";
}

TEST(OpRegistry, HoldsEveryRuleOfAnOp) {
  const OpRegistry &registry = placer::getOnnxOps();
  const OpEntry *matMul = registry.find("MatMul", 13);
  ASSERT_NE(matMul, nullptr);
  EXPECT_NE(matMul->lower, nullptr);
  ASSERT_TRUE(matMul->work.has_value());
  EXPECT_EQ(matMul->work->kind, placer::WorkKind::Compute);
  EXPECT_EQ(matMul->backwardFactor, 2.0);
  EXPECT_NE(matMul->gradient, nullptr);
  ASSERT_EQ(matMul->sharding.strategies.size(), 5u);
  EXPECT_EQ(matMul->sharding.strategies[1].collective,
            placer::Collective::AllReduce);
  EXPECT_EQ(matMul->sharding.strategies[2].name, "batch");
  EXPECT_EQ(matMul->sharding.strategies[3].name, "groups");
  EXPECT_EQ(matMul->sharding.strategies[4].name, "rows");
  // Concat joins its inputs' splits; the reductions carry a split.
  EXPECT_NE(registry.find("Concat", 13)->sharding.join, nullptr);
  EXPECT_NE(registry.find("ReduceSum", 13)->sharding.carry, nullptr);
  EXPECT_TRUE(registry.find("Sign", 13)->sharding.followsInput);
  ASSERT_NE(matMul->fusion, nullptr);
  // Under placer-autocast: products in half, sums and Softmax in f32 (the
  // later versions inherit it), the rest as their data.
  EXPECT_EQ(matMul->getCastPolicy(), placer::CastPolicy::Half);
  EXPECT_EQ(registry.find("ReduceSum", 13)->getCastPolicy(),
            placer::CastPolicy::Float);
  EXPECT_EQ(registry.find("Softmax", 13)->getCastPolicy(),
            placer::CastPolicy::Float);
  EXPECT_EQ(registry.find("Relu", 14)->getCastPolicy(),
            placer::CastPolicy::Follow);
  // Which operands carry the data's type is ONNX's schema's: Resize's
  // scales and Cast's output never do.
  std::optional<placer::graph::OnnxSchema> resize =
      placer::graph::getOnnxSchema("Resize", 13);
  ASSERT_TRUE(resize.has_value());
  EXPECT_TRUE(resize->isTypedInput(0));
  EXPECT_FALSE(resize->isTypedInput(2));
  EXPECT_TRUE(resize->isTypedOutput(0));
  EXPECT_EQ(placer::graph::getOnnxSchema("Cast", 13)->typedOutputs, 0u);
  EXPECT_TRUE(placer::graph::getOnnxSchema("Concat", 13)->isTypedInput(9));
  // "ai.onnx" is the default domain; another domain's op of the same name
  // is not ONNX's.
  EXPECT_EQ(registry.find("ai.onnx", "MatMul", 13), matMul);
  EXPECT_EQ(registry.find("com.microsoft", "MatMul", 13), nullptr);
  // Known to the cost model without a lowering.
  const OpEntry *mish = registry.find("Mish", 18);
  ASSERT_NE(mish, nullptr);
  EXPECT_EQ(mish->lower, nullptr);
  EXPECT_TRUE(mish->work.has_value());
  // Folds from types, and on import from known values; a reshape carries
  // a split where its attributes and shapes say (placer/Analysis/
  // Sharding.h), a Relu runs on whatever slice it gets.
  EXPECT_NE(registry.find("Shape", 15)->foldFromTypes, nullptr);
  ASSERT_TRUE(registry.find("Shape", 15)->fold.has_value());
  EXPECT_EQ(registry.find("Reshape", 14)->fold->knownInputs, 2u);
  EXPECT_FALSE(registry.find("Relu", 14)->fold.has_value());
  EXPECT_NE(registry.find("Reshape", 14)->sharding.carry, nullptr);
  EXPECT_FALSE(registry.find("Reshape", 14)->sharding.followsInput);
  // Softmax's rows: every axis from `axis` on before opset 13, `axis`
  // alone after (two rules); MaxPool 16, which adds a gradient, inherits
  // its rule.
  ASSERT_NE(registry.find("Softmax", 11)->fusion, nullptr);
  EXPECT_NE(registry.find("Softmax", 11)->fusion,
            registry.find("Softmax", 13)->fusion);
  ASSERT_NE(registry.find("MaxPool", 12)->fusion, nullptr);
  EXPECT_NE(registry.find("MaxPool", 16), registry.find("MaxPool", 12));
  EXPECT_EQ(registry.find("MaxPool", 16)->fusion,
            registry.find("MaxPool", 12)->fusion);
  EXPECT_NE(registry.find("Conv", 11)->sharding.strategiesFor, nullptr);
  EXPECT_FALSE(registry.find("TopK", 11)->sharding.isSharded());
  EXPECT_TRUE(registry.find("Acos", 7)->sharding.followsInput);
  EXPECT_TRUE(registry.find("Relu", 14)->sharding.followsInput);
}

TEST(OpRegistry, SelectsTheVersionAndInheritsRules) {
  EXPECT_NE(placer::getOnnxOps().find("Conv", 1), nullptr);
  EXPECT_NE(placer::getOnnxOps().find("Conv", 18), nullptr);
  EXPECT_EQ(placer::getOnnxOps().find("NoSuchOp", 13), nullptr);
  // An op-version split picks the newest entry not past the node's opset,
  // and nothing before the first; the later entry takes the rules it does
  // not set from the one before.
  OpRegistry split;
  auto v6 = +[](placer::NodeLowering &)
      -> mlir::FailureOr<llvm::SmallVector<mlir::Value>> {
    return mlir::failure();
  };
  auto v13 = +[](placer::NodeLowering &)
      -> mlir::FailureOr<llvm::SmallVector<mlir::Value>> {
    return mlir::failure();
  };
  split.beginFamily("Test", "two versions");
  split.add("Op", v13, 13);
  split.add("Op", v6, 6).work(placer::WorkRule::dataMovement()).backward(1.0);
  split.finalize();
  EXPECT_EQ(split.find("Op", 5), nullptr);
  EXPECT_EQ(split.find("Op", 6)->lower, v6);
  EXPECT_EQ(split.find("Op", 12)->lower, v6);
  const OpEntry *latest = split.find("Op", 18);
  EXPECT_EQ(latest->lower, v13);
  ASSERT_TRUE(latest->work.has_value());
  EXPECT_EQ(latest->work->kind, placer::WorkKind::DataMovement);
  EXPECT_EQ(latest->backwardFactor, 1.0);
  EXPECT_NE(split.renderLoweredOps().find("Op (opset 13+), Op (opset 6+)"),
            std::string::npos);
  std::string coverage = split.renderCoverage();
  EXPECT_NE(coverage.find("| Op | 6-12 | Test | yes |"), std::string::npos)
      << coverage;
  EXPECT_NE(coverage.find("| Op | 13+ | Test | yes |"), std::string::npos)
      << coverage;
}

} // namespace
