//===- Profile.cpp - Measured op times per device kind --------------------===//
#include "placer/Analysis/Profile.h"

#include "placer/Support/Json.h"

using namespace placer;

llvm::Expected<Profile> placer::parseProfile(const llvm::json::Value &json,
                                             const Cluster &cluster,
                                             llvm::StringRef source) {
  std::map<std::string, std::map<std::string, NonNegative>> file;
  if (llvm::Error error = mapJson(json, file, source))
    return std::move(error);
  Profile profile;
  for (const auto &[node, times] : file)
    for (const auto &[kind, seconds] : times) {
      if (!cluster.findKind(kind))
        return jsonError(source, jsonField(node, kind),
                         "the cluster has no device kind '" + kind + "'");
      profile[node][kind] = seconds.value;
    }
  return profile;
}

llvm::Expected<Profile> placer::readProfileFile(llvm::StringRef path,
                                                const Cluster &cluster) {
  llvm::Expected<llvm::json::Value> json = readJsonFile(path);
  if (!json)
    return json.takeError();
  return parseProfile(*json, cluster, path);
}
