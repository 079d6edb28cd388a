//===- GradientBuilder.h - Emitting a node's backward twin -----*- C++ -*-===//
//
// What the gradient rules of the op registry (OpEntry::gradient) build
// with: graph.node ops of the module's opset, tagged as a forward node's
// backward twin (kBackwardNodeAttrName and the forward node's
// kColorClassAttrName, PlacerDialect.h), so the placement passes keep each
// backward node with its forward node, as for the paper's training
// workloads. docs/Training.md describes the rules and the step around them.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_CONVERSION_GRADIENTBUILDER_H
#define PLACER_CONVERSION_GRADIENTBUILDER_H

#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace placer {

/// Which part of a training step a node belongs to: the forward pass (the
/// loss included), the backward pass, or the optimizer's update, which
/// reads each gradient once the backward pass is done (and which
/// --placer-accumulate-microbatches therefore leaves out of the copies it
/// makes per microbatch).
enum class StepPhase { Forward, Backward, Optimizer };

/// Emits the nodes of one forward node's backward twin: graph.node ops of
/// the module's opset, named `prefix/N`, tagged with their `phase`
/// (backward: kBackwardNodeAttrName; optimizer: that and
/// kOptimizerNodeAttrName) and with the forward node's colour class;
/// constants (axes, shapes, scalars) as graph.constant of a Constant node,
/// which the lowering inlines.
class GradientBuilder {
public:
  GradientBuilder(mlir::OpBuilder &builder, mlir::Location loc, int64_t opset,
                  llvm::StringRef prefix, mlir::IntegerAttr colorClass,
                  StepPhase phase = StepPhase::Backward);

  /// A one-result node of `opType` on `inputs`.
  mlir::Value node(llvm::StringRef opType, mlir::ValueRange inputs,
                   mlir::Type result,
                   llvm::ArrayRef<mlir::NamedAttribute> attrs = {});
  /// A node with several results (MaxPool and its Indices).
  mlir::ResultRange
  nodeWithResults(llvm::StringRef opType, mlir::ValueRange inputs,
                  mlir::TypeRange results,
                  llvm::ArrayRef<mlir::NamedAttribute> attrs = {});
  /// Constants: i64 `values` (axes, shapes), and a scalar of `type`'s
  /// element type, shaped to broadcast against any tensor.
  mlir::Value int64s(llvm::ArrayRef<int64_t> values);
  mlir::Value scalar(double value, mlir::Type type);

  /// `value` summed over the dims that broadcasting added to reach its
  /// shape from `target`'s (ONNX multidirectional broadcasting), reshaped
  /// to `target`: the adjoint of a broadcast operand.
  mlir::Value sumTo(mlir::Value value, mlir::RankedTensorType target);
  /// `value` summed over `axes`, which stay as dims of size 1.
  mlir::Value reduceSum(mlir::Value value, llvm::ArrayRef<int64_t> axes);
  /// Zeros of `type` (a scalar expanded: no constant of that size).
  mlir::Value zeros(mlir::RankedTensorType type);
  /// Swaps the last two dims.
  mlir::Value transposeLast(mlir::Value value);
  mlir::Value reshape(mlir::Value value, llvm::ArrayRef<int64_t> shape);

  mlir::OpBuilder &getBuilder() { return builder; }
  mlir::Location getLoc() { return loc; }

private:
  mlir::OpBuilder &builder;
  mlir::Location loc;
  int64_t opset;
  std::string prefix;
  mlir::IntegerAttr colorClass;
  StepPhase phase;
  unsigned count = 0;
};

} // namespace placer

#endif // PLACER_CONVERSION_GRADIENTBUILDER_H
