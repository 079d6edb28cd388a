//===- Npy.h - NumPy .npy arrays ---------------------------------*- C++ -*-===//
//
// Plain C++ (no LLVM): runners with and without the compiler read inputs
// and write outputs with it.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_RUNTIME_NPY_H
#define PLACER_RUNTIME_NPY_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace placer::runtime {

/// A C-ordered little-endian array; `dtype` is NumPy's descr ("<f4", "<i8",
/// "|b1", ...).
struct NpyArray {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

/// The descr of an MLIR element type name ("f32" -> "<f4"), or "" when npy
/// has none.
std::string npyDtypeOf(std::string_view elementType);
size_t npyItemSize(std::string_view dtype);

/// The file `name` (a graph tensor's name) is written to and read from in
/// a folder of arrays: "<name>.npy" with every character other than
/// letters, digits, '-', '_' and '.' replaced by '_' and a leading '.'
/// prefixed, so that graph names holding '/' or "../" never leave the
/// folder.
std::string npyFileName(std::string_view name);

/// Reads `path`; on failure nothing, and `error` is "PATH: what is wrong".
std::optional<NpyArray> readNpy(const std::string &path, std::string &error);
/// Writes `array` to `path`; on failure false, and `error` says why.
bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error);

} // namespace placer::runtime

#endif // PLACER_RUNTIME_NPY_H
