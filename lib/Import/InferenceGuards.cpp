//===- InferenceGuards.cpp - What ONNX's inference functions assume -------===//
#include "InferenceGuards.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

using namespace placer::detail;

namespace {

using Violations = std::vector<std::string>;
using Guard = void (*)(const GuardedNode &, Violations &);

std::string inputText(const GuardedNode &node, size_t index) {
  return "input '" + node.inputName(index) + "'";
}

/// Input `index`, when given and of known rank, has rank `rank`.
void requireRank(const GuardedNode &node, size_t index, int rank,
                 Violations &out) {
  if (index >= node.numInputs())
    return;
  std::optional<int> actual = node.inputRank(index);
  if (actual && *actual != rank)
    out.push_back(inputText(node, index) + " has rank " +
                  std::to_string(*actual) + "; " + node.opType() +
                  " needs rank " + std::to_string(rank) + " there");
}

/// Convolutions and pools: batch, channel and at least one spatial dim;
/// per-dim attributes as long as the spatial rank (pads twice), strides,
/// dilations and kernel positive, pads non-negative, group at least 1; a
/// weight of the input's rank. ONNX reads these ints whatever kind the
/// attribute declares (the schema check reports wrong kinds later), and
/// divides by strides.
void convolutionOrPool(const GuardedNode &node, Violations &out) {
  if (const onnx::AttributeProto *group = node.attribute("group"))
    if (group->i() < 1 && (group->type() == onnx::AttributeProto::INT ||
                           group->type() == onnx::AttributeProto::UNDEFINED))
      out.push_back("attribute 'group' is " + std::to_string(group->i()) +
                    "; it must be at least 1");
  std::optional<int> rank =
      node.numInputs() > 0 ? node.inputRank(0) : std::nullopt;
  if (!rank)
    return;
  int spatial = *rank - 2;
  if (spatial < 1) {
    out.push_back(inputText(node, 0) + " has rank " + std::to_string(*rank) +
                  "; " + node.opType() +
                  " needs batch, channel and at least one spatial dim");
    return;
  }
  for (const char *name : {"kernel_shape", "strides", "dilations", "pads"}) {
    const onnx::AttributeProto *attr = node.attribute(name);
    if (!attr || attr->ints_size() == 0)
      continue;
    bool isPads = std::string(name) == "pads";
    int expected = isPads ? 2 * spatial : spatial;
    if (attr->ints_size() != expected)
      out.push_back("attribute '" + std::string(name) + "' has " +
                    std::to_string(attr->ints_size()) + " entries but " +
                    inputText(node, 0) + " has " + std::to_string(spatial) +
                    " spatial dims");
    for (int64_t v : attr->ints())
      if (isPads ? v < 0 : v < 1) {
        out.push_back("attribute '" + std::string(name) + "' has entry " +
                      std::to_string(v) + "; entries must be " +
                      (isPads ? "non-negative" : "positive"));
        break;
      }
  }
  const std::string &op = node.opType();
  if (op.find("Conv") == std::string::npos)
    return;
  size_t weight = op == "QLinearConv" ? 3 : 1;
  if (weight < node.numInputs())
    if (std::optional<int> weightRank = node.inputRank(weight);
        weightRank && *weightRank != *rank)
      out.push_back("weight '" + node.inputName(weight) + "' has rank " +
                    std::to_string(*weightRank) + " but " +
                    inputText(node, 0) + " has rank " + std::to_string(*rank));
}

/// RNN, GRU, LSTM: X, W, R, initial_h (and LSTM's initial_c) are 3-D, B and
/// LSTM's P 2-D, sequence_lens 1-D (ONNX 1.12's first versions index
/// X's dims 0 and 1 unchecked).
void recurrent(const GuardedNode &node, Violations &out) {
  for (size_t index : {0, 1, 2, 5, 6})
    requireRank(node, index, 3, out);
  requireRank(node, 3, 2, out);
  requireRank(node, 4, 1, out);
  if (node.opType() == "LSTM")
    requireRank(node, 7, 2, out);
}

const llvm::StringMap<Guard> &getGuards() {
  static const llvm::StringMap<Guard> guards = {
      {"Conv", convolutionOrPool},        {"ConvInteger", convolutionOrPool},
      {"QLinearConv", convolutionOrPool}, {"ConvTranspose", convolutionOrPool},
      {"MaxPool", convolutionOrPool},     {"AveragePool", convolutionOrPool},
      {"LpPool", convolutionOrPool},      {"MaxUnpool", convolutionOrPool},
      {"RNN", recurrent},                 {"GRU", recurrent},
      {"LSTM", recurrent},
  };
  return guards;
}

/// A node as ONNX's inference sees it: ranks of the types known so far.
class InferenceView final : public GuardedNode {
public:
  InferenceView(const std::string &opType, onnx::InferenceContext &context)
      : type(opType), context(context) {}
  const std::string &opType() const override { return type; }
  size_t numInputs() const override { return context.getNumInputs(); }
  std::string inputName(size_t index) const override {
    return "input " + std::to_string(index);
  }
  std::optional<int> inputRank(size_t index) const override {
    const onnx::TypeProto *input = context.getInputType(index);
    return input ? getRank(*input) : std::nullopt;
  }
  const onnx::AttributeProto *attribute(const std::string &name) const override {
    return context.getAttribute(name);
  }

private:
  const std::string &type;
  onnx::InferenceContext &context;
};

} // namespace

std::optional<int> placer::detail::getRank(const onnx::TypeProto &type) {
  if (type.has_tensor_type() && type.tensor_type().has_shape())
    return type.tensor_type().shape().dim_size();
  if (type.has_sparse_tensor_type() && type.sparse_tensor_type().has_shape())
    return type.sparse_tensor_type().shape().dim_size();
  return std::nullopt;
}

std::vector<std::string>
placer::detail::checkInferenceGuard(const GuardedNode &node) {
  Violations out;
  auto it = getGuards().find(node.opType());
  if (it != getGuards().end())
    it->second(node, out);
  return out;
}

bool placer::detail::hasInferenceGuard(const std::string &opType) {
  return getGuards().contains(opType);
}

const GuardedSchemaRegistry &placer::detail::getGuardedSchemas() {
  static const GuardedSchemaRegistry schemas;
  return schemas;
}

const onnx::OpSchema *
GuardedSchemaRegistry::GetSchema(const std::string &key,
                                 const int maxInclusiveVersion,
                                 const std::string &domain) const {
  const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Instance()->GetSchema(
      key, maxInclusiveVersion, domain);
  if (!schema || !(domain.empty() || domain == onnx::ONNX_DOMAIN) ||
      !hasInferenceGuard(key) || !schema->GetTypeAndShapeInferenceFunction())
    return schema;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<onnx::OpSchema> &copy = wrapped[schema];
  if (!copy) {
    copy = std::make_unique<onnx::OpSchema>(*schema);
    onnx::InferenceFunction original = schema->GetTypeAndShapeInferenceFunction();
    std::string opType = key;
    copy->TypeAndShapeInferenceFunction(
        [original, opType](onnx::InferenceContext &context) {
          std::vector<std::string> violations =
              checkInferenceGuard(InferenceView(opType, context));
          if (!violations.empty())
            fail_shape_inference(violations.front());
          original(context);
        });
  }
  return copy.get();
}
