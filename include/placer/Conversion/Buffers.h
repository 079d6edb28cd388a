//===- Buffers.h - Shaping what bufferization makes -------------*- C++ -*-===//
//
// Rewrites on tensors that decide which buffers one-shot bufferization
// gives ops, shared by the CPU and GPU pipelines.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_CONVERSION_BUFFERS_H
#define PLACER_CONVERSION_BUFFERS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace placer {

/// Every filled empty tensor (a reduction's zeros, a convolution's output)
/// gets one fill per user, each into its own alloc_tensor, which CSE leaves
/// apart: once CSE has merged equal fills, bufferization would fill one
/// buffer and copy it for every other user, and a library call would
/// accumulate into the copy instead of overwriting its output.
void giveFillsOwnBuffers(mlir::RewriterBase &rewriter, mlir::func::FuncOp func);

} // namespace placer

#endif // PLACER_CONVERSION_BUFFERS_H
