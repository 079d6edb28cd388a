//===- import_bench.cpp - Time and memory of one ONNX import --------------===//
//
//   placer-import-bench parse  MODEL            protobuf parse alone
//   placer-import-bench import MODEL [--shapes-only] [NAME=VALUE]...
//
// Prints "seconds=S peak_rss_bytes=B" for one run in this process. Run each
// mode in a fresh process so peak RSS measures that mode alone
// (benchmarks/import/run.sh does).
//
//===----------------------------------------------------------------------===//

#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Import/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#include <onnx/onnx_pb.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

static long long peakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<long long>(usage.ru_maxrss) * 1024; // Linux: KiB
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s parse|import MODEL [--shapes-only] "
                         "[NAME=VALUE]...\n", argv[0]);
    return 2;
  }
  const char *mode = argv[1], *path = argv[2];
  auto start = std::chrono::steady_clock::now();
  bool ok;
  if (std::strcmp(mode, "parse") == 0) {
    int fd = ::open(path, O_RDONLY);
    onnx::ModelProto model;
    ok = fd >= 0 && model.ParseFromFileDescriptor(fd);
    if (fd >= 0)
      ::close(fd);
  } else {
    placer::OnnxImportOptions options;
    for (int i = 3; i < argc; ++i) {
      if (std::strcmp(argv[i], "--shapes-only") == 0) {
        options.shapesOnly = true;
        continue;
      }
      std::pair<std::string, int64_t> binding;
      if (!placer::parseDimBinding(argv[i], binding).empty())
        return 2;
      options.dimBindings.push_back(binding);
    }
    mlir::MLIRContext context;
    context.loadDialect<placer::graph::GraphDialect, mlir::func::FuncDialect>();
    ok = static_cast<bool>(placer::importOnnxFile(path, &context, options));
  }
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  if (!ok) {
    std::fprintf(stderr, "%s failed on %s\n", mode, path);
    return 1;
  }
  std::printf("seconds=%.3f peak_rss_bytes=%lld\n", seconds, peakRssBytes());
  return 0;
}
