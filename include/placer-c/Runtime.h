/*===- Runtime.h - Compile a module once and run it, from C ------*- C -*-===*
 *
 * A session compiles a graph module (a split module runs merged back) into
 * native code for this machine, cached on disk, and runs it on buffers the
 * caller owns. See include/placer/Compiler/Session.h and docs/Execution.md.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PLACER_C_RUNTIME_H
#define PLACER_C_RUNTIME_H

#include "placer-c/Placer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PlacerSession {
  void *ptr;
} PlacerSession;

typedef struct PlacerSessionOptions {
  /* Time every node: placerSessionProfile needs it. */
  bool profile;
  /* Microbatches per run, stacked on the first axis of every tensor. */
  int64_t microbatches;
  /* Where compiled code is cached (empty: the user cache folder). */
  MlirStringRef cacheDir;
  /* Threads of the code's parallel loops (the images of a batch; OpenMP),
   * at least 1. */
  int64_t threads;
} PlacerSessionOptions;

MLIR_CAPI_EXPORTED PlacerSessionOptions placerSessionOptionsGetDefault(void);

/* A tensor: its name (matched against the model's when not empty, else
 * taken by position), element type in MLIR's spelling ("f32", "i64", "i1"
 * ...), shape (rank sizes) and data in C order. */
typedef struct PlacerTensor {
  MlirStringRef name;
  MlirStringRef elementType;
  intptr_t rank;
  const int64_t *shape;
  void *data;
} PlacerTensor;

/* Lowers and compiles `module` (left as it was) and loads the code. */
MLIR_CAPI_EXPORTED PlacerStatus placerSessionCreate(
    MlirModule module, PlacerSessionOptions options, PlacerSession *result);
MLIR_CAPI_EXPORTED void placerSessionDestroy(PlacerSession session);

MLIR_CAPI_EXPORTED intptr_t placerSessionGetNumInputs(PlacerSession session);
MLIR_CAPI_EXPORTED intptr_t placerSessionGetNumOutputs(PlacerSession session);
/* The pos-th input or output: name, element type and shape of all
 * microbatches stacked ([M * d0, ...]); `data` is NULL. A dynamic dim is -1
 * until placerSessionSetInputShapes sizes it. Valid until the next
 * placerSessionSetInputShapes, and while the session lives. */
MLIR_CAPI_EXPORTED PlacerTensor placerSessionGetInput(PlacerSession session,
                                                      intptr_t pos);
MLIR_CAPI_EXPORTED PlacerTensor placerSessionGetOutput(PlacerSession session,
                                                       intptr_t pos);
/* A model with dynamic dims (compiled once for any size): the inputs'
 * shapes (of `inputs`, by name or position; data unused) size every dynamic
 * dim, so that placerSessionGetOutput gives the shapes of the outputs to
 * pass to placerSessionRun. Fails when a shape does not fit its input or
 * two inputs give one dim different sizes. */
MLIR_CAPI_EXPORTED PlacerStatus placerSessionSetInputShapes(
    PlacerSession session, const PlacerTensor *inputs, intptr_t numInputs);

/* Whether the compiled code came from the cache. */
MLIR_CAPI_EXPORTED bool placerSessionIsCached(PlacerSession session);
/* The threads the code's oneDNN calls and parallel loops run on: the
 * options' threads, or 1 for code linked to no OpenMP runtime. */
MLIR_CAPI_EXPORTED int64_t placerSessionGetThreads(PlacerSession session);

/* Runs every microbatch once: reads `inputs`, writes `outputs` (one tensor
 * per model input and output, of the shapes above). */
MLIR_CAPI_EXPORTED PlacerStatus placerSessionRun(PlacerSession session,
                                                 const PlacerTensor *inputs,
                                                 intptr_t numInputs,
                                                 const PlacerTensor *outputs,
                                                 intptr_t numOutputs);

/* A session created with `profile`: one warm-up run and `repeat` timed runs
 * (at least one) on the given tensors; passes node name -> mean seconds per
 * microbatch, as JSON, to `callback`. */
MLIR_CAPI_EXPORTED PlacerStatus placerSessionProfile(
    PlacerSession session, const PlacerTensor *inputs, intptr_t numInputs,
    const PlacerTensor *outputs, intptr_t numOutputs, unsigned repeat,
    MlirStringCallback callback, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* PLACER_C_RUNTIME_H */
