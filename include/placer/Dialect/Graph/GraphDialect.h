//===- GraphDialect.h - The imported-graph dialect ------------*- C++ -*-===//
#ifndef PLACER_DIALECT_GRAPH_GRAPHDIALECT_H
#define PLACER_DIALECT_GRAPH_GRAPHDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include "placer/Dialect/Graph/GraphDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "placer/Dialect/Graph/GraphTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "placer/Dialect/Graph/GraphAttrs.h.inc"

#define GET_OP_CLASSES
#include "placer/Dialect/Graph/GraphOps.h.inc"

namespace placer::graph {

/// Names of the attributes the importer puts on modules, functions and
/// function arguments/results. Kept in one place because the exporter and
/// later passes read them back.
namespace attrs {
inline constexpr llvm::StringLiteral kIrVersion = "graph.ir_version";
inline constexpr llvm::StringLiteral kOpsetImport = "graph.opset_import";
inline constexpr llvm::StringLiteral kProducerName = "graph.producer_name";
inline constexpr llvm::StringLiteral kProducerVersion = "graph.producer_version";
inline constexpr llvm::StringLiteral kModelDir = "graph.model_dir";
inline constexpr llvm::StringLiteral kGraphName = "graph.name";
/// Tensor name of a graph input (function argument) or output (result).
inline constexpr llvm::StringLiteral kValueName = "graph.name";
/// Symbolic dim names of a graph input/output; "" for a fixed dim.
inline constexpr llvm::StringLiteral kDimParams = "graph.dim_params";
/// The key that stands for ONNX's default domain "" in `graph.opset_import`.
inline constexpr llvm::StringLiteral kDefaultDomainKey = "ai.onnx";
/// Marks a weight argument of a function lowered out of the graph dialect
/// (--placer-lower-graph-to-linalg); its value is a dictionary {name =
/// "<constant name>", value = <the constant's ElementsAttr or
/// #graph.external>}. The runtime loads it; the upstream cost models count
/// it as parameter bytes.
inline constexpr llvm::StringLiteral kWeight = "graph.weight";
/// On an argument or result of a function lowered out of the graph dialect
/// whose tensor became signless (upstream arith wants signless integers):
/// the element type the model declares (ui8, ui16, ...), so the runtime
/// reads and writes the model's dtype.
inline constexpr llvm::StringLiteral kElementType = "graph.element_type";
} // namespace attrs

/// What ONNX's schema of a default-domain op says at one opset: how many
/// inputs it takes and which it requires (bit i: input i may not be left
/// out with graph.none), and which inputs and outputs have the element type
/// of its data (the type parameter its first such output shares with an
/// input: Add's T, Resize's T1 but not its float scales). Generated from
/// ONNX's schemas at build time (tools/placer-onnx-schemas).
struct OnnxSchema {
  int sinceVersion, minInputs, maxInputs;
  uint64_t required, typedInputs, typedOutputs;

  bool isRequired(unsigned input) const { return bit(required, input); }
  /// Whether input / output `i` has the data's element type.
  bool isTypedInput(unsigned i) const { return bit(typedInputs, i); }
  bool isTypedOutput(unsigned i) const { return bit(typedOutputs, i); }

private:
  static bool bit(uint64_t mask, unsigned i) {
    return i < 64 && ((mask >> i) & 1);
  }
};

/// The schema of `opType` (default domain) at opset `version`: the one
/// with the greatest since-version not above it; none for an op ONNX does
/// not define there.
std::optional<OnnxSchema> getOnnxSchema(llvm::StringRef opType,
                                        int64_t version);

/// ONNX's `TensorProto.DataType` values (onnx.proto, ONNX 1.12), spelled out
/// so that code without ONNX headers (and without exceptions) can name them.
namespace onnx_dtype {
enum : int32_t {
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBfloat16 = 16,
};
} // namespace onnx_dtype

/// Whether `attr` is one of the attribute kinds an ONNX attribute maps to.
bool isOnnxAttributeValue(mlir::Attribute attr);

/// The element type for ONNX `TensorProto.DataType` value `dataType`, or a
/// null type for UNDEFINED and values ONNX 1.12 does not define.
mlir::Type getElementTypeForOnnx(mlir::MLIRContext *context, int32_t dataType);

/// The ONNX `TensorProto.DataType` value of `elementType`, or std::nullopt
/// when ONNX has no such type.
std::optional<int32_t> getOnnxDataType(mlir::Type elementType);

/// Size in bytes of one element of `type` in ONNX's raw layout, or 0 when the
/// element type has no fixed size (strings).
int64_t getElementByteSize(mlir::Type elementType);

/// The largest tensor the graph dialect holds: 2^48 bytes (256 TiB), far
/// beyond any device, and small enough that sums of byte counts over a
/// whole model (costs, memory, transfers) never overflow int64.
inline constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;

/// Bytes of a tensor of `shape` (dynamic dims count 1) and `elementType`
/// (strings count 1 byte an element), or std::nullopt when that is more
/// than kMaxTensorBytes.
std::optional<int64_t> getTensorBytes(llvm::ArrayRef<int64_t> shape,
                                      mlir::Type elementType);

/// The file holding an external tensor's bytes: `location` under the
/// module's model folder (`graph.model_dir`). An error when the module does
/// not record its folder or when the location would leave it (absolute, or
/// with a `..` component); `tensor` names the tensor in messages.
llvm::Expected<std::string> getExternalDataPath(mlir::ModuleOp module,
                                                llvm::StringRef location,
                                                llvm::StringRef tensor);

/// The bytes of an external tensor, read once.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readExternalData(mlir::ModuleOp module, ExternalDataAttr data,
                 llvm::StringRef tensor);

/// Writes the row-major bytes of a constant's `value` into `out`, which is
/// its type's size: a dense attribute's (a splat repeated, booleans a byte
/// each), a resource blob's or a weight file's. An error names `tensor`
/// when the module holds no data for it (a shapes-only import) or the
/// bytes are not `out`'s size.
llvm::Error readConstantBytes(mlir::ModuleOp module, mlir::Attribute value,
                              llvm::StringRef tensor,
                              llvm::MutableArrayRef<char> out);

} // namespace placer::graph

#endif // PLACER_DIALECT_GRAPH_GRAPHDIALECT_H
