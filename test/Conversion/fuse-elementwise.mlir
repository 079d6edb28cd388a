// RUN: placer-opt %s --split-input-file --placer-fuse-elementwise | FileCheck %s

// A bias add into the ReLU after it: one generic doing both.
// CHECK-LABEL: func.func @bias_relu
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: linalg.yield
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %relu : tensor<4x8xf32>
}

// -----

// A value two ops read is computed once: no fusion into either.
// CHECK-LABEL: func.func @two_users
// CHECK-COUNT-3: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_users(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %abs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.absf %v : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %neg, %abs : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Contractions and reshapes stay as they are: a product behind a flatten
// is still linalg.matmul (a library call on the GPU), and an elementwise
// op does not fuse into a reduction.
// CHECK-LABEL: func.func @flatten_matmul
// CHECK: tensor.collapse_shape
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: linalg.reduce
func.func @flatten_matmul(%x: tensor<2x4x2xf32>, %w: tensor<8x3xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %flat = tensor.collapse_shape %x [[0], [1, 2]] : tensor<2x4x2xf32> into tensor<2x8xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.matmul ins(%flat, %w : tensor<2x8xf32>, tensor<8x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %acc = tensor.empty() : tensor<2xf32>
  %zacc = linalg.fill ins(%zero : f32) outs(%acc : tensor<2xf32>) -> tensor<2xf32>
  %sum = linalg.reduce ins(%sq : tensor<2x3xf32>) outs(%zacc : tensor<2xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %sum : tensor<2xf32>
}
