//===- PlacerPlugin.cpp - Placer as a plugin of the stock mlir-opt --------===//
//
//   mlir-opt-22 --load-dialect-plugin=libPlacerPlugin.so \
//               --load-pass-plugin=libPlacerPlugin.so \
//               model.mlir --partition-devices=4
//
// MLIR's plugin entry points (mlir/Tools/Plugins): the dialect plugin adds
// Placer's dialects and their external models to the tool's registry, the
// pass plugin registers Placer's passes and pipelines. The upstream passes
// are the tool's own: registering them again from here would register
// them a second time.
//
//===----------------------------------------------------------------------===//

#include "placer/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Placer", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            placer::registerPlacerDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Placer", LLVM_VERSION_STRING,
          []() { placer::registerPlacerPassesAndPipelines(); }};
}
