// training=true adds backward times and the bytes of weights + gradients +
// optimizer state. Backward time = forward time x the op type's factor
// (docs/CostModel.md, "Backward times"): 2 for contractions and products,
// 1 for elementwise ops and data movement, 0 where no gradient flows, 2 for
// types the table does not list. backward-factor=X sets X for every op.
// RUN: placer-opt %s --placer-estimate-costs="cluster=%S/Inputs/simple-cluster.json training=true" | FileCheck %s
// RUN: placer-opt %s --placer-estimate-costs="cluster=%S/Inputs/simple-cluster.json training=true backward-factor=3 optimizer-state-factor=0" | FileCheck %s --check-prefix=SGD

func.func @main_graph(%x: tensor<2x8xf32>) -> tensor<16x2xf32> {
  %w = graph.constant "w" : tensor<8x16xf32> = #graph.external<"w.data", offset = 0, length = 512>
  // Forward: memory-bound, (64 + 512 + 128) / 1e11 + 1e-6 on acc.
  // 512 weight bytes * (1 + 1 gradient + 2 Adam moments) = 2048.
  // CHECK: name = "mm"
  // CHECK-SAME: time = {acc = 1.0070399999999999E-6 : f64, cpu = 7.0399999999999995E-8 : f64}
  // CHECK-SAME: backward_time = {acc = 2.0140799999999998E-6 : f64, cpu = 1.408000e-07 : f64}
  // CHECK-SAME: training_param_bytes = 2048>
  // SGD: name = "mm"
  // SGD-SAME: backward_time = {acc = 3.0211199999999995E-6 : f64, cpu = 2.1119999999999999E-7 : f64}
  // SGD-SAME: training_param_bytes = 1024>
  %y = graph.node "MatMul"(%x, %w) attributes {name = "mm", output_names = ["y"], version = 13 : i64} : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  // Elementwise, from the saved input: 1x.
  // CHECK: name = "relu"
  // CHECK-SAME: time = {acc = 1.0025599999999999E-6 : f64, cpu = 2.560000e-08 : f64}
  // CHECK-SAME: backward_time = {acc = 1.0025599999999999E-6 : f64, cpu = 2.560000e-08 : f64}
  // SGD: name = "relu"
  // SGD-SAME: backward_time = {acc = 3.0076799999999995E-6 : f64, cpu = 7.6799999999999999E-8 : f64}
  %r = graph.node "Relu"(%y) attributes {name = "relu", output_names = ["r"], version = 14 : i64} : (tensor<2x16xf32>) -> tensor<2x16xf32>
  // A product: one kernel per differentiable input, 2x.
  // CHECK: name = "mul"
  // CHECK-SAME: time = {acc = 1.0038399999999999E-6 : f64, cpu = 3.840000e-08 : f64}
  // CHECK-SAME: backward_time = {acc = 2.0076799999999997E-6 : f64, cpu = 7.6799999999999999E-8 : f64}
  %m = graph.node "Mul"(%r, %y) attributes {name = "mul", output_names = ["m"], version = 14 : i64} : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  // Data movement: the inverse movement, 1x.
  // CHECK: name = "t"
  // CHECK-SAME: backward_time = {acc = 1.0025599999999999E-6 : f64, cpu = 2.560000e-08 : f64}
  %t = graph.node "Transpose"(%m) attributes {name = "t", output_names = ["t"], attrs = {perm = array<i64: 1, 0>}, version = 13 : i64} : (tensor<2x16xf32>) -> tensor<16x2xf32>
  // A comparison: no gradient flows.
  // CHECK: name = "eq"
  // CHECK-SAME: backward_time = {acc = 0.000000e+00 : f64, cpu = 0.000000e+00 : f64}
  %e = graph.node "Equal"(%t, %t) attributes {name = "eq", output_names = ["e"], version = 13 : i64} : (tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<16x2xi1>
  // Not in the table: 2x.
  // CHECK: name = "u"
  // CHECK-SAME: time = {acc = 1.0025599999999999E-6 : f64, cpu = 2.560000e-08 : f64}
  // CHECK-SAME: backward_time = {acc = 2.0051199999999998E-6 : f64, cpu = 5.120000e-08 : f64}
  %u = graph.node "Unknown"(%t) attributes {name = "u", domain = "com.example", output_names = ["u"], version = 1 : i64} : (tensor<16x2xf32>) -> tensor<16x2xf32>
  return %u : tensor<16x2xf32>
}
