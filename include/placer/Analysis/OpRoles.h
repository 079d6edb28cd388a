//===- OpRoles.h - Which ops a placement places ----------------*- C++ -*-===//
//
// The one place that decides, for every top-level op of a graph, whether a
// placement assigns it a device, copies it to every device that uses it, or
// folds it to a constant. Placement, split, simulator, DOT export and stage
// export all ask this, so the transfers the placement charges are exactly
// the channels the split emits.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_ANALYSIS_OPROLES_H
#define PLACER_ANALYSIS_OPROLES_H

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

namespace placer {

enum class OpRole {
  /// Runs on one device; devices that use its results receive them.
  Placed,
  /// Known at compile time (constants of any dialect, `graph.none`, small
  /// pure ops over such values (not over a weight or optimizer state that
  /// a training step updates, whose value changes every step), and ops that
  /// build a tensor from scalars
  /// alone, such as `tensor.empty` and a `linalg.fill` of a constant, at
  /// any size): each device that uses it holds a copy; never sent, never
  /// charged.
  Replicated,
  /// An op whose value comes from its operand types alone (its op registry
  /// entry folds it: Shape or Size of a statically shaped tensor), so each
  /// device that uses it gets a constant and its
  /// operand is never needed there.
  Folded,
};

/// Results up to this size that are compile-time values are replicated
/// rather than placed: copying them costs nothing worth modelling.
constexpr int64_t kReplicatedBytesLimit = 64 * 1024;

class OpRoles {
public:
  /// Roles of the top-level ops of `block`, decided in program order.
  explicit OpRoles(mlir::Block &block);

  /// Ops outside the block are Placed.
  OpRole getRole(mlir::Operation *op) const;
  bool isPlaced(mlir::Operation *op) const {
    return getRole(op) == OpRole::Placed;
  }

private:
  llvm::DenseMap<mlir::Operation *, OpRole> roles;
};

/// The values `op` reads from outside itself: its operands, and the values
/// its regions use but do not define (a tensor.generate's or a linalg
/// payload's tensor.extract of a tensor from above). Roles, edges and
/// channels all count both.
llvm::SmallVector<mlir::Value> getReadValues(mlir::Operation *op);

/// The constant a Folded op stands for: what its op registry entry folds
/// it to from its operand types (OpEntry::foldFromTypes: Shape and Size of
/// a static tensor), or null for any other op.
mlir::DenseElementsAttr getFoldedValue(mlir::Operation *op);

} // namespace placer

#endif // PLACER_ANALYSIS_OPROLES_H
