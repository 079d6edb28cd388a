//===- placer-lowering-table.cpp - Print the op registry's tables ---------===//
//
// Writes docs/LoweredOps.md (the lowered ops by family) and
// docs/OpCoverage.md (every rule of every op) from the op registry, so the
// committed tables can be checked against the code (ctest docs-*-current).
//
//   placer-lowering-table LOWERED.md COVERAGE.md
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/OnnxOps.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

static bool write(const char *path, const std::string &text) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    llvm::errs() << "error: cannot write " << path << ": " << ec.message()
                 << "\n";
    return false;
  }
  out << text;
  return true;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: placer-lowering-table LOWERED.md COVERAGE.md\n";
    return 1;
  }
  const placer::OpRegistry &ops = placer::getOnnxOps();
  return write(argv[1], ops.renderLoweredOps()) &&
                 write(argv[2], ops.renderCoverage())
             ? 0
             : 1;
}
