// training=true adds backward times (backward-factor x forward) and the
// bytes of weights + gradients + optimizer state.
// RUN: placer-opt %s --placer-estimate-costs="cluster=%S/Inputs/simple-cluster.json training=true" | FileCheck %s
// RUN: placer-opt %s --placer-estimate-costs="cluster=%S/Inputs/simple-cluster.json training=true backward-factor=3 optimizer-state-factor=0" | FileCheck %s --check-prefix=SGD

func.func @main_graph(%x: tensor<2x8xf32>) -> tensor<2x16xf32> {
  %w = graph.constant "w" : tensor<8x16xf32> = #graph.external<"w.data", offset = 0, length = 512>
  // Forward: memory-bound, (64 + 512 + 128) / 1e11 + 1e-6 on acc.
  // 512 weight bytes * (1 + 1 gradient + 2 Adam moments) = 2048.
  // CHECK: time = {acc = 1.0070399999999999E-6 : f64, cpu = 7.0399999999999995E-8 : f64}
  // CHECK-SAME: backward_time = {acc = 2.0140799999999998E-6 : f64, cpu = 1.408000e-07 : f64}
  // CHECK-SAME: training_param_bytes = 2048>
  // SGD: backward_time = {acc = 3.0211199999999995E-6 : f64, cpu = 2.1119999999999999E-7 : f64}
  // SGD-SAME: training_param_bytes = 1024>
  %y = graph.node "MatMul"(%x, %w) attributes {name = "mm", output_names = ["y"], version = 13 : i64} : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}
