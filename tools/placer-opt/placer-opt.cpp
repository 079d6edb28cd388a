//===- placer-opt.cpp - Placer's optimizer driver -------------------------===//
//
// mlir-opt with Placer's dialects and passes, plus the upstream dialects and
// generic passes a placement pipeline works with.
//
//===----------------------------------------------------------------------===//

#include "placer/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  // The execution pipeline (--placer-lower-to-llvm) runs upstream passes
  // over upstream dialects and their interface models.
  placer::registerAllDialects(registry);
  placer::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Placer optimizer driver\n", registry));
}
