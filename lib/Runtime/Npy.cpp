//===- Npy.cpp - NumPy .npy arrays ----------------------------------------===//
//
// Format 1.0/2.0 (numpy.lib.format): magic, version, header length, a
// Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)},
// then the raw data.
//
//===----------------------------------------------------------------------===//

#include "placer/Runtime/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace placer::runtime;

static llvm::Error npyError(llvm::StringRef path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " + message);
}

std::string placer::runtime::npyDtypeOf(llvm::StringRef elementType) {
  if (elementType == "f32") return "<f4";
  if (elementType == "f64") return "<f8";
  if (elementType == "f16") return "<f2";
  if (elementType == "i64") return "<i8";
  if (elementType == "i32") return "<i4";
  if (elementType == "i16") return "<i2";
  if (elementType == "i8") return "|i1";
  if (elementType == "ui8") return "|u1";
  if (elementType == "i1") return "|b1";
  return "";
}

size_t placer::runtime::npyItemSize(llvm::StringRef dtype) {
  if (dtype.size() < 3)
    return 0;
  unsigned size = 0;
  if (dtype.drop_front(2).getAsInteger(10, size))
    return 0;
  return size;
}

/// The value of `key` in the header dict, up to the next top-level comma.
static std::optional<llvm::StringRef> headerField(llvm::StringRef header,
                                                  llvm::StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("("))
    return rest.take_until([](char c) { return c == ')'; }).drop_front();
  return rest.take_until([](char c) { return c == ',' || c == '}'; }).trim();
}

llvm::Expected<NpyArray> placer::runtime::readNpy(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return npyError(path, "cannot read: " + buffer.getError().message());
  llvm::StringRef data = (*buffer)->getBuffer();
  if (!data.starts_with("\x93NUMPY") || data.size() < 10)
    return npyError(path, "not a .npy file");
  uint8_t major = data[6];
  size_t headerLength, offset;
  if (major == 1) {
    headerLength = uint8_t(data[8]) | (uint8_t(data[9]) << 8);
    offset = 10;
  } else {
    if (data.size() < 12)
      return npyError(path, "truncated header");
    headerLength = uint32_t(uint8_t(data[8])) | (uint32_t(uint8_t(data[9])) << 8) |
                   (uint32_t(uint8_t(data[10])) << 16) |
                   (uint32_t(uint8_t(data[11])) << 24);
    offset = 12;
  }
  if (offset + headerLength > data.size())
    return npyError(path, "truncated header");
  llvm::StringRef header = data.substr(offset, headerLength);
  NpyArray array;
  auto descr = headerField(header, "descr");
  auto fortran = headerField(header, "fortran_order");
  auto shape = headerField(header, "shape");
  if (!descr || !fortran || !shape)
    return npyError(path, "header lacks descr, fortran_order or shape");
  if (*fortran != "False")
    return npyError(path, "Fortran-ordered arrays are not supported");
  array.dtype = descr->trim("'\"").str();
  if (npyItemSize(array.dtype) == 0 || array.dtype[0] == '>')
    return npyError(path, "unsupported dtype '" + array.dtype + "'");
  llvm::SmallVector<llvm::StringRef> dims;
  shape->split(dims, ',', -1, /*KeepEmpty=*/false);
  uint64_t count = 1;
  for (llvm::StringRef dim : dims) {
    int64_t value;
    if (dim.trim().getAsInteger(10, value) || value < 0)
      return npyError(path, "bad shape (" + *shape + ")");
    array.shape.push_back(value);
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(value), &count))
      return npyError(path, "shape too large");
  }
  uint64_t bytes;
  if (__builtin_mul_overflow(count, npyItemSize(array.dtype), &bytes) ||
      offset + headerLength + bytes != data.size())
    return npyError(path, "data size does not match the shape");
  llvm::StringRef payload = data.drop_front(offset + headerLength);
  array.bytes.assign(payload.begin(), payload.end());
  return array;
}

llvm::Error placer::runtime::writeNpy(llvm::StringRef path,
                                      const NpyArray &array) {
  std::string header = "{'descr': '" + array.dtype +
                       "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < array.shape.size(); ++i)
    header += (i ? ", " : "") + std::to_string(array.shape[i]);
  if (array.shape.size() == 1)
    header += ","; // "(n,)" is a tuple, "(n)" is not
  header += "), }";
  // Pad with spaces so that the data starts on a 64-byte boundary.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return npyError(path, "cannot write: " + ec.message());
  os << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff)
     << char(header.size() >> 8) << header;
  os.write(reinterpret_cast<const char *>(array.bytes.data()),
           array.bytes.size());
  return llvm::Error::success();
}
