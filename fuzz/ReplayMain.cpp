//===- ReplayMain.cpp - Run a fuzz target on saved inputs -----------------===//
//
// Without libFuzzer (the default build), each fuzz target links this main:
// `placer-fuzz-<target> FILE_OR_DIR...` feeds every file to the target once,
// so the regression corpus runs in every build and under every sanitizer.
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (!llvm::sys::fs::is_directory(argv[i])) {
      files.push_back(argv[i]);
      continue;
    }
    std::error_code ec;
    for (llvm::sys::fs::recursive_directory_iterator it(argv[i], ec), end;
         it != end && !ec; it.increment(ec))
      if (llvm::sys::fs::is_regular_file(it->path()))
        files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const std::string &file : files) {
    auto bytes = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
    if (!bytes) {
      llvm::errs() << file << ": " << bytes.getError().message() << "\n";
      return 1;
    }
    LLVMFuzzerTestOneInput(
        reinterpret_cast<const uint8_t *>((*bytes)->getBufferStart()),
        (*bytes)->getBufferSize());
  }
  llvm::outs() << "replayed " << files.size() << " inputs\n";
  return 0;
}
