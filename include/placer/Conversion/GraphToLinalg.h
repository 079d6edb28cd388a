//===- GraphToLinalg.h - Per-op lowerings of graph.node ---------*- C++ -*-===//
//
// What an op's lowering (OpEntry::lower, placer/Dialect/Graph/OpRegistry.h)
// gets. A lowering builds upstream ops for one node (on static tensors, or
// dynamic ones where its entry allows) and returns the node's replacement
// values, or fails after an error naming the node and the unsupported
// attribute.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_CONVERSION_GRAPHTOLINALG_H
#define PLACER_CONVERSION_GRAPHTOLINALG_H

#include "placer/Dialect/Graph/OpRegistry.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <string>
#include <vector>

namespace placer {

/// What a lowering gets: a builder placed before the node, the node, and
/// its operands already lowered (constants are arith.constant or weight
/// arguments by then).
struct NodeLowering {
  mlir::OpBuilder &builder;
  graph::NodeOp node;
  llvm::SmallVector<mlir::Value> operands;

  /// Lowers the body of subgraph region `region` at `at`'s insertion point
  /// (inside an scf op the lowering builds), its block arguments bound to
  /// `arguments`; returns the values the subgraph yields.
  std::function<mlir::FailureOr<llvm::SmallVector<mlir::Value>>(
      mlir::OpBuilder &at, mlir::Region &region, mlir::ValueRange arguments)>
      lowerRegion;
  /// The region of subgraph attribute `name` (then_branch, body, ...).
  mlir::Region *getSubgraph(llvm::StringRef name);

  /// The element types of the node's inputs and outputs as the model
  /// declares them. Lowered values are signless (upstream arith takes no
  /// ui8); these keep ONNX's unsigned integers for the ops that differ.
  llvm::SmallVector<mlir::Type> inputElementTypes, outputElementTypes;

  mlir::Location getLoc() { return node.getLoc(); }
  /// The tensor type output `i` lowers to (unsigned integers as signless
  /// ones of the same width).
  mlir::RankedTensorType getResultType(unsigned i = 0);
  /// The sizes of output `i`'s dynamic dims at run time, in order: each a
  /// symbolic dim of the graph's inputs (output_dims), read off the
  /// function's arguments. Empty for a static output.
  llvm::SmallVector<mlir::Value> getResultDynamicSizes(unsigned i = 0);
  /// A tensor.empty of output `i`'s type and run-time sizes.
  mlir::Value emptyResult(unsigned i = 0);
  /// Symbol -> its size (index) at run time, for the function being lowered.
  const llvm::StringMap<mlir::Value> *symbolSizes = nullptr;
  /// When set, the types the outputs lower to instead of the node's (one
  /// item of a batch, lowerEachItem).
  llvm::SmallVector<mlir::RankedTensorType> resultTypes;

  using ItemLoweringFn =
      mlir::FailureOr<llvm::SmallVector<mlir::Value>> (*)(NodeLowering &);
  /// Lowers the node with `fn` one item of a dynamic batch at a time, in an
  /// scf.for over the batch: operand `i` sliced to size 1 along dim
  /// `operandBatchDims[i]` (-1: whole), output `i` assembled along
  /// `resultBatchDims[i]`. For ops whose batch items are independent and
  /// whose lowering wants static shapes (recurrences).
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  lowerEachItem(llvm::ArrayRef<int64_t> operandBatchDims,
                llvm::ArrayRef<int64_t> resultBatchDims, ItemLoweringFn fn);
  /// Whether optional output `i` is there and used (an omitted one has type
  /// none and needs no value).
  bool wantsResult(unsigned i);
  bool isUnsignedInput(unsigned i) const;
  bool isUnsignedResult(unsigned i = 0) const;
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

/// `type` with unsigned integer elements made signless (other types as
/// they are).
mlir::Type getSignlessType(mlir::Type type);

/// The one element of `attr` as a double (float or signed integer), or
/// nothing when it holds more than one element.
std::optional<double> getSingleValue(mlir::DenseElementsAttr attr);

} // namespace placer

#endif // PLACER_CONVERSION_GRAPHTOLINALG_H
