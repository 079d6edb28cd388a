//===- InferenceGuards.h - What ONNX's inference functions assume -*- C++ -*-===//
//
// Internal to the importer (includes ONNX headers; built with exceptions).
//
// Some of ONNX 1.12's shape inference functions read dims and attributes
// without checking them: convolutions and pools whose kernel, strides or
// weight disagree with the input's spatial rank, the first RNN/GRU/LSTM
// versions on inputs of the wrong rank. They crash the process (SEGV,
// SIGFPE) instead of failing. A guard states what one op type's function
// assumes; the importer checks it twice:
//  - during inference, through a schema registry whose schemas run the
//    guard before ONNX's function, so a violating node is skipped, not run
//    (ranks are known there even for values inference has just computed);
//  - after inference, over the graph's now typed values, to report each
//    violation as an error naming the node, input and attribute.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_IMPORT_INFERENCEGUARDS_H
#define PLACER_LIB_IMPORT_INFERENCEGUARDS_H

#include <onnx/defs/schema.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace placer::detail {

/// The rank of a (dense or sparse) tensor type with a shape; ONNX's
/// inference functions read the shapes of both.
std::optional<int> getRank(const onnx::TypeProto &type);

/// What a guard sees of a node: attributes, and per input its name and its
/// rank when known.
class GuardedNode {
public:
  virtual ~GuardedNode() = default;
  virtual const std::string &opType() const = 0;
  virtual size_t numInputs() const = 0;
  /// The input's name for messages ("input 2" where it has none).
  virtual std::string inputName(size_t index) const = 0;
  virtual std::optional<int> inputRank(size_t index) const = 0;
  virtual const onnx::AttributeProto *attribute(const std::string &name) const = 0;
};

/// The violations of what ONNX's inference function of `node`'s op type
/// assumes (default domain); empty when it is safe to run.
std::vector<std::string> checkInferenceGuard(const GuardedNode &node);

/// Whether any guard exists for this default-domain op type.
bool hasInferenceGuard(const std::string &opType);

/// ONNX's schemas, with the guarded ones wrapped: their inference function
/// first checks the guard and fails inference of the node (an ONNX
/// InferenceError, which error_mode 0 skips) instead of crashing.
class GuardedSchemaRegistry final : public onnx::ISchemaRegistry {
public:
  const onnx::OpSchema *GetSchema(const std::string &key,
                                  const int maxInclusiveVersion,
                                  const std::string &domain) const override;

private:
  mutable std::mutex mutex;
  mutable std::map<const onnx::OpSchema *, std::unique_ptr<onnx::OpSchema>>
      wrapped;
};

/// The one guarded registry of the process.
const GuardedSchemaRegistry &getGuardedSchemas();

} // namespace placer::detail

#endif // PLACER_LIB_IMPORT_INFERENCEGUARDS_H
