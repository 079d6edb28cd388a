//===- InitAll.h - Everything Placer registers, in one place ---*- C++ -*-===//
//
// What a tool, a library caller (C API, Python) or a plugin registers to
// use Placer: its dialects with their interface models, and its passes and
// pipelines, beside the upstream ones its pipelines name.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_INITALL_H
#define PLACER_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace placer {

/// Placer's dialects (graph, dist, placer) and their external models (op
/// costs, bufferization of dist ops), with only what they need.
void registerPlacerDialects(mlir::DialectRegistry &registry);

/// Placer's dialects plus every upstream dialect, extension and LLVM IR
/// translation that the execution pipeline goes through.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Placer's own passes and pipelines (--partition-devices,
/// --placer-lower-to-llvm, ...), for a tool that registers the upstream
/// passes itself (mlir-opt loading the plugin). Once per process: later
/// calls do nothing.
void registerPlacerPassesAndPipelines();

/// Placer's passes and pipelines and every upstream pass. Once per
/// process: later calls do nothing.
void registerAllPasses();

} // namespace placer

#endif // PLACER_INITALL_H
