//===- GraphToLinalg.h - Per-op lowerings of graph.node ---------*- C++ -*-===//
//
// The table of ONNX op lowerings. A lowering builds upstream ops for one
// node on static tensors and returns the node's replacement values, or
// fails after an error naming the node and the unsupported attribute.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_CONVERSION_GRAPHTOLINALG_H
#define PLACER_CONVERSION_GRAPHTOLINALG_H

#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

namespace placer {

/// What a lowering gets: a builder placed before the node, the node, and
/// its operands already lowered (constants are arith.constant or weight
/// arguments by then).
struct NodeLowering {
  mlir::OpBuilder &builder;
  graph::NodeOp node;
  llvm::SmallVector<mlir::Value> operands;

  mlir::Location getLoc() { return node.getLoc(); }
  /// The static tensor type of output `i`.
  mlir::RankedTensorType getResultType(unsigned i = 0);
  /// True when operand `i` is given (not omitted with graph.none).
  bool hasOperand(unsigned i) const;
  int64_t getInt(llvm::StringRef name, int64_t fallback);
  float getFloat(llvm::StringRef name, float fallback);
  std::optional<llvm::SmallVector<int64_t>> getInts(llvm::StringRef name);
  llvm::StringRef getString(llvm::StringRef name, llvm::StringRef fallback);
  /// The values of operand `i` when it is a compile-time integer constant.
  std::optional<llvm::SmallVector<int64_t>> getConstantInts(unsigned i);
  /// The value of operand `i` when it is a compile-time scalar constant.
  std::optional<double> getConstantScalar(unsigned i);
  /// Emits "cannot lower node 'NAME' (TYPE): MESSAGE" and fails.
  mlir::LogicalResult fail(const llvm::Twine &message);
};

/// The one element of `attr` as a double (float or signed integer), or
/// nothing when it holds more than one element.
std::optional<double> getSingleValue(mlir::DenseElementsAttr attr);

using LoweringFn =
    mlir::FailureOr<llvm::SmallVector<mlir::Value>> (*)(NodeLowering &);

/// ONNX op type -> lowering (default domain only).
const llvm::StringMap<LoweringFn> &getNodeLowerings();

} // namespace placer

#endif // PLACER_CONVERSION_GRAPHTOLINALG_H
