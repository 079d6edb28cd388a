//===- Format.h - Numbers in messages and reports ---------------*- C++ -*-===//
#ifndef PLACER_SUPPORT_FORMAT_H
#define PLACER_SUPPORT_FORMAT_H

#include <string>

namespace placer {

/// Shortest round-tripping decimal form of a number ("2", "0.25", "1e-06"),
/// for messages and reports.
std::string formatNumber(double value);

} // namespace placer

#endif // PLACER_SUPPORT_FORMAT_H
