//===- JsonReader.cpp - Typed field access with path-naming errors --------===//
#include "placer/Support/JsonReader.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace placer;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

std::string placer::formatNumber(double value) {
  // The shortest text that reads back as `value`: "10", not "1e+01".
  std::string best;
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value &&
        (best.empty() || std::strlen(buffer) < best.size()))
      best = buffer;
  }
  if (best.empty()) {
    std::snprintf(buffer, sizeof(buffer), "%.17g", value);
    best = buffer;
  }
  return best;
}

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

std::string JsonReader::join(const std::string &path, llvm::StringRef key) {
  return path.empty() ? key.str() : path + "." + key.str();
}

std::string JsonReader::index(const std::string &path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

void JsonReader::fail(const std::string &path, const llvm::Twine &message) {
  if (firstError.empty())
    firstError = source + ": " + (path.empty() ? "" : path + ": ") +
                 message.str();
}

llvm::Error JsonReader::takeError() const {
  if (!failed())
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), firstError);
}

const Object *JsonReader::asObject(const Value &value,
                                   const std::string &path) {
  const Object *object = value.getAsObject();
  if (!object)
    fail(path, "expected an object");
  return object;
}

const Array *JsonReader::asArray(const Value &value, const std::string &path) {
  const Array *array = value.getAsArray();
  if (!array)
    fail(path, "expected an array");
  return array;
}

const Value *JsonReader::field(const Object &object, llvm::StringRef key,
                               const std::string &path, bool required) {
  const Value *value = object.get(key);
  if (!value && required)
    fail(join(path, key), "missing required field");
  return value;
}

std::optional<double> JsonReader::getNumber(const Object &object,
                                            llvm::StringRef key,
                                            const std::string &path,
                                            bool required) {
  const Value *value = field(object, key, path, required);
  if (!value)
    return std::nullopt;
  std::optional<double> number = value->getAsNumber();
  if (!number || !std::isfinite(*number)) {
    fail(join(path, key), "expected a finite number");
    return std::nullopt;
  }
  return number;
}

std::optional<int64_t> JsonReader::getInteger(const Object &object,
                                              llvm::StringRef key,
                                              const std::string &path,
                                              bool required) {
  const Value *value = field(object, key, path, required);
  if (!value)
    return std::nullopt;
  std::optional<int64_t> integer = value->getAsInteger();
  if (!integer) {
    fail(join(path, key), "expected an integer");
    return std::nullopt;
  }
  return integer;
}

std::optional<bool> JsonReader::getBool(const Object &object,
                                        llvm::StringRef key,
                                        const std::string &path,
                                        bool required) {
  const Value *value = field(object, key, path, required);
  if (!value)
    return std::nullopt;
  if (std::optional<bool> b = value->getAsBoolean())
    return b;
  std::optional<int64_t> integer = value->getAsInteger();
  if (integer && (*integer == 0 || *integer == 1))
    return *integer == 1;
  fail(join(path, key), "expected a boolean (or 0/1)");
  return std::nullopt;
}

std::optional<std::string> JsonReader::getString(const Object &object,
                                                 llvm::StringRef key,
                                                 const std::string &path,
                                                 bool required) {
  const Value *value = field(object, key, path, required);
  if (!value)
    return std::nullopt;
  std::optional<llvm::StringRef> s = value->getAsString();
  if (!s) {
    fail(join(path, key), "expected a string");
    return std::nullopt;
  }
  return s->str();
}

const Array *JsonReader::getArray(const Object &object, llvm::StringRef key,
                                  const std::string &path, bool required) {
  const Value *value = field(object, key, path, required);
  return value ? asArray(*value, join(path, key)) : nullptr;
}

const Object *JsonReader::getObject(const Object &object, llvm::StringRef key,
                                    const std::string &path, bool required) {
  const Value *value = field(object, key, path, required);
  return value ? asObject(*value, join(path, key)) : nullptr;
}
