// Each verifier rule of the graph dialect, one case each.
// RUN: placer-opt %s -split-input-file -verify-diagnostics

func.func @empty_op_type(%arg0: tensor<2xf32>) {
  // expected-error @+1 {{has an empty op_type}}
  %0 = graph.node ""(%arg0) attributes {output_names = ["y"], version = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @names_mismatch(%arg0: tensor<2xf32>) {
  // expected-error @+1 {{has 1 results but 2 output_names}}
  %0 = graph.node "Abs"(%arg0) attributes {output_names = ["y", "z"], version = 13 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @unnamed_tensor_output(%arg0: tensor<2xf32>) {
  // expected-error @+1 {{output #0 has no name but is not of type none}}
  %0 = graph.node "Abs"(%arg0) attributes {output_names = [""], version = 13 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @named_none_output(%arg0: tensor<2xf32>) {
  // expected-error @+1 {{output #1 is named but has type none}}
  %0:2 = graph.node "Dropout"(%arg0) attributes {output_names = ["y", "mask"], version = 13 : i64} : (tensor<2xf32>) -> (tensor<2xf32>, none)
  return
}

// -----

func.func @bad_version(%arg0: tensor<2xf32>) {
  // expected-error @+1 {{attribute 'version' failed to satisfy constraint}}
  %0 = graph.node "Abs"(%arg0) attributes {output_names = ["y"], version = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @non_onnx_attribute(%arg0: tensor<2xf32>) {
  // expected-error @+1 {{attribute 'alpha' is not of a kind an ONNX attribute maps to: 5 : i32}}
  %0 = graph.node "Elu"(%arg0) attributes {attrs = {alpha = 5 : i32}, output_names = ["y"], version = 13 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @region_without_name(%arg0: tensor<i1>) {
  // expected-error @+1 {{has 1 regions but 0 names in 'subgraphs'}}
  %0 = graph.node "If"(%arg0) attributes {output_names = ["y"], version = 13 : i64} {
    graph.yield {input_names = [], output_names = []}
  } : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

func.func @duplicate_subgraph(%arg0: tensor<i1>) {
  // expected-error @+1 {{names subgraph 'body' twice}}
  %0 = graph.node "If"(%arg0) attributes {output_names = ["y"], subgraphs = ["body", "body"], version = 13 : i64} {
    graph.yield {input_names = [], output_names = []}
  }, {
    graph.yield {input_names = [], output_names = []}
  } : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

func.func @subgraph_shadows_attribute(%arg0: tensor<i1>) {
  // expected-error @+1 {{has 'body' both as an attribute and a subgraph}}
  %0 = graph.node "If"(%arg0) attributes {attrs = {body = 1 : i64}, output_names = ["y"], subgraphs = ["body"], version = 13 : i64} {
    graph.yield {input_names = [], output_names = []}
  } : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

func.func @yield_input_names(%arg0: tensor<i1>) {
  %m = graph.none
  %0 = graph.node "Loop"(%m, %arg0) attributes {output_names = ["y"], subgraphs = ["body"], version = 13 : i64} {
  ^bb0(%i: tensor<i64>):
    // expected-error @+1 {{names 0 subgraph inputs but the region has 1 arguments}}
    graph.yield {input_names = [], output_names = []}
  } : (none, tensor<i1>) -> tensor<2xf32>
  return
}

// -----

func.func @yield_output_names(%arg0: tensor<i1>, %arg1: tensor<2xf32>) {
  %0 = graph.node "If"(%arg0) attributes {output_names = ["y"], subgraphs = ["then_branch"], version = 13 : i64} {
    // expected-error @+1 {{names 0 subgraph outputs but yields 1 values}}
    graph.yield %arg1 : tensor<2xf32> {input_names = [], output_names = []}
  } : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

func.func @yield_outside_node(%arg0: tensor<2xf32>) {
  // expected-error @+1 {{expects parent op 'graph.node'}}
  graph.yield %arg0 : tensor<2xf32> {input_names = [], output_names = ["y"]}
}

// -----

func.func @constant_type_mismatch() {
  // expected-error @+1 {{value of type 'tensor<3xf32>' does not match result type 'tensor<2xf32>'}}
  %0 = graph.constant "c" : tensor<2xf32> = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  return
}

// -----

func.func @constant_empty_name() {
  // expected-error @+1 {{has an empty tensor name}}
  %0 = graph.constant "" : tensor<f32> = dense<1.0> : tensor<f32>
  return
}

// -----

func.func @constant_dynamic() {
  // expected-error @+1 {{must be statically shaped tensor of any type values}}
  %0 = graph.constant "c" : tensor<?xf32> = dense<1.0> : tensor<1xf32>
  return
}

// -----

func.func @external_length() {
  // expected-error @+1 {{external data has length 60 but 'tensor<4x4xf32>' needs 64 bytes}}
  %0 = graph.constant "w" : tensor<4x4xf32> = #graph.external<"w.data", offset = 0, length = 60>
  return
}

// -----

func.func @external_negative_offset() {
  // expected-error @+1 {{external data has negative offset -4}}
  %0 = graph.constant "w" : tensor<2xf32> = #graph.external<"w.data", offset = -4, length = 8>
  return
}

// -----

func.func @external_empty_location() {
  // expected-error @+1 {{external data has an empty location}}
  %0 = graph.constant "w" : tensor<2xf32> = #graph.external<"", offset = 0, length = 8>
  return
}

// -----

func.func @external_strings() {
  // expected-error @+1 {{holds '!graph.string' elements, which cannot be external}}
  %0 = graph.constant "w" : tensor<2x!graph.string> = #graph.external<"w.data", offset = 0, length = 8>
  return
}

// -----

func.func @constant_bad_value() {
  // expected-error @+1 {{value must be an ElementsAttr or #graph.external, got 1 : i64}}
  %0 = graph.constant "w" : tensor<i64> = 1 : i64
  return
}

// -----

// No tensor holds more than 2^48 bytes (byte sums over a model stay in
// int64): 2^46 f32 elements are 2^48 bytes, one more dim of 2 is too many.
func.func @node_tensor_too_large(%x: tensor<65536x65536x16384xf32>) {
  %0 = graph.node "Relu"(%x) attributes {name = "ok", output_names = ["y"], version = 13 : i64} : (tensor<65536x65536x16384xf32>) -> tensor<65536x65536x16384xf32>
  // expected-error @+1 {{'graph.node' op result #0 of type 'tensor<65536x65536x16384x2xf32>' holds more than 281474976710656 bytes}}
  %1 = graph.node "Unsqueeze"(%0) attributes {name = "big", output_names = ["z"], version = 13 : i64} : (tensor<65536x65536x16384xf32>) -> tensor<65536x65536x16384x2xf32>
  return
}

// -----

func.func @constant_too_large() {
  // expected-error @+1 {{'graph.constant' op result #0 of type 'tensor<4611686018427387904xi8>' holds more than 281474976710656 bytes}}
  %0 = graph.constant "w" : tensor<4611686018427387904xi8> = #graph.external<"w.data", offset = 0, length = 4611686018427387904>
  return
}

// -----

// output_dims: one list per output, one name per dim, names on dynamic
// dims only.
func.func @dims_count(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{has 1 results but 2 entries in 'output_dims'}}
  %0 = graph.node "Abs"(%arg0) attributes {output_dims = [["n"], ["n"]], output_names = ["y"], version = 13 : i64} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dims_rank(%arg0: tensor<?x2xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{output #0 has rank 2 but 1 dim names}}
  %0 = graph.node "Abs"(%arg0) attributes {output_dims = [["n"]], output_names = ["y"], version = 13 : i64} : (tensor<?x2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

func.func @dims_fixed(%arg0: tensor<?x2xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{output #0: dim 1 is fixed but named 'm'}}
  %0 = graph.node "Abs"(%arg0) attributes {output_dims = [["n", "m"]], output_names = ["y"], version = 13 : i64} : (tensor<?x2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// ONNX's schema (generated, tools/placer-onnx-schemas) says which inputs may
// be left out: Softmax's one may not, whatever reads the node next.
func.func @required_input_left_out() -> tensor<2x3xf32> {
  %n = graph.none
  // expected-error @+1 {{leaves out required input #0 of Softmax-13 (graph.none)}}
  %y = graph.node "Softmax"(%n) attributes {name = "sm", output_names = ["y"], version = 13 : i64} : (none) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Clip's bounds are optional: leaving out min is fine. Too few inputs is
// refused too (MatMul takes two).
func.func @optional_input_left_out(%x: tensor<4xf32>, %hi: tensor<f32>) -> tensor<4xf32> {
  %n = graph.none
  %y = graph.node "Clip"(%x, %n, %hi) attributes {name = "clip", output_names = ["y"], version = 13 : i64} : (tensor<4xf32>, none, tensor<f32>) -> tensor<4xf32>
  // expected-error @+1 {{has 1 inputs but MatMul-13 takes at least 2}}
  %z = graph.node "MatMul"(%y) attributes {name = "mm", output_names = ["z"], version = 13 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}
