//===- Format.h - Numbers in messages and reports ---------------*- C++ -*-===//
#ifndef PLACER_SUPPORT_FORMAT_H
#define PLACER_SUPPORT_FORMAT_H

#include <string>

namespace placer {

/// Shortest round-tripping decimal form of a number ("2", "0.25", "1e-06"),
/// for messages and reports.
std::string formatNumber(double value);

/// A size for messages: "600 bytes", "12.5 MB", "261.0 GB" (decimal units,
/// one decimal past a million bytes).
std::string formatBytes(double bytes);

} // namespace placer

#endif // PLACER_SUPPORT_FORMAT_H
