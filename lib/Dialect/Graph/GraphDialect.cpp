//===- GraphDialect.cpp - The imported-graph dialect ----------------------===//
#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;
using namespace placer::graph;

#include "placer/Dialect/Graph/GraphDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "placer/Dialect/Graph/GraphTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "placer/Dialect/Graph/GraphAttrs.cpp.inc"

void GraphDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "placer/Dialect/Graph/GraphOps.cpp.inc"
      >();
}

void GraphDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "placer/Dialect/Graph/GraphTypes.cpp.inc"
      >();
}

void GraphDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "placer/Dialect/Graph/GraphAttrs.cpp.inc"
      >();
}

bool placer::graph::isOnnxAttributeValue(Attribute attr) {
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getType().isInteger(64);
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getType().isF32();
  if (isa<StringAttr, DenseI64ArrayAttr, DenseF32ArrayAttr, ElementsAttr,
          TypeAttr>(attr))
    return true;
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    // STRINGS, TENSORS or TYPE_PROTOS; an empty array is an empty STRINGS.
    return llvm::all_of(array, llvm::IsaPred<StringAttr>) ||
           llvm::all_of(array, llvm::IsaPred<ElementsAttr>) ||
           llvm::all_of(array, llvm::IsaPred<TypeAttr>);
  }
  return false;
}

int64_t placer::graph::getElementByteSize(Type type) {
  if (isa<StringType>(type))
    return 0;
  if (auto complex = dyn_cast<ComplexType>(type))
    return 2 * getElementByteSize(complex.getElementType());
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits == 1 ? 1 : static_cast<int64_t>((bits + 7) / 8);
}

std::optional<int64_t>
placer::graph::getTensorBytes(llvm::ArrayRef<int64_t> shape, Type elementType) {
  if (llvm::is_contained(shape, 0))
    return 0;
  int64_t bytes = std::max<int64_t>(getElementByteSize(elementType), 1);
  for (int64_t dim : shape)
    if (!ShapedType::isDynamic(dim) &&
        (__builtin_mul_overflow(bytes, dim, &bytes) || bytes > kMaxTensorBytes))
      return std::nullopt;
  return bytes;
}

/// An error about one external weight, named as the user knows it.
static llvm::Error weightError(StringRef tensor, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "weight '" + tensor + "': " + message);
}

llvm::Expected<std::string>
placer::graph::getExternalDataPath(ModuleOp module, StringRef location,
                                   StringRef tensor) {
  auto fail = [&](const llvm::Twine &message) {
    return weightError(tensor, message);
  };
  auto dir = module->getAttrOfType<StringAttr>(attrs::kModelDir);
  if (!dir)
    return fail("it is in an external file but the module does not record "
                "the model's folder (" +
                attrs::kModelDir + ")");
  if (llvm::sys::path::is_absolute(location) ||
      llvm::is_contained(llvm::make_range(llvm::sys::path::begin(location),
                                          llvm::sys::path::end(location)),
                         ".."))
    return fail("location '" + location + "' leaves the model's folder");
  SmallString<256> path(dir.getValue());
  llvm::sys::path::append(path, location);
  return std::string(path);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
placer::graph::readExternalData(ModuleOp module, ExternalDataAttr data,
                                StringRef tensor) {
  auto path = getExternalDataPath(module, data.getLocation(), tensor);
  if (!path)
    return path.takeError();
  auto fail = [&](const llvm::Twine &message) {
    return weightError(tensor, message);
  };
  // A slice past the end of the file reads as zeros (it is mapped): the
  // file's size says whether the bytes are there.
  uint64_t size = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(*path, size))
    return fail("cannot read " + *path + ": " + ec.message());
  if (data.getOffset() < 0 || data.getLength() < 0 ||
      static_cast<uint64_t>(data.getOffset()) > size ||
      static_cast<uint64_t>(data.getLength()) >
          size - static_cast<uint64_t>(data.getOffset()))
    return fail(*path + " is shorter than offset + length (" +
                llvm::Twine(size) + " bytes)");
  auto slice = llvm::MemoryBuffer::getFileSlice(*path, data.getLength(),
                                                data.getOffset());
  if (!slice)
    return fail("cannot read " + *path + ": " + slice.getError().message());
  if ((*slice)->getBufferSize() != static_cast<size_t>(data.getLength()))
    return fail(*path + " is shorter than offset + length");
  return std::move(*slice);
}

llvm::Error placer::graph::readConstantBytes(ModuleOp module, Attribute value,
                                             StringRef tensor,
                                             llvm::MutableArrayRef<char> out) {
  auto sizeError = [&](size_t bytes) {
    return weightError(tensor, "holds " + llvm::Twine(bytes) +
                                   " bytes, its type needs " +
                                   llvm::Twine(out.size()));
  };
  auto fill = [&](ArrayRef<char> bytes) -> llvm::Error {
    if (bytes.size() != out.size())
      return sizeError(bytes.size());
    if (!bytes.empty()) // an empty tensor's data may be null
      std::memcpy(out.data(), bytes.data(), bytes.size());
    return llvm::Error::success();
  };
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return weightError(tensor, "its resource blob is empty");
    return fill(blob->getData());
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.getElementType().isInteger(1)) {
      if (static_cast<size_t>(dense.getNumElements()) != out.size())
        return sizeError(dense.getNumElements());
      char *next = out.data();
      for (bool v : dense.getValues<bool>())
        *next++ = v;
      return llvm::Error::success();
    }
    ArrayRef<char> raw = dense.getRawData();
    if (!dense.isSplat())
      return fill(raw);
    if (raw.empty()) // an empty tensor: nothing to repeat
      return llvm::Error::success();
    if (out.size() % raw.size())
      return sizeError(raw.size());
    for (size_t offset = 0; offset < out.size(); offset += raw.size())
      std::memcpy(out.data() + offset, raw.data(), raw.size());
    return llvm::Error::success();
  }
  if (auto external = dyn_cast<ExternalDataAttr>(value)) {
    auto bytes = readExternalData(module, external, tensor);
    if (!bytes)
      return bytes.takeError();
    return fill(
        ArrayRef<char>((*bytes)->getBufferStart(), (*bytes)->getBufferSize()));
  }
  return weightError(tensor, "has no data (a shapes-only import? import "
                             "without --shapes-only to run the model)");
}

using namespace placer::graph::onnx_dtype;

Type placer::graph::getElementTypeForOnnx(MLIRContext *context,
                                          int32_t dataType) {
  Builder b(context);
  auto unsignedInt = [&](unsigned width) {
    return IntegerType::get(context, width, IntegerType::Unsigned);
  };
  switch (dataType) {
  case kFloat: return b.getF32Type();
  case kUint8: return unsignedInt(8);
  case kInt8: return b.getIntegerType(8);
  case kUint16: return unsignedInt(16);
  case kInt16: return b.getIntegerType(16);
  case kInt32: return b.getIntegerType(32);
  case kInt64: return b.getIntegerType(64);
  case kString: return StringType::get(context);
  case kBool: return b.getI1Type();
  case kFloat16: return b.getF16Type();
  case kDouble: return b.getF64Type();
  case kUint32: return unsignedInt(32);
  case kUint64: return unsignedInt(64);
  case kComplex64: return ComplexType::get(b.getF32Type());
  case kComplex128: return ComplexType::get(b.getF64Type());
  case kBfloat16: return b.getBF16Type();
  default: return Type();
  }
}

std::optional<int32_t> placer::graph::getOnnxDataType(Type type) {
  if (isa<StringType>(type))
    return kString;
  if (type.isF32()) return kFloat;
  if (type.isF64()) return kDouble;
  if (type.isF16()) return kFloat16;
  if (type.isBF16()) return kBfloat16;
  if (auto complex = dyn_cast<ComplexType>(type)) {
    if (complex.getElementType().isF32()) return kComplex64;
    if (complex.getElementType().isF64()) return kComplex128;
    return std::nullopt;
  }
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer || integer.isSigned())
    return std::nullopt;
  bool isUnsigned = integer.isUnsigned();
  switch (integer.getWidth()) {
  case 1: return isUnsigned ? std::nullopt : std::optional<int32_t>(kBool);
  case 8: return isUnsigned ? kUint8 : kInt8;
  case 16: return isUnsigned ? kUint16 : kInt16;
  case 32: return isUnsigned ? kUint32 : kInt32;
  case 64: return isUnsigned ? kUint64 : kInt64;
  default: return std::nullopt;
  }
}
