// Printing, parsing and printing again gives identical text.
// RUN: placer-opt %s | placer-opt | FileCheck %s
// RUN: placer-opt %s > %t.1.mlir && placer-opt %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir

// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: (%arg0: tensor<1x4xf32> {graph.dim_params = ["batch", ""], graph.name = "x"}, %arg1: tensor<i1>)
func.func @main_graph(%arg0: tensor<1x4xf32> {graph.dim_params = ["batch", ""], graph.name = "x"}, %arg1: tensor<i1>) -> (tensor<1x4xf32>, !graph.seq<tensor<2xf32>>) {
  // CHECK: %0 = graph.none
  %none = graph.none
  // CHECK-NEXT: %w = graph.constant "w" : tensor<4x4xf32> = #graph.external<"w.data", offset = 16, length = 64>
  %w = graph.constant "w" : tensor<4x4xf32> = #graph.external<"w.data", offset = 16, length = 64>
  // CHECK-NEXT: %k = graph.constant "k" : tensor<2xi64> = dense<[1, 2]> : tensor<2xi64> {node = "k_node"}
  %k = graph.constant "k" : tensor<2xi64> = dense<[1, 2]> : tensor<2xi64> {node = "k_node"}
  // CHECK-NEXT: %y:2 = graph.node "Custom"(%arg0, %0, %w) attributes {attrs = {f = 1.000000e+00 : f32, i = 3 : i64, ints = array<i64: 1, 2>, s = "x", tp = !graph.seq<tensor<2xf32>>}, domain = "com.example", name = "n1", output_names = ["y", ""], version = 1 : i64} : (tensor<1x4xf32>, none, tensor<4x4xf32>) -> (tensor<1x4xf32>, none)
  %y:2 = graph.node "Custom"(%arg0, %none, %w) attributes {attrs = {f = 1.0 : f32, i = 3 : i64, ints = array<i64: 1, 2>, s = "x", tp = !graph.seq<tensor<2xf32>>}, domain = "com.example", name = "n1", output_names = ["y", ""], version = 1 : i64} : (tensor<1x4xf32>, none, tensor<4x4xf32>) -> (tensor<1x4xf32>, none)
  // CHECK-NEXT: %s = graph.node "If"(%arg1) attributes {output_names = ["s"], subgraphs = ["then_branch", "else_branch"], version = 13 : i64} {
  // CHECK-NEXT:   graph.yield %y#0 : tensor<1x4xf32> {input_names = [], output_names = ["a"]}
  // CHECK-NEXT: }, {
  // CHECK-NEXT:   ^bb0(%arg2: !graph.opt<tensor<f32>>, %arg3: !graph.map<i64, tensor<?xf32>>):
  // CHECK-NEXT:   graph.yield %arg0 : tensor<1x4xf32> {graph_name = "else", input_names = ["o", "m"], output_names = ["b"]}
  // CHECK-NEXT: } : (tensor<i1>) -> !graph.seq<tensor<2xf32>>
  %s = graph.node "If"(%arg1) attributes {output_names = ["s"], subgraphs = ["then_branch", "else_branch"], version = 13 : i64} {
    graph.yield %y#0 : tensor<1x4xf32> {input_names = [], output_names = ["a"]}
  }, {
  ^bb0(%o: !graph.opt<tensor<f32>>, %m: !graph.map<i64, tensor<?xf32>>):
    graph.yield %arg0 : tensor<1x4xf32> {graph_name = "else", input_names = ["o", "m"], output_names = ["b"]}
  } : (tensor<i1>) -> !graph.seq<tensor<2xf32>>
  // CHECK: return %y#0, %s
  return %y#0, %s : tensor<1x4xf32>, !graph.seq<tensor<2xf32>>
}

// CHECK-LABEL: func.func @strings
func.func @strings() -> tensor<2x!graph.string> {
  // CHECK: graph.constant "t" : tensor<2x!graph.string> = dense<["a", "b"]> : tensor<2x!graph.string>
  %t = graph.constant "t" : tensor<2x!graph.string> = dense<["a", "b"]> : tensor<2x!graph.string>
  return %t : tensor<2x!graph.string>
}
