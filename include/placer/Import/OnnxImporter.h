//===- OnnxImporter.h - ONNX model to the graph dialect -------*- C++ -*-===//
//
// The public face of the importer. It includes no ONNX or protobuf header, so
// code built without exceptions (all of MLIR) can call it.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_IMPORT_ONNXIMPORTER_H
#define PLACER_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace placer {

struct OnnxImportOptions {
  /// Never open external weight files: a model whose weights are absent
  /// imports, with every external initializer kept as a reference.
  bool shapesOnly = false;
  /// Values for symbolic dims (`--dim batch=1`), applied before shape
  /// inference to every tensor type that uses the name.
  std::vector<std::pair<std::string, int64_t>> dimBindings;
  /// Whole shapes for named graph inputs (`--input-shape x=1x3x224x224`).
  std::vector<std::pair<std::string, llvm::SmallVector<int64_t>>> inputShapes;
  /// Tensors of at most this many bytes are printed inline as `dense<...>`;
  /// larger ones become `dense_resource` blobs that take over the bytes the
  /// protobuf parser read, without a copy.
  int64_t inlineBytesLimit = 1024;
};

/// Imports the ONNX model at `path`. On failure, reports every problem as an
/// error diagnostic on `context` (naming the file and the ONNX node) and
/// returns null; nothing is thrown.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxFile(llvm::StringRef path, mlir::MLIRContext *context,
               const OnnxImportOptions &options = {});

/// Imports a serialized ModelProto held in memory. `bufferName` names it in
/// diagnostics; external data paths are relative to `modelDir`.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxBuffer(llvm::StringRef bytes, llvm::StringRef bufferName,
                 llvm::StringRef modelDir, mlir::MLIRContext *context,
                 const OnnxImportOptions &options = {});

/// Parses `NAME=VALUE` (a `--dim` option). Returns an error message on
/// failure, empty on success.
std::string parseDimBinding(llvm::StringRef text,
                            std::pair<std::string, int64_t> &binding);

/// Parses `NAME=D0xD1x...` (an `--input-shape` option); `NAME=` alone is a
/// scalar. Returns an error message on failure, empty on success.
std::string
parseInputShape(llvm::StringRef text,
                std::pair<std::string, llvm::SmallVector<int64_t>> &shape);

} // namespace placer

#endif // PLACER_IMPORT_ONNXIMPORTER_H
