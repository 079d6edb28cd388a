/*===- Dialects.h - Placer's dialects for the MLIR C API ---------*- C -*-===*
 *
 * Handles of the graph, dist and placer dialects, used with the MLIR C
 * API's mlirDialectHandleRegisterDialect / mlirDialectHandleLoadDialect /
 * mlirDialectHandleInsertDialect.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PLACER_C_DIALECTS_H
#define PLACER_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Graph, graph);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Dist, dist);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Placer, placer);

#ifdef __cplusplus
}
#endif

#endif /* PLACER_C_DIALECTS_H */
