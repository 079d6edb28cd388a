// RUN: placer-opt %s --placer-gpu-split-reductions --split-input-file | FileCheck %s
// RUN: placer-opt %s --placer-gpu-split-reductions="threads=2048" --split-input-file | FileCheck %s --check-prefix=FEW
// RUN: not placer-opt %s --placer-gpu-split-reductions="threads=0" --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// A LayerNormalization's sum over 768 features for 128 tokens: S = 32
// partials a row (24 steps in the first op, 32 in the second), element
// j * 32 + s read by thread s, the partials' loops parallel and
// outermost. With 2048 threads at most, S = 16 (128 * 16 = 2048).
// CHECK-LABEL: func.func @rows
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [128, 24, 32]
// CHECK: %[[P:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<128x32xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<128x24x32xf32>) outs(%[[P]] : tensor<128x32xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[S]] : tensor<128x32xf32>) outs(%{{.*}} : tensor<128xf32>)
// CHECK: arith.addf
// FEW-LABEL: func.func @rows
// FEW: tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [128, 48, 16]
func.func @rows(%x: tensor<128x768xf32>) -> tensor<128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %r = linalg.reduce ins(%x : tensor<128x768xf32>) outs(%f : tensor<128xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  return %r : tensor<128xf32>
}

// -----

// A softmax's row maximum: the partials start at the maximum's neutral
// element, -inf; 1536 rows of 128 give S = 16 (8 and 16 steps), or 1
// thread a row with 2048 threads at most (1536 * 2 > 2048): left alone.
// CHECK-LABEL: func.func @row_max
// CHECK: tensor.expand_shape %arg0 {{\[}}[0], [1], [2, 3]] output_shape [12, 128, 8, 16]
// CHECK: linalg.fill ins(%cst{{.*}} : f32) outs(%{{.*}} : tensor<12x128x16xf32>)
// CHECK: arith.maximumf
// CHECK: arith.maximumf
// FEW-LABEL: func.func @row_max
// FEW-NOT: tensor.expand_shape
// FEW: linalg.reduce
func.func @row_max(%x: tensor<12x128x128xf32>, %init: tensor<12x128xf32>) -> tensor<12x128xf32> {
  %r = linalg.reduce ins(%x : tensor<12x128x128xf32>) outs(%init : tensor<12x128xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %0 = arith.maximumf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %r : tensor<12x128xf32>
}

// -----

// A full reduction (one result, which would be one thread): 64 partials
// of 64 elements.
// CHECK-LABEL: func.func @total
// CHECK: tensor.expand_shape %arg0 {{\[}}[0, 1]] output_shape [64, 64]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<64x64xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<64xf32>) outs(%{{.*}} : tensor<f32>)
func.func @total(%x: tensor<4096xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.reduce ins(%x : tensor<4096xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %r : tensor<f32>
}

// -----

// Left alone: enough results for the threads already (a global average
// pool over 49 pixels of 32 x 2048 channels), a reduced size too small to
// give every thread 4 elements, two reduced dimensions, a dynamic size,
// a combiner without a neutral element, and a product (a library call).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: expand_shape
// CHECK-COUNT-5: linalg.reduce
// CHECK: linalg.matmul
// CHECK-NOT: expand_shape
func.func @left_alone(%pool: tensor<65536x49xf32>, %pinit: tensor<65536xf32>,
                      %small: tensor<4x6xf32>, %sinit: tensor<4xf32>,
                      %two: tensor<8x64x64xf32>, %tinit: tensor<8xf32>,
                      %dyn: tensor<8x?xf32>, %dinit: tensor<8xf32>,
                      %x: tensor<8x256xf32>, %xinit: tensor<8xf32>,
                      %a: tensor<1x256xf32>, %b: tensor<256x10xf32>, %c: tensor<1x10xf32>)
    -> (tensor<65536xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1x10xf32>) {
  %r0 = linalg.reduce ins(%pool : tensor<65536x49xf32>) outs(%pinit : tensor<65536xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  %r1 = linalg.reduce ins(%small : tensor<4x6xf32>) outs(%sinit : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  %r2 = linalg.reduce ins(%two : tensor<8x64x64xf32>) outs(%tinit : tensor<8xf32>) dimensions = [1, 2]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  %r3 = linalg.reduce ins(%dyn : tensor<8x?xf32>) outs(%dinit : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  %r4 = linalg.reduce ins(%x : tensor<8x256xf32>) outs(%xinit : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.subf %in, %acc : f32
      linalg.yield %0 : f32
    }
  %r5 = linalg.matmul ins(%a, %b : tensor<1x256xf32>, tensor<256x10xf32>) outs(%c : tensor<1x10xf32>) -> tensor<1x10xf32>
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<65536xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1x10xf32>
}

// -----

// A sum over the channels of NCHW activations (a softmax's): the reduced
// loop moves innermost, too short (4) to split.
// CHECK: affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
// CHECK-LABEL: func.func @channels
// CHECK: linalg.generic {indexing_maps = [#[[IN:.*]], #[[OUT:.*]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg0 : tensor<2x4x6x6xf32>) outs(%arg1 : tensor<2x6x6xf32>)
// CHECK-NOT: expand_shape
func.func @channels(%x: tensor<2x4x6x6xf32>, %init: tensor<2x6x6xf32>) -> tensor<2x6x6xf32> {
  %r = linalg.reduce ins(%x : tensor<2x4x6x6xf32>) outs(%init : tensor<2x6x6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %r : tensor<2x6x6xf32>
}

// -----

// Two sums from one filled empty tensor: each gets its own fill into its
// own alloc_tensor (CSE would merge the fills, and bufferization copy the
// one buffer for the other sum).
// CHECK-LABEL: func.func @shared_zeros
// CHECK-NOT: tensor.empty
// CHECK: %[[A:.*]] = bufferization.alloc_tensor() : tensor<2xf32>
// CHECK: %[[FA:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : tensor<2xf32>)
// CHECK: linalg.reduce ins(%arg0 : tensor<2x3xf32>) outs(%[[FA]] : tensor<2xf32>)
// CHECK: %[[B:.*]] = bufferization.alloc_tensor() : tensor<2xf32>
// CHECK: %[[FB:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[B]] : tensor<2xf32>)
// CHECK: linalg.reduce ins(%arg1 : tensor<2x3xf32>) outs(%[[FB]] : tensor<2xf32>)
func.func @shared_zeros(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %a = linalg.reduce ins(%x : tensor<2x3xf32>) outs(%f : tensor<2xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  %b = linalg.reduce ins(%y : tensor<2x3xf32>) outs(%f : tensor<2xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %a, %b : tensor<2xf32>, tensor<2xf32>
}

// BAD: error: --placer-gpu-split-reductions: threads must be positive, got 0
