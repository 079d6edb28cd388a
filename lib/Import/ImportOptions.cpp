//===- ImportOptions.cpp - Parsing of the importer's command-line values --===//
#include "placer/Import/OnnxImporter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

using namespace placer;

/// A dim is a non-negative decimal that fits in int64.
static bool parseDim(llvm::StringRef text, int64_t &value) {
  if (text.empty() || !llvm::all_of(text, [](char c) { return llvm::isDigit(c); }))
    return false;
  return !text.getAsInteger(10, value) && value >= 0;
}

std::string placer::parseDimBinding(llvm::StringRef text,
                                    std::pair<std::string, int64_t> &binding) {
  auto [name, value] = text.split('=');
  if (!text.contains('=') || name.empty())
    return ("expected NAME=VALUE, got '" + text + "'").str();
  int64_t dim;
  if (!parseDim(value, dim))
    return ("dim '" + name + "' needs a non-negative integer value, got '" +
            value + "'")
        .str();
  binding = {name.str(), dim};
  return "";
}

std::string placer::parseInputShape(
    llvm::StringRef text,
    std::pair<std::string, llvm::SmallVector<int64_t>> &shape) {
  auto [name, dims] = text.rsplit('=');
  if (!text.contains('=') || name.empty())
    return ("expected NAME=D0xD1x..., got '" + text + "'").str();
  llvm::SmallVector<int64_t> parsed;
  if (!dims.empty()) {
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef part : parts) {
      int64_t dim;
      if (!parseDim(part, dim))
        return ("input '" + name + "': dim '" + part +
                "' is not a non-negative integer")
            .str();
      parsed.push_back(dim);
    }
  }
  shape = {name.str(), std::move(parsed)};
  return "";
}
