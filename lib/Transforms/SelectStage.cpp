//===- SelectStage.cpp - One device's program of a split module -----------===//
//
// What one MPI rank compiles: its stage function, alone, with the map from
// peer devices to ranks that its transfers need once lowered. The copies of
// a replicated stage compile the same function.
//
//===----------------------------------------------------------------------===//

#include "placer/Transforms/Passes.h"

#include "placer/Dialect/Dist/DistDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace placer {
#define GEN_PASS_DEF_SELECTSTAGE
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;

namespace {
struct SelectStagePass
    : public placer::impl::SelectStageBase<SelectStagePass> {
  using SelectStageBase::SelectStageBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto programs = llvm::to_vector(module.getOps<dist::ProgramOp>());
    if (programs.size() != 1) {
      emitError(module.getLoc(), "--placer-select-stage needs a split module "
                                 "(one dist.program), found ")
          << programs.size() << " programs";
      return signalPassFailure();
    }
    dist::ProgramOp program = programs.front();
    int64_t count = program.getStages().size();
    if (stage < 0 || stage >= count) {
      program.emitError("--placer-select-stage: stage ")
          << static_cast<int64_t>(stage) << " does not exist: the program has "
          << count << " stages";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> stages;
    for (Attribute ref : program.getStages())
      stages.push_back(SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          program, cast<SymbolRefAttr>(ref)));
    func::FuncOp kept = stages[stage];
    // Every copy of a replicated stage is a rank of its own, next to its
    // stage's device, so that transfers can route microbatches to copies.
    Builder b(program);
    kept->setAttr(dist::kRanksAttrName,
                  b.getDenseI64ArrayAttr(program.getRankDevices()));
    if (program.getReplicas()) {
      SmallVector<int64_t> groupSizes;
      for (int64_t index : program.getRankStages())
        groupSizes.push_back(program.getStageDevices(index).size());
      kept->setAttr(dist::kReplicasAttrName,
                    b.getDenseI64ArrayAttr(groupSizes));
    }
    kept.setPublic();
    for (func::FuncOp func : stages)
      if (func != kept)
        func.erase();
    program.erase();
  }
};
} // namespace
