//===- Placer.cpp - The compiler's C API ----------------------------------===//

#include "placer-c/Placer.h"
#include "placer/Import/WorkloadImporter.h"

#include "Support.h"
#include "placer/Export/OnnxExporter.h"
#include "placer/Import/OnnxImporter.h"
#include "placer/InitAll.h"
#include "placer/Transforms/Reports.h"
#include "placer/Transforms/Simulation.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace placer;
using namespace placer::capi;

//===----------------------------------------------------------------------===//
// Statuses
//===----------------------------------------------------------------------===//

PlacerStatus placer::capi::failure(std::string message) {
  if (message.empty())
    message = "failed (no diagnostic)";
  return PlacerStatus{new std::string(std::move(message))};
}

PlacerStatus placer::capi::failure(llvm::Error error) {
  return failure(llvm::toString(std::move(error)));
}

DiagnosticCapture::DiagnosticCapture(mlir::MLIRContext *context)
    : handler(context, [this](mlir::Diagnostic &diag) {
        if (diag.getSeverity() != mlir::DiagnosticSeverity::Error &&
            diag.getSeverity() != mlir::DiagnosticSeverity::Warning)
          return mlir::success(); // remarks: progress, not problems
        llvm::raw_string_ostream os(text);
        auto line = [&](mlir::Diagnostic &d, llvm::StringRef kind) {
          if (!llvm::isa<mlir::UnknownLoc>(d.getLocation()))
            os << d.getLocation() << ": ";
          os << kind << ": " << d << "\n";
        };
        line(diag, diag.getSeverity() == mlir::DiagnosticSeverity::Error
                       ? "error"
                       : "warning");
        for (mlir::Diagnostic &note : diag.getNotes())
          line(note, "note");
        return mlir::success();
      }) {}

PlacerStatus DiagnosticCapture::failure(llvm::StringRef fallback) {
  std::string message = llvm::StringRef(text).rtrim().str();
  return capi::failure(message.empty() ? fallback.str() : message);
}

PlacerStatus DiagnosticCapture::failure(llvm::Error error) {
  std::string message = text + llvm::toString(std::move(error));
  return capi::failure(llvm::StringRef(message).rtrim().str());
}

MlirStringRef placerStatusGetMessage(PlacerStatus status) {
  if (!status.ptr)
    return MlirStringRef{"", 0};
  return wrapString(*static_cast<std::string *>(status.ptr));
}

void placerStatusDestroy(PlacerStatus status) {
  delete static_cast<std::string *>(status.ptr);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void placerRegisterAllPasses(void) { registerAllPasses(); }

void placerRegisterAllDialects(MlirDialectRegistry registry) {
  registerAllDialects(*unwrap(registry));
}

MlirContext placerContextCreate(void) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  registerAllPasses();
  return wrap(new mlir::MLIRContext(registry));
}

//===----------------------------------------------------------------------===//
// ONNX
//===----------------------------------------------------------------------===//

PlacerImportOptions placerImportOptionsGetDefault(void) {
  return PlacerImportOptions{false, MlirStringRef{"", 0}};
}

/// "batch=1,seq=128" -> the importer's options.
static PlacerStatus convertImportOptions(PlacerImportOptions in,
                                         OnnxImportOptions &out) {
  out.shapesOnly = in.shapesOnly;
  llvm::SmallVector<llvm::StringRef> entries;
  unwrapString(in.dims).split(entries, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef entry : entries) {
    std::pair<std::string, int64_t> binding;
    if (std::string err = parseDimBinding(entry.trim(), binding); !err.empty())
      return capi::failure("dims: " + err);
    out.dimBindings.push_back(binding);
  }
  return success();
}

/// Runs `importer` with the converted options; its diagnostics become the
/// status.
static PlacerStatus
importWith(MlirContext context, PlacerImportOptions options,
           MlirModule *result,
           llvm::function_ref<mlir::OwningOpRef<mlir::ModuleOp>(
               mlir::MLIRContext *, const OnnxImportOptions &)>
               importer) {
  OnnxImportOptions importOptions;
  if (PlacerStatus status = convertImportOptions(options, importOptions);
      !placerStatusIsOk(status))
    return status;
  mlir::MLIRContext *ctx = unwrap(context);
  DiagnosticCapture diagnostics(ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module = importer(ctx, importOptions);
  if (!module)
    return diagnostics.failure("the ONNX import failed");
  *result = wrap(module.release());
  return success();
}

PlacerStatus placerImportOnnxFile(MlirContext context, MlirStringRef path,
                                  PlacerImportOptions options,
                                  MlirModule *result) {
  return importWith(context, options, result,
                    [&](mlir::MLIRContext *ctx, const OnnxImportOptions &o) {
                      return importOnnxFile(unwrapString(path), ctx, o);
                    });
}

PlacerStatus placerImportWorkloadFile(MlirContext context, MlirStringRef path,
                                      MlirModule *result) {
  mlir::MLIRContext *ctx = unwrap(context);
  DiagnosticCapture diagnostics(ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importWorkloadFile(unwrapString(path), ctx);
  if (!module)
    return diagnostics.failure("the workload import failed");
  *result = wrap(module.release());
  return success();
}

PlacerStatus placerImportOnnxBytes(MlirContext context, MlirStringRef bytes,
                                   MlirStringRef modelDir,
                                   PlacerImportOptions options,
                                   MlirModule *result) {
  llvm::StringRef dir = unwrapString(modelDir);
  return importWith(context, options, result,
                    [&](mlir::MLIRContext *ctx, const OnnxImportOptions &o) {
                      return importOnnxBuffer(unwrapString(bytes), "<bytes>",
                                              dir.empty() ? "." : dir, ctx, o);
                    });
}

PlacerStatus placerExportOnnx(MlirModule module, MlirStringCallback callback,
                              void *userData) {
  mlir::ModuleOp op = unwrap(module);
  DiagnosticCapture diagnostics(op.getContext());
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  if (mlir::failed(exportOnnxModule(op, os)))
    return diagnostics.failure("the ONNX export failed");
  os.flush();
  callback(wrapString(bytes), userData);
  return success();
}

PlacerStatus placerExportOnnxStages(MlirModule module, bool embedWeights,
                                    PlacerFileCallback callback,
                                    void *userData) {
  mlir::ModuleOp op = unwrap(module);
  DiagnosticCapture diagnostics(op.getContext());
  StageExportOptions options;
  options.embedWeights = embedWeights;
  mlir::FailureOr<std::vector<StageFile>> files =
      exportOnnxStageFiles(op, options);
  if (mlir::failed(files))
    return diagnostics.failure("the stage export failed");
  for (const auto &[name, bytes] : *files)
    callback(wrapString(name), wrapString(bytes), userData);
  return success();
}

//===----------------------------------------------------------------------===//
// Pipelines, reports, simulation
//===----------------------------------------------------------------------===//

PlacerStatus placerRunPassPipeline(MlirModule module, MlirStringRef pipeline,
                                   PlacerReportCallback callback,
                                   void *userData) {
  registerAllPasses();
  mlir::ModuleOp op = unwrap(module);
  DiagnosticCapture diagnostics(op.getContext());
  llvm::StringRef text = unwrapString(pipeline).trim();
  // The passes run on the module itself: "builtin.module(...)" and a bare
  // list mean the same. (On a manager anchored elsewhere, a nested
  // builtin.module pipeline would run on modules *inside* this one.)
  llvm::StringRef passes = text;
  if (passes.consume_front("builtin.module(") && passes.consume_back(")"))
    passes = passes.trim();
  else
    passes = text;
  mlir::PassManager pm(op.getContext(), mlir::ModuleOp::getOperationName());
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (mlir::failed(mlir::parsePassPipeline(passes, pm, os)))
    return diagnostics.failure(
        llvm::createStringError(llvm::inconvertibleErrorCode(),
                                "cannot parse the pass pipeline '" + text +
                                    "': " + llvm::StringRef(errors).trim()));
  std::vector<PassReport> reports;
  collectReports(pm, reports);
  if (mlir::failed(pm.run(op)))
    return diagnostics.failure("the pass pipeline failed");
  if (callback)
    for (const PassReport &report : reports) {
      std::string json = llvm::formatv("{0}", report.value).str();
      callback(wrapString(report.pass), wrapString(json), userData);
    }
  return success();
}

PlacerStatus placerSimulate(MlirModule module, int64_t microbatches,
                            MlirStringCallback callback, void *userData) {
  mlir::ModuleOp op = unwrap(module);
  DiagnosticCapture diagnostics(op.getContext());
  SimulationSettings settings;
  settings.microbatches = microbatches;
  mlir::FailureOr<Simulation> simulation = simulate(op, settings);
  if (mlir::failed(simulation))
    return diagnostics.failure("the simulation failed");
  std::string json =
      llvm::formatv("{0}", llvm::json::Value(std::move(simulation->report)))
          .str();
  callback(wrapString(json), userData);
  return success();
}
