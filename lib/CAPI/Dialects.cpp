//===- Dialects.cpp - Placer's dialect handles for the C API --------------===//

#include "placer-c/Dialects.h"

#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"

#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Graph, graph,
                                      placer::graph::GraphDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Dist, dist, placer::dist::DistDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Placer, placer, placer::PlacerDialect)
