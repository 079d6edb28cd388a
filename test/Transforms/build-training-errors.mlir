// RUN: not placer-opt %s --split-input-file --placer-build-training 2>&1 | FileCheck %s
// RUN: not placer-opt %s --split-input-file --placer-build-training=batch-norm=batch 2>&1 | FileCheck %s --check-prefix=BATCH

// What --placer-build-training refuses, each with one error and no output
// (test/Transforms/build-training.mlir has the steps it builds).

// Every node on a weight's path without a rule, in one error; nodes off
// the path (the Cos of the input) need none.
// CHECK: error: placer-build-training: no gradient rule for 2 nodes: 'sin' (Sin-17), 'floor' (Floor-17) (rules: Add, AveragePool, BatchNormalization, Concat, Conv, Div, Erf, Exp, Expand, Flatten, Gather, Gemm, GlobalAveragePool, Identity, LayerNormalization, MatMul, MaxPool, Mul, Neg, Pow, ReduceMean, ReduceSum, Relu, Reshape, Sigmoid, Slice, Softmax, Split, Sqrt, Squeeze, Sub, Tanh, Transpose, Unsqueeze, Where)
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> tensor<2x4xf32> {
  %w = graph.constant "w" : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  %c = graph.node "Cos"(%x) attributes {name = "cos", output_names = ["c"], version = 17 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %h = graph.node "Mul"(%c, %w) attributes {name = "mul", output_names = ["h"], version = 17 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %e = graph.node "Sin"(%h) attributes {name = "sin", output_names = ["e"], version = 17 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
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


// -----

// The registry picks the rule by version: Gather's starts at opset 16 (its
// gradient scatters with reduction=add), and the error says so.
// CHECK: error: placer-build-training: no gradient rule for 1 node: 'gather' (Gather-13, whose gradient rule starts at opset 16)
module attributes {graph.opset_import = {ai.onnx = 13 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> tensor<1x4xf32> {
  %w = graph.constant "w" : tensor<2x4xf32> = dense<0.5> : tensor<2x4xf32>
  %i = graph.constant "i" : tensor<1xi64> = dense<[1]> : tensor<1xi64>
  %h = graph.node "Mul"(%x, %w) attributes {name = "mul", output_names = ["h"], version = 13 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %g = graph.node "Gather"(%h, %i) attributes {name = "gather", output_names = ["g"], version = 13 : i64} : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<1x4xf32>
  return %g : tensor<1x4xf32>
}
}

// -----

// Rules that cover part of their op say which part: Gather along another
// axis than 0, Pow with a computed exponent, Slice with a step.
// CHECK: error: placer: no gradient for Gather along axis 1 (axis 0 is covered)
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> tensor<2x2xf32> {
  %w = graph.constant "w" : tensor<2x4xf32> = dense<0.5> : tensor<2x4xf32>
  %i = graph.constant "i" : tensor<2xi64> = dense<[0, 3]> : tensor<2xi64>
  %h = graph.node "Mul"(%x, %w) attributes {name = "mul", output_names = ["h"], version = 17 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %g = graph.node "Gather"(%h, %i) attributes {attrs = {axis = 1 : i64}, name = "gather", output_names = ["g"], version = 17 : i64} : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  return %g : tensor<2x2xf32>
}
}

// -----

// CHECK: error: placer: no gradient for Pow with an exponent that is not a constant
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> tensor<2x4xf32> {
  %w = graph.constant "w" : tensor<2x4xf32> = dense<0.5> : tensor<2x4xf32>
  %p = graph.node "Pow"(%w, %x) attributes {name = "pow", output_names = ["p"], version = 17 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %p : tensor<2x4xf32>
}
}

// -----

// CHECK: error: placer: no gradient for a Slice whose starts, ends, axes or steps are not constants, or whose steps are not 1
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> tensor<2x2xf32> {
  %w = graph.constant "w" : tensor<2x4xf32> = dense<0.5> : tensor<2x4xf32>
  %s = graph.constant "s" : tensor<1xi64> = dense<0> : tensor<1xi64>
  %e = graph.constant "e" : tensor<1xi64> = dense<4> : tensor<1xi64>
  %a = graph.constant "a" : tensor<1xi64> = dense<1> : tensor<1xi64>
  %t = graph.constant "t" : tensor<1xi64> = dense<2> : tensor<1xi64>
  %h = graph.node "Mul"(%x, %w) attributes {name = "mul", output_names = ["h"], version = 17 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = graph.node "Slice"(%h, %s, %e, %a, %t) attributes {name = "slice", output_names = ["y"], version = 17 : i64} : (tensor<2x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
}

// -----

// batch-norm=batch updates the running statistics, which must then be
// initializers (with batch-norm=running, the default, any values serve).
// BATCH: error: placer-build-training: batch-norm=batch: its running statistics must be initializers
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x3x4x4xf32> {graph.name = "x"}, %mean: tensor<3xf32> {graph.name = "mean"}) -> tensor<2x3x4x4xf32> {
  %g = graph.constant "g" : tensor<3xf32> = dense<1.0> : tensor<3xf32>
  %b = graph.constant "b" : tensor<3xf32> = dense<0.0> : tensor<3xf32>
  %var = graph.constant "var" : tensor<3xf32> = dense<1.0> : tensor<3xf32>
  %y = graph.node "BatchNormalization"(%x, %g, %b, %mean, %var) attributes {name = "bn", output_names = ["y"], version = 17 : i64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}
}
