//===- GraphCostModel.cpp - ONNX op formulas for graph.node ---------------===//
//
// FLOPs count a multiply-add as 2. Shapes come from the (static) types the
// importer inferred, so strides, pads, dilations and groups of convolutions
// enter through the output and weight shapes. docs/CostModel.md has the
// table this implements.
//
//===----------------------------------------------------------------------===//

#include "placer/Analysis/CostModel.h"
#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <numeric>

using namespace mlir;
using namespace placer;
using namespace placer::graph;

namespace {

int64_t product(ArrayRef<int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

std::string typeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

/// Ops that launch no kernel: their results are views or metadata.
bool isViewOp(StringRef opType) {
  static const llvm::StringSet<> ops = {
      "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Shape",   "Size",
      "Identity", "Constant", "Dropout", "Optional", "OptionalGetElement"};
  return ops.contains(opType);
}

/// Ops that only move data: no FLOPs, time = bytes / bandwidth.
bool isDataMovementOp(StringRef opType) {
  static const llvm::StringSet<> ops = {
      "Gather", "GatherElements", "GatherND", "Scatter", "ScatterElements",
      "ScatterND", "Slice", "Concat", "Split", "Pad", "Resize", "Upsample",
      "Transpose", "Tile", "Expand", "Cast", "CastLike", "DepthToSpace",
      "SpaceToDepth", "ConstantOfShape", "Compress", "NonZero", "OneHot",
      "Trilu", "EyeLike", "ReverseSequence", "Range", "SequenceConstruct",
      "SequenceAt", "SequenceInsert", "SplitToSequence", "ConcatFromSequence"};
  return ops.contains(opType);
}

/// FLOPs per output element of elementwise ops. Transcendental functions
/// count 4, an estimate of their polynomial evaluation.
std::optional<double> elementwiseFlops(StringRef opType) {
  return llvm::StringSwitch<std::optional<double>>(opType)
      .Cases({"Add", "Sub", "Mul", "Div", "Neg", "Abs", "Relu"}, 1.0)
      .Cases({"LeakyRelu", "PRelu", "Clip", "Floor", "Ceil", "Round"}, 1.0)
      .Cases({"Sign", "Reciprocal", "Equal", "Less", "Greater"}, 1.0)
      .Cases({"LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"}, 1.0)
      .Cases({"Not", "Where", "Mod", "BitShift", "ThresholdedRelu"}, 1.0)
      .Cases({"IsNaN", "IsInf", "BitwiseAnd", "BitwiseOr", "BitwiseNot"}, 1.0)
      .Cases({"HardSigmoid", "HardSwish", "Shrink"}, 2.0)
      .Cases({"Exp", "Log", "Pow", "Sqrt", "Erf", "Tanh", "Sigmoid"}, 4.0)
      .Cases({"Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh"}, 4.0)
      .Cases({"Cosh", "Asinh", "Acosh", "Atanh", "Softplus", "Softsign"}, 4.0)
      .Cases({"Elu", "Selu", "Celu", "Mish"}, 4.0)
      .Case("Gelu", 8.0)
      .Default(std::nullopt);
}

/// Ops with any number of inputs that combine them elementwise.
bool isVariadicElementwise(StringRef opType) {
  return opType == "Sum" || opType == "Mean" || opType == "Max" ||
         opType == "Min";
}

bool isReduction(StringRef opType) {
  return opType.starts_with("Reduce") || opType == "ArgMax" ||
         opType == "ArgMin";
}

/// Static shape of a value, or failure after an error naming the node.
FailureOr<ArrayRef<int64_t>> staticShape(NodeOp node, Value value,
                                         StringRef role) {
  auto ranked = dyn_cast<RankedTensorType>(value.getType());
  if (!ranked || !ranked.hasStaticShape())
    return node.emitError("cannot estimate the cost of node '")
           << node.getDisplayName() << "' (" << node.getOpType() << "): "
           << role << " has type " << value.getType()
           << ", not a static shape (bind symbolic dims on import with "
              "--dim NAME=VALUE)";
  return ranked.getShape();
}

/// The one user that owns a constant's bytes: shared weights count once, at
/// their first consumer in program order.
bool ownsConstant(NodeOp node, ConstantOp constant) {
  Block *block = constant->getBlock();
  Operation *first = nullptr;
  for (Operation *user : constant->getUsers()) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (ancestor && (!first || ancestor->isBeforeInBlock(first)))
      first = ancestor;
  }
  Operation *self = block->findAncestorOpInBlock(*node.getOperation());
  return first && first == self;
}

int64_t getIntAttr(NodeOp node, StringRef name, int64_t fallback) {
  if (auto attr = node.getAttrs().getAs<IntegerAttr>(name))
    return attr.getInt();
  return fallback;
}

/// FLOPs of the nodes that compute (as opposed to move data); std::nullopt
/// when the op type has no formula.
FailureOr<std::optional<double>> computeFlops(NodeOp node) {
  StringRef op = node.getOpType();
  auto inputs = node.getInputs();
  auto outShape = [&](unsigned i = 0) {
    return staticShape(node, node.getOutputs()[i], "output");
  };
  auto inShape = [&](unsigned i) {
    return staticShape(node, inputs[i], "input #" + std::to_string(i));
  };
  auto hasInput = [&](unsigned i) {
    return inputs.size() > i && !isa<NoneType>(inputs[i].getType());
  };

  if (auto perElement = elementwiseFlops(op)) {
    auto out = outShape();
    if (failed(out))
      return failure();
    return std::optional<double>(*perElement * product(*out));
  }
  if (isVariadicElementwise(op)) {
    auto out = outShape();
    if (failed(out))
      return failure();
    double combines = std::max<size_t>(inputs.size(), 2) - 1;
    return std::optional<double>(combines * product(*out));
  }
  if (isReduction(op) || op == "GlobalAveragePool" || op == "GlobalMaxPool" ||
      op == "GlobalLpPool" || op == "CumSum") {
    auto in = inShape(0);
    if (failed(in))
      return failure();
    double perElement = op == "ReduceL2" || op == "ReduceSumSquare" ||
                                op == "GlobalLpPool"
                            ? 2.0
                            : 1.0;
    return std::optional<double>(perElement * product(*in));
  }
  if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax" ||
      op == "LayerNormalization" || op == "InstanceNormalization" ||
      op == "BatchNormalization" || op == "LpNormalization" ||
      op == "MeanVarianceNormalization" || op == "LRN") {
    // Per element: softmax = max, subtract, exp, sum, divide; the
    // normalizations = mean, subtract, square, sum, scale, shift (+ rsqrt per
    // row); batch norm folds statistics into scale and shift.
    double perElement = llvm::StringSwitch<double>(op)
                            .Cases({"Softmax", "LogSoftmax", "Hardmax"}, 5.0)
                            .Case("BatchNormalization", 4.0)
                            .Case("LpNormalization", 3.0)
                            .Default(8.0);
    auto in = inShape(0);
    if (failed(in))
      return failure();
    return std::optional<double>(perElement * product(*in));
  }
  if (op == "Conv" || op == "ConvInteger" || op == "QLinearConv") {
    unsigned w = op == "QLinearConv" ? 3 : 1;
    auto out = outShape();
    auto weight = inShape(w);
    if (failed(out) || failed(weight))
      return failure();
    // Each output element: (C_in / group) * kernel multiply-adds.
    double macs = static_cast<double>(product(*out)) *
                  product(weight->drop_front(1));
    bool bias = op == "Conv" ? hasInput(2) : false;
    return std::optional<double>(2 * macs + (bias ? product(*out) : 0));
  }
  if (op == "ConvTranspose") {
    auto in = inShape(0);
    auto weight = inShape(1);
    if (failed(in) || failed(weight))
      return failure();
    // Each input element scatters into (C_out / group) * kernel outputs.
    double macs = static_cast<double>(product(*in)) *
                  product(weight->drop_front(1));
    double bias = 0;
    if (hasInput(2)) {
      auto out = outShape();
      if (failed(out))
        return failure();
      bias = product(*out);
    }
    return std::optional<double>(2 * macs + bias);
  }
  if (op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul") {
    auto a = inShape(0);
    auto out = outShape();
    if (failed(a) || failed(out))
      return failure();
    int64_t k = a->empty() ? 1 : a->back();
    return std::optional<double>(2.0 * product(*out) * k);
  }
  if (op == "Gemm") {
    auto a = inShape(0);
    auto out = outShape();
    if (failed(a) || failed(out) || a->size() != 2)
      return failed(a) || failed(out) ? FailureOr<std::optional<double>>(failure())
                                      : std::optional<double>();
    int64_t k = getIntAttr(node, "transA", 0) ? (*a)[0] : (*a)[1];
    double mn = product(*out);
    return std::optional<double>(2.0 * mn * k + (hasInput(2) ? mn : 0));
  }
  if (op == "Einsum") {
    auto equation = node.getAttrs().getAs<StringAttr>("equation");
    if (!equation)
      return std::optional<double>();
    // Multiply-adds = product of the sizes of all distinct labels.
    StringRef lhs = equation.getValue().split("->").first;
    SmallVector<StringRef> terms;
    lhs.split(terms, ',');
    if (terms.size() != inputs.size())
      return std::optional<double>();
    std::map<char, int64_t> sizes;
    for (auto [term, input] : llvm::zip(terms, inputs)) {
      auto shape = staticShape(node, input, "input");
      if (failed(shape))
        return failure();
      std::string labels;
      for (char c : term)
        if (llvm::isAlpha(c))
          labels += c;
      if (term.contains("...") || labels.size() != shape->size())
        return std::optional<double>(); // ellipsis: no formula
      for (auto [label, dim] : llvm::zip(labels, *shape))
        sizes[label] = std::max(sizes[label], dim);
    }
    double macs = 1;
    for (auto &entry : sizes)
      macs *= entry.second;
    return std::optional<double>(inputs.size() > 1 ? 2 * macs : macs);
  }
  if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
    auto out = outShape();
    if (failed(out))
      return failure();
    auto kernel = node.getAttrs().getAs<DenseI64ArrayAttr>("kernel_shape");
    if (!kernel)
      return std::optional<double>();
    return std::optional<double>(static_cast<double>(product(*out)) *
                                 product(kernel.asArrayRef()));
  }
  if (op == "LSTM" || op == "GRU" || op == "RNN") {
    auto x = inShape(0);
    auto w = inShape(1);
    auto r = inShape(2);
    if (failed(x) || failed(w) || failed(r) || x->size() != 3)
      return failed(x) || failed(w) || failed(r)
                 ? FailureOr<std::optional<double>>(failure())
                 : std::optional<double>();
    bool batchFirst = getIntAttr(node, "layout", 0) == 1;
    int64_t seq = batchFirst ? (*x)[1] : (*x)[0];
    int64_t batch = batchFirst ? (*x)[0] : (*x)[1];
    // W = [directions, gates * hidden, input], R = [.., .., hidden]: every
    // step multiplies the input and the previous state by both.
    double macs = static_cast<double>(seq) * batch * (product(*w) + product(*r));
    // Gate activations and the state update: ~4 FLOPs per gate element.
    double gateElements = static_cast<double>(seq) * batch * (*w)[0] * (*w)[1];
    return std::optional<double>(2 * macs + 4 * gateElements);
  }
  return std::optional<double>();
}

FailureOr<OpWork> estimateNodeWork(NodeOp node) {
  OpWork work;
  for (Value result : node.getOutputs()) {
    if (auto tensor = dyn_cast<TensorType>(result.getType())) {
      work.elementType = typeName(tensor.getElementType());
      break;
    }
  }

  StringRef op = node.getOpType();
  bool onnxDomain = node.getDomain().empty() || node.getDomain() == "ai.onnx";
  if (onnxDomain && isViewOp(op)) {
    work.isFree = true;
    return work;
  }

  // Bytes: every tensor operand read once, every result written once.
  llvm::SmallPtrSet<Operation *, 4> countedConstants;
  for (Value operand : node.getInputs()) {
    std::optional<int64_t> bytes = getTypeBytes(operand.getType());
    if (!bytes) {
      // A dynamic tensor is an error; sequences, maps and values of unknown
      // type have no size to model.
      if (isa<TensorType>(operand.getType())) {
        (void)staticShape(node, operand, "an input");
        return failure();
      }
      return estimateGenericWork(node);
    }
    // Weights are initializers; the outputs of Constant nodes are small
    // computed values (shapes, scales), not parameters.
    if (auto constant = operand.getDefiningOp<ConstantOp>())
      if (!constant.getNode() && countedConstants.insert(constant).second &&
          ownsConstant(node, constant))
        work.paramBytes += *bytes;
    work.bytesRead += *bytes;
  }
  for (Value result : node.getOutputs()) {
    std::optional<int64_t> bytes = getTypeBytes(result.getType());
    if (!bytes)
      return node.emitError("cannot estimate the cost of node '")
             << node.getDisplayName() << "' (" << op << "): output has type "
             << result.getType()
             << ", not a static shape (bind symbolic dims on import with "
                "--dim NAME=VALUE)";
    work.outputBytes += *bytes;
  }
  work.bytesWritten = work.outputBytes;

  if (!onnxDomain) {
    work.isModeled = false;
    return work;
  }
  if (op == "Gather" || op == "GatherElements" || op == "GatherND") {
    // Only the gathered rows are read, not the whole table.
    std::optional<int64_t> indices = getTypeBytes(node.getInputs()[1].getType());
    work.bytesRead = indices.value_or(0) + work.outputBytes;
    return work;
  }
  if (isDataMovementOp(op))
    return work;
  FailureOr<std::optional<double>> flops = computeFlops(node);
  if (failed(flops))
    return failure();
  if (!*flops) {
    work.isModeled = false;
    return work;
  }
  work.flops = **flops;
  return work;
}

struct NodeCostModel
    : public CostOpInterface::ExternalModel<NodeCostModel, NodeOp> {
  FailureOr<OpWork> estimateWork(Operation *op) const {
    return estimateNodeWork(cast<NodeOp>(op));
  }
};

/// Constants are folded into their consumers, which own their bytes.
struct ConstantCostModel
    : public CostOpInterface::ExternalModel<ConstantCostModel, ConstantOp> {
  FailureOr<OpWork> estimateWork(Operation *op) const {
    OpWork work;
    work.isFree = true;
    auto constant = cast<ConstantOp>(op);
    bool consumed = llvm::any_of(constant->getUsers(), [](Operation *user) {
      return isa<NodeOp>(user) || user->getParentOfType<NodeOp>();
    });
    if (!consumed && !constant.getNode())
      work.paramBytes = getTypeBytes(constant.getType()).value_or(0);
    return work;
  }
};

struct NoneCostModel
    : public CostOpInterface::ExternalModel<NoneCostModel, NoneOp> {
  FailureOr<OpWork> estimateWork(Operation *) const {
    OpWork work;
    work.isFree = true;
    return work;
  }
};

} // namespace

void placer::registerCostModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, GraphDialect *) {
    NodeOp::attachInterface<NodeCostModel>(*context);
    ConstantOp::attachInterface<ConstantCostModel>(*context);
    NoneOp::attachInterface<NoneCostModel>(*context);
  });
}
