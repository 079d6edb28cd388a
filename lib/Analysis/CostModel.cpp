//===- CostModel.cpp - Roofline and generic estimates ---------------------===//
#include "placer/Analysis/CostModel.h"

#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

using namespace mlir;
using namespace placer;

static thread_local KernelCache *innermostCache = nullptr;

KernelCache::KernelCache() : outer(innermostCache) { innermostCache = this; }

KernelCache::~KernelCache() { innermostCache = outer; }

KernelCache *KernelCache::current() { return innermostCache; }

Operation *
KernelCache::lookup(Operation *op,
                    llvm::function_ref<Operation *(Operation *)> compute) {
  KernelCache *cache = current();
  if (!cache)
    return compute(op);
  auto it = cache->kernels.find(op);
  if (it != cache->kernels.end())
    return it->second;
  Operation *kernel = compute(op);
  cache->kernels[op] = kernel;
  return kernel;
}

int64_t placer::getActivationBytes(Value value) {
  if (std::optional<int64_t> bytes = getTypeBytes(value.getType()))
    return *bytes;
  Operation *def = value.getDefiningOp();
  CostAttr cost = def ? getCost(def) : CostAttr();
  return cost ? cost.getOutputBytes() : 0;
}

bool placer::isBackwardOp(Operation *op) {
  // A training step's backward node (--placer-build-training), or a
  // workload's node flagged in its attributes.
  if (op->hasAttr(kBackwardNodeAttrName))
    return true;
  auto node = dyn_cast<graph::NodeOp>(op);
  DictionaryAttr attrs = node ? node.getAttrs() : DictionaryAttr();
  auto flag = attrs ? attrs.getAs<IntegerAttr>(kBackwardAttrName) : nullptr;
  return flag && flag.getInt() != 0;
}

std::optional<int64_t> placer::getTypeBytes(Type type) {
  if (isa<NoneType>(type))
    return 0;
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape())
    return std::nullopt;
  // Strings count 0 bytes; what the graph verifier admits fits.
  if (graph::getElementByteSize(ranked.getElementType()) == 0)
    return 0;
  return graph::getTensorBytes(ranked.getShape(), ranked.getElementType());
}

std::string placer::getTypeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

std::optional<int64_t> placer::getValueBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return 0;
  auto vector = dyn_cast<VectorType>(type);
  if (!shaped.hasRank() || !shaped.hasStaticShape() ||
      (vector && vector.isScalable()))
    return std::nullopt;
  return getTypeBytes(
      RankedTensorType::get(shaped.getShape(), shaped.getElementType()));
}

LogicalResult placer::emitShapeError(Operation *op, StringRef role,
                                     Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  bool huge = shaped && shaped.hasRank() && shaped.hasStaticShape();
  return op->emitError("cannot estimate the cost of '")
         << op->getName() << "': " << role << " has type " << type
         << (huge ? ", larger than any tensor Placer accepts (2^48 bytes)"
                  : ", not a static shape (placement needs static shapes: "
                    "bind them before placing)");
}

LogicalResult placer::checkStaticShapes(Operation *op) {
  for (OpOperand &operand : op->getOpOperands())
    if (!getValueBytes(operand.get().getType()))
      return emitShapeError(
          op, "operand #" + std::to_string(operand.getOperandNumber()),
          operand.get().getType());
  for (OpResult result : op->getResults())
    if (!getValueBytes(result.getType()))
      return emitShapeError(
          op, "result #" + std::to_string(result.getResultNumber()),
          result.getType());
  return success();
}

OpWork placer::estimateGenericWork(Operation *op) {
  OpWork work;
  work.isModeled = false;
  for (Value operand : op->getOperands())
    work.bytesRead += getTypeBytes(operand.getType()).value_or(0);
  for (Value result : op->getResults())
    work.outputBytes += getTypeBytes(result.getType()).value_or(0);
  work.bytesWritten = work.outputBytes;
  return work;
}

double placer::getRooflineTime(const OpWork &work, const DeviceKind &kind) {
  if (work.isFree)
    return 0.0;
  double peak = kind.getPeakFlops(work.elementType);
  double compute = work.flops > 0 && peak > 0 ? work.flops / peak : 0.0;
  double memory = static_cast<double>(work.bytesRead + work.bytesWritten) /
                  kind.memoryBandwidth;
  return std::max(compute, memory) + (work.isFused ? 0.0 : kind.opOverhead);
}
