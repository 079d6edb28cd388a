//===- LoweringCostTest.cpp - Placement prices what runs ------------------===//
#include "placer/Analysis/CostModel.h"
#include "placer/Conversion/GraphToLinalg.h"

#include <gtest/gtest.h>

namespace {

// Every op type the native runtime lowers has a cost formula: none falls
// back to the bytes-only estimate of unknown ops.
TEST(LoweringCost, EveryLoweredOpHasACostRule) {
  const placer::LoweringRegistry &registry = placer::getNodeLowerings();
  ASSERT_GE(registry.getEntries().size(), 139u);
  for (const placer::LoweringEntry &entry : registry.getEntries())
    EXPECT_TRUE(placer::hasOnnxCostRule(entry.opType))
        << entry.opType << " (" << entry.family << ") has no cost rule";
}

TEST(LoweringRegistry, LooksUpByOpset) {
  const placer::LoweringRegistry &registry = placer::getNodeLowerings();
  EXPECT_NE(registry.lookup("Conv", 1), nullptr);
  EXPECT_NE(registry.lookup("Conv", 18), nullptr);
  EXPECT_EQ(registry.lookup("NoSuchOp", 13), nullptr);
  // A registry with an op-version split picks the newest entry not past
  // the node's opset, and nothing before the first.
  placer::LoweringRegistry split;
  auto v1 = +[](placer::NodeLowering &)
      -> mlir::FailureOr<llvm::SmallVector<mlir::Value>> { return mlir::failure(); };
  auto v13 = +[](placer::NodeLowering &)
      -> mlir::FailureOr<llvm::SmallVector<mlir::Value>> { return mlir::failure(); };
  split.beginFamily("Test", "two versions");
  split.add("Op", v13, 13);
  split.add("Op", v1, 6);
  EXPECT_EQ(split.lookup("Op", 5), nullptr);
  EXPECT_EQ(split.lookup("Op", 6), v1);
  EXPECT_EQ(split.lookup("Op", 12), v1);
  EXPECT_EQ(split.lookup("Op", 13), v13);
  EXPECT_EQ(split.lookup("Op", 18), v13);
  EXPECT_NE(split.renderMarkdown().find("Op (opset 13+), Op (opset 6+)"),
            std::string::npos);
}

} // namespace
