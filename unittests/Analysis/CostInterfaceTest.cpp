//===- CostInterfaceTest.cpp - Ops of other dialects plug into the model --===//
#include "placer/Analysis/CostModel.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
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
  func.func @main_graph(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %a = arith.addf %x, %x : tensor<4xf32>
    %m = arith.mulf %x, %x : tensor<4xf32>
    %u = "mine.fused"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %a, %m, %u : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  })mlir";

TEST(CostOpInterface, ExternalModelOfAnotherDialect) {
  DialectRegistry registry;
  registry.insert<placer::graph::GraphDialect, func::FuncDialect,
                  arith::ArithDialect>();
  // A project's own model, registered before Placer's: it wins over
  // Placer's model of the same op (models attach in registration order,
  // and Placer's skip ops that already have one).
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    arith::AddFOp::attachInterface<AddFCostModel>(*context);
  });
  placer::registerCostModels(registry);
  MLIRContext context(registry);
  context.allowUnregisteredDialects();
  context.getDiagEngine().registerHandler([](Diagnostic &) {}); // quiet
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModule, &context);
  ASSERT_TRUE(module);

  PassManager pm(&context);
  placer::CostSettings settings;
  settings.cluster = "cpu";
  pm.addPass(placer::createEstimateCosts(settings));
  ASSERT_TRUE(succeeded(pm.run(*module)));

  auto func = *module->getOps<func::FuncOp>().begin();
  Operation &add = func.getBody().front().front();
  Operation &mul = *std::next(func.getBody().front().begin());
  Operation &fused = *std::next(func.getBody().front().begin(), 2);
  placer::CostAttr addCost = placer::getCost(&add);
  placer::CostAttr mulCost = placer::getCost(&mul);
  placer::CostAttr fusedCost = placer::getCost(&fused);
  ASSERT_TRUE(addCost && mulCost && fusedCost);
  // The plugged-in model: 42 FLOPs; time = max(42 / 96e9, 1500 / 10e9)
  // + 1e-7 on the generic CPU core.
  EXPECT_EQ(addCost.getFlops(), 42);
  EXPECT_EQ(addCost.getSource(), placer::CostSource::Model);
  EXPECT_DOUBLE_EQ(*addCost.getTimeOn("cpu"), 1500 / 10e9 + 1e-7);
  // Placer's elementwise model of arith on tensors: 1 FLOP per element.
  EXPECT_EQ(mulCost.getSource(), placer::CostSource::Model);
  EXPECT_EQ(mulCost.getFlops(), 4);
  EXPECT_EQ(mulCost.getBytesRead(), 32);
  // No model: the bytes-only estimate (16 + 16 read, 16 written).
  EXPECT_EQ(fusedCost.getSource(), placer::CostSource::Generic);
  EXPECT_EQ(fusedCost.getBytesRead(), 32);
  EXPECT_EQ(fusedCost.getBytesWritten(), 16);
  EXPECT_EQ(fusedCost.getFlops(), 0);
}

} // namespace
