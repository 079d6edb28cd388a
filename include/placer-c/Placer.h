/*===- Placer.h - Placer's compiler through the MLIR C API -------*- C -*-===*
 *
 * Import an ONNX model, run pass pipelines on it (placement, split) and read
 * their reports, export per-device ONNX stages, simulate a split program.
 * Modules, contexts and strings are the MLIR C API's (mlir-c/IR.h). Calls
 * that can fail return a PlacerStatus: success, or an error whose message
 * holds every diagnostic the call produced; the caller destroys it.
 *
 * Conventions follow the MLIR C API: owned objects come from *Create and go
 * back through *Destroy; strings passed in are not kept; strings passed out
 * through callbacks live only during the call.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PLACER_C_PLACER_H
#define PLACER_C_PLACER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Status
 *===----------------------------------------------------------------------===*/

/* Null on success; otherwise an error message owned by the status. */
typedef struct PlacerStatus {
  void *ptr;
} PlacerStatus;

static inline bool placerStatusIsOk(PlacerStatus status) {
  return status.ptr == NULL;
}
/* The message (empty on success), valid until placerStatusDestroy. */
MLIR_CAPI_EXPORTED MlirStringRef placerStatusGetMessage(PlacerStatus status);
/* Frees the message; a successful status needs no destroy (it is a no-op). */
MLIR_CAPI_EXPORTED void placerStatusDestroy(PlacerStatus status);

/*===----------------------------------------------------------------------===*
 * Registration
 *===----------------------------------------------------------------------===*/

/* Placer's passes and pipelines (partition-devices, placer-place-devices,
 * ...) and the upstream passes they name; once per process, later calls
 * do nothing. */
MLIR_CAPI_EXPORTED void placerRegisterAllPasses(void);
/* Placer's dialects with their external models, and the upstream dialects,
 * extensions and LLVM IR translations that compiling a module needs. */
MLIR_CAPI_EXPORTED void placerRegisterAllDialects(MlirDialectRegistry registry);
/* A context holding every dialect above, with the passes registered. */
MLIR_CAPI_EXPORTED MlirContext placerContextCreate(void);

/*===----------------------------------------------------------------------===*
 * ONNX import and export
 *===----------------------------------------------------------------------===*/

typedef struct PlacerImportOptions {
  /* Never open external weight files (a model whose weights are absent). */
  bool shapesOnly;
  /* Symbolic dims bound to values: "batch=1,seq=128" (empty: none). */
  MlirStringRef dims;
} PlacerImportOptions;

MLIR_CAPI_EXPORTED PlacerImportOptions placerImportOptionsGetDefault(void);

/* Imports the ONNX model at `path` into a new module of `context`. */
MLIR_CAPI_EXPORTED PlacerStatus placerImportOnnxFile(
    MlirContext context, MlirStringRef path, PlacerImportOptions options,
    MlirModule *result);
/* Imports a workload JSON file: the seed paper's format, or Piper's (layers
 * with tensor-parallel configurations; docs/Placement.md), detected. */
MLIR_CAPI_EXPORTED PlacerStatus placerImportWorkloadFile(MlirContext context,
                                                         MlirStringRef path,
                                                         MlirModule *result);
/* Imports a serialized ModelProto; external data files are looked up under
 * `modelDir`. */
MLIR_CAPI_EXPORTED PlacerStatus placerImportOnnxBytes(
    MlirContext context, MlirStringRef bytes, MlirStringRef modelDir,
    PlacerImportOptions options, MlirModule *result);

/* The module's graph function as a serialized ONNX model, passed to
 * `callback` once. */
MLIR_CAPI_EXPORTED PlacerStatus placerExportOnnx(MlirModule module,
                                                 MlirStringCallback callback,
                                                 void *userData);

/* One file of a split module's export: a stage model
 * (stage<i>_device<d>.onnx), a weights file (stage<i>_device<d>.data) or
 * manifest.json, which wires them (docs/Split.md). */
typedef void (*PlacerFileCallback)(MlirStringRef name, MlirStringRef bytes,
                                   void *userData);

/* Exports one ONNX model per stage of a split module. With `embedWeights`,
 * weights from external data files go into each stage model itself (no
 * .data files). Every file goes to `callback` once every stage exported. */
MLIR_CAPI_EXPORTED PlacerStatus placerExportOnnxStages(
    MlirModule module, bool embedWeights, PlacerFileCallback callback,
    void *userData);

/*===----------------------------------------------------------------------===*
 * Pass pipelines and their reports
 *===----------------------------------------------------------------------===*/

/* A report a pass made (placer-place-devices, placer-simulate): the pass's
 * argument and the report as JSON text (docs/Placement.md,
 * docs/Simulator.md). */
typedef void (*PlacerReportCallback)(MlirStringRef pass, MlirStringRef json,
                                     void *userData);

/* Runs a textual pass pipeline on `module` in place, e.g.
 * "partition-devices{devices=4}" (anchored on builtin.module unless the
 * text names an anchor). After a successful run, `callback` (may be NULL)
 * gets every report the pipeline's passes made, in order. On failure the
 * module may be partly rewritten. */
MLIR_CAPI_EXPORTED PlacerStatus placerRunPassPipeline(
    MlirModule module, MlirStringRef pipeline, PlacerReportCallback callback,
    void *userData);

/* Simulates a placed and split module for `microbatches` samples (0: the
 * placement's) and passes the simulator's report (JSON) to `callback`. */
MLIR_CAPI_EXPORTED PlacerStatus placerSimulate(MlirModule module,
                                               int64_t microbatches,
                                               MlirStringCallback callback,
                                               void *userData);

#ifdef __cplusplus
}
#endif

#endif /* PLACER_C_PLACER_H */
