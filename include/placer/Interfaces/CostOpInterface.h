//===- CostOpInterface.h - Per-op work for the cost model ------*- C++ -*-===//
#ifndef PLACER_INTERFACES_COSTOPINTERFACE_H
#define PLACER_INTERFACES_COSTOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"

#include <cstdint>
#include <string>

namespace placer {

/// What an op does, whatever it runs on.
struct OpWork {
  /// Floating-point operations; a multiply-add counts as 2.
  double flops = 0;
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  /// Bytes of constant inputs (weights) the op keeps on its device.
  int64_t paramBytes = 0;
  /// Bytes of the op's results.
  int64_t outputBytes = 0;
  /// Element type that picks the peak FLOP/s ("f32", "f16", ...).
  std::string elementType = "f32";
  /// A view or shape op: no kernel runs, so no time and no overhead.
  bool isFree = false;
  /// False for the generic bytes-only estimate of an op with no formula.
  bool isModeled = true;
  /// Runs inside a neighbour's kernel (a padding read by a convolution, an
  /// elementwise epilogue of a contraction), as compilers fuse them: its
  /// bytes and FLOPs count, but no launch overhead of its own.
  bool isFused = false;
  /// The estimate already includes the ops in the op's regions (a linalg
  /// payload); otherwise they are estimated and added one by one.
  bool coversRegions = false;
};

} // namespace placer

#include "placer/Interfaces/CostOpInterface.h.inc"

#endif // PLACER_INTERFACES_COSTOPINTERFACE_H
