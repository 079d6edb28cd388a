//===- Npy.h - NumPy .npy arrays ---------------------------------*- C++ -*-===//
#ifndef PLACER_RUNTIME_NPY_H
#define PLACER_RUNTIME_NPY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
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
std::string npyDtypeOf(llvm::StringRef elementType);
size_t npyItemSize(llvm::StringRef dtype);

llvm::Expected<NpyArray> readNpy(llvm::StringRef path);
llvm::Error writeNpy(llvm::StringRef path, const NpyArray &array);

} // namespace placer::runtime

#endif // PLACER_RUNTIME_NPY_H
