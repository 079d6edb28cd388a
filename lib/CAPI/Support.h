//===- Support.h - Statuses and diagnostics of the C API -------*- C++ -*-===//
//
// Internal to lib/CAPI: how a C entry point turns diagnostics and
// llvm::Errors into the PlacerStatus it returns.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_CAPI_SUPPORT_H
#define PLACER_LIB_CAPI_SUPPORT_H

#include "placer-c/Placer.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Error.h"

#include <string>

namespace placer::capi {

inline PlacerStatus success() { return PlacerStatus{nullptr}; }
PlacerStatus failure(std::string message);
PlacerStatus failure(llvm::Error error);

/// While alive, keeps the errors and warnings emitted on a context (with
/// their notes and locations) as text instead of printing them.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(mlir::MLIRContext *context);
  /// A failure carrying everything captured, `fallback` if nothing was.
  PlacerStatus failure(llvm::StringRef fallback);
  /// As above, with `error`'s message after the diagnostics.
  PlacerStatus failure(llvm::Error error);

private:
  std::string text;
  mlir::ScopedDiagnosticHandler handler;
};

inline llvm::StringRef unwrapString(MlirStringRef s) {
  return llvm::StringRef(s.data, s.length);
}
inline MlirStringRef wrapString(llvm::StringRef s) {
  return MlirStringRef{s.data(), s.size()};
}

} // namespace placer::capi

#endif // PLACER_LIB_CAPI_SUPPORT_H
