// RUN: not placer-opt %s --split-input-file --placer-accumulate-microbatches=microbatches=2 2>&1 | FileCheck %s
// RUN: not placer-opt %s --split-input-file --placer-accumulate-microbatches=microbatches=0 2>&1 | FileCheck %s --check-prefix=ZERO

// What --placer-accumulate-microbatches refuses, each with one error
// (test/Transforms/accumulate-microbatches.mlir has what it builds).

// ZERO: error: placer-accumulate-microbatches: microbatches must be at least 1 (the module was placed for no training schedule: give microbatches)
// RUN: not placer-opt %s --split-input-file --placer-accumulate-microbatches="microbatches=2 schedule=zigzag" 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// SCHEDULE: error: placer-accumulate-microbatches: schedule must be sequential, gpipe, 1f1b, zb-h1, interleaved or zb-v, not 'zigzag'
// RUN: placer-opt %S/Inputs/two-layer.mlir --placer-build-training --placer-accumulate-microbatches=microbatches=2 | not placer-opt --placer-accumulate-microbatches=microbatches=2 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: placer-accumulate-microbatches: the step averages microbatches already
// RUN: placer-opt %S/Inputs/two-layer.mlir --placer-build-training | sed 's/, placer.weight_gradient//' | not placer-opt --placer-accumulate-microbatches="microbatches=2 schedule=zb-h1" 2>&1 | FileCheck %s --check-prefix=NOWEIGHT
// RUN: placer-opt %S/Inputs/two-layer.mlir --placer-build-training | not placer-opt --placer-accumulate-microbatches="microbatches=2 schedule=interleaved" 2>&1 | FileCheck %s --check-prefix=CHUNKS
// CHUNKS: error: placer-accumulate-microbatches: the interleaved schedule runs the chunks a placement for it chose (--placer-place-devices schedule=interleaved)
// NOWEIGHT: error: placer-accumulate-microbatches: the zb-h1 schedule runs weight gradients apart from the backward pass, but no backward node is marked 'placer.weight_gradient' (a step built by --placer-build-training marks them)
// RUN: placer-opt %S/Inputs/two-layer.mlir --placer-build-training --partition-devices="devices=3 split=false schedule=gpipe microbatches=4 replication=true" | not placer-opt --placer-accumulate-microbatches=microbatches=1 2>&1 | FileCheck %s --check-prefix=FEWER
// FEWER: error: placer-accumulate-microbatches: the stage of device 1 runs on 2 devices (replica_of) but the step has 1 microbatches: each copy needs one at least

// An inference graph: nothing to accumulate for.
// CHECK: error: placer-accumulate-microbatches: not a training step: no node is marked 'placer.optimizer' (run --placer-build-training first)
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> tensor<2x4xf32> {
  %c = graph.node "Cos"(%x) attributes {name = "cos", output_names = ["c"], version = 17 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}
}

// -----

// A scalar input has no axis to slice.
// CHECK: error: placer-accumulate-microbatches: input 'scale' has no static first axis to split into microbatches ('tensor<f32>')
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}, %s: tensor<f32> {graph.name = "scale"}) -> tensor<4xf32> {
  %w = graph.constant "w" : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  %next = graph.node "Mul"(%w, %s) attributes {name = "w/update/0", output_names = ["n"], placer.backward, placer.optimizer, version = 17 : i64} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %next : tensor<4xf32>
}
}

// -----

// A node of the forward or backward pass that reads an update.
// CHECK: error: placer-accumulate-microbatches: reads the optimizer's result w/update/0: the update must come after the backward pass
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> tensor<2x4xf32> {
  %w = graph.constant "w" : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  %next = graph.node "Neg"(%w) attributes {name = "w/update/0", output_names = ["n"], placer.backward, placer.optimizer, version = 17 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %y = graph.node "Mul"(%x, %next) attributes {name = "mul", output_names = ["y"], version = 17 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
}

// -----

// The optimizer's mark belongs on backward nodes (the dialect's verifier).
// CHECK: error: 'placer.optimizer' needs 'placer.backward': an update runs after the backward pass
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> tensor<2x4xf32> {
  %y = graph.node "Neg"(%x) attributes {name = "neg", output_names = ["y"], placer.optimizer, version = 17 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
}
