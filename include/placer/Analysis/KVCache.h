//===- KVCache.h - A decode step's KV caches --------------------*- C++ -*-===//
//
// A decoder's decode step takes each layer's past keys and values as inputs
// and returns them extended by the new token's (torch.onnx.export's
// past_key_N / present_key_N, Optimum's past_key_values.N.key /
// present.N.key): an input that a Concat node extends into a result. The
// placement keeps such a cache resident on the device of that Concat, for
// the batch and context it serves (docs/Placement.md, "KV caches").
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_ANALYSIS_KVCACHE_H
#define PLACER_ANALYSIS_KVCACHE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

namespace placer {

struct KVCache {
  /// The past keys or values: an argument of the step.
  mlir::BlockArgument past;
  /// The Concat node that extends it into a result of the step.
  mlir::Operation *append = nullptr;
  /// The sequence axis (the Concat's), non-negative.
  int64_t axis = 0;
};

/// The KV caches of `func`: every argument that a Concat node takes and
/// whose result `func` returns, in argument order.
llvm::SmallVector<KVCache> findKVCaches(mlir::func::FuncOp func);

/// Bytes `cache` keeps for `batch` sequences (its first dimension) of
/// `context` tokens (its axis), each 0 for the size the step's result has
/// there; an error naming the input when a dimension stays unknown or the
/// cache is not a tensor of sized elements.
llvm::Expected<int64_t> getKVCacheBytes(const KVCache &cache, int64_t batch,
                                        int64_t context);

/// The name an input of the step has in its model (graph.name), or
/// "argument N".
std::string getArgumentName(mlir::BlockArgument arg);

} // namespace placer

#endif // PLACER_ANALYSIS_KVCACHE_H
