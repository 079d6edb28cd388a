//===- Profile.h - Measured op times per device kind ------------*- C++ -*-===//
//
// A profile (placer-run --profile, or a user's own measurements) is JSON:
//   {"<node name>": {"<device kind>": seconds, ...}, ...}
// Plain C++ (LLVM Support only), like the cluster model it refers to.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_ANALYSIS_PROFILE_H
#define PLACER_ANALYSIS_PROFILE_H

#include "placer/Analysis/Cluster.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <string>

namespace placer {

/// Measured times: node name -> device kind -> seconds.
using Profile = std::map<std::string, std::map<std::string, double>>;

/// Maps `json` (read from `source`); every time is a finite number >= 0 and
/// every device kind is one of `cluster`'s.
llvm::Expected<Profile> parseProfile(const llvm::json::Value &json,
                                     const Cluster &cluster,
                                     llvm::StringRef source);
llvm::Expected<Profile> readProfileFile(llvm::StringRef path,
                                        const Cluster &cluster);

} // namespace placer

#endif // PLACER_ANALYSIS_PROFILE_H
