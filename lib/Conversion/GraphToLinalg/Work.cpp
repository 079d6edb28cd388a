//===- Work.cpp - FLOP formulas of the op registry's work rules ----------===//
//
// FLOPs count a multiply-add as 2. Shapes come from the (static) types the
// importer inferred, so strides, pads, dilations and groups of convolutions
// enter through the output and weight shapes. Each formula says what it
// counts in the text the coverage table prints (docs/OpCoverage.md).
//
//===----------------------------------------------------------------------===//

#include "Rules.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <numeric>

using namespace mlir;
using namespace placer;

namespace {

int64_t product(ArrayRef<int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

Flops perOutputElement(const WorkArgs &args) {
  auto out = args.output();
  if (failed(out))
    return failure();
  return std::optional<double>(args.perElement * product(*out));
}

Flops perInputElement(const WorkArgs &args) {
  auto in = args.input(0);
  if (failed(in))
    return failure();
  return std::optional<double>(args.perElement * product(*in));
}

/// Sum/Mean/Max/Min of n inputs: n - 1 combines per output element.
Flops variadicElementwise(const WorkArgs &args) {
  auto out = args.output();
  if (failed(out))
    return failure();
  double combines = std::max<size_t>(args.node.getInputs().size(), 2) - 1;
  return std::optional<double>(combines * product(*out));
}

/// Each output element: (C_in / group) * kernel multiply-adds, so strides,
/// pads, dilations and groups enter through the shapes.
Flops convolution(const WorkArgs &args, unsigned weightInput, bool bias) {
  auto out = args.output();
  auto weight = args.input(weightInput);
  if (failed(out) || failed(weight))
    return failure();
  double macs =
      static_cast<double>(product(*out)) * product(weight->drop_front(1));
  return std::optional<double>(2 * macs + (bias ? product(*out) : 0));
}

Flops conv(const WorkArgs &args) {
  return convolution(args, 1, args.hasInput(2));
}
Flops convInteger(const WorkArgs &args) { return convolution(args, 1, false); }
Flops qlinearConv(const WorkArgs &args) { return convolution(args, 3, false); }

/// Each input element scatters into (C_out / group) * kernel outputs.
Flops convTranspose(const WorkArgs &args) {
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

Flops matMul(const WorkArgs &args) {
  auto a = args.input(0);
  auto out = args.output();
  if (failed(a) || failed(out))
    return failure();
  int64_t k = a->empty() ? 1 : a->back();
  return std::optional<double>(2.0 * product(*out) * k);
}

Flops gemm(const WorkArgs &args) {
  auto a = args.input(0);
  auto out = args.output();
  if (failed(a) || failed(out))
    return failure();
  if (a->size() != 2)
    return std::optional<double>();
  int64_t k = args.getInt("transA", 0) ? (*a)[0] : (*a)[1];
  double mn = product(*out);
  return std::optional<double>(2.0 * mn * k + (args.hasInput(2) ? mn : 0));
}

/// Multiply-adds = product of the sizes of all distinct labels.
Flops einsum(const WorkArgs &args) {
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
  for (auto [i, term] : llvm::enumerate(terms)) {
    auto shape = args.input(i);
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

Flops pool(const WorkArgs &args) {
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
Flops dft(const WorkArgs &args) {
  auto in = args.input(0);
  auto out = args.output();
  if (failed(in) || failed(out))
    return failure();
  int64_t rank = in->size();
  int64_t axis = args.getInt("axis", 1);
  axis = axis < 0 ? axis + rank : axis;
  if (axis < 0 || axis >= rank)
    return std::optional<double>();
  return std::optional<double>(8.0 * product(*out) * (*in)[axis]);
}

/// Det: Gaussian elimination, about 2/3 M^3 multiply-adds per matrix.
Flops determinant(const WorkArgs &args) {
  auto in = args.input(0);
  if (failed(in))
    return failure();
  if (in->size() < 2)
    return std::optional<double>();
  double m = in->back();
  return std::optional<double>(product(*in) / (m * m) * (2.0 / 3.0) * m * m *
                               m * 2);
}

/// TopK compares each element with every other along the axis (the
/// lowering counts each element's place).
Flops topK(const WorkArgs &args) {
  auto in = args.input(0);
  if (failed(in))
    return failure();
  if (in->empty())
    return std::optional<double>(0.0);
  int64_t rank = in->size();
  int64_t axis = args.getInt("axis", -1);
  axis = axis < 0 ? axis + rank : axis;
  if (axis < 0 || axis >= rank)
    return std::optional<double>();
  return std::optional<double>(2.0 * product(*in) * (*in)[axis]);
}

/// Unique compares every pair of slices twice (each one's first equal
/// slice, then its place): 2 n^2 comparisons of the slice size, n slices
/// along `axis` (the elements without one).
Flops unique(const WorkArgs &args) {
  auto in = args.input(0);
  if (failed(in))
    return failure();
  double elements = product(*in), slices = elements;
  if (args.node.getAttrs().get("axis")) {
    int64_t rank = in->size();
    int64_t axis = args.getInt("axis", 0);
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
Flops nonMaxSuppression(const WorkArgs &args) {
  auto scores = args.input(1);
  if (failed(scores))
    return failure();
  if (scores->size() != 3)
    return std::optional<double>();
  double n = (*scores)[2];
  return std::optional<double>(static_cast<double>((*scores)[0]) *
                               (*scores)[1] * n * n * 17);
}

/// The losses: 3 per target element (pick, weigh, sum), plus (`softmax`)
/// the log softmax of the scores for SoftmaxCrossEntropyLoss.
template <bool softmax> Flops loss(const WorkArgs &args) {
  auto scores = args.input(0);
  auto target = args.input(1);
  if (failed(scores) || failed(target))
    return failure();
  double flops = 3.0 * product(*target);
  if (softmax)
    flops += 5.0 * product(*scores);
  return std::optional<double>(flops);
}

Flops recurrent(const WorkArgs &args) {
  auto x = args.input(0);
  auto w = args.input(1);
  auto r = args.input(2);
  if (failed(x) || failed(w) || failed(r))
    return failure();
  if (x->size() != 3 || w->size() != 3)
    return std::optional<double>();
  bool batchFirst = args.getInt("layout", 0) == 1;
  int64_t seq = batchFirst ? (*x)[1] : (*x)[0];
  int64_t batch = batchFirst ? (*x)[0] : (*x)[1];
  // W = [directions, gates * hidden, input], R = [.., .., hidden]: every
  // step multiplies the input and the previous state by both.
  double macs = static_cast<double>(seq) * batch * (product(*w) + product(*r));
  // Gate activations and the state update: ~4 FLOPs per gate element.
  double gateElements = static_cast<double>(seq) * batch * (*w)[0] * (*w)[1];
  return std::optional<double>(2 * macs + 4 * gateElements);
}

std::string perElementText(double n, StringRef of) {
  std::string text;
  llvm::raw_string_ostream(text)
      << llvm::format("%g", n) << " per " << of << " element";
  return text;
}

} // namespace

WorkRule work::perOutputElement(double n) {
  return WorkRule::compute(::perOutputElement, n, perElementText(n, "output"));
}

WorkRule work::perInputElement(double n) {
  return WorkRule::compute(::perInputElement, n, perElementText(n, "input"));
}

WorkRule work::variadic() {
  return WorkRule::compute(::variadicElementwise, 0,
                           "(inputs − 1) per output element");
}

WorkRule work::conv() {
  return WorkRule::compute(
      ::conv, 0, "2 · numel(Y) · (C_in/group · kernel) + numel(Y) if bias");
}

WorkRule work::convInteger() {
  return WorkRule::compute(::convInteger, 0,
                           "2 · numel(Y) · (C_in/group · kernel)");
}

WorkRule work::qlinearConv() {
  return WorkRule::compute(::qlinearConv, 0,
                           "2 · numel(Y) · (C_in/group · kernel)");
}

WorkRule work::convTranspose() {
  return WorkRule::compute(
      ::convTranspose, 0,
      "2 · numel(X) · (C_out/group · kernel) + numel(Y) if bias");
}

WorkRule work::matMul() {
  return WorkRule::compute(::matMul, 0, "2 · numel(Y) · K, K = last dim of A");
}

WorkRule work::gemm() {
  return WorkRule::compute(::gemm, 0, "2 · M · N · K + M · N if C");
}

WorkRule work::einsum() {
  return WorkRule::compute(::einsum, 0,
                           "2 · product of the sizes of all labels (one "
                           "operand: that product); none with `...`");
}

WorkRule work::pool() {
  return WorkRule::compute(::pool, 0, "numel(Y) · window size");
}

WorkRule work::dft() {
  return WorkRule::compute(::dft, 0,
                           "8 · numel(Y) · samples along the axis (no FFT)");
}

WorkRule work::determinant() {
  return WorkRule::compute(::determinant, 0,
                           "4/3 · M³ per matrix (Gaussian elimination)");
}

WorkRule work::topK() {
  return WorkRule::compute(::topK, 0, "2 · numel(X) · size of the axis");
}

WorkRule work::unique() {
  return WorkRule::compute(::unique, 0,
                           "2 · numel(X) · n, n slices along the axis");
}

WorkRule work::nonMaxSuppression() {
  return WorkRule::compute(::nonMaxSuppression, 0,
                           "17 · batches · classes · boxes²");
}

WorkRule work::loss() {
  return WorkRule::compute(::loss<false>, 0, "3 per target element");
}

WorkRule work::softmaxLoss() {
  return WorkRule::compute(::loss<true>, 0,
                           "3 per target element + 5 per score element");
}

WorkRule work::recurrent() {
  return WorkRule::compute(::recurrent, 0,
                           "2 · seq · batch · (numel(W) + numel(R)) + 4 · seq "
                           "· batch · gate elements");
}

namespace {

/// The integers of a compile-time input of `node` (a graph.constant), or
/// nothing.
std::optional<SmallVector<int64_t>> constantInts(graph::NodeOp node,
                                                 unsigned i) {
  if (i >= node->getNumOperands())
    return std::nullopt;
  auto constant = node->getOperand(i).getDefiningOp<graph::ConstantOp>();
  auto dense = constant ? dyn_cast<DenseIntElementsAttr>(constant.getValue())
                        : DenseIntElementsAttr();
  if (!dense)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &v : dense.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

bool isForwardSlice(graph::NodeOp node) {
  // Opset 1: starts, ends and axes are attributes; steps are 1.
  if (node.getAttrs().get("starts"))
    return true;
  auto absent = [&](unsigned i) {
    return i >= node->getNumOperands() ||
           isa<NoneType>(node->getOperand(i).getType());
  };
  if (!constantInts(node, 1) || !constantInts(node, 2) ||
      !(absent(3) || constantInts(node, 3)))
    return false;
  if (absent(4))
    return true;
  std::optional<SmallVector<int64_t>> steps = constantInts(node, 4);
  return steps && llvm::all_of(*steps, [](int64_t step) { return step > 0; });
}

} // namespace

WorkRule work::slice() {
  return WorkRule::viewOrCopy(
      isForwardSlice, "view when starts, ends, axes and steps are constants "
                      "and every step is forward; else 0 FLOPs: memory-bound");
}
