//===- PlainJson.h - JSON for the runtime, in plain C++ ----------*- C++ -*-===//
//
// The runtime that runs compiled artifacts links no LLVM (IREE keeps its
// runtime apart from its compiler the same way), so it cannot use
// llvm::json for the artifact manifest. This is the little it needs: a
// value tree, a strict parser that names the offset of a syntax error, and
// a printer. The compiler side uses llvm::json everywhere else.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_RUNTIME_PLAINJSON_H
#define PLACER_RUNTIME_PLAINJSON_H

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace placer::runtime::json {

class Value;
using Array = std::vector<Value>;
/// Keys in sorted order, so printing is deterministic.
using Object = std::map<std::string, Value>;

class Value {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : kind(Kind::Bool), boolean(b) {}
  Value(int v) : Value(static_cast<int64_t>(v)) {}
  Value(int64_t v) : kind(Kind::Number), number(static_cast<double>(v)),
                     integer(v), isInteger(true) {}
  Value(double v) : kind(Kind::Number), number(v) {}
  Value(const char *s) : kind(Kind::String), string(s) {}
  Value(std::string s) : kind(Kind::String), string(std::move(s)) {}
  Value(Array a);
  Value(Object o);

  Kind getKind() const { return kind; }
  const bool *getBool() const { return kind == Kind::Bool ? &boolean : nullptr; }
  /// A number that is an integer (written without fraction or exponent, or
  /// a double with an exact int64 value).
  std::optional<int64_t> getInteger() const;
  std::optional<double> getNumber() const;
  const std::string *getString() const {
    return kind == Kind::String ? &string : nullptr;
  }
  const Array *getArray() const { return array.get(); }
  const Object *getObject() const { return object.get(); }

private:
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  int64_t integer = 0;
  bool isInteger = false;
  std::string string;
  std::shared_ptr<const Array> array;
  std::shared_ptr<const Object> object;
};

/// Parses one JSON document. On a syntax error returns nothing and sets
/// `error` to "offset N: what was expected".
std::optional<Value> parse(std::string_view text, std::string &error);

/// Prints `value` with two-space indentation.
std::string print(const Value &value);

} // namespace placer::runtime::json

#endif // PLACER_RUNTIME_PLAINJSON_H
