// RUN: placer-opt %s --split-input-file --verify-diagnostics --placer-lower-graph-to-linalg="inline-limit=2000" | FileCheck %s
// RUN: placer-opt %s --split-input-file --verify-diagnostics --placer-lower-graph-to-linalg | FileCheck %s --check-prefix=NOINLINE
// RUN: placer-opt %s --split-input-file --verify-diagnostics --placer-lower-graph-to-linalg="profile=true" | FileCheck %s --check-prefix=PROFILE
// RUN: placer-opt %s --split-input-file --verify-diagnostics --placer-lower-graph-to-linalg="inline-limit=2000 inline-weights=false" | FileCheck %s --check-prefix=WEIGHTS

// Constants up to inline-limit bytes become arith.constant, larger ones
// weight arguments (the 1200-byte bias is one under the default 1024); MatMul is linalg.matmul, Add a broadcasting generic.
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32> {graph.name = "x"}
// CHECK-SAME: %[[W:.*]]: tensor<3x300xf32> {graph.weight = {name = "w", value = dense<5.000000e-01> : tensor<3x300xf32>}}
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK: %[[B:.*]] = arith.constant dense<1.000000e+00> : tensor<300xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<2x3xf32>, tensor<3x300xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BIAS:.*]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[MM]], %[[B]] : tensor<2x300xf32>, tensor<300xf32>)
// CHECK: arith.addf
// CHECK-NOT: graph.
// NOINLINE: %{{.*}}: tensor<300xf32> {graph.weight = {name = "b", value = dense<1.000000e+00> : tensor<300xf32>}}
// NOINLINE-NOT: placer_profile
// With inline-weights=false every floating-point initializer is a weight
// argument, under the limit too; integer ones (@reshape_by_initializer's
// shape, at the end) stay constants the lowering reads.
// WEIGHTS: %{{.*}}: tensor<300xf32> {graph.weight = {name = "b", value = dense<1.000000e+00> : tensor<300xf32>}}
// WEIGHTS-NOT: arith.constant dense<1.000000e+00> : tensor<300xf32>
// WEIGHTS-LABEL: func.func @reshape_by_initializer
// WEIGHTS-SAME: %{{.*}}: tensor<4xf32> {graph.weight = {name = "scale"
// WEIGHTS-NOT: graph.weight
// WEIGHTS: tensor.expand_shape
// With profile=true every node's code is bracketed by numbered hook calls,
// and the module lists the node names by number.
// PROFILE: module attributes {placer.profile_nodes = ["mm", "add"]}
// PROFILE-DAG: func.func private @placer_profile_enter(i64)
// PROFILE-DAG: func.func private @placer_profile_exit(i64)
// PROFILE: %[[MM:.*]] = arith.constant 0 : i64
// PROFILE-NEXT: call @placer_profile_enter(%[[MM]])
// PROFILE: linalg.matmul
// PROFILE: %[[MM2:.*]] = arith.constant 0 : i64
// PROFILE-NEXT: call @placer_profile_exit(%[[MM2]])
// PROFILE-NEXT: %[[ADD:.*]] = arith.constant 1 : i64
// PROFILE-NEXT: call @placer_profile_enter(%[[ADD]])
// PROFILE: linalg.generic
// PROFILE: call @placer_profile_exit
// PROFILE-NEXT: return
func.func @main_graph(%x: tensor<2x3xf32> {graph.name = "x"}) -> tensor<2x300xf32> {
  %w = graph.constant "w" : tensor<3x300xf32> = dense<0.5> : tensor<3x300xf32>
  %b = graph.constant "b" : tensor<300xf32> = dense<1.0> : tensor<300xf32>
  %mm = graph.node "MatMul"(%x, %w) attributes {name = "mm", output_names = ["mm"], version = 13 : i64} : (tensor<2x3xf32>, tensor<3x300xf32>) -> tensor<2x300xf32>
  %y = graph.node "Add"(%mm, %b) attributes {name = "add", output_names = ["y"], version = 13 : i64} : (tensor<2x300xf32>, tensor<300xf32>) -> tensor<2x300xf32>
  return %y : tensor<2x300xf32>
}

// -----

// Shape arithmetic of static tensors folds to constants.
// CHECK-LABEL: func.func @shape
// CHECK: %[[S:.*]] = arith.constant dense<[2, 5]> : tensor<2xi64>
// CHECK: return %[[S]]
func.func @shape(%x: tensor<2x5xf32>) -> tensor<2xi64> {
  %s = graph.node "Shape"(%x) attributes {name = "s", output_names = ["s"], version = 13 : i64} : (tensor<2x5xf32>) -> tensor<2xi64>
  return %s : tensor<2xi64>
}

// -----

// Conv with groups: expand to N G C H W, linalg.conv_2d_ngchw_gfchw, collapse.
// CHECK-LABEL: func.func @grouped
// CHECK: tensor.pad
// CHECK: tensor.expand_shape {{.*}} into tensor<1x2x2x8x8xf32>
// CHECK: linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
// CHECK: tensor.collapse_shape {{.*}} into tensor<1x4x6x6xf32>
func.func @grouped(%x: tensor<1x4x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = graph.node "Conv"(%x, %w) attributes {attrs = {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>}, name = "conv", output_names = ["y"], version = 13 : i64} : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// One error lists every op type without a lowering (with its nodes) and
// every node whose shapes need binding: a dynamic dim that no input's
// symbol names, or one where the op's lowering takes none; nothing is
// rewritten.
// expected-error @below {{cannot lower to linalg: no lowering for TfIdfVectorizer (nodes 'u1', 'u2'); com.example.Fused (node 'custom'); shapes that need binding (--dim NAME=VALUE on import) at nodes 'dyn' (Relu: output #0 dim 0 is not a symbolic dim of the inputs), 'top' (TopK: dynamic dims, which its lowering does not take)}}
module {
  func.func @bad(%x: tensor<?x4xf32>, %y: tensor<2x4xf32>, %z: tensor<?x4xf32> {graph.dim_params = ["n", ""]}) -> tensor<2x4xf32> {
    %a = graph.node "Relu"(%x) attributes {name = "dyn", output_names = ["a"], version = 13 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
    %k = graph.constant "k" : tensor<1xi64> = dense<2> : tensor<1xi64>
    %tv, %ti = graph.node "TopK"(%z, %k) attributes {name = "top", output_dims = [["n", ""], ["n", ""]], output_names = ["tv", "ti"], version = 11 : i64} : (tensor<?x4xf32>, tensor<1xi64>) -> (tensor<?x2xf32>, tensor<?x2xi64>)
    %b = graph.node "TfIdfVectorizer"(%y) attributes {name = "u1", output_names = ["b"], version = 13 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %c = graph.node "TfIdfVectorizer"(%b) attributes {name = "u2", output_names = ["c"], version = 13 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %d = graph.node "Fused"(%c) attributes {domain = "com.example", name = "custom", output_names = ["d"], version = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    return %d : tensor<2x4xf32>
  }
}

// -----

// Sequences and optionals (an If whose branches yield them, as ONNX's
// test_if_seq does) are refused in the same one error, naming the function
// whose result is one and every node that reads or makes one; nothing
// reads their shape.
// expected-error @below {{cannot lower to linalg: no lowering for SequenceConstruct (nodes 'then_out', 'else_out'); values that do not lower at '@if_seq' (result #0 has type !graph.seq<tensor<2xf32>>: sequences, optionals and maps do not lower), 'then_out' (SequenceConstruct: output #0 has type !graph.seq<tensor<2xf32>>: sequences, optionals and maps do not lower), 'else_out' (SequenceConstruct: output #0 has type !graph.seq<tensor<2xf32>>: sequences, optionals and maps do not lower), 'res' (If: output #0 has type !graph.seq<tensor<2xf32>>: sequences, optionals and maps do not lower)}}
module {
  func.func @if_seq(%c: tensor<i1>, %x: tensor<2xf32>) -> !graph.seq<tensor<2xf32>> {
    %r = graph.node "If"(%c) attributes {name = "res", output_names = ["res"], subgraphs = ["then_branch", "else_branch"], version = 13 : i64} {
      %t = graph.node "SequenceConstruct"(%x) attributes {name = "then_out", output_names = ["t"], version = 13 : i64} : (tensor<2xf32>) -> !graph.seq<tensor<2xf32>>
      graph.yield %t : !graph.seq<tensor<2xf32>> {graph_name = "then", input_names = [], output_names = ["t"]}
    }, {
      %e = graph.node "SequenceConstruct"(%x) attributes {name = "else_out", output_names = ["e"], version = 13 : i64} : (tensor<2xf32>) -> !graph.seq<tensor<2xf32>>
      graph.yield %e : !graph.seq<tensor<2xf32>> {graph_name = "else", input_names = [], output_names = ["e"]}
    } : (tensor<i1>) -> !graph.seq<tensor<2xf32>>
    return %r : !graph.seq<tensor<2xf32>>
  }
}

// -----

// An attribute a lowering does not support names the node.
func.func @zero_step(%x: tensor<4xf32>) -> tensor<2xf32> {
  %st = graph.constant "st" : tensor<1xi64> = dense<3> : tensor<1xi64>
  %en = graph.constant "en" : tensor<1xi64> = dense<0> : tensor<1xi64>
  %ax = graph.constant "ax" : tensor<1xi64> = dense<0> : tensor<1xi64>
  %sp = graph.constant "sp" : tensor<1xi64> = dense<0> : tensor<1xi64>
  // expected-error @below {{cannot lower node 'rev' (Slice): slice steps must not be zero}}
  %y = graph.node "Slice"(%x, %st, %en, %ax, %sp) attributes {name = "rev", output_names = ["y"], version = 13 : i64} : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// Every node whose attributes no lowering handles is reported, not only the
// first, and the nodes between them still lower.
func.func @two_bad(%x: tensor<4xi32>) -> (tensor<2xi32>, tensor<4xi32>) {
  // expected-error @below {{cannot lower node 'mode' (Pad): unknown pad mode 'spiral'}}
  %p = graph.node "Pad"(%x) attributes {attrs = {mode = "spiral", pads = array<i64: 0, 0>}, name = "mode", output_names = ["p"], version = 2 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  %r = graph.node "Relu"(%x) attributes {name = "fine", output_names = ["r"], version = 14 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  // expected-error @below {{cannot lower node 'dir' (BitShift): unknown direction 'UP'}}
  %s = graph.node "BitShift"(%r, %r) attributes {attrs = {direction = "UP"}, name = "dir", output_names = ["s"], version = 11 : i64} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %y = graph.node "Slice"(%s) attributes {attrs = {starts = array<i64: 0>, ends = array<i64: 2>}, name = "keep", output_names = ["y"], version = 1 : i64} : (tensor<4xi32>) -> tensor<2xi32>
  return %y, %p : tensor<2xi32>, tensor<4xi32>
}

// -----

// A declared result type that contradicts broadcasting (a damaged model
// whose ONNX shape inference stopped) is refused, not turned into invalid
// indexing maps: a lower rank, a dim no input has, a dim that does not fit.
func.func @rank_drop(%a: tensor<2xf32>) -> tensor<f32> {
  // expected-error @below {{cannot lower node 'add' (Add): an input of type tensor<2xf32> does not broadcast to the declared result type tensor<f32>}}
  %y = graph.node "Add"(%a, %a) attributes {name = "add", output_names = ["y"], version = 13 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

func.func @grown(%a: tensor<1x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{cannot lower node 'mul' (Mul): the inputs broadcast to tensor<1x3xf32>, not to the declared result type tensor<4x3xf32>}}
  %y = graph.node "Mul"(%a, %b) attributes {name = "mul", output_names = ["y"], version = 13 : i64} : (tensor<1x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

func.func @no_outputs(%a: tensor<2xf32>) {
  // expected-error @below {{cannot lower node 'relu' (Relu): the node has no outputs}}
  graph.node "Relu"(%a) attributes {name = "relu", output_names = [], version = 14 : i64} : (tensor<2xf32>) -> ()
  return
}

// -----

func.func @expand_mismatch(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %s = graph.constant "s" : tensor<2xi64> = dense<[2, 4]> : tensor<2xi64>
  // expected-error @below {{cannot lower node 'expand' (Expand): an input of type tensor<2x3xf32> does not broadcast to the declared result type tensor<2x4xf32>}}
  %y = graph.node "Expand"(%a, %s) attributes {name = "expand", output_names = ["y"], version = 13 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// Einsum: one loop per letter (output letters first), the operands read
// through their letters' maps, the product summed into the output; a
// repeated letter reads a diagonal.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[DIAG:.*]] = affine_map<(d0) -> (d0, d0)>
// CHECK-LABEL: func.func @einsum
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[DIAG]], #{{.*}}], iterator_types = ["reduction"]}
func.func @einsum(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %d: tensor<4x4xf32>) -> (tensor<2x3x5xf32>, tensor<f32>) {
  %m = graph.node "Einsum"(%a, %b) attributes {attrs = {equation = "bij, bjk -> bik"}, name = "mm", output_names = ["mm"], version = 12 : i64} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %t = graph.node "Einsum"(%d) attributes {attrs = {equation = "ii"}, name = "trace", output_names = ["trace"], version = 12 : i64} : (tensor<4x4xf32>) -> tensor<f32>
  return %m, %t : tensor<2x3x5xf32>, tensor<f32>
}

// -----

// numpy broadcasting stretches a size-1 dim to 0 too: an empty result is
// what the inputs broadcast to.
// CHECK-LABEL: func.func @zero_dim
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<3x0xf32>)
func.func @zero_dim(%a: tensor<3x1xf32>, %b: tensor<0xf32>) -> tensor<3x0xf32> {
  %y = graph.node "Add"(%a, %b) attributes {name = "add", output_names = ["y"], version = 13 : i64} : (tensor<3x1xf32>, tensor<0xf32>) -> tensor<3x0xf32>
  return %y : tensor<3x0xf32>
}

// -----

// For inline-weights (WEIGHTS above): a 16-byte float initializer and an
// integer one (a Reshape's shape).
func.func @reshape_by_initializer(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  %scale = graph.constant "scale" : tensor<4xf32> = dense<2.0> : tensor<4xf32>
  %shape = graph.constant "shape" : tensor<2xi64> = dense<[2, 2]> : tensor<2xi64>
  %m = graph.node "Mul"(%x, %scale) attributes {name = "mul", output_names = ["m"], version = 13 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = graph.node "Reshape"(%m, %shape) attributes {name = "reshape", output_names = ["y"], version = 13 : i64} : (tensor<4xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// An empty slice whose start sits at the end of its axis reads nothing.
// CHECK-LABEL: func.func @empty_slice
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[E:.*]] = tensor.empty() : tensor<0xi64>
// CHECK: return %[[E]]
func.func @empty_slice(%x: tensor<2xi64>) -> tensor<0xi64> {
  %s = graph.constant "s" : tensor<1xi64> = dense<2> : tensor<1xi64>
  %e = graph.constant "e" : tensor<1xi64> = dense<9> : tensor<1xi64>
  %y = graph.node "Slice"(%x, %s, %e) attributes {name = "tail", output_names = ["y"], version = 13 : i64} : (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<0xi64>
  return %y : tensor<0xi64>
}

// -----

// If becomes scf.if on the condition's element; each branch's nodes are
// lowered inside its region.
// CHECK-LABEL: func.func @branch
// CHECK: %[[C:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK: scf.if %[[C]] -> (tensor<2xf32>)
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: scf.yield
// CHECK: } else {
// CHECK: arith.negf
// CHECK: scf.yield
func.func @branch(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.node "If"(%c) attributes {name = "if", output_names = ["y"], subgraphs = ["then_branch", "else_branch"], version = 13 : i64} {
    %r = graph.node "Relu"(%x) attributes {name = "relu", output_names = ["r"], version = 14 : i64} : (tensor<2xf32>) -> tensor<2xf32>
    graph.yield %r : tensor<2xf32> {graph_name = "then", input_names = [], output_names = ["r"]}
  }, {
    %n = graph.node "Neg"(%x) attributes {name = "neg", output_names = ["n"], version = 13 : i64} : (tensor<2xf32>) -> tensor<2xf32>
    graph.yield %n : tensor<2xf32> {graph_name = "else", input_names = [], output_names = ["n"]}
  } : (tensor<i1>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// Dynamic dims named by an input's symbol (graph.dim_params) lower once for
// any size: each symbol is read off the first argument that has it, and
// outputs take their sizes from it.
// A result written without graph.dim_params takes the names of the node
// output it returns (the runtime sizes outputs by them).
// CHECK-LABEL: func.func @dynamic_batch(
// CHECK-SAME: %[[X:.*]]: tensor<?x3x8x8xf32> {graph.dim_params = ["batch", "", "", ""]}
// CHECK-SAME: -> (tensor<?x256xf32> {graph.dim_params = ["batch", ""]}, tensor<2xi64>)
// CHECK: %[[BATCH:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3x8x8xf32>
// CHECK: %[[CONV_BATCH:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3x8x8xf32>
// CHECK: } : tensor<?x3x8x8xf32> to tensor<?x3x10x10xf32>
// CHECK: %[[INIT:.*]] = tensor.empty(%[[CONV_BATCH]]) : tensor<?x4x8x8xf32>
// CHECK: %[[CONV:.*]] = linalg.conv_2d_nchw_fchw {{.*}} -> tensor<?x4x8x8xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[CONV]] {{.*}} into tensor<?xf32>
// CHECK: %[[FLATTENED:.*]] = tensor.expand_shape %[[FLAT]] {{.*}} output_shape [%[[BATCH]], 256] : tensor<?xf32> into tensor<?x256xf32>
// CHECK: %[[ROWS:.*]] = tensor.dim %[[FLATTENED]], %{{.*}} : tensor<?x256xf32>
// CHECK: tensor.empty(%[[ROWS]]) : tensor<?x256xf32>
// CHECK: %[[RELU:.*]] = linalg.generic
// CHECK: %[[N:.*]] = tensor.dim %[[RELU]], %{{.*}} : tensor<?x256xf32>
// CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[N64]], %{{.*}} : tensor<2xi64>
// CHECK: return %[[RELU]], %[[SHAPE]] : tensor<?x256xf32>, tensor<2xi64>
func.func @dynamic_batch(%x: tensor<?x3x8x8xf32> {graph.dim_params = ["batch", "", "", ""]}, %w: tensor<4x3x3x3xf32>) -> (tensor<?x256xf32>, tensor<2xi64>) {
  %c = graph.node "Conv"(%x, %w) attributes {attrs = {pads = array<i64: 1, 1, 1, 1>}, name = "conv", output_dims = [["batch", "", "", ""]], output_names = ["c"], version = 13 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
  %f = graph.node "Flatten"(%c) attributes {name = "flat", output_dims = [["batch", ""]], output_names = ["f"], version = 13 : i64} : (tensor<?x4x8x8xf32>) -> tensor<?x256xf32>
  %r = graph.node "Relu"(%f) attributes {name = "relu", output_dims = [["batch", ""]], output_names = ["r"], version = 13 : i64} : (tensor<?x256xf32>) -> tensor<?x256xf32>
  %s = graph.node "Shape"(%r) attributes {name = "shape", output_names = ["s"], version = 15 : i64} : (tensor<?x256xf32>) -> tensor<2xi64>
  return %r, %s : tensor<?x256xf32>, tensor<2xi64>
}

// -----

// Windows take a dynamic batch only: their padding needs the spatial sizes.
func.func @dynamic_spatial(%x: tensor<1x3x?x8xf32> {graph.dim_params = ["", "", "h", ""]}) -> tensor<1x3x?x8xf32> {
  // expected-error @below {{cannot lower node 'pool' (MaxPool): only the batch dim (0) may be dynamic}}
  %y = graph.node "MaxPool"(%x) attributes {attrs = {kernel_shape = array<i64: 1, 1>}, name = "pool", output_dims = [["", "", "h", ""]], output_names = ["y"], version = 12 : i64} : (tensor<1x3x?x8xf32>) -> tensor<1x3x?x8xf32>
  return %y : tensor<1x3x?x8xf32>
}

// -----

// Subgraphs lower inside their node, under the conversion: a loop-carried
// unsigned value divides unsigned (the body's argument keeps its declared
// type for the lowering), and a branch nested in the body reads the body's
// argument (a value of the scope around it).
// CHECK-LABEL: func.func @nested_unsigned(
// CHECK-SAME: %{{.*}}: tensor<i64>, %[[X:.*]]: tensor<2xi8> {graph.element_type = ui8}, %{{.*}}: tensor<i1>)
// CHECK-SAME: -> (tensor<2xi8> {graph.element_type = ui8})
// CHECK: scf.while
// CHECK: ^bb0(%{{.*}}: i64, %{{.*}}: i1, %[[V:.*]]: tensor<2xi8>):
// CHECK: arith.divui
// CHECK: scf.if
// CHECK: linalg.generic {{.*}} ins(%[[V]]
// CHECK: scf.yield
// CHECK: } else {
// CHECK-NOT: graph.
func.func @nested_unsigned(%m: tensor<i64>, %x: tensor<2xui8>, %c: tensor<i1>) -> tensor<2xui8> {
  %t = graph.constant "t" : tensor<i1> = dense<true> : tensor<i1>
  %two = graph.constant "two" : tensor<2xui8> = dense<2> : tensor<2xui8>
  %y = graph.node "Loop"(%m, %t, %x) attributes {name = "loop", output_names = ["y"], subgraphs = ["body"], version = 13 : i64} {
  ^bb0(%i: tensor<i64>, %go: tensor<i1>, %v: tensor<2xui8>):
    %h = graph.node "Div"(%v, %two) attributes {name = "half", output_names = ["h"], version = 14 : i64} : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
    %w = graph.node "If"(%c) attributes {name = "pick", output_names = ["w"], subgraphs = ["then_branch", "else_branch"], version = 13 : i64} {
      %s = graph.node "Add"(%v, %h) attributes {name = "sum", output_names = ["s"], version = 14 : i64} : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
      graph.yield %s : tensor<2xui8> {graph_name = "then", input_names = [], output_names = ["s"]}
    }, {
      graph.yield %h : tensor<2xui8> {graph_name = "else", input_names = [], output_names = ["h"]}
    } : (tensor<i1>) -> tensor<2xui8>
    graph.yield %go, %w : tensor<i1>, tensor<2xui8> {graph_name = "body", input_names = ["i", "go", "v"], output_names = ["go", "w"]}
  } : (tensor<i64>, tensor<i1>, tensor<2xui8>) -> tensor<2xui8>
  return %y : tensor<2xui8>
}

// -----

// A node of a subgraph that cannot lower is named; nothing else is reported.
func.func @bad_in_branch(%c: tensor<i1>, %x: tensor<4xi32>) -> tensor<4xi32> {
  %y = graph.node "If"(%c) attributes {name = "if", output_names = ["y"], subgraphs = ["then_branch", "else_branch"], version = 13 : i64} {
    // expected-error @below {{cannot lower node 'dir' (BitShift): unknown direction 'UP'}}
    %s = graph.node "BitShift"(%x, %x) attributes {attrs = {direction = "UP"}, name = "dir", output_names = ["s"], version = 11 : i64} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    graph.yield %s : tensor<4xi32> {graph_name = "then", input_names = [], output_names = ["s"]}
  }, {
    graph.yield %x : tensor<4xi32> {graph_name = "else", input_names = [], output_names = ["x"]}
  } : (tensor<i1>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}
