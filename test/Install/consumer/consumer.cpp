// Imports an ONNX model through the installed library and prints the number
// of graph.node ops.
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Import/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  mlir::MLIRContext context;
  context.loadDialect<placer::graph::GraphDialect, mlir::func::FuncDialect>();
  placer::OnnxImportOptions options;
  options.dimBindings.push_back({"batch", 1});
  auto module = placer::importOnnxFile(argv[1], &context, options);
  if (!module)
    return 1;
  int nodes = 0;
  module->walk([&](placer::graph::NodeOp) { ++nodes; });
  llvm::outs() << "consumer imported " << nodes << " nodes\n";
  return 0;
}
