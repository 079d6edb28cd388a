//===- DistDialect.h - Per-device programs and their transfers -*- C++ -*-===//
#ifndef PLACER_DIALECT_DIST_DISTDIALECT_H
#define PLACER_DIALECT_DIST_DISTDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "placer/Dialect/Dist/DistDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "placer/Dialect/Dist/DistAttrs.h.inc"

#define GET_OP_CLASSES
#include "placer/Dialect/Dist/DistOps.h.inc"

namespace placer::dist {
/// The device an op is placed on (an index into the cluster's device list),
/// written by --placer-place-devices and read by the split, the pictures and
/// the per-stage export.
inline constexpr llvm::StringLiteral kDeviceAttrName = "placer.device";
} // namespace placer::dist

#endif // PLACER_DIALECT_DIST_DISTDIALECT_H
