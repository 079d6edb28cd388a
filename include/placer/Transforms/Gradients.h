//===- Gradients.h - Vector-Jacobian products of graph nodes ----*- C++ -*-===//
//
// Reverse-mode differentiation of the graph dialect, one rule per ONNX op
// type (a registry, like the lowerings'). A rule gets the forward node and
// the adjoint of each of its results and emits graph nodes (ONNX ops the
// lowering already runs) for the adjoint of each input. What the rules
// emit is tagged as the node's backward twin (kBackwardNodeAttrName and
// the forward node's kColorClassAttrName, PlacerDialect.h), so the placement passes keep each
// backward node with its forward node, as for the paper's training
// workloads. docs/Training.md describes the rules and the step around them.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_TRANSFORMS_GRADIENTS_H
#define PLACER_TRANSFORMS_GRADIENTS_H

#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

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
  mlir::ResultRange nodeWithResults(
      llvm::StringRef opType, mlir::ValueRange inputs, mlir::TypeRange results,
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

/// The adjoints of `node`'s inputs (null where an input gets none: an
/// integer input, a shape) from those of its results (null where a result
/// feeds nothing that reaches the loss). Failure when the node's
/// attributes or shapes are ones the rule does not cover; the rule says
/// why with an error on the node.
using VjpRule = std::function<mlir::LogicalResult(
    GradientBuilder &, graph::NodeOp, llvm::ArrayRef<mlir::Value> dResults,
    llvm::SmallVectorImpl<mlir::Value> &dInputs)>;

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

/// The rule for ONNX op type `opType`, or null.
const VjpRule *getVjpRule(llvm::StringRef opType);

/// The op types that have a rule, sorted (docs, errors).
std::vector<std::string> getDifferentiableOpTypes();

} // namespace placer

#endif // PLACER_TRANSFORMS_GRADIENTS_H
