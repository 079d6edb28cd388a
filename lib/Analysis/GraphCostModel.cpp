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
#include "llvm/ADT/StringMap.h"

#include <numeric>

using namespace mlir;
using namespace placer;
using namespace placer::graph;

namespace {

int64_t product(ArrayRef<int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1},
                         std::multiplies<int64_t>());
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

//===----------------------------------------------------------------------===//
// Per-op rules
//===----------------------------------------------------------------------===//

/// A node's FLOPs, std::nullopt when its attributes leave no formula, or
/// failure after an error (a dynamic shape).
using Flops = FailureOr<std::optional<double>>;

/// What a FLOP formula sees: the node and its rule's per-element count.
struct FormulaArgs {
  mutable NodeOp node; // op adaptors have no const accessors
  double perElement;

  FailureOr<ArrayRef<int64_t>> output(unsigned i = 0) const {
    return staticShape(node, node.getOutputs()[i], "output");
  }
  FailureOr<ArrayRef<int64_t>> input(unsigned i) const {
    return staticShape(node, node.getInputs()[i],
                       "input #" + std::to_string(i));
  }
  bool hasInput(unsigned i) const {
    auto inputs = node.getInputs();
    return inputs.size() > i && !isa<NoneType>(inputs[i].getType());
  }
};

using FlopsFormula = Flops (*)(const FormulaArgs &);

/// How the cost model treats an ONNX op type.
enum class CostClass {
  View,         ///< no kernel: a view or metadata
  DataMovement, ///< no FLOPs: time = bytes / bandwidth
  SparseRead,   ///< data movement that reads only the gathered rows
  Compute,      ///< FLOPs from `formula`
};

struct CostRule {
  CostClass kind = CostClass::Compute;
  FlopsFormula formula = nullptr;
  double perElement = 0;
};

Flops perOutputElement(const FormulaArgs &args) {
  auto out = args.output();
  if (failed(out))
    return failure();
  return std::optional<double>(args.perElement * product(*out));
}

Flops perInputElement(const FormulaArgs &args) {
  auto in = args.input(0);
  if (failed(in))
    return failure();
  return std::optional<double>(args.perElement * product(*in));
}

/// Sum/Mean/Max/Min of n inputs: n - 1 combines per output element.
Flops variadicElementwise(const FormulaArgs &args) {
  auto out = args.output();
  if (failed(out))
    return failure();
  double combines = std::max<size_t>(args.node.getInputs().size(), 2) - 1;
  return std::optional<double>(combines * product(*out));
}

/// Each output element: (C_in / group) * kernel multiply-adds, so strides,
/// pads, dilations and groups enter through the shapes.
Flops convolution(const FormulaArgs &args, unsigned weightInput, bool bias) {
  auto out = args.output();
  auto weight = args.input(weightInput);
  if (failed(out) || failed(weight))
    return failure();
  double macs =
      static_cast<double>(product(*out)) * product(weight->drop_front(1));
  return std::optional<double>(2 * macs + (bias ? product(*out) : 0));
}

Flops conv(const FormulaArgs &args) {
  return convolution(args, 1, args.hasInput(2));
}
Flops convInteger(const FormulaArgs &args) {
  return convolution(args, 1, false);
}
Flops qlinearConv(const FormulaArgs &args) {
  return convolution(args, 3, false);
}

/// Each input element scatters into (C_out / group) * kernel outputs.
Flops convTranspose(const FormulaArgs &args) {
  auto in = args.input(0);
  auto weight = args.input(1);
  if (failed(in) || failed(weight))
    return failure();
  double macs =
      static_cast<double>(product(*in)) * product(weight->drop_front(1));
  double bias = 0;
  if (args.hasInput(2)) {
    auto out = args.output();
    if (failed(out))
      return failure();
    bias = product(*out);
  }
  return std::optional<double>(2 * macs + bias);
}

Flops matMul(const FormulaArgs &args) {
  auto a = args.input(0);
  auto out = args.output();
  if (failed(a) || failed(out))
    return failure();
  int64_t k = a->empty() ? 1 : a->back();
  return std::optional<double>(2.0 * product(*out) * k);
}

Flops gemm(const FormulaArgs &args) {
  auto a = args.input(0);
  auto out = args.output();
  if (failed(a) || failed(out))
    return failure();
  if (a->size() != 2)
    return std::optional<double>();
  int64_t k = getIntAttr(args.node, "transA", 0) ? (*a)[0] : (*a)[1];
  double mn = product(*out);
  return std::optional<double>(2.0 * mn * k + (args.hasInput(2) ? mn : 0));
}

/// Multiply-adds = product of the sizes of all distinct labels.
Flops einsum(const FormulaArgs &args) {
  auto equation = args.node.getAttrs().getAs<StringAttr>("equation");
  auto inputs = args.node.getInputs();
  if (!equation)
    return std::optional<double>();
  StringRef lhs = equation.getValue().split("->").first;
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != inputs.size())
    return std::optional<double>();
  std::map<char, int64_t> sizes;
  for (auto [term, input] : llvm::zip(terms, inputs)) {
    auto shape = staticShape(args.node, input, "input");
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

Flops pool(const FormulaArgs &args) {
  auto out = args.output();
  if (failed(out))
    return failure();
  auto kernel = args.node.getAttrs().getAs<DenseI64ArrayAttr>("kernel_shape");
  if (!kernel)
    return std::optional<double>();
  return std::optional<double>(static_cast<double>(product(*out)) *
                               product(kernel.asArrayRef()));
}

/// DFT: every output element sums every sample along the axis (complex
/// multiply-add, ~8 FLOPs).
Flops dft(const FormulaArgs &args) {
  auto in = args.input(0);
  auto out = args.output();
  if (failed(in) || failed(out))
    return failure();
  int64_t rank = in->size();
  int64_t axis = getIntAttr(args.node, "axis", 1);
  axis = axis < 0 ? axis + rank : axis;
  if (axis < 0 || axis >= rank)
    return std::optional<double>();
  return std::optional<double>(8.0 * product(*out) * (*in)[axis]);
}

/// Det: Gaussian elimination, about 2/3 M^3 multiply-adds per matrix.
Flops determinant(const FormulaArgs &args) {
  auto in = args.input(0);
  if (failed(in))
    return failure();
  if (in->size() < 2)
    return std::optional<double>();
  double m = in->back();
  return std::optional<double>(product(*in) / (m * m) * (2.0 / 3.0) * m * m * m * 2);
}

/// TopK compares each element with every other along the axis (the
/// lowering counts each element's place).
Flops topK(const FormulaArgs &args) {
  auto in = args.input(0);
  if (failed(in))
    return failure();
  if (in->empty())
    return std::optional<double>(0.0);
  int64_t rank = in->size();
  int64_t axis = getIntAttr(args.node, "axis", -1);
  axis = axis < 0 ? axis + rank : axis;
  if (axis < 0 || axis >= rank)
    return std::optional<double>();
  return std::optional<double>(2.0 * product(*in) * (*in)[axis]);
}

/// Unique compares every pair of slices twice (each one's first equal
/// slice, then its place): 2 n^2 comparisons of the slice size, n slices
/// along `axis` (the elements without one).
Flops unique(const FormulaArgs &args) {
  auto in = args.input(0);
  if (failed(in))
    return failure();
  double elements = product(*in), slices = elements;
  if (args.node.getAttrs().get("axis")) {
    int64_t rank = in->size();
    int64_t axis = getIntAttr(args.node, "axis", 0);
    axis = axis < 0 ? axis + rank : axis;
    if (axis < 0 || axis >= rank)
      return std::optional<double>();
    slices = (*in)[axis];
  }
  // n^2 pairs of (elements / n)-element slices, twice.
  return std::optional<double>(2.0 * slices * elements);
}

/// NonMaxSuppression: per batch and class, the score order (n^2
/// comparisons) and up to n^2 IoUs of ~16 FLOPs.
Flops nonMaxSuppression(const FormulaArgs &args) {
  auto scores = args.input(1);
  if (failed(scores))
    return failure();
  if (scores->size() != 3)
    return std::optional<double>();
  double n = (*scores)[2];
  return std::optional<double>(static_cast<double>((*scores)[0]) * (*scores)[1] *
                               n * n * 17);
}

/// The losses: 3 per target element (pick, weigh, sum), plus the log
/// softmax of the scores for SoftmaxCrossEntropyLoss.
Flops loss(const FormulaArgs &args) {
  auto scores = args.input(0);
  auto target = args.input(1);
  if (failed(scores) || failed(target))
    return failure();
  double flops = 3.0 * product(*target);
  if (args.node.getOpType() == "SoftmaxCrossEntropyLoss")
    flops += 5.0 * product(*scores);
  return std::optional<double>(flops);
}

Flops recurrent(const FormulaArgs &args) {
  auto x = args.input(0);
  auto w = args.input(1);
  auto r = args.input(2);
  if (failed(x) || failed(w) || failed(r))
    return failure();
  if (x->size() != 3 || w->size() != 3)
    return std::optional<double>();
  bool batchFirst = getIntAttr(args.node, "layout", 0) == 1;
  int64_t seq = batchFirst ? (*x)[1] : (*x)[0];
  int64_t batch = batchFirst ? (*x)[0] : (*x)[1];
  // W = [directions, gates * hidden, input], R = [.., .., hidden]: every
  // step multiplies the input and the previous state by both.
  double macs = static_cast<double>(seq) * batch * (product(*w) + product(*r));
  // Gate activations and the state update: ~4 FLOPs per gate element.
  double gateElements = static_cast<double>(seq) * batch * (*w)[0] * (*w)[1];
  return std::optional<double>(2 * macs + 4 * gateElements);
}

/// The rule of every ONNX op type the model knows; docs/CostModel.md has the
/// same table. Transcendental functions count 4 FLOPs per element, an
/// estimate of their polynomial evaluation.
const llvm::StringMap<CostRule> &costRules() {
  static const llvm::StringMap<CostRule> rules = [] {
    llvm::StringMap<CostRule> table;
    auto add = [&](std::initializer_list<StringRef> ops, CostRule rule) {
      for (StringRef op : ops)
        table[op] = rule;
    };
    auto compute = [](FlopsFormula formula, double perElement = 0) {
      return CostRule{CostClass::Compute, formula, perElement};
    };
    add({"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Shape", "Size",
         "Identity", "Constant", "Dropout", "Optional", "OptionalGetElement",
         "If", "Scan", "Loop"},
        {CostClass::View});
    add({"Gather", "GatherElements", "GatherND"}, {CostClass::SparseRead});
    add({"Scatter", "ScatterElements", "ScatterND", "Slice", "Concat",
         "Split", "Pad", "Resize", "Upsample", "Transpose", "Tile", "Expand",
         "Cast", "CastLike", "DepthToSpace", "SpaceToDepth", "ConstantOfShape",
         "Compress", "NonZero", "OneHot", "Trilu", "EyeLike", "MaxUnpool",
         "ReverseSequence", "Range", "SequenceConstruct", "SequenceAt",
         "SequenceInsert", "SplitToSequence", "ConcatFromSequence"},
        {CostClass::DataMovement});
    add({"Add", "Sub", "Mul", "Div", "Neg", "Abs", "Relu", "LeakyRelu",
         "PRelu", "Clip", "Floor", "Ceil", "Round", "Sign", "Reciprocal",
         "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And",
         "Or", "Xor", "Not", "Where", "Mod", "BitShift", "ThresholdedRelu",
         "IsNaN", "IsInf", "BitwiseAnd", "BitwiseOr", "BitwiseNot"},
        compute(perOutputElement, 1.0));
    add({"HardSigmoid", "HardSwish", "Shrink"}, compute(perOutputElement, 2.0));
    add({"Exp", "Log", "Pow", "Sqrt", "Erf", "Tanh", "Sigmoid", "Sin", "Cos",
         "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
         "Atanh", "Softplus", "Softsign", "Elu", "Selu", "Celu", "Mish"},
        compute(perOutputElement, 4.0));
    add({"Gelu"}, compute(perOutputElement, 8.0));
    // GridSample: bilinear's 4 taps (multiply-add each) per output element.
    add({"GridSample"}, compute(perOutputElement, 8.0));
    // Quantization: scale, round, shift, saturate per element; the dynamic
    // one first finds the range (2 reductions).
    add({"DequantizeLinear"}, compute(perInputElement, 2.0));
    add({"QuantizeLinear"}, compute(perInputElement, 4.0));
    add({"DynamicQuantizeLinear"}, compute(perInputElement, 6.0));
    add({"TopK"}, compute(topK));
    add({"Unique"}, compute(unique));
    add({"NonMaxSuppression"}, compute(nonMaxSuppression));
    // RoiAlign: 4 samples (sampling_ratio 2) of ~10 FLOPs per output element.
    add({"RoiAlign"}, compute(perOutputElement, 40.0));
    add({"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"},
        compute(loss));
    add({"Sum", "Mean", "Max", "Min"}, compute(variadicElementwise));
    add({"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
         "ReduceL1", "ReduceLogSum", "ReduceLogSumExp", "ArgMax", "ArgMin",
         "GlobalAveragePool", "GlobalMaxPool", "CumSum"},
        compute(perInputElement, 1.0));
    add({"ReduceL2", "ReduceSumSquare", "GlobalLpPool"},
        compute(perInputElement, 2.0));
    // Softmax = max, subtract, exp, sum, divide; the normalizations = mean,
    // subtract, square, sum, scale, shift (+ rsqrt per row); batch norm
    // folds its statistics into a scale and a shift.
    add({"Softmax", "LogSoftmax", "Hardmax"}, compute(perInputElement, 5.0));
    add({"BatchNormalization"}, compute(perInputElement, 4.0));
    add({"LpNormalization"}, compute(perInputElement, 3.0));
    add({"LayerNormalization", "InstanceNormalization",
         "MeanVarianceNormalization", "LRN"},
        compute(perInputElement, 8.0));
    add({"Conv"}, compute(conv));
    add({"ConvInteger"}, compute(convInteger));
    add({"QLinearConv"}, compute(qlinearConv));
    add({"ConvTranspose"}, compute(convTranspose));
    add({"MatMul", "MatMulInteger", "QLinearMatMul"}, compute(matMul));
    add({"Gemm"}, compute(gemm));
    add({"Det"}, compute(determinant));
    add({"HannWindow", "HammingWindow", "BlackmanWindow"},
        compute(perOutputElement, 8.0));
    add({"DFT"}, compute(dft));
    add({"Einsum"}, compute(einsum));
    add({"MaxPool", "AveragePool", "LpPool"}, compute(pool));
    add({"LSTM", "GRU", "RNN"}, compute(recurrent));
    return table;
  }();
  return rules;
}

const CostRule *findCostRule(NodeOp node) {
  bool onnxDomain = node.getDomain().empty() || node.getDomain() == "ai.onnx";
  if (!onnxDomain)
    return nullptr;
  auto it = costRules().find(node.getOpType());
  return it == costRules().end() ? nullptr : &it->second;
}

} // namespace

bool placer::hasOnnxCostRule(StringRef opType) {
  return costRules().count(opType);
}

namespace {

/// Backward time as a multiple of forward time, per ONNX op type
/// (docs/CostModel.md, "Backward times", gives the sources). Ops listed in
/// no group take the `backward-factor` fallback.
const llvm::StringMap<double> &backwardFactors() {
  static const llvm::StringMap<double> factors = [] {
    llvm::StringMap<double> table;
    auto add = [&](std::initializer_list<StringRef> ops, double factor) {
      for (StringRef op : ops)
        table[op] = factor;
    };
    // Contractions: the gradient of each operand is a contraction as large
    // as the forward one (dX = dY W^T, dW = X^T dY), hence twice the work
    // (training = 3x forward FLOPs, the "6N" of scaling-law counts).
    add({"MatMul", "Gemm", "Einsum", "Conv", "ConvTranspose", "LSTM", "GRU",
         "RNN"},
        2.0);
    // Products and quotients: one elementwise kernel per differentiable
    // input.
    add({"Mul", "Div", "Pow", "PRelu"}, 2.0);
    // Normalizations: the backward pass reduces twice over the normalized
    // axis (the gradient's mean and its projection on the input) and has
    // the weights' gradients to sum.
    add({"LayerNormalization", "BatchNormalization", "InstanceNormalization",
         "MeanVarianceNormalization", "LpNormalization", "LRN"},
        2.0);
    // One elementwise (or one reduction-and-broadcast) kernel from the
    // saved input or output: as much memory traffic as the forward op.
    add({"Add", "Sub", "Neg", "Abs", "Relu", "LeakyRelu", "Clip", "Where",
         "HardSigmoid", "HardSwish", "Shrink", "ThresholdedRelu", "Exp", "Log",
         "Sqrt", "Erf", "Tanh", "Sigmoid", "Sin", "Cos", "Softplus",
         "Softsign", "Elu", "Selu", "Celu", "Mish", "Gelu", "Softmax",
         "LogSoftmax", "Sum", "Mean", "Max", "Min", "ReduceMean", "ReduceSum",
         "ReduceMax", "ReduceMin", "ReduceL2", "ReduceSumSquare",
         "GlobalAveragePool", "GlobalMaxPool", "MaxPool", "AveragePool",
         "LpPool", "CumSum", "Dropout"},
        1.0);
    // Data movement: the inverse movement (Slice <-> Pad, Concat <-> Split,
    // Gather <-> scatter-add, Transpose <-> Transpose).
    add({"Slice", "Concat", "Split", "Pad", "Transpose", "Tile", "Expand",
         "Gather", "GatherElements", "GatherND", "Resize", "Upsample",
         "Cast", "DepthToSpace", "SpaceToDepth"},
        1.0);
    // No gradient flows (comparisons, rounding, indices), or nothing runs
    // (views).
    add({"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And",
         "Or", "Xor", "Not", "Floor", "Ceil", "Round", "Sign", "ArgMax",
         "ArgMin", "Shape", "Size", "NonZero", "OneHot", "Range", "Reshape",
         "Flatten", "Squeeze", "Unsqueeze", "Identity", "Constant",
         "ConstantOfShape"},
        0.0);
    return table;
  }();
  return factors;
}

FailureOr<OpWork> estimateNodeWork(NodeOp node) {
  OpWork work;
  for (Value result : node.getOutputs()) {
    if (auto tensor = dyn_cast<TensorType>(result.getType())) {
      work.elementType = getTypeName(tensor.getElementType());
      break;
    }
  }

  StringRef op = node.getOpType();
  const CostRule *rule = findCostRule(node);
  if (rule && rule->kind == CostClass::View) {
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

  if (!rule || !rule->formula) {
    // Data movement costs its bytes; an op without a rule is not modelled.
    work.isModeled = rule != nullptr;
    if (rule && rule->kind == CostClass::SparseRead &&
        node.getInputs().size() > 1) {
      // Only the gathered rows are read, not the whole table.
      std::optional<int64_t> indices =
          getTypeBytes(node.getInputs()[1].getType());
      work.bytesRead = indices.value_or(0) + work.outputBytes;
    }
    return work;
  }
  Flops flops = rule->formula(FormulaArgs{node, rule->perElement});
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
  registerUpstreamCostModels(registry);
}

std::optional<double> placer::getBackwardFactor(Operation *op) {
  auto node = dyn_cast<NodeOp>(op);
  if (!node || !(node.getDomain().empty() || node.getDomain() == "ai.onnx"))
    return std::nullopt;
  auto it = backwardFactors().find(node.getOpType());
  if (it == backwardFactors().end())
    return std::nullopt;
  return it->second;
}
