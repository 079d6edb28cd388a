//===- Format.cpp - Numbers in messages and reports -----------------------===//
#include "placer/Support/Format.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

std::string placer::formatBytes(double bytes) {
  char buffer[48];
  if (bytes >= 1e9)
    std::snprintf(buffer, sizeof(buffer), "%.1f GB", bytes / 1e9);
  else if (bytes >= 1e6)
    std::snprintf(buffer, sizeof(buffer), "%.1f MB", bytes / 1e6);
  else if (bytes == static_cast<double>(static_cast<int64_t>(bytes)))
    std::snprintf(buffer, sizeof(buffer), "%lld byte%s",
                  static_cast<long long>(bytes), bytes == 1 ? "" : "s");
  else
    return formatNumber(bytes) + " bytes";
  return buffer;
}

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
