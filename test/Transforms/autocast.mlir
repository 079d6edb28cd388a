// RUN: placer-opt %s --placer-autocast | FileCheck %s
// RUN: placer-opt %s --placer-autocast=type=f16 | FileCheck %s --check-prefix=F16
// RUN: not placer-opt %s --placer-autocast=type=f8 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: placer-opt %s --placer-autocast | placer-opt --placer-autocast | FileCheck %s --check-prefix=AGAIN
// RUN: placer-opt %s --placer-autocast | not placer-opt --placer-autocast=type=f16 2>&1 | FileCheck %s --check-prefix=OTHER

// The module records its type; a second run in it changes nothing, one in
// another type is refused.
// CHECK: module attributes {{{.*}}placer.precision = bf16}
// AGAIN: module attributes {{{.*}}placer.precision = bf16}
// AGAIN-NOT: "Cast"(%autocast
// OTHER: error: placer-autocast: the module computes in 'bf16' already, not 'f16'

// The convolution computes in bf16: its input cast, its weights converted
// here (the f32 originals gone), Relu follows it in bf16. Resize follows
// its data but keeps its f32 scales (ONNX's T1 versus float). Softmax
// computes in f32; Add of an f32 Softmax and the bf16 Relu promotes to f32;
// Shape keeps its i64 result; the returned bf16 value is cast back.
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: (%{{.*}}: tensor<2x3x8x8xf32> {graph.name = "x"}) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<4xi64>)
// CHECK-NOT: tensor<4x3x3x3xf32>
// CHECK: %[[X:.*]] = graph.node "Cast"(%arg0) attributes {attrs = {to = 16 : i64}, name = "autocast/0"{{.*}} -> tensor<2x3x8x8xbf16>
// CHECK-NOT: tensor<4x3x3x3xf32>
// CHECK: %[[W:.*]] = graph.constant "w" : tensor<4x3x3x3xbf16> = dense<5.000000e-01>
// CHECK: %[[B:.*]] = graph.constant "b" : tensor<4xbf16> = dense<[2.500000e-01, 1.000000e+00, -2.000000e+00, 1.007810e+00]>
// CHECK: %[[S:.*]] = graph.constant "s" : tensor<4xf32>
// CHECK: %[[Y:.*]] = graph.node "Conv"(%[[X]], %[[W]], %[[B]]) {{.*}} -> tensor<2x4x8x8xbf16>
// CHECK: %[[R:.*]] = graph.node "Relu"(%[[Y]]) {{.*}} -> tensor<2x4x8x8xbf16>
// CHECK: %[[R32:.*]] = graph.node "Cast"(%[[R]]) attributes {attrs = {to = 1 : i64}{{.*}} -> tensor<2x4x8x8xf32>
// CHECK: %[[Z:.*]] = graph.node "Resize"(%[[R]], %{{.*}}, %[[S]]) {{.*}} : (tensor<2x4x8x8xbf16>, none, tensor<4xf32>) -> tensor<2x4x8x8xbf16>
// CHECK: %[[Z32:.*]] = graph.node "Cast"(%[[Z]]) attributes {attrs = {to = 1 : i64}
// CHECK: %[[E:.*]] = graph.node "Softmax"(%[[Z32]]) {{.*}} -> tensor<2x4x8x8xf32>
// CHECK: %[[A:.*]] = graph.node "Add"(%[[E]], %[[R32]]) {{.*}} -> tensor<2x4x8x8xf32>
// CHECK: %[[SH:.*]] = graph.node "Shape"(%[[R]]) {{.*}} -> tensor<4xi64>
// CHECK: return %[[A]], %[[R32]], %[[SH]]

// The same in float16. 1.006 rounds to nearest: 1.0078 in bf16 (truncation
// would give 1.0), 1.0059 in f16.
// F16: graph.node "Cast"(%arg0) attributes {attrs = {to = 10 : i64}
// F16: graph.constant "b" : tensor<4xf16> = dense<[2.500000e-01, 1.000000e+00, -2.000000e+00, 1.005860e+00]>
// F16: graph.node "Conv"{{.*}} -> tensor<2x4x8x8xf16>

// TYPE: error: placer-autocast: type must be bf16 or f16, not 'f8'

// A weight that an f32 op reads too stays, under its name; its half copy
// for the product is named apart.
// CHECK-LABEL: func.func @shared
// CHECK: %[[E:.*]] = graph.constant "emb" : tensor<4x4xf32>
// CHECK: %[[H:.*]] = graph.constant "emb/bf16" : tensor<4x4xbf16>
// CHECK: graph.node "Gather"(%[[E]], %arg0)
// CHECK: graph.node "MatMul"(%{{.*}}, %[[H]])

// A weight transposed for its product (as exported Linear layers are) is
// converted here and transposed in bf16: no cast at run time.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[WT:.*]] = graph.constant "wt" : tensor<4x3xbf16>
// CHECK: %[[T:.*]] = graph.node "Transpose"(%[[WT]]) {{.*}} : (tensor<4x3xbf16>) -> tensor<3x4xbf16>
// CHECK: graph.node "MatMul"(%{{.*}}, %[[T]])

module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x3x8x8xf32> {graph.name = "x"}) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<4xi64>) {
  %w = graph.constant "w" : tensor<4x3x3x3xf32> = dense<0.5> : tensor<4x3x3x3xf32>
  %b = graph.constant "b" : tensor<4xf32> = dense<[0.25, 1.0, -2.0, 1.006]> : tensor<4xf32>
  %s = graph.constant "s" : tensor<4xf32> = dense<[1.0, 1.0, 1.0, 1.0]> : tensor<4xf32>
  %none = graph.none
  %y = graph.node "Conv"(%x, %w, %b) attributes {attrs = {pads = array<i64: 1, 1, 1, 1>}, name = "conv", output_names = ["y"], version = 17 : i64} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  %r = graph.node "Relu"(%y) attributes {name = "relu", output_names = ["r"], version = 17 : i64} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %z = graph.node "Resize"(%r, %none, %s) attributes {name = "resize", output_names = ["z"], version = 13 : i64} : (tensor<2x4x8x8xf32>, none, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  %e = graph.node "Softmax"(%z) attributes {name = "sm", output_names = ["e"], version = 17 : i64} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %a = graph.node "Add"(%e, %r) attributes {name = "add", output_names = ["a"], version = 17 : i64} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %sh = graph.node "Shape"(%r) attributes {name = "shape", output_names = ["sh"], version = 17 : i64} : (tensor<2x4x8x8xf32>) -> tensor<4xi64>
  return %a, %r, %sh : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<4xi64>
}
func.func @shared(%ids: tensor<2xi64>) -> tensor<2x4xf32> {
  %emb = graph.constant "emb" : tensor<4x4xf32> = dense<0.5> : tensor<4x4xf32>
  %g = graph.node "Gather"(%emb, %ids) attributes {name = "gather", output_names = ["g"], version = 13 : i64} : (tensor<4x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %y = graph.node "MatMul"(%g, %emb) attributes {name = "head", output_names = ["y"], version = 13 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
func.func @transposed(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %wt = graph.constant "wt" : tensor<4x3xf32> = dense<0.5> : tensor<4x3xf32>
  %t = graph.node "Transpose"(%wt) attributes {attrs = {perm = array<i64: 1, 0>}, name = "t", output_names = ["t"], version = 13 : i64} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %y = graph.node "MatMul"(%x, %t) attributes {name = "mm", output_names = ["y"], version = 13 : i64} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
}
