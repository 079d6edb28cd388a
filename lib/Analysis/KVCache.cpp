//===- KVCache.cpp - The KV caches a decode step reads and extends --------===//

#include "placer/Analysis/KVCache.h"
#include "placer/Analysis/CostModel.h"
#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using namespace placer;

std::string placer::getArgumentName(BlockArgument arg) {
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (func)
    if (auto name =
            func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "graph.name"))
      return name.str();
  return "argument " + std::to_string(arg.getArgNumber());
}

SmallVector<KVCache> placer::findKVCaches(func::FuncOp func) {
  SmallVector<KVCache> caches;
  if (func.isExternal())
    return caches;
  Operation *ret = func.getBody().front().getTerminator();
  for (BlockArgument arg : func.getArguments())
    for (Operation *user : arg.getUsers()) {
      auto concat = dyn_cast<graph::NodeOp>(user);
      if (!concat || concat.getOpType() != "Concat" ||
          concat->getNumResults() != 1 ||
          !llvm::is_contained(ret->getOperands(), concat->getResult(0)))
        continue;
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      auto axis = concat.getAttrs().getAs<IntegerAttr>("axis");
      if (!type || !axis)
        continue;
      int64_t rank = type.getRank(), value = axis.getInt();
      if (value < -rank || value >= rank)
        continue; // the importer's checks name it
      caches.push_back({arg, user, value < 0 ? value + rank : value});
      break;
    }
  return caches;
}

llvm::Expected<int64_t>
placer::getKVCacheBytes(const KVCache &cache, int64_t batch, int64_t context) {
  auto type = cast<RankedTensorType>(cache.past.getType());
  auto present = cast<RankedTensorType>(cache.append->getResult(0).getType());
  std::string name = getArgumentName(cache.past);
  std::optional<int64_t> element =
      getTypeBytes(RankedTensorType::get({1}, type.getElementType()));
  if (!element)
    return llvm::createStringError("KV cache '" + name +
                                   "' has elements of no known size");
  int64_t bytes = *element;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t size = d == cache.axis ? (context ? context : present.getDimSize(d))
                   : d == 0        ? (batch ? batch : type.getDimSize(d))
                                   : type.getDimSize(d);
    if (ShapedType::isDynamic(size))
      return llvm::createStringError(
          "KV cache '" + name + "' has a dynamic " +
          (d == cache.axis ? std::string("sequence axis (") +
                                 std::to_string(d) + "): give context="
           : d == 0 ? std::string("batch axis (0): give kv-batch=")
                    : "axis " + std::to_string(d) + ": bind its dim") +
          " or bind the dim (--placer-bind-dims)");
    if (size > 0 && bytes > std::numeric_limits<int64_t>::max() / size)
      return llvm::createStringError("KV cache '" + name +
                                     "' is larger than 2^63 bytes");
    bytes *= size;
  }
  return bytes;
}
