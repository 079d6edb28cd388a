//===- PipelineFuzzer.cpp - Arbitrary ONNX models through the pipeline ---===//
//
// What import accepts, the rest of the toolchain must take too: costs,
// placement on two devices, the split, the simulator, one stage selected
// and lowered down to the LLVM dialect. Any module the importer returns
// must come out lowered or with diagnostics, never a crash. Shapes only: no
// file is opened, no weight is read (lowering needs types, not values).
// A module with symbolic dims is also lowered whole as imported (code for
// any size), then placed with every symbol bound to 2.
// The input's last byte also picks a training step (bit 0), GPipe instead
// of 1F1B (bit 1), recomputation (bit 2), stage replication (bit 3) and
// tensor-parallel degrees 1 and 2 (bit 4: the sharding analysis, derived
// configurations and the three-dimensional planner) and half precision
// (bit 5: placer-autocast first, in f16 with bit 6, bf16 without), so the
// training placement, replicated splits, three-dimensional plans, the
// simulator and half-precision lowering see every model too.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "placer/Compiler/Runner.h"
#include "placer/Dialect/Dist/BufferizableOpInterfaceImpl.h"
#include "placer/Import/OnnxImporter.h"
#include "placer/Transforms/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"

namespace {

mlir::MLIRContext &getPipelineContext() {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    registry.insert<placer::graph::GraphDialect, placer::dist::DistDialect,
                    placer::PlacerDialect>();
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    placer::dist::registerBufferizableOpInterfaceExternalModels(registry);
    // The lowering pipeline is partly upstream's, built from its text.
    mlir::registerAllPasses();
    auto *context = new mlir::MLIRContext(registry);
    context->loadAllAvailableDialects();
    placer::fuzz::swallowDiagnostics(*context);
    return context;
  }();
  return *context;
}

/// A placement that stays fast on any input: the DP on two accelerators,
/// its ideal lattice bounded (past the limit it linearizes, still valid).
placer::PlacementSettings placementSettings(uint8_t flags) {
  placer::PlacementSettings settings;
  settings.devices = 2;
  settings.cpus = 0;
  settings.solve.algorithm = placer::solver::Algorithm::DP;
  settings.solve.idealLimit = 20000;
  settings.schedule = flags & 2 ? placer::solver::Schedule::GPipe
                                : placer::solver::Schedule::OneFOneB;
  settings.recompute = flags & 4;
  settings.replication = flags & 8;
  if (flags & 16) {
    // The three-dimensional planner takes the default algorithm only.
    settings.tensorDegrees = {1, 2};
    settings.solve.algorithm = placer::solver::Algorithm::Auto;
  }
  return settings;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &context = getPipelineContext();
  // Weights are read from the input itself: external ones would be under a
  // folder that does not exist, so they fail to load, as they must.
  mlir::OwningOpRef<mlir::ModuleOp> module = placer::importOnnxBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.onnx",
      "/nonexistent", &context, placer::OnnxImportOptions());
  if (!module)
    return 0;

  uint8_t flags = size > 0 ? data[size - 1] : 0;
  placer::CostSettings costs;
  costs.training = flags & 1;
  // Symbolic dims: the module lowers for any size as it is (the dynamic
  // lowerings), and the placement binds every symbol to a small size.
  std::vector<std::string> symbols = placer::getSymbolicDims(*module);
  if (!symbols.empty()) {
    mlir::OwningOpRef<mlir::ModuleOp> whole = module->clone();
    llvm::Expected<placer::runtime::LoweredModule> lowered =
        placer::runtime::lowerForExecution(*whole);
    if (!lowered)
      llvm::consumeError(lowered.takeError());
    for (const std::string &symbol : symbols)
      costs.dims.push_back(symbol + "=2");
  }
  mlir::PassManager pm(&context);
  if (flags & 32)
    pm.addPass(placer::createAutocast(
        placer::AutocastOptions{flags & 64 ? "f16" : "bf16"}));
  pm.addPass(placer::createEstimateCosts(costs));
  if (flags & 16)
    pm.addPass(placer::createReportSharding());
  pm.addPass(placer::createPlaceDevices(placementSettings(flags)));
  pm.addPass(placer::createSplitDevices());
  pm.addPass(placer::createSimulate());
  if (mlir::failed(pm.run(*module)))
    return 0;
  placer::runtime::ExecutionOptions execution;
  execution.stage = 0;
  llvm::Expected<placer::runtime::LoweredModule> lowered =
      placer::runtime::lowerForExecution(*module, execution);
  if (!lowered)
    llvm::consumeError(lowered.takeError());
  return 0;
}
