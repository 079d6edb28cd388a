//===- RowFusion.h - Row kernels alike at every level -----------*- C++ -*-===//
//
// A backend runs a row reduction (LayerNorm, Softmax, a mean over the last
// axes) with the elementwise ops around it as one kernel per block of rows:
// the elementwise ops that only feed it are computed in registers as it
// reads, those that read it (and nothing computed elsewhere) as it writes.
// The cost model charges such a group one launch, reads each value from
// outside once and writes only what leaves it (docs/CostModel.md, "Row
// kernels").
//
// One algorithm forms the groups over any level's units (a graph's nodes,
// a lowered module's kernels) through the small view below, so an ONNX
// LayerNormalization node and the reductions and generics it lowers to, or
// a LayerNorm exported as nine nodes, make the same kernel.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_ANALYSIS_ROWFUSION_H
#define PLACER_ANALYSIS_ROWFUSION_H

#include "placer/Dialect/Graph/OpRegistry.h"

#include "mlir/IR/Operation.h"

namespace placer {

/// What the kernel rules see of one level: its units (ops that run a
/// kernel), their fusion roles, the values between them with views looked
/// through, and which kernel each unit runs in. A graph's nodes and a
/// lowered module's ops each implement it once (GraphCostModel.cpp,
/// UpstreamCostModels.cpp); the grouping and the bytes a kernel moves are
/// written once, below, over it. Every unit lives in one block.
class RowFusionGraph {
public:
  virtual ~RowFusionGraph() = default;

  struct Role {
    FusionKind kind = FusionKind::None;
    /// RowReduction: the number of rows (the product of input 0's leading
    /// axes). Elementwise: unused.
    int64_t rows = 0;
    /// Elementwise: the shape of the output.
    llvm::SmallVector<int64_t, 4> shape;
  };

  /// The role of unit `unit`.
  virtual Role classify(mlir::Operation *unit) const = 0;
  /// Whether `op` runs a kernel at this level.
  virtual bool isUnit(mlir::Operation *op) const = 0;
  /// `value` with the views that produced it looked through (views relabel
  /// a whole tensor: a reshape, not a slice).
  virtual mlir::Value lookThroughViews(mlir::Value value) const = 0;
  /// Calls `fn` with every op that reads `value`, directly or through
  /// views.
  virtual void
  forEachReader(mlir::Value value,
                llvm::function_ref<void(mlir::Operation *)> fn) const = 0;
  /// The op that launches the kernel `op` runs in (`op` alone: itself).
  virtual mlir::Operation *getKernel(mlir::Operation *op) const = 0;
  /// Whether a kernel reads `value` (views looked through) without moving
  /// bytes: an empty tensor, a fill of a constant its accumulator starts
  /// from. None by default.
  virtual bool isFreeRead(mlir::Value) const { return false; }

  /// The unit that computes `value` for `reader`, views looked through,
  /// or null for a leaf (an argument, a constant, a free read, a value
  /// from another block than the reader's).
  mlir::Operation *getProducer(mlir::Value value,
                               mlir::Operation *reader) const;
  /// The tensors `unit` reads, views looked through, each once.
  llvm::SmallVector<mlir::Value, 4> getInputs(mlir::Operation *unit) const;
  /// The units that read `unit`'s results (through views); false when a
  /// result also goes elsewhere (returned, read by an op that is no unit).
  bool getConsumers(mlir::Operation *unit,
                    llvm::SmallVectorImpl<mlir::Operation *> &consumers) const;

  /// Whether `op`, in `kernel`, reads `value` from memory: not when the
  /// kernel computes it or it is a free read, nor when an earlier op of
  /// the kernel read it (a kernel reads each value once).
  bool readsFromMemory(mlir::Operation *op, mlir::Value value,
                       mlir::Operation *kernel) const;
  /// Whether every reader of `result` runs in `kernel`: the value stays in
  /// registers and is never written.
  bool staysInKernel(mlir::Value result, mlir::Operation *kernel) const;
};

/// `value` with the views that produced it looked through: ops `isView`
/// names, read as their operand 0.
mlir::Value lookThroughViews(mlir::Value value,
                             llvm::function_ref<bool(mlir::Operation *)> isView);

/// Calls `fn` with every use of `value` and, through the views `isView`
/// names (a use as their operand 0), every use of their results.
void forEachUseThroughViews(
    mlir::Value value, llvm::function_ref<bool(mlir::Operation *)> isView,
    llvm::function_ref<void(mlir::OpOperand &)> fn);

/// The row reduction whose kernel unit `unit` runs in (the reduction
/// itself for its own kernel's launching unit), or null when it runs alone.
///
/// A group grows from a reduction: an elementwise or row-reducing unit over
/// the same rows joins when it reads the group (and otherwise only leaves
/// or values the group already reads: no path leaves the group and comes
/// back), or when it feeds the group and nothing else. `unit` belongs to
/// the first reduction, in block order, whose group holds it.
mlir::Operation *getRowKernel(const RowFusionGraph &graph,
                              mlir::Operation *unit);

} // namespace placer

#endif // PLACER_ANALYSIS_ROWFUSION_H
