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

/// What the grouping sees of one level: its units (ops that run a kernel),
/// their fusion roles, and the values between them with views looked
/// through. Every unit lives in one block.
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
  /// The unit that computes `value` (a value views were looked through),
  /// or null for a leaf: an argument, a constant, a value from another
  /// block.
  virtual mlir::Operation *getProducer(mlir::Value value) const = 0;
  /// The values `unit` reads, views looked through, each once.
  virtual llvm::SmallVector<mlir::Value, 4>
  getInputs(mlir::Operation *unit) const = 0;
  /// The units that read `unit`'s results (through views); false when a
  /// result also goes elsewhere (returned, read by an op that is no unit).
  virtual bool
  getConsumers(mlir::Operation *unit,
               llvm::SmallVectorImpl<mlir::Operation *> &consumers) const = 0;
};

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
