//===- CostInterfaceTest.cpp - Ops of other dialects plug into the model --===//
#include "placer/Analysis/CostModel.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

/// What a downstream project would write for its own op.
struct AddFCostModel
    : public placer::CostOpInterface::ExternalModel<AddFCostModel,
                                                    arith::AddFOp> {
  FailureOr<placer::OpWork> estimateWork(Operation *) const {
    placer::OpWork work;
    work.flops = 42;
    work.bytesRead = 1000;
    work.outputBytes = work.bytesWritten = 500;
    return work;
  }
};

const char *kModule = R"mlir(
  func.func @main_graph(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %a = arith.addf %x, %x : tensor<4xf32>
    %m = arith.mulf %x, %x : tensor<4xf32>
    return %a, %m : tensor<4xf32>, tensor<4xf32>
  })mlir";

TEST(CostOpInterface, ExternalModelOfAnotherDialect) {
  DialectRegistry registry;
  registry.insert<placer::graph::GraphDialect, func::FuncDialect,
                  arith::ArithDialect>();
  placer::registerCostModels(registry);
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    arith::AddFOp::attachInterface<AddFCostModel>(*context);
  });
  MLIRContext context(registry);
  context.getDiagEngine().registerHandler([](Diagnostic &) {}); // quiet
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModule, &context);
  ASSERT_TRUE(module);

  PassManager pm(&context);
  placer::EstimateCostsOptions options;
  options.cluster = "cpu";
  pm.addPass(placer::createEstimateCosts(options));
  ASSERT_TRUE(succeeded(pm.run(*module)));

  auto func = *module->getOps<func::FuncOp>().begin();
  Operation &add = func.getBody().front().front();
  Operation &mul = *std::next(func.getBody().front().begin());
  auto addCost = add.getAttrOfType<DictionaryAttr>(placer::costattrs::kCost);
  auto mulCost = mul.getAttrOfType<DictionaryAttr>(placer::costattrs::kCost);
  ASSERT_TRUE(addCost && mulCost);
  // The plugged-in model: 42 FLOPs; time = max(42 / 96e9, 1500 / 10e9)
  // + 1e-7 on the generic CPU core.
  EXPECT_EQ(addCost.getAs<IntegerAttr>("flops").getInt(), 42);
  EXPECT_EQ(addCost.getAs<StringAttr>("source").getValue(), "model");
  EXPECT_DOUBLE_EQ(addCost.getAs<DictionaryAttr>("time")
                       .getAs<FloatAttr>("cpu")
                       .getValueAsDouble(),
                   1500 / 10e9 + 1e-7);
  // No model: the bytes-only estimate (16 + 16 read, 16 written).
  EXPECT_EQ(mulCost.getAs<StringAttr>("source").getValue(), "generic");
  EXPECT_EQ(mulCost.getAs<IntegerAttr>("bytes_read").getInt(), 32);
  EXPECT_EQ(mulCost.getAs<IntegerAttr>("flops").getInt(), 0);
}

} // namespace
