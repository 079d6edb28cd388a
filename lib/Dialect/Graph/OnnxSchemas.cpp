//===- OnnxSchemas.cpp - ONNX's op schemas, looked up by version ---------===//
//
// The table is ONNX's (generated from its schemas by placer-onnx-schemas);
// this file only searches it. graph.node's verifier uses it so that a
// required input left out (graph.none) is refused wherever the module comes
// from, before any pass reads the node; placer-autocast, to know which
// operands and results carry the data's element type.
//
//===----------------------------------------------------------------------===//

#include "placer/Dialect/Graph/GraphDialect.h"

#include <algorithm>
#include <tuple>

using namespace placer::graph;

namespace {
struct Row {
  const char *opType;
  int sinceVersion, minInputs, maxInputs;
  unsigned long long required, typedInputs, typedOutputs;
};

// Sorted by (op type, since version).
constexpr Row kRows[] = {
#include "placer/Dialect/Graph/OnnxSchemas.inc"
};
} // namespace

std::optional<OnnxSchema> placer::graph::getOnnxSchema(llvm::StringRef opType,
                                                       int64_t version) {
  // The last row of `opType` whose since-version is at most `version`.
  auto after = std::upper_bound(
      std::begin(kRows), std::end(kRows), std::make_pair(opType, version),
      [](const std::pair<llvm::StringRef, int64_t> &key, const Row &row) {
        llvm::StringRef name(row.opType);
        return key.first < name ||
               (key.first == name && key.second < row.sinceVersion);
      });
  if (after == std::begin(kRows))
    return std::nullopt;
  const Row &row = *std::prev(after);
  if (opType != row.opType)
    return std::nullopt;
  return OnnxSchema{row.sinceVersion, row.minInputs,   row.maxInputs,
                    row.required,     row.typedInputs, row.typedOutputs};
}
