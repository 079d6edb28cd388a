//===- ShapeFolding.h - Static shapes through shape arithmetic -*- C++ -*-===//
//
// Internal to the importer (includes ONNX headers; built with exceptions).
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_IMPORT_SHAPEFOLDING_H
#define PLACER_LIB_IMPORT_SHAPEFOLDING_H

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include "placer/Dialect/Graph/OpRegistry.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace placer::detail {

/// The registry's known tensor (placer/Dialect/Graph/OpRegistry.h).
using placer::KnownTensor;

/// Reads `tensor` when it is small, stored inline and of a type the folder
/// computes with.
std::optional<KnownTensor> readKnownTensor(const onnx::TensorProto &tensor);

/// Evaluates `node` from the values of its inputs (`inputs[i]` null when
/// unknown) and the static shapes of its inputs (`shapes[i]` null when not
/// static). Returns the values of its outputs, or nothing when the node is
/// not one the folder models or an input is missing.
std::optional<std::vector<KnownTensor>>
evaluateNode(const onnx::NodeProto &node,
             const std::vector<const KnownTensor *> &inputs,
             const std::vector<const std::vector<int64_t> *> &shapes,
             int64_t opset = INT32_MAX);

/// ONNX 1.12's shape inference cannot see through shape arithmetic (Shape ->
/// Gather -> Range -> Slice ...) once the dims are bound. In one pass over
/// the (topologically sorted) main graph, this evaluates such small tensors
/// and runs every other op's ONNX inference function with those values as
/// constant inputs. Only types change in `model`: its nodes stay as they are.
/// Expects ONNX's whole-graph inference to have run first; takes its
/// schemas from `schemas` (the importer's guarded ones).
void refineShapesByFolding(onnx::ModelProto &model,
                           const onnx::ISchemaRegistry &schemas);

} // namespace placer::detail

#endif // PLACER_LIB_IMPORT_SHAPEFOLDING_H
