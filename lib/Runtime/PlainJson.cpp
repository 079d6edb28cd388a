//===- PlainJson.cpp - JSON for the runtime, in plain C++ -----------------===//
#include "placer/Runtime/PlainJson.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace placer::runtime::json;

Value::Value(Array a)
    : kind(Kind::Array), array(std::make_shared<const Array>(std::move(a))) {}
Value::Value(Object o)
    : kind(Kind::Object),
      object(std::make_shared<const Object>(std::move(o))) {}

std::optional<int64_t> Value::getInteger() const {
  if (kind != Kind::Number)
    return std::nullopt;
  if (isInteger)
    return integer;
  if (std::trunc(number) == number && std::fabs(number) < 9.0e18)
    return static_cast<int64_t>(number);
  return std::nullopt;
}

std::optional<double> Value::getNumber() const {
  if (kind != Kind::Number)
    return std::nullopt;
  return number;
}

namespace {

/// Recursive descent over the text; nesting is bounded so that hostile
/// input cannot overflow the stack.
class Parser {
public:
  Parser(std::string_view text, std::string &error)
      : text(text), error(error) {}

  std::optional<Value> document() {
    std::optional<Value> value = parseValue(0);
    if (!value)
      return std::nullopt;
    skipSpace();
    if (pos != text.size())
      return fail("end of the document");
    return value;
  }

private:
  static constexpr int kMaxDepth = 64;
  std::string_view text;
  std::string &error;
  size_t pos = 0;

  std::nullopt_t fail(const std::string &expected) {
    if (error.empty())
      error = "offset " + std::to_string(pos) + ": expected " + expected;
    return std::nullopt;
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' ||
                                 text[pos] == '\r' || text[pos] == '\t'))
      ++pos;
  }

  bool consume(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return false;
    pos += word.size();
    return true;
  }

  std::optional<Value> parseValue(int depth) {
    if (depth > kMaxDepth)
      return fail("at most " + std::to_string(kMaxDepth) + " nested levels");
    skipSpace();
    if (pos >= text.size())
      return fail("a value");
    char c = text[pos];
    if (c == '{')
      return parseObject(depth);
    if (c == '[')
      return parseArray(depth);
    if (c == '"') {
      std::optional<std::string> s = parseString();
      if (!s)
        return std::nullopt;
      return Value(std::move(*s));
    }
    if (consume("true"))
      return Value(true);
    if (consume("false"))
      return Value(false);
    if (consume("null"))
      return Value();
    return parseNumber();
  }

  std::optional<Value> parseNumber() {
    size_t start = pos;
    if (pos < text.size() && text[pos] == '-')
      ++pos;
    bool integral = true;
    auto digits = [&] {
      size_t first = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
      return pos > first;
    };
    if (!digits())
      return fail("a value");
    if (pos < text.size() && text[pos] == '.') {
      integral = false;
      ++pos;
      if (!digits())
        return fail("digits after '.'");
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      integral = false;
      ++pos;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      if (!digits())
        return fail("digits of an exponent");
    }
    std::string number(text.substr(start, pos - start));
    if (integral) {
      errno = 0;
      long long v = std::strtoll(number.c_str(), nullptr, 10);
      if (errno == 0)
        return Value(static_cast<int64_t>(v));
    }
    return Value(std::strtod(number.c_str(), nullptr));
  }

  static void appendUtf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::optional<uint32_t> parseHex4() {
    if (pos + 4 > text.size())
      return std::nullopt;
    uint32_t code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text[pos++];
      code <<= 4;
      if (c >= '0' && c <= '9')
        code |= c - '0';
      else if (c >= 'a' && c <= 'f')
        code |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        code |= c - 'A' + 10;
      else
        return std::nullopt;
    }
    return code;
  }

  std::optional<std::string> parseString() {
    ++pos; // the opening quote
    std::string out;
    while (pos < text.size() && text[pos] != '"') {
      char c = text[pos++];
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("no control characters in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= text.size())
        break;
      char escape = text[pos++];
      switch (escape) {
      case '"': case '\\': case '/': out += escape; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        std::optional<uint32_t> code = parseHex4();
        if (!code)
          return fail("four hex digits after \\u");
        if (*code >= 0xD800 && *code < 0xDC00 && consume("\\u")) {
          std::optional<uint32_t> low = parseHex4();
          if (!low || *low < 0xDC00 || *low > 0xDFFF)
            return fail("a low surrogate");
          *code = 0x10000 + ((*code - 0xD800) << 10) + (*low - 0xDC00);
        }
        appendUtf8(out, *code);
        break;
      }
      default:
        return fail("a valid escape");
      }
    }
    if (pos >= text.size())
      return fail("the end of the string");
    ++pos; // the closing quote
    return out;
  }

  std::optional<Value> parseArray(int depth) {
    ++pos;
    Array items;
    skipSpace();
    if (consume("]"))
      return Value(std::move(items));
    for (;;) {
      std::optional<Value> item = parseValue(depth + 1);
      if (!item)
        return std::nullopt;
      items.push_back(std::move(*item));
      skipSpace();
      if (consume("]"))
        return Value(std::move(items));
      if (!consume(","))
        return fail("',' or ']'");
    }
  }

  std::optional<Value> parseObject(int depth) {
    ++pos;
    Object members;
    skipSpace();
    if (consume("}"))
      return Value(std::move(members));
    for (;;) {
      skipSpace();
      if (pos >= text.size() || text[pos] != '"')
        return fail("a member name");
      std::optional<std::string> key = parseString();
      if (!key)
        return std::nullopt;
      skipSpace();
      if (!consume(":"))
        return fail("':'");
      std::optional<Value> value = parseValue(depth + 1);
      if (!value)
        return std::nullopt;
      members[*key] = std::move(*value);
      skipSpace();
      if (consume("}"))
        return Value(std::move(members));
      if (!consume(","))
        return fail("',' or '}'");
    }
  }
};

void printString(std::string &out, const std::string &s) {
  out += '"';
  for (char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
        out += buffer;
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

void printValue(std::string &out, const Value &value, int indent) {
  auto newline = [&](int level) {
    out += '\n';
    out.append(2 * level, ' ');
  };
  switch (value.getKind()) {
  case Value::Kind::Null: out += "null"; return;
  case Value::Kind::Bool: out += *value.getBool() ? "true" : "false"; return;
  case Value::Kind::Number: {
    if (std::optional<int64_t> i = value.getInteger()) {
      out += std::to_string(*i);
      return;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.17g", *value.getNumber());
    out += buffer;
    return;
  }
  case Value::Kind::String: printString(out, *value.getString()); return;
  case Value::Kind::Array: {
    const Array &items = *value.getArray();
    if (items.empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i)
        out += ',';
      newline(indent + 1);
      printValue(out, items[i], indent + 1);
    }
    newline(indent);
    out += ']';
    return;
  }
  case Value::Kind::Object: {
    const Object &members = *value.getObject();
    if (members.empty()) {
      out += "{}";
      return;
    }
    out += '{';
    bool first = true;
    for (const auto &[key, member] : members) {
      if (!first)
        out += ',';
      first = false;
      newline(indent + 1);
      printString(out, key);
      out += ": ";
      printValue(out, member, indent + 1);
    }
    newline(indent);
    out += '}';
    return;
  }
  }
}

} // namespace

std::optional<Value> placer::runtime::json::parse(std::string_view text,
                                                  std::string &error) {
  error.clear();
  return Parser(text, error).document();
}

std::string placer::runtime::json::print(const Value &value) {
  std::string out;
  printValue(out, value, 0);
  out += '\n';
  return out;
}
