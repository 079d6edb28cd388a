//===- NodeLowering.cpp - What a lowering reads of its node ---------------===//
//
// The helpers of NodeLowering (placer/Conversion/GraphToLinalg.h): result
// types and run-time sizes, attributes, compile-time operands, unsigned
// types and the error every lowering fails with.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace placer;
using namespace placer::graph;

//===----------------------------------------------------------------------===//
// NodeLowering helpers
//===----------------------------------------------------------------------===//

RankedTensorType NodeLowering::getResultType(unsigned i) {
  if (!resultTypes.empty())
    return resultTypes[i];
  return cast<RankedTensorType>(
      getSignlessType(node.getOutputs()[i].getType()));
}

FailureOr<SmallVector<Value>>
NodeLowering::lowerEachItem(ArrayRef<int64_t> operandBatchDims,
                            ArrayRef<int64_t> resultBatchDims,
                            ItemLoweringFn fn) {
  OpBuilder &b = builder;
  Location loc = getLoc();
  Value count;
  for (auto [i, dim] : llvm::enumerate(operandBatchDims))
    if (dim >= 0 && hasOperand(i)) {
      count = tensor::DimOp::create(b, loc, operands[i], dim);
      break;
    }
  if (!count)
    return fail("no operand has the batch dim");
  // The outputs used, carried through the loop and filled item by item.
  SmallVector<unsigned> produced;
  SmallVector<Value> inits;
  for (unsigned i = 0; i < node.getOutputs().size(); ++i)
    if (wantsResult(i)) {
      if (i >= resultBatchDims.size() || resultBatchDims[i] < 0)
        return fail("output #" + Twine(i) + " has no batch dim");
      produced.push_back(i);
      inits.push_back(emptyResult(i));
    }
  bool itemFailed = false;
  auto zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto one = arith::ConstantIndexOp::create(b, loc, 1);
  // One item (size 1) of `value` along `dim`, at `item`.
  auto itemSizes = [](OpBuilder &ob, Location l, Value value, int64_t dim) {
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(ob, l, value);
    sizes[dim] = ob.getIndexAttr(1);
    return sizes;
  };
  auto at = [](OpBuilder &ob, int64_t rank, int64_t dim, Value item) {
    SmallVector<OpFoldResult> offsets(rank, ob.getIndexAttr(0));
    offsets[dim] = item;
    return offsets;
  };
  auto loop = scf::ForOp::create(
      b, loc, zero, count, one, inits,
      [&](OpBuilder &lb, Location l, Value item, ValueRange carried) {
        NodeLowering single{lb, node, {}};
        single.lowerRegion = lowerRegion;
        single.inputElementTypes = inputElementTypes;
        single.outputElementTypes = outputElementTypes;
        single.symbolSizes = symbolSizes;
        for (auto [i, operand] : llvm::enumerate(operands)) {
          int64_t dim = i < operandBatchDims.size() ? operandBatchDims[i] : -1;
          if (dim < 0 || !hasOperand(i)) {
            single.operands.push_back(operand);
            continue;
          }
          int64_t rank = cast<RankedTensorType>(operand.getType()).getRank();
          single.operands.push_back(tensor::ExtractSliceOp::create(
              lb, l, operand, at(lb, rank, dim, item),
              itemSizes(lb, l, operand, dim),
              SmallVector<OpFoldResult>(rank, lb.getIndexAttr(1))));
        }
        for (auto [i, output] : llvm::enumerate(node.getOutputs())) {
          auto type =
              dyn_cast<RankedTensorType>(getSignlessType(output.getType()));
          if (!type) { // an omitted output: any type does
            single.resultTypes.push_back(
                RankedTensorType::get({}, lb.getF32Type()));
            continue;
          }
          SmallVector<int64_t> shape(type.getShape());
          if (i < resultBatchDims.size() && resultBatchDims[i] >= 0)
            shape[resultBatchDims[i]] = 1;
          single.resultTypes.push_back(type.clone(shape));
        }
        FailureOr<SmallVector<Value>> results = fn(single);
        if (failed(results) || llvm::any_of(produced, [&](unsigned i) {
              return i >= results->size();
            })) {
          itemFailed = true;
          scf::YieldOp::create(lb, l, carried);
          return;
        }
        SmallVector<Value> next;
        for (auto [slot, i] : llvm::enumerate(produced)) {
          Value part = (*results)[i];
          int64_t rank = cast<RankedTensorType>(part.getType()).getRank();
          next.push_back(tensor::InsertSliceOp::create(
              lb, l, part, carried[slot],
              at(lb, rank, resultBatchDims[i], item),
              tensor::getMixedSizes(lb, l, part),
              SmallVector<OpFoldResult>(rank, lb.getIndexAttr(1))));
        }
        scf::YieldOp::create(lb, l, next);
      });
  if (itemFailed)
    return failure();
  SmallVector<Value> results(node.getOutputs().size());
  for (auto [slot, i] : llvm::enumerate(produced))
    results[i] = loop.getResult(slot);
  return results;
}

SmallVector<Value> NodeLowering::getResultDynamicSizes(unsigned i) {
  RankedTensorType type = getResultType(i);
  SmallVector<Value> sizes;
  if (type.hasStaticShape())
    return sizes;
  // checkLowerable made sure every dynamic dim is named by a symbol of the
  // function's arguments.
  auto names = cast<ArrayAttr>((*node.getOutputDims())[i]);
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(
          symbolSizes->lookup(cast<StringAttr>(names[d]).getValue()));
  return sizes;
}

Value NodeLowering::emptyResult(unsigned i) {
  return lowering::emptyTensor(builder, getLoc(), getResultType(i),
                               getResultDynamicSizes(i));
}

static bool isUnsignedInteger(Type type) {
  auto integer = dyn_cast_or_null<IntegerType>(type);
  return integer && integer.isUnsigned();
}

Region *NodeLowering::getSubgraph(StringRef name) {
  std::optional<ArrayAttr> names = node.getSubgraphs();
  if (!names)
    return nullptr;
  for (auto [i, attr] : llvm::enumerate(*names))
    if (cast<StringAttr>(attr).getValue() == name &&
        i < node.getBodies().size())
      return &node.getBodies()[i];
  return nullptr;
}

bool NodeLowering::wantsResult(unsigned i) {
  return i < node.getOutputs().size() &&
         isa<RankedTensorType>(node.getOutputs()[i].getType()) &&
         !node.getOutputs()[i].use_empty();
}

bool NodeLowering::isUnsignedInput(unsigned i) const {
  return i < inputElementTypes.size() &&
         isUnsignedInteger(inputElementTypes[i]);
}

bool NodeLowering::isUnsignedResult(unsigned i) const {
  return i < outputElementTypes.size() &&
         isUnsignedInteger(outputElementTypes[i]);
}

Type placer::getSignlessType(Type type) {
  auto element = [](Type t) -> Type {
    if (isUnsignedInteger(t))
      return IntegerType::get(t.getContext(), t.getIntOrFloatBitWidth());
    return t;
  };
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(element(tensor.getElementType()));
  return element(type);
}

bool NodeLowering::hasOperand(unsigned i) const {
  return i < operands.size() && operands[i] &&
         !isa<NoneType>(operands[i].getType());
}

int64_t NodeLowering::getInt(StringRef name, int64_t fallback) {
  if (auto attr = node.getAttrs().getAs<IntegerAttr>(name))
    return attr.getInt();
  return fallback;
}

float NodeLowering::getFloat(StringRef name, float fallback) {
  if (auto attr = node.getAttrs().getAs<FloatAttr>(name))
    return attr.getValueAsDouble();
  return fallback;
}

std::optional<SmallVector<int64_t>> NodeLowering::getInts(StringRef name) {
  if (auto attr = node.getAttrs().getAs<DenseI64ArrayAttr>(name))
    return SmallVector<int64_t>(attr.asArrayRef());
  return std::nullopt;
}

StringRef NodeLowering::getString(StringRef name, StringRef fallback) {
  if (auto attr = node.getAttrs().getAs<StringAttr>(name))
    return attr.getValue();
  return fallback;
}

std::optional<SmallVector<int64_t>> NodeLowering::getConstantInts(unsigned i) {
  if (!hasOperand(i))
    return std::nullopt;
  DenseIntElementsAttr attr;
  if (!matchPattern(operands[i], m_Constant(&attr)))
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &v : attr.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

std::optional<double> NodeLowering::getConstantScalar(unsigned i) {
  if (!hasOperand(i))
    return std::nullopt;
  DenseElementsAttr attr;
  if (!matchPattern(operands[i], m_Constant(&attr)))
    return std::nullopt;
  return getSingleValue(attr);
}

std::optional<double> placer::getSingleValue(DenseElementsAttr attr) {
  if (attr.getNumElements() != 1)
    return std::nullopt;
  if (auto floats = dyn_cast<DenseFPElementsAttr>(attr))
    return (*floats.value_begin<APFloat>()).convertToDouble();
  if (auto ints = dyn_cast<DenseIntElementsAttr>(attr))
    return static_cast<double>((*ints.value_begin<APInt>()).getSExtValue());
  return std::nullopt;
}

LogicalResult NodeLowering::fail(const Twine &message) {
  return node.emitError("cannot lower node '")
         << node.getDisplayName() << "' (" << node.getOpType()
         << "): " << message;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//
