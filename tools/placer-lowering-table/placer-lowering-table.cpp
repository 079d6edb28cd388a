//===- placer-lowering-table.cpp - Print the lowered-op table -------------===//
//
// Writes docs/LoweredOps.md from the lowering registry, so the committed
// table can be checked against the code (ctest docs-lowered-ops-...).
//
//   placer-lowering-table OUT.md
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/GraphToLinalg.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: placer-lowering-table OUT.md\n";
    return 1;
  }
  std::error_code ec;
  llvm::raw_fd_ostream out(argv[1], ec, llvm::sys::fs::OF_Text);
  if (ec) {
    llvm::errs() << "error: cannot write " << argv[1] << ": " << ec.message()
                 << "\n";
    return 1;
  }
  out << placer::getNodeLowerings().renderMarkdown();
  return 0;
}
