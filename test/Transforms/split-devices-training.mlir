// RUN: not placer-opt %s --split-input-file --placer-split-devices 2>/dev/null | FileCheck %s
// RUN: not placer-opt %s --split-input-file --placer-split-devices 2>&1 >/dev/null | FileCheck %s --check-prefix=STALE

// A weight that a training step updates is read on two devices (a weight
// tied across stages): the device without its update gets its own copy of
// the optimizer's nodes and returns the next value as a replica, so both
// stages step their copy alike (the gradient, where there is one, is sent
// from where it is summed).
// CHECK-LABEL: func.func @main_graph_d0
// CHECK-SAME: {dist.result = 1 : i64, graph.name = "w", placer.updates = "w"}
// CHECK: %[[W0:.*]] = graph.constant "w"
// CHECK: graph.node "Neg"(%[[W0]]) attributes {{{.*}}name = "w/update", output_names = ["n"]
// CHECK-LABEL: func.func @main_graph_d1
// CHECK-SAME: {dist.result = 2 : i64, graph.name = "w/d1", placer.replica, placer.updates = "w"}
// CHECK: %[[W1:.*]] = graph.constant "w"
// CHECK: graph.node "Neg"(%[[W1]]) attributes {{{.*}}name = "w/update/d1", output_names = ["n/d1"]{{.*}}placer.device = #placer.device<1>
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> (tensor<2x4xf32> {graph.name = "y"}, tensor<4xf32> {graph.name = "w", placer.updates = "w"}) {
  %w = graph.constant "w" : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  %h = graph.node "Mul"(%x, %w) attributes {name = "first", output_names = ["h"], placer.device = #placer.device<0>, version = 17 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %y = graph.node "Mul"(%h, %w) attributes {name = "second", output_names = ["y"], placer.device = #placer.device<1>, version = 17 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %next = graph.node "Neg"(%w) attributes {name = "w/update", output_names = ["n"], placer.backward, placer.optimizer, placer.device = #placer.device<0>, version = 17 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %y, %next : tensor<2x4xf32>, tensor<4xf32>
}
}

// -----

// The same with an update that is no optimizer node (a hand-written
// step): there is nothing to copy, and the split refuses the stale read.
// STALE: error: --placer-split-devices: 'w', which the training step updates, is read on device 1, which does not update it (its update is no optimizer node to copy there)
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> (tensor<2x4xf32> {graph.name = "y"}, tensor<4xf32> {graph.name = "w", placer.updates = "w"}) {
  %w = graph.constant "w" : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  %h = graph.node "Mul"(%x, %w) attributes {name = "first", output_names = ["h"], placer.device = #placer.device<0>, version = 17 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %y = graph.node "Mul"(%h, %w) attributes {name = "second", output_names = ["y"], placer.device = #placer.device<1>, version = 17 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %next = graph.node "Neg"(%w) attributes {name = "w/update", output_names = ["n"], placer.backward, placer.device = #placer.device<0>, version = 17 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %y, %next : tensor<2x4xf32>, tensor<4xf32>
}
}

// -----

// A node computed from optimizer state alone (Adam's step count) is no
// compile-time value: it runs on its device, and the other receives it,
// rather than each computing it from a copy of the state that only one
// stage updates.
// CHECK-LABEL: func.func @step_d0
// CHECK: %[[NEXT:.*]] = graph.node "Add"
// CHECK: dist.send %[[NEXT]] to 1 channel 0
// CHECK-LABEL: func.func @step_d1
// CHECK-NOT: "adam.step"
// CHECK: dist.recv from 0 channel 0
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @step(%x: tensor<4xf32> {graph.name = "x"}) -> (tensor<4xf32> {graph.name = "w2", placer.updates = "w2"}, tensor<f32> {graph.name = "adam.step", placer.updates = "adam.step"}) {
  %step = graph.constant "adam.step" : tensor<f32> = dense<0.0> : tensor<f32>
  %one = graph.constant "one" : tensor<f32> = dense<1.0> : tensor<f32> {node = "one"}
  %w2 = graph.constant "w2" : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  %next = graph.node "Add"(%step, %one) attributes {name = "adam.step/update", output_names = ["s"], placer.backward, placer.optimizer, placer.device = #placer.device<0>, version = 17 : i64} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %h = graph.node "Mul"(%x, %w2) attributes {name = "use", output_names = ["h"], placer.device = #placer.device<1>, version = 17 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %w2next = graph.node "Mul"(%h, %next) attributes {name = "w2/update", output_names = ["n"], placer.backward, placer.optimizer, placer.device = #placer.device<1>, version = 17 : i64} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %w2next, %next : tensor<4xf32>, tensor<f32>
}
}
