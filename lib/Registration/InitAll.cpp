//===- InitAll.cpp - Everything Placer registers, in one place ------------===//

#include "placer/InitAll.h"

#include "placer/Analysis/CostModel.h"
#include "placer/Conversion/Passes.h"
#include "placer/Dialect/Dist/BufferizableOpInterfaceImpl.h"
#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void placer::registerPlacerDialects(mlir::DialectRegistry &registry) {
  registry.insert<graph::GraphDialect, dist::DistDialect, PlacerDialect,
                  mlir::func::FuncDialect>();
  registerCostModels(registry);
  dist::registerBufferizableOpInterfaceExternalModels(registry);
}

void placer::registerAllDialects(mlir::DialectRegistry &registry) {
  registerPlacerDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

void placer::registerPlacerPassesAndPipelines() {
  // A pipeline registered twice is a fatal error in MLIR: register once.
  static const bool registered = [] {
    registerPlacerConversionPasses();
    registerLowerToLLVMPipeline();
    registerLowerToNVVMPipeline();
    registerPlacerPasses();
    return true;
  }();
  (void)registered;
}

void placer::registerAllPasses() {
  static const bool registered = [] {
    mlir::registerAllPasses();
    return true;
  }();
  (void)registered;
  registerPlacerPassesAndPipelines();
}
