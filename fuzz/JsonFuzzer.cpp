//===- JsonFuzzer.cpp - Arbitrary bytes as workload or cluster JSON -------===//
//
// The first byte picks the reader (workload, cluster); the rest is the
// document. Any input must give a value or an error, never a crash.
//
//===----------------------------------------------------------------------===//

#include "placer/Analysis/Cluster.h"
#include "placer/Solver/Workload.h"

#include "llvm/Support/JSON.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  llvm::StringRef text(reinterpret_cast<const char *>(data) + 1, size - 1);
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    llvm::consumeError(json.takeError());
    return 0;
  }
  if (data[0] % 2 == 0) {
    auto workload = placer::solver::parseWorkload(*json, "fuzz.json");
    if (!workload)
      llvm::consumeError(workload.takeError());
  } else {
    auto cluster = placer::Cluster::fromJson(*json, "fuzz.json");
    if (!cluster)
      llvm::consumeError(cluster.takeError());
  }
  return 0;
}
