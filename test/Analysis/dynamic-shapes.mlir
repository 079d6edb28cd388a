// Costs need static shapes: a dynamic one is an error naming the node.
// RUN: not placer-opt %s --placer-estimate-costs 2>&1 | FileCheck %s
// CHECK: error: cannot estimate the cost of node 'mm' (MatMul): an input has type 'tensor<?x8xf32>', not a static shape (bind symbolic dims on import with --dim NAME=VALUE)
func.func @main_graph(%x: tensor<?x8xf32>, %w: tensor<8x16xf32>) -> tensor<?x16xf32> {
  %y = graph.node "MatMul"(%x, %w) attributes {name = "mm", output_names = ["y"], version = 13 : i64} : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
