//===- placer-translate.cpp - Placer's import/export driver ---------------===//
//
// mlir-translate with Placer's translations:
//
//   placer-translate --import-onnx model.onnx [-o out.mlir] [--shapes-only]
//                    [--dim NAME=VALUE]... [--input-shape NAME=D0xD1x...]...
//   placer-translate --import-workload workload.json [-o out.mlir]
//   placer-translate --export-onnx in.mlir -o out.onnx
//   placer-translate --export-onnx-stages DIR in.mlir
//
// Errors go to stderr and the exit status is 1; mlirTranslateMain keeps an
// output file only when the whole translation succeeded.
//
//===----------------------------------------------------------------------===//

#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Export/OnnxExporter.h"
#include "placer/Import/OnnxImporter.h"
#include "placer/Import/WorkloadImporter.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {

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
cl::opt<std::string>
    stagesDir("stages-dir",
              cl::desc("--export-onnx-stages: the directory to write (also "
                       "given as --export-onnx-stages DIR)"),
              cl::value_desc("DIR"));
cl::opt<bool> weightlessStages(
    "weightless-stages",
    cl::desc("--export-onnx-stages: write stages whose weights are absent "
             "(a --shapes-only import); their data files are not written"));

/// Prints diagnostics without a location as "placer-translate: error: ..."
/// instead of "<unknown>:0:" while a translation runs.
class ToolDiagnostics {
public:
  explicit ToolDiagnostics(MLIRContext *context)
      : handler(context, [](Diagnostic &diag) {
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
        }) {}

private:
  ScopedDiagnosticHandler handler;
};

LogicalResult parseImportOptions(MLIRContext *context,
                                 placer::OnnxImportOptions &options) {
  auto loc = UnknownLoc::get(context);
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

LogicalResult writeModule(ModuleOp module, llvm::raw_ostream &os) {
  if (emitBytecode)
    return writeBytecodeToFile(module, os);
  module.print(os);
  return success();
}

/// The input's file name, as mlirTranslateMain opened it.
StringRef getInputName(llvm::SourceMgr &sourceMgr) {
  return sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
      ->getBufferIdentifier();
}

OwningOpRef<ModuleOp> importOnnx(llvm::SourceMgr &sourceMgr,
                                 MLIRContext *context) {
  placer::OnnxImportOptions options;
  if (failed(parseImportOptions(context, options)))
    return {};
  StringRef name = getInputName(sourceMgr);
  // From the file itself when there is one: the importer parses it in
  // place, and external weights are found next to it.
  if (llvm::sys::fs::is_regular_file(name))
    return placer::importOnnxFile(name, context, options);
  StringRef bytes =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  return placer::importOnnxBuffer(bytes, name, ".", context, options);
}

void registerDialects(DialectRegistry &registry) {
  registry.insert<placer::graph::GraphDialect, placer::dist::DistDialect,
                  placer::PlacerDialect, func::FuncDialect>();
}

/// A translation from an external format to MLIR, printed (or written as
/// bytecode) by us so that --emit-bytecode works.
using Importer =
    std::function<OwningOpRef<ModuleOp>(llvm::SourceMgr &, MLIRContext *)>;
TranslateFunction makeImport(Importer importer) {
  return [importer](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                    llvm::raw_ostream &os, MLIRContext *context) {
    ToolDiagnostics diagnostics(context);
    OwningOpRef<ModuleOp> module = importer(*sourceMgr, context);
    return module ? writeModule(*module, os) : failure();
  };
}

void registerTranslations() {
  static TranslateRegistration importOnnxRegistration(
      "import-onnx", "ONNX model -> graph dialect", makeImport(importOnnx));
  static TranslateRegistration importWorkloadRegistration(
      "import-workload", "NeurIPS 2020 workload JSON -> graph dialect",
      makeImport([](llvm::SourceMgr &sourceMgr, MLIRContext *context) {
        return placer::importWorkloadFile(getInputName(sourceMgr), context);
      }));
  static TranslateFromMLIRRegistration exportOnnxRegistration(
      "export-onnx", "graph dialect -> ONNX model (needs -o)",
      [](ModuleOp module, llvm::raw_ostream &os) {
        ToolDiagnostics diagnostics(module.getContext());
        return placer::exportOnnxModule(module, os);
      },
      registerDialects);
  static TranslateFromMLIRRegistration exportStagesRegistration(
      "export-onnx-stages",
      "split module -> one ONNX model per device and a manifest, in "
      "--stages-dir",
      [](ModuleOp module, llvm::raw_ostream &) -> LogicalResult {
        ToolDiagnostics diagnostics(module.getContext());
        if (stagesDir.empty())
          return emitError(UnknownLoc::get(module.getContext()))
                 << "--export-onnx-stages needs a directory "
                    "(--export-onnx-stages DIR)";
        return placer::exportOnnxStages(module, stagesDir, weightlessStages);
      },
      registerDialects);
}

/// Today's spellings on top of mlirTranslateMain's: `--export-onnx-stages
/// DIR` names its directory, and --export-onnx, which writes a binary
/// model, refuses to write it to the terminal's stdout.
std::vector<std::string> rewriteArguments(int argc, char **argv,
                                          std::string &error) {
  std::vector<std::string> args(argv, argv + argc);
  std::vector<std::string> out;
  bool exportOnnx = false, hasOutput = false;
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef arg = args[i];
    if (arg == "--export-onnx-stages" || arg == "-export-onnx-stages") {
      out.push_back("--export-onnx-stages");
      if (i + 1 < args.size() && !StringRef(args[i + 1]).starts_with("-"))
        out.push_back("--stages-dir=" + args[++i]);
      continue;
    }
    if (arg.consume_front("--export-onnx-stages=")) {
      out.push_back("--export-onnx-stages");
      out.push_back(("--stages-dir=" + arg).str());
      continue;
    }
    exportOnnx |= arg == "--export-onnx" || arg == "-export-onnx";
    hasOutput |= arg == "-o" || arg.starts_with("-o=") ||
                 arg.starts_with("--o=") ||
                 (arg.starts_with("-o") && arg.size() > 2 && arg[2] != '-');
    out.push_back(args[i]);
  }
  if (exportOnnx && !hasOutput)
    error = "--export-onnx writes a binary model: give the output file with -o";
  return out;
}

} // namespace

int main(int argc, char **argv) {
  std::string error;
  std::vector<std::string> args = rewriteArguments(argc, argv, error);
  if (!error.empty()) {
    llvm::errs() << "placer-translate: " << error << "\n";
    return 1;
  }
  std::vector<char *> argPointers;
  for (std::string &arg : args)
    argPointers.push_back(arg.data());
  registerTranslations();
  return failed(mlirTranslateMain(static_cast<int>(argPointers.size()),
                                  argPointers.data(),
                                  "Placer import/export driver\n"));
}
