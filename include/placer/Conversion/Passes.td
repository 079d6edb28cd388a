//===- Passes.td - Placer's conversions --------------------*- tablegen -*-===//
#ifndef PLACER_CONVERSION_PASSES_TD
#define PLACER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerGraphToLinalg : Pass<"placer-lower-graph-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower graph.node ops to linalg, tensor, arith and math";
  let description = [{
    Rewrites every `graph.node` of the module's functions into upstream MLIR
    on tensors: linalg named ops and `linalg.generic`, `tensor`, `arith` and
    `math`. Each ONNX op type has one lowering, registered in a table
    (`lib/Conversion/GraphToLinalg/Lowerings.cpp`; docs/Execution.md lists
    it). Shapes must be static. Before rewriting anything the pass checks
    every node and reports, in one error, every op type without a lowering
    and every value with a dynamic shape, naming the nodes.

    `graph.constant` ops up to `inline-limit` bytes become `arith.constant`;
    larger ones (weights) become trailing arguments of their function, marked
    `graph.weight` with the constant's name and value, so a runner supplies
    them from the model's files instead of embedding them in the binary.
  }];
  let options = [
    Option<"inlineLimit", "inline-limit", "int64_t", /*default=*/"1024",
           "Constants larger than this many bytes become weight arguments">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::func::FuncDialect",
  ];
}

#endif // PLACER_CONVERSION_PASSES_TD
