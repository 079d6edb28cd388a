// RUN: not placer-opt %s --split-input-file --placer-build-training 2>&1 | FileCheck %s

// What --placer-build-training refuses, each with one error and no output
// (test/Transforms/build-training.mlir has the steps it builds).

// Every node on a weight's path without a rule, in one error; nodes off
// the path (the Cos of the input) need none.
// CHECK: error: placer-build-training: no gradient rule for 2 nodes: 'erf' (Erf), 'floor' (Floor) (rules: Add, Conv, Div, Flatten, Gemm, GlobalAveragePool,
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> tensor<2x4xf32> {
  %w = graph.constant "w" : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  %c = graph.node "Cos"(%x) attributes {name = "cos", output_names = ["c"], version = 17 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %h = graph.node "Mul"(%c, %w) attributes {name = "mul", output_names = ["h"], version = 17 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %e = graph.node "Erf"(%h) attributes {name = "erf", output_names = ["e"], version = 17 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %f = graph.node "Floor"(%e) attributes {name = "floor", output_names = ["f"], version = 17 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %f : tensor<2x4xf32>
}
}

// -----

// CHECK: error: placer-build-training: needs static shapes (import with --dim NAME=VALUE); dynamic at mul, an input
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<?x4xf32> {graph.name = "x"}) -> tensor<?x4xf32> {
  %w = graph.constant "w" : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  %h = graph.node "Mul"(%x, %w) attributes {name = "mul", output_names = ["h"], version = 17 : i64} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %h : tensor<?x4xf32>
}
}

// -----

// CHECK: error: placer-build-training: needs ONNX opset 13 or later (the module has 11)
module attributes {graph.opset_import = {ai.onnx = 11 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> tensor<2x4xf32> {
  %w = graph.constant "w" : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  %h = graph.node "Mul"(%x, %w) attributes {name = "mul", output_names = ["h"], version = 11 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %h : tensor<2x4xf32>
}
}

// -----

// CHECK: error: placer-build-training: the loss needs a floating-point output; output 0 is 'tensor<2x4xi64>'
// CHECK: error: placer-build-training: no weight reaches output 0: nothing to train
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xi64> {graph.name = "x"}) -> tensor<2x4xi64> {
  return %x : tensor<2x4xi64>
}
}

// -----

module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> tensor<2x4xf32> {
  %n = graph.node "Neg"(%x) attributes {name = "neg", output_names = ["n"], version = 17 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %n : tensor<2x4xf32>
}
}

