//===- ImportOnnxFuzzer.cpp - Arbitrary bytes as an ONNX model ------------===//
//
// Any input must give a module or diagnostics, never a crash, a hang or a
// sanitizer report. Shapes only: a fuzzed model must not read files.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "placer/Import/OnnxImporter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &context = placer::fuzz::getContext();
  placer::OnnxImportOptions options;
  options.shapesOnly = true;
  mlir::OwningOpRef<mlir::ModuleOp> module = placer::importOnnxBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.onnx",
      "/nonexistent", &context, options);
  if (module && mlir::failed(mlir::verify(*module)))
    __builtin_trap(); // an imported module must verify
  return 0;
}
