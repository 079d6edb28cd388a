//===- placer-opt.cpp - Placer's optimizer driver -------------------------===//
//
// mlir-opt with Placer's dialects and passes, plus the upstream dialects and
// generic passes a placement pipeline works with.
//
//===----------------------------------------------------------------------===//

#include "placer/Analysis/CostModel.h"
#include "placer/Dialect/Dist/BufferizableOpInterfaceImpl.h"
#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Conversion/Passes.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<placer::graph::GraphDialect, placer::dist::DistDialect,
                  placer::PlacerDialect,
                  mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::tensor::TensorDialect>();
  placer::registerCostModels(registry);
  placer::dist::registerBufferizableOpInterfaceExternalModels(registry);
  // The execution pipeline (--placer-lower-to-llvm) runs upstream passes
  // over upstream dialects and their interface models.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();
  placer::registerPlacerConversionPasses();
  placer::registerLowerToLLVMPipeline();
  placer::registerPlacerPasses();
  placer::registerPartitionDevicesPipeline();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Placer optimizer driver\n", registry));
}
