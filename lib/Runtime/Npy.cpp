//===- Npy.cpp - NumPy .npy arrays ----------------------------------------===//
//
// Format 1.0/2.0 (numpy.lib.format): magic, version, header length, a
// Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)},
// then the raw data.
//
//===----------------------------------------------------------------------===//

#include "placer/Runtime/Npy.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace placer::runtime;

namespace {

std::string_view trim(std::string_view s, std::string_view chars = " \t\n") {
  size_t first = s.find_first_not_of(chars);
  if (first == std::string_view::npos)
    return {};
  size_t last = s.find_last_not_of(chars);
  return s.substr(first, last - first + 1);
}

/// The value of `key` in the header dict, up to the next top-level comma
/// (a tuple's contents, without its parentheses).
std::optional<std::string_view> headerField(std::string_view header,
                                            std::string_view key) {
  size_t at = header.find("'" + std::string(key) + "'");
  if (at == std::string_view::npos)
    return std::nullopt;
  std::string_view rest = trim(header.substr(at + key.size() + 2));
  if (rest.empty() || rest.front() != ':')
    return std::nullopt;
  rest = trim(rest.substr(1));
  if (!rest.empty() && rest.front() == '(')
    return rest.substr(1, rest.find(')') == std::string_view::npos
                              ? std::string_view::npos
                              : rest.find(')') - 1);
  return trim(rest.substr(0, rest.find_first_of(",}")));
}

bool parseInteger(std::string_view text, int64_t &value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(),
                                   value);
  return ec == std::errc() && end == text.data() + text.size();
}

std::nullopt_t fail(std::string &error, const std::string &path,
                    const std::string &message) {
  error = path + ": " + message;
  return std::nullopt;
}

} // namespace

std::string placer::runtime::npyFileName(std::string_view name) {
  std::string file;
  for (char c : name)
    file += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' ||
             c == '_' || c == '.')
                ? c
                : '_';
  if (file.empty() || file[0] == '.')
    file = "_" + file;
  return file + ".npy";
}

std::string placer::runtime::npyDtypeOf(std::string_view elementType) {
  if (elementType == "f32") return "<f4";
  if (elementType == "f64") return "<f8";
  if (elementType == "f16") return "<f2";
  // .npy has no bfloat16: its raw bits as uint16, as ONNX's numpy_helper
  // reads and writes them (docs/Execution.md, "Inputs, outputs, report").
  if (elementType == "bf16")
    return "<u2";
  if (elementType == "i64") return "<i8";
  if (elementType == "i32") return "<i4";
  if (elementType == "i16") return "<i2";
  if (elementType == "i8") return "|i1";
  if (elementType == "ui8") return "|u1";
  if (elementType == "ui16") return "<u2";
  if (elementType == "ui32") return "<u4";
  if (elementType == "ui64") return "<u8";
  if (elementType == "i1") return "|b1";
  return "";
}

size_t placer::runtime::npyItemSize(std::string_view dtype) {
  int64_t size = 0;
  if (dtype.size() < 3 || !parseInteger(dtype.substr(2), size) || size <= 0)
    return 0;
  return static_cast<size_t>(size);
}

std::optional<NpyArray> placer::runtime::readNpy(const std::string &path,
                                                 std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(error, path, std::string("cannot read: ") + std::strerror(errno));
  std::ostringstream contents;
  contents << in.rdbuf();
  const std::string text = contents.str();
  std::string_view data = text;
  if (data.size() < 10 || data.substr(0, 6) != "\x93NUMPY")
    return fail(error, path, "not a .npy file");
  uint8_t major = data[6];
  size_t headerLength, offset;
  if (major == 1) {
    headerLength = uint8_t(data[8]) | (uint8_t(data[9]) << 8);
    offset = 10;
  } else {
    if (data.size() < 12)
      return fail(error, path, "truncated header");
    headerLength = uint32_t(uint8_t(data[8])) | (uint32_t(uint8_t(data[9])) << 8) |
                   (uint32_t(uint8_t(data[10])) << 16) |
                   (uint32_t(uint8_t(data[11])) << 24);
    offset = 12;
  }
  if (offset + headerLength > data.size())
    return fail(error, path, "truncated header");
  std::string_view header = data.substr(offset, headerLength);
  NpyArray array;
  auto descr = headerField(header, "descr");
  auto fortran = headerField(header, "fortran_order");
  auto shape = headerField(header, "shape");
  if (!descr || !fortran || !shape)
    return fail(error, path, "header lacks descr, fortran_order or shape");
  if (*fortran != "False")
    return fail(error, path, "Fortran-ordered arrays are not supported");
  array.dtype = std::string(trim(*descr, "'\""));
  if (npyItemSize(array.dtype) == 0 || array.dtype[0] == '>')
    return fail(error, path, "unsupported dtype '" + array.dtype + "'");
  uint64_t count = 1;
  std::string_view dims = *shape;
  while (!trim(dims).empty()) {
    size_t comma = dims.find(',');
    std::string_view dim = trim(dims.substr(0, comma));
    dims = comma == std::string_view::npos ? std::string_view()
                                           : dims.substr(comma + 1);
    int64_t value = 0;
    if (dim.empty() && comma != std::string_view::npos)
      continue; // "(n,)"
    if (!parseInteger(dim, value) || value < 0)
      return fail(error, path, "bad shape (" + std::string(*shape) + ")");
    array.shape.push_back(value);
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(value), &count))
      return fail(error, path, "shape too large");
  }
  uint64_t bytes;
  if (__builtin_mul_overflow(count, npyItemSize(array.dtype), &bytes) ||
      offset + headerLength + bytes != data.size())
    return fail(error, path, "data size does not match the shape");
  std::string_view payload = data.substr(offset + headerLength);
  array.bytes.assign(payload.begin(), payload.end());
  return array;
}

bool placer::runtime::writeNpy(const std::string &path, const NpyArray &array,
                               std::string &error) {
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
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = path + ": cannot write: " + std::strerror(errno);
    return false;
  }
  out << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff)
      << char(header.size() >> 8) << header;
  out.write(reinterpret_cast<const char *>(array.bytes.data()),
            array.bytes.size());
  if (!out) {
    error = path + ": cannot write";
    return false;
  }
  return true;
}
