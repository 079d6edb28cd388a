//===- OnnxExporter.h - The graph dialect back to ONNX --------*- C++ -*-===//
//
// Writes a module of the graph dialect as an ONNX ModelProto: the same nodes,
// attributes, initializers (inline bytes or external references) and types
// the importer read. Includes no ONNX header.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_EXPORT_ONNXEXPORTER_H
#define PLACER_EXPORT_ONNXEXPORTER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace placer {

/// Serializes `func` (a function of graph-dialect ops) with the model-level
/// attributes of its module to `os` as an ONNX model. Errors are emitted as
/// diagnostics on the offending op; nothing is written on failure.
mlir::LogicalResult exportOnnxFunction(mlir::func::FuncOp func,
                                       llvm::raw_ostream &os);

/// Exports the module's graph function: `@main_graph`, or its only function.
mlir::LogicalResult exportOnnxModule(mlir::ModuleOp module,
                                     llvm::raw_ostream &os);

/// One file of an exported split model: its name in the stage folder
/// (`stage0_device0.onnx`, `stage0_device0.data`, `manifest.json`) and its
/// bytes.
using StageFile = std::pair<std::string, std::string>;

struct StageExportOptions {
  /// The weights are absent (a --shapes-only import): data files are laid
  /// out in the manifest but not filled.
  bool weightless = false;
  /// Weights from external data go into each stage model's initializers
  /// instead of a data file beside it, so that each model stands alone (in
  /// memory; protobuf bounds a model to 2 GB).
  bool embedWeights = false;
};

/// The files exportOnnxStages writes, built in memory: every stage's model
/// (and data file), then `manifest.json`.
mlir::FailureOr<std::vector<StageFile>>
exportOnnxStageFiles(mlir::ModuleOp module, const StageExportOptions &options);

/// Writes one ONNX model per stage of the module's `dist.program` into `dir`
/// (`stage<i>_device<d>.onnx`: inputs are the graph inputs it reads and the
/// tensors it receives, outputs the graph outputs it computes and the
/// tensors it sends; inline initializers stay inline, external ones are
/// copied into the stage's own `stage<i>_device<d>.data`) and
/// `manifest.json`, which wires them (docs/Split.md). Every location written
/// is a file name in `dir`. A weight whose file is absent is an error unless
/// `weightless`: then the data files are laid out but not written. Nothing
/// is written unless every stage exports.
mlir::LogicalResult exportOnnxStages(mlir::ModuleOp module, llvm::StringRef dir,
                                     bool weightless = false);

} // namespace placer

#endif // PLACER_EXPORT_ONNXEXPORTER_H
