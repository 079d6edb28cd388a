//===- FuzzSupport.h - What the fuzz targets share -------------*- C++ -*-===//
#ifndef PLACER_FUZZ_FUZZSUPPORT_H
#define PLACER_FUZZ_FUZZSUPPORT_H

#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

namespace placer::fuzz {

/// A fuzzer sees millions of errors, and they are the expected outcome.
inline void swallowDiagnostics(mlir::MLIRContext &context) {
  context.getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });
}

/// One context for the whole run, its diagnostics swallowed.
inline mlir::MLIRContext &getContext() {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    registry.insert<graph::GraphDialect, dist::DistDialect, PlacerDialect,
                    mlir::func::FuncDialect>();
    auto *context = new mlir::MLIRContext(registry);
    context->loadAllAvailableDialects();
    swallowDiagnostics(*context);
    return context;
  }();
  return *context;
}

} // namespace placer::fuzz

#endif // PLACER_FUZZ_FUZZSUPPORT_H
