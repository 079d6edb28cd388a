//===- JsonReader.h - Typed field access with path-naming errors -*- C++ -*-===//
//
// The JSON inputs (cluster files, profiles, the paper's workloads) are read
// through this so every error names the file and the field, e.g.
//   cluster.json: device_kinds[1].memory_bandwidth: must be positive, got 0
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_SUPPORT_JSONREADER_H
#define PLACER_SUPPORT_JSONREADER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace placer {

/// Shortest round-tripping decimal form of a number ("2", "0.25", "1e-06"),
/// for messages.
std::string formatNumber(double value);

/// Parses the file at `path` as JSON; the error names the file.
llvm::Expected<llvm::json::Value> readJsonFile(llvm::StringRef path);

/// Reads fields of JSON objects, keeping the first error. A field's path is
/// the path of its object plus `.key` (or `[index]` for array elements).
class JsonReader {
public:
  explicit JsonReader(std::string source) : source(std::move(source)) {}

  /// `value` as an object, or null (and an error) when it is not one.
  const llvm::json::Object *asObject(const llvm::json::Value &value,
                                     const std::string &path);
  const llvm::json::Array *asArray(const llvm::json::Value &value,
                                   const std::string &path);

  /// A field of `object`. A missing required field is an error; a missing
  /// optional one gives std::nullopt.
  std::optional<double> getNumber(const llvm::json::Object &object,
                                  llvm::StringRef key, const std::string &path,
                                  bool required = true);
  std::optional<int64_t> getInteger(const llvm::json::Object &object,
                                    llvm::StringRef key,
                                    const std::string &path,
                                    bool required = true);
  /// A boolean, also accepting 0 and 1 (the paper's files use both).
  std::optional<bool> getBool(const llvm::json::Object &object,
                              llvm::StringRef key, const std::string &path,
                              bool required = true);
  std::optional<std::string> getString(const llvm::json::Object &object,
                                       llvm::StringRef key,
                                       const std::string &path,
                                       bool required = true);
  const llvm::json::Array *getArray(const llvm::json::Object &object,
                                    llvm::StringRef key,
                                    const std::string &path,
                                    bool required = true);
  const llvm::json::Object *getObject(const llvm::json::Object &object,
                                      llvm::StringRef key,
                                      const std::string &path,
                                      bool required = true);

  /// Records an error at `path` (only the first one is kept).
  void fail(const std::string &path, const llvm::Twine &message);

  bool failed() const { return !firstError.empty(); }
  /// "source: path: message" for the first error.
  const std::string &error() const { return firstError; }
  llvm::Error takeError() const;

  static std::string join(const std::string &path, llvm::StringRef key);
  static std::string index(const std::string &path, size_t i);

private:
  const llvm::json::Value *field(const llvm::json::Object &object,
                                 llvm::StringRef key, const std::string &path,
                                 bool required);
  std::string source;
  std::string firstError;
};

} // namespace placer

#endif // PLACER_SUPPORT_JSONREADER_H
