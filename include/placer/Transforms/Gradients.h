//===- Gradients.h - Vector-Jacobian products of graph nodes ----*- C++ -*-===//
//
// What the training passes share. Reverse-mode differentiation itself is
// the op registry's: each op's entry holds its gradient rule
// (OpEntry::gradient, built with placer/Conversion/GradientBuilder.h).
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_TRANSFORMS_GRADIENTS_H
#define PLACER_TRANSFORMS_GRADIENTS_H

#include "placer/Conversion/GradientBuilder.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

namespace placer {

/// The default domain's opset of a module that a training pass (`pass`,
/// for the error) rewrites: 13 or later, as the rules emit opset-13 forms
/// (axes as inputs).
mlir::FailureOr<int64_t> getTrainingOpset(mlir::ModuleOp module,
                                          llvm::StringRef pass);

/// Appends `suffix` to `node`'s name and to each of its non-empty output
/// names: a copy of a node (per microbatch, per device) keeps names unique.
void appendToNodeNames(graph::NodeOp node, llvm::StringRef suffix);

/// The weights and optimizer state a training step function updates (the
/// names on its results' kUpdatesAttrName); empty for any other function.
llvm::StringSet<> getUpdatedState(mlir::func::FuncOp func);

/// Bytes of the trained weights (names in `updated`) that `op` reads when
/// it is a forward op (a backward or optimizer node: 0): the gradients a
/// replicated stage all-reduces for it once per iteration. A weight that
/// two forward ops read counts for both.
int64_t getTrainedWeightBytes(mlir::Operation *op,
                              const llvm::StringSet<> &updated);

} // namespace placer

#endif // PLACER_TRANSFORMS_GRADIENTS_H
