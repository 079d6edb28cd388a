//===- Json.h - JSON inputs through llvm::json mapping ----------*- C++ -*-===//
//
// Every JSON input (cluster files, profiles, the paper's workloads and split
// files) is mapped with llvm::json's fromJSON/ObjectMapper, so shape and type
// errors carry an llvm::json::Path. Errors read
//   cluster.json: device_kinds[1].memory_bandwidth: must be positive
// whether they come from the mapping or from a later cross-reference check.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_SUPPORT_JSON_H
#define PLACER_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace placer {

/// Parses the file at `path` as JSON; the error names the file.
llvm::Expected<llvm::json::Value> readJsonFile(llvm::StringRef path);

/// "SOURCE: PATH: MESSAGE" (or "SOURCE: MESSAGE" for an empty path), for
/// checks made after mapping (duplicate ids, unknown names, cycles).
llvm::Error jsonError(llvm::StringRef source, llvm::StringRef path,
                      const llvm::Twine &message);

/// The error of a failed mapping, in the same form as jsonError.
llvm::Error jsonError(llvm::StringRef source,
                      const llvm::json::Path::Root &root);

/// Maps `value` into `out` with its fromJSON overload.
template <typename T>
llvm::Error mapJson(const llvm::json::Value &value, T &out,
                    llvm::StringRef source) {
  llvm::json::Path::Root root("$");
  if (fromJSON(value, out, root))
    return llvm::Error::success();
  return jsonError(source, root);
}

/// "a.b" and "a[3]", for the paths of jsonError.
std::string jsonField(llvm::StringRef path, llvm::StringRef key);
std::string jsonIndex(llvm::StringRef path, size_t index);

//===----------------------------------------------------------------------===//
// Checked scalars: fields declare their range by their type.
//===----------------------------------------------------------------------===//

/// A finite number > 0 (bandwidths, FLOP/s, memory limits).
struct Positive {
  double value = 0;
};
/// A finite number >= 0 (latencies, times, sizes).
struct NonNegative {
  double value = 0;
};
/// An integer >= 1 (counts).
struct AtLeastOne {
  int64_t value = 1;
};
/// A boolean, also written 0 or 1 (the paper's files use both).
struct Flag {
  bool value = false;
};

bool fromJSON(const llvm::json::Value &value, Positive &out,
              llvm::json::Path path);
bool fromJSON(const llvm::json::Value &value, NonNegative &out,
              llvm::json::Path path);
bool fromJSON(const llvm::json::Value &value, AtLeastOne &out,
              llvm::json::Path path);
bool fromJSON(const llvm::json::Value &value, Flag &out,
              llvm::json::Path path);

} // namespace placer

#endif // PLACER_SUPPORT_JSON_H
