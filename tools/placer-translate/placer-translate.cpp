//===- placer-translate.cpp - Placer's import/export driver ---------------===//
//
//   placer-translate --import-onnx model.onnx [-o out.mlir] [--shapes-only]
//                    [--dim NAME=VALUE]... [--input-shape NAME=D0xD1x...]...
//   placer-translate --import-workload workload.json [-o out.mlir]
//   placer-translate --export-onnx in.mlir -o out.onnx
//   placer-translate --export-onnx-stages DIR in.mlir
//
// Errors go to stderr and the exit status is 1; an output file is only
// written when the whole translation succeeded.
//
//===----------------------------------------------------------------------===//

#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Export/OnnxExporter.h"
#include "placer/Import/OnnxImporter.h"
#include "placer/Import/WorkloadImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class Action { None, ImportOnnx, ImportWorkload, ExportOnnx };

cl::opt<Action> action(
    cl::desc("Translation:"), cl::init(Action::None),
    cl::values(clEnumValN(Action::ImportOnnx, "import-onnx",
                          "ONNX model -> graph dialect"),
               clEnumValN(Action::ImportWorkload, "import-workload",
                          "NeurIPS 2020 workload JSON -> graph dialect"),
               clEnumValN(Action::ExportOnnx, "export-onnx",
                          "graph dialect -> ONNX model")));
cl::opt<std::string>
    exportStagesDir("export-onnx-stages",
                    cl::desc("Split module -> one ONNX model per device and "
                             "a manifest, in this directory"),
                    cl::value_desc("DIR"));
cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input file>"),
                                   cl::init("-"));
cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                    cl::value_desc("filename"), cl::init("-"));

cl::OptionCategory importCategory("ONNX import options");
cl::opt<bool> shapesOnly("shapes-only",
                         cl::desc("Never open external weight files"),
                         cl::cat(importCategory));
cl::list<std::string> dims("dim", cl::desc("Bind a symbolic dim: NAME=VALUE"),
                           cl::value_desc("NAME=VALUE"),
                           cl::cat(importCategory));
cl::list<std::string>
    inputShapes("input-shape",
                cl::desc("Override an input's shape: NAME=D0xD1x..."),
                cl::value_desc("NAME=SHAPE"), cl::cat(importCategory));
cl::opt<bool> emitBytecode("emit-bytecode",
                           cl::desc("Write MLIR bytecode instead of text"));
} // namespace

static LogicalResult parseImportOptions(MLIRContext &context,
                                        placer::OnnxImportOptions &options) {
  auto loc = UnknownLoc::get(&context);
  options.shapesOnly = shapesOnly;
  for (const std::string &text : dims) {
    std::pair<std::string, int64_t> binding;
    if (std::string err = placer::parseDimBinding(text, binding); !err.empty())
      return emitError(loc) << "--dim: " << err;
    options.dimBindings.push_back(binding);
  }
  for (const std::string &text : inputShapes) {
    std::pair<std::string, llvm::SmallVector<int64_t>> shape;
    if (std::string err = placer::parseInputShape(text, shape); !err.empty())
      return emitError(loc) << "--input-shape: " << err;
    options.inputShapes.push_back(std::move(shape));
  }
  return success();
}

static LogicalResult writeModule(ModuleOp module, llvm::raw_ostream &os) {
  if (emitBytecode)
    return writeBytecodeToFile(module, os);
  module.print(os);
  return success();
}

static LogicalResult runImport(MLIRContext &context, llvm::raw_ostream &os) {
  placer::OnnxImportOptions options;
  if (failed(parseImportOptions(context, options)))
    return failure();
  OwningOpRef<ModuleOp> module =
      placer::importOnnxFile(inputFilename, &context, options);
  if (!module)
    return failure();
  return writeModule(*module, os);
}

static OwningOpRef<ModuleOp> parseInput(MLIRContext &context,
                                        llvm::SourceMgr &sourceMgr) {
  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file) {
    emitError(UnknownLoc::get(&context)) << error;
    return {};
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

static LogicalResult runExport(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                               llvm::raw_ostream &os) {
  OwningOpRef<ModuleOp> module = parseInput(context, sourceMgr);
  if (!module)
    return failure();
  return placer::exportOnnxModule(*module, os);
}

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "Placer import/export driver\n");

  DialectRegistry registry;
  registry.insert<placer::graph::GraphDialect, placer::dist::DistDialect,
                  func::FuncDialect>();
  MLIRContext context(registry);
  context.allowUnregisteredDialects(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  // Diagnostics about the command line or a whole file carry no location:
  // print them as "placer-translate: error: ..." instead of "<unknown>:0:".
  ScopedDiagnosticHandler unlocated(&context, [](Diagnostic &diag) {
    if (!isa<UnknownLoc>(diag.getLocation()))
      return failure(); // the SourceMgr handler prints it
    llvm::errs() << "placer-translate: "
                 << (diag.getSeverity() == DiagnosticSeverity::Error
                         ? "error: "
                         : diag.getSeverity() == DiagnosticSeverity::Warning
                               ? "warning: "
                               : "note: ")
                 << diag << "\n";
    return success();
  });

  if (!exportStagesDir.empty()) {
    if (action != Action::None) {
      llvm::errs() << "placer-translate: choose one translation\n";
      return 1;
    }
    OwningOpRef<ModuleOp> module = parseInput(context, sourceMgr);
    return module && succeeded(placer::exportOnnxStages(*module,
                                                        exportStagesDir))
               ? 0
               : 1;
  }
  if (action == Action::None) {
    llvm::errs() << "placer-translate: choose a translation "
                    "(--import-onnx, --import-workload, --export-onnx or "
                    "--export-onnx-stages DIR); see --help\n";
    return 1;
  }
  if (action == Action::ExportOnnx && outputFilename == "-") {
    llvm::errs() << "placer-translate: --export-onnx writes a binary model: "
                    "give the output file with -o\n";
    return 1;
  }

  std::string error;
  auto output = openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "placer-translate: " << error << "\n";
    return 1;
  }
  LogicalResult result = failure();
  switch (action) {
  case Action::ImportOnnx:
    result = runImport(context, output->os());
    break;
  case Action::ImportWorkload:
    if (OwningOpRef<ModuleOp> module =
            placer::importWorkloadFile(inputFilename, &context))
      result = writeModule(*module, output->os());
    break;
  case Action::ExportOnnx:
    result = runExport(context, sourceMgr, output->os());
    break;
  case Action::None:
    break;
  }
  if (failed(result))
    return 1; // the ToolOutputFile deletes the partial output
  output->keep();
  return 0;
}
