//===- WorkloadImporter.h - The NeurIPS 2020 workload format ---*- C++ -*-===//
//
// Imports the JSON workloads published with Tarnawski et al. (format in
// ../shared/workloads/README.md) into the graph dialect, so that every pass
// runs on the paper's data as on an ONNX model. Each workload node becomes a
// `graph.node "Node"` in domain `placer.workload`, with its id, flags and
// color class in `attrs` and its times, size and transfer cost in
// `placer.cost` (source "workload"); the cluster (k accelerators of the
// memory limit, l CPU cores) is recorded as `placer.cluster`.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_IMPORT_WORKLOADIMPORTER_H
#define PLACER_IMPORT_WORKLOADIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

namespace placer {

/// The domain of imported workload nodes.
inline constexpr llvm::StringLiteral kWorkloadDomain = "placer.workload";

/// Imports the workload at `path`; errors (naming the file and the field or
/// node) are emitted as diagnostics and give null.
mlir::OwningOpRef<mlir::ModuleOp> importWorkloadFile(llvm::StringRef path,
                                                     mlir::MLIRContext *context);

} // namespace placer

#endif // PLACER_IMPORT_WORKLOADIMPORTER_H
