//===- OnnxOps.h - The registry of ONNX ops ---------------------*- C++ -*-===//
//
// The op registry (placer/Dialect/Graph/OpRegistry.h) filled with every ONNX
// op Placer knows, one family file of lib/Conversion/GraphToLinalg each. The
// lowering, the cost model, the gradient builder and the placement roles
// read their per-op rules here.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_CONVERSION_ONNXOPS_H
#define PLACER_CONVERSION_ONNXOPS_H

#include "placer/Dialect/Graph/OpRegistry.h"

namespace placer {

/// The registry of every ONNX op, built (and finalized) on first use.
const OpRegistry &getOnnxOps();

} // namespace placer

#endif // PLACER_CONVERSION_ONNXOPS_H
