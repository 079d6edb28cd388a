//===- Json.cpp - JSON inputs through llvm::json mapping ------------------===//
#include "placer/Support/Json.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace placer;
using llvm::json::Path;
using llvm::json::Value;

llvm::Expected<Value> placer::readJsonFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "%s: cannot read: %s",
                                   path.str().c_str(),
                                   buffer.getError().message().c_str());
  llvm::Expected<Value> value = llvm::json::parse((*buffer)->getBuffer());
  if (!value)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: invalid JSON: %s", path.str().c_str(),
                                   llvm::toString(value.takeError()).c_str());
  return value;
}

llvm::Error placer::jsonError(llvm::StringRef source, llvm::StringRef path,
                              const llvm::Twine &message) {
  std::string text = source.str() + ": ";
  if (!path.empty())
    text += path.str() + ": ";
  text += message.str();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
}

llvm::Error placer::jsonError(llvm::StringRef source, const Path::Root &root) {
  // Path::Root renders "MESSAGE at $.a[0].b" (or "MESSAGE when parsing $" at
  // the root); its segments are private, so the rendering is re-cut here to
  // match the errors of the checks made after mapping.
  std::string text = llvm::toString(root.getError());
  llvm::StringRef rendered = text;
  size_t at = rendered.rfind(" at $");
  if (at != llvm::StringRef::npos)
    return jsonError(source, rendered.substr(at + 5).ltrim('.'),
                     rendered.take_front(at));
  return jsonError(source, "", rendered.split(" when parsing $").first);
}

std::string placer::jsonField(llvm::StringRef path, llvm::StringRef key) {
  return path.empty() ? key.str() : (path + "." + key).str();
}

std::string placer::jsonIndex(llvm::StringRef path, size_t index) {
  return (path + "[" + llvm::Twine(index) + "]").str();
}

namespace {
bool readFinite(const Value &value, double &out, Path path) {
  std::optional<double> number = value.getAsNumber();
  if (!number || !std::isfinite(*number)) {
    path.report("expected a finite number");
    return false;
  }
  out = *number;
  return true;
}
} // namespace

bool placer::fromJSON(const Value &value, Positive &out, Path path) {
  if (!readFinite(value, out.value, path))
    return false;
  if (out.value > 0)
    return true;
  path.report("must be positive");
  return false;
}

bool placer::fromJSON(const Value &value, NonNegative &out, Path path) {
  if (!readFinite(value, out.value, path))
    return false;
  if (out.value >= 0)
    return true;
  path.report("must not be negative");
  return false;
}

bool placer::fromJSON(const Value &value, AtLeastOne &out, Path path) {
  std::optional<int64_t> integer = value.getAsInteger();
  if (!integer) {
    path.report("expected an integer");
    return false;
  }
  out.value = *integer;
  if (*integer >= 1)
    return true;
  path.report("must be at least 1");
  return false;
}

bool placer::fromJSON(const Value &value, Flag &out, Path path) {
  if (std::optional<bool> b = value.getAsBoolean()) {
    out.value = *b;
    return true;
  }
  std::optional<int64_t> integer = value.getAsInteger();
  if (integer && (*integer == 0 || *integer == 1)) {
    out.value = *integer == 1;
    return true;
  }
  path.report("expected a boolean (or 0/1)");
  return false;
}
