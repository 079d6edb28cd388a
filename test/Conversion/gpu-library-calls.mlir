// RUN: placer-opt %s --placer-gpu-library-calls --canonicalize | FileCheck %s
// RUN: placer-opt %s --placer-gpu-library-calls="tf32=true" --canonicalize | FileCheck %s --check-prefix=TF32
// RUN: placer-opt %s --placer-gpu-library-calls="epilogues=false" --canonicalize | FileCheck %s --check-prefix=PLAIN

// Convolutions and contractions on device buffers become calls of the CUDA
// runtime: strides, padding, dilations and groups as i64, transposes,
// accumulate and TF32 as i32; products see [batch, rows, cols] views.
// An operand without the batch dimensions is read for every batch.
// Contractions the library cannot take (a strided
// view) stay linalg ops, to become kernels.

// CHECK-LABEL: func.func @conv
// CHECK: %[[X:.*]] = memref.cast %arg0 : memref<1x3x10x10xf32> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: call @placer_gpu_conv2d_f32(%[[X]], %{{.*}}, %{{.*}}, %c2_i64, %c2_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i32, %c0_i32)
// CHECK-NOT: linalg.conv
// TF32-LABEL: func.func @conv
// TF32: call @placer_gpu_conv2d_f32({{.*}}, %c1_i64, %c1_i32, %c1_i32)

// A grouped convolution calls with the NCHW buffers its views expand.
// CHECK-LABEL: func.func @grouped
// CHECK: %[[GX:.*]] = memref.cast %arg0 : memref<1x8x6x6xf32>
// CHECK: %[[GW:.*]] = memref.cast %arg1 : memref<8x1x3x3xf32>
// CHECK: %[[GY:.*]] = memref.cast %arg2 : memref<1x8x4x4xf32>
// CHECK: call @placer_gpu_conv2d_f32(%[[GX]], %[[GW]], %[[GY]], %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c8_i64, %c1_i32, %c0_i32)

// Zero padding made by a fill and a copy into the centre goes to the call
// (pad 1, 2), and the padded buffer goes; a zero-filled output is
// overwritten (accumulate 0), its fill gone.
// CHECK-LABEL: func.func @padded
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.fill
// CHECK-NOT: memref.copy
// CHECK: %[[PX:.*]] = memref.cast %arg0 : memref<1x3x8x8xf32>
// CHECK: call @placer_gpu_conv2d_f32(%[[PX]], %{{.*}}, %{{.*}}, %c1_i64, %c1_i64, %c1_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c0_i32, %c0_i32)
// CHECK-NEXT: return

// The padded copy stays when its source is overwritten before the
// convolution (the call could not read it there), or the margins differ;
// an output written between its fill and the call is accumulated into.
// CHECK-LABEL: func.func @padding_kept
// CHECK: memref.copy %arg0
// CHECK: linalg.fill
// CHECK: call @placer_gpu_conv2d_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i32, %c0_i32)
// CHECK-LABEL: func.func @asymmetric
// CHECK: memref.copy
// CHECK: call @placer_gpu_conv2d_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c1_i64, %c0_i64, %c0_i64,

// CHECK-LABEL: func.func @matmul
// CHECK: memref.expand_shape %arg0 {{\[}}[0, 1], [2]] output_shape [1, 4, 6]
// CHECK: call @placer_gpu_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %c0_i32, %c1_i32, %c0_i32)
// TF32-LABEL: func.func @matmul
// TF32: call @placer_gpu_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %c0_i32, %c1_i32, %c1_i32)

// A Linear layer's weight is read transposed: transB = 1.
// CHECK-LABEL: func.func @linear
// CHECK: call @placer_gpu_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %c1_i32, %c1_i32, %c0_i32)

// CHECK-LABEL: func.func @batched
// CHECK: memref.collapse_shape %arg0 {{\[}}[0, 1], [2], [3]] : memref<2x3x4x6xf32> into memref<6x4x6xf32>
// CHECK: call @placer_gpu_matmul_f32(

// A unit batch read at index 0 is no contraction upstream recognizes: a
// kernel.
// CHECK-LABEL: func.func @broadcast
// CHECK-NOT: call
// CHECK: linalg.generic

// A Linear layer on [batch, tokens, features]: the weight has no batch
// dimension, and gets a unit one.
// CHECK-LABEL: func.func @shared_weight
// CHECK: memref.expand_shape %arg1 {{\[}}[0, 1], [2]] output_shape [1, 6, 5]
// CHECK: call @placer_gpu_matmul_f32(
// CHECK-NOT: linalg.generic

// CHECK-LABEL: func.func @strided
// CHECK-NOT: call
// CHECK: linalg.matmul

#map_a = affine_map<(m, n, k) -> (m, k)>
#map_bt = affine_map<(m, n, k) -> (n, k)>
#map_c = affine_map<(m, n, k) -> (m, n)>
#bmap_a = affine_map<(b0, b1, m, n, k) -> (b0, b1, m, k)>
#bmap_b = affine_map<(b0, b1, m, n, k) -> (b0, b1, k, n)>
#bmap_c = affine_map<(b0, b1, m, n, k) -> (b0, b1, m, n)>
#cast_a = affine_map<(b, m, n, k) -> (0, m, k)>
#cast_b = affine_map<(b, m, n, k) -> (b, k, n)>
#cast_c = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @conv(%x: memref<1x3x10x10xf32>, %w: memref<8x3x3x3xf32>, %y: memref<1x8x4x4xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x10x10xf32>, memref<8x3x3x3xf32>) outs(%y : memref<1x8x4x4xf32>)
  return
}
func.func @grouped(%x: memref<1x8x6x6xf32>, %w: memref<8x1x3x3xf32>, %y: memref<1x8x4x4xf32>) {
  %xg = memref.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 8, 1, 6, 6] : memref<1x8x6x6xf32> into memref<1x8x1x6x6xf32>
  %wg = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [8, 1, 1, 3, 3] : memref<8x1x3x3xf32> into memref<8x1x1x3x3xf32>
  %yg = memref.expand_shape %y [[0], [1, 2], [3], [4]] output_shape [1, 8, 1, 4, 4] : memref<1x8x4x4xf32> into memref<1x8x1x4x4xf32>
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%xg, %wg : memref<1x8x1x6x6xf32>, memref<8x1x1x3x3xf32>) outs(%yg : memref<1x8x1x4x4xf32>)
  return
}
func.func @padded(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x8x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x3x10x12xf32>
  linalg.map outs(%p : memref<1x3x10x12xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %centre = memref.subview %p[0, 0, 1, 2] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x12xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  memref.copy %x, %centre : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[360, 120, 12, 1], offset: 14>>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x8x10xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x3x10x12xf32>, memref<4x3x3x3xf32>) outs(%y : memref<1x4x8x10xf32>)
  memref.dealloc %p : memref<1x3x10x12xf32>
  return
}
func.func @padding_kept(%x: memref<1x3x8x8xf32>, %w: memref<3x3x3x3xf32>, %y: memref<1x3x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x3x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x3x10x10xf32>)
  %centre = memref.subview %p[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x10xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  memref.copy %x, %centre : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  linalg.fill ins(%zero : f32) outs(%x : memref<1x3x8x8xf32>)
  linalg.fill ins(%zero : f32) outs(%y : memref<1x3x8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%y : memref<1x3x8x8xf32>) {
  ^bb0(%o: f32):
    %v = arith.addf %o, %o : f32
    linalg.yield %v : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x3x10x10xf32>, memref<3x3x3x3xf32>) outs(%y : memref<1x3x8x8xf32>)
  return
}
func.func @asymmetric(%x: memref<1x3x8x8xf32>, %w: memref<3x3x3x3xf32>, %y: memref<1x3x7x7xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x3x9x9xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x3x9x9xf32>)
  %centre = memref.subview %p[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x9x9xf32> to memref<1x3x8x8xf32, strided<[243, 81, 9, 1], offset: 10>>
  memref.copy %x, %centre : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[243, 81, 9, 1], offset: 10>>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x3x9x9xf32>, memref<3x3x3x3xf32>) outs(%y : memref<1x3x7x7xf32>)
  return
}
func.func @matmul(%a: memref<4x6xf32>, %b: memref<6x5xf32>, %c: memref<4x5xf32>) {
  linalg.matmul ins(%a, %b : memref<4x6xf32>, memref<6x5xf32>) outs(%c : memref<4x5xf32>)
  return
}
func.func @linear(%a: memref<4x6xf32>, %b: memref<5x6xf32>, %c: memref<4x5xf32>) {
  linalg.generic {indexing_maps = [#map_a, #map_bt, #map_c], iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<4x6xf32>, memref<5x6xf32>) outs(%c : memref<4x5xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %p = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @batched(%a: memref<2x3x4x6xf32>, %b: memref<2x3x6x5xf32>, %c: memref<2x3x4x5xf32>) {
  linalg.generic {indexing_maps = [#bmap_a, #bmap_b, #bmap_c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<2x3x4x6xf32>, memref<2x3x6x5xf32>) outs(%c : memref<2x3x4x5xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %p = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @broadcast(%a: memref<1x4x6xf32>, %b: memref<3x6x5xf32>, %c: memref<3x4x5xf32>) {
  linalg.generic {indexing_maps = [#cast_a, #cast_b, #cast_c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<1x4x6xf32>, memref<3x6x5xf32>) outs(%c : memref<3x4x5xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %p = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

func.func @shared_weight(%a: memref<3x4x6xf32>, %b: memref<6x5xf32>, %c: memref<3x4x5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<3x4x6xf32>, memref<6x5xf32>) outs(%c : memref<3x4x5xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %p = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @strided(%a: memref<4x6xf32, strided<[12, 1]>>, %b: memref<6x5xf32>, %c: memref<4x5xf32>) {
  linalg.matmul ins(%a, %b : memref<4x6xf32, strided<[12, 1]>>, memref<6x5xf32>) outs(%c : memref<4x5xf32>)
  return
}

// The code allocates a grouped convolution's output 5-D: the call sees it
// collapsed back to NCHW.
// CHECK-LABEL: func.func @grouped_output
// CHECK: %[[Y4:.*]] = memref.collapse_shape %arg2 {{\[}}[0], [1, 2], [3], [4]] : memref<1x8x1x4x4xf32> into memref<1x8x4x4xf32>
// CHECK: %[[CY:.*]] = memref.cast %[[Y4]]
// CHECK: call @placer_gpu_conv2d_f32(%{{.*}}, %{{.*}}, %[[CY]], %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c8_i64, %c1_i32, %c0_i32)
func.func @grouped_output(%x: memref<1x8x6x6xf32>, %w: memref<8x1x3x3xf32>, %yg: memref<1x8x1x4x4xf32>) {
  %xg = memref.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 8, 1, 6, 6] : memref<1x8x6x6xf32> into memref<1x8x1x6x6xf32>
  %wg = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [8, 1, 1, 3, 3] : memref<8x1x3x3xf32> into memref<8x1x1x3x3xf32>
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%xg, %wg : memref<1x8x1x6x6xf32>, memref<8x1x1x3x3xf32>) outs(%yg : memref<1x8x1x4x4xf32>)
  return
}

// A zero-filled product output is overwritten (accumulate 0), its fill
// gone.
// CHECK-LABEL: func.func @matmul_filled
// CHECK-NOT: linalg.fill
// CHECK: call @placer_gpu_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %c0_i32, %c0_i32, %c0_i32)
func.func @matmul_filled(%a: memref<4x6xf32>, %b: memref<6x5xf32>, %c: memref<4x5xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x5xf32>)
  linalg.matmul ins(%a, %b : memref<4x6xf32>, memref<6x5xf32>) outs(%c : memref<4x5xf32>)
  return
}

// A 1x1 convolution with unit strides is a product per image: the weight
// [K, C] read for every image, [N, C, HW] images, [N, K, HW] output; a
// zero-filled output overwritten, a biased one (filled with anything
// else) accumulated into.
// CHECK-LABEL: func.func @pointwise
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[W2:.*]] = memref.collapse_shape %arg1 {{\[}}[0], [1, 2, 3]] : memref<8x3x1x1xf32> into memref<8x3xf32>
// CHECK-DAG: %[[W3:.*]] = memref.expand_shape %[[W2]] {{\[}}[0, 1], [2]] output_shape [1, 8, 3]
// CHECK-DAG: %[[X3:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : memref<2x3x5x7xf32> into memref<2x3x35xf32>
// CHECK-DAG: %[[Y3:.*]] = memref.collapse_shape %arg2 {{\[}}[0], [1], [2, 3]] : memref<2x8x5x7xf32> into memref<2x8x35xf32>
// CHECK-DAG: %[[CW:.*]] = memref.cast %[[W3]]
// CHECK-DAG: %[[CX:.*]] = memref.cast %[[X3]]
// CHECK-DAG: %[[CY:.*]] = memref.cast %[[Y3]]
// CHECK: call @placer_gpu_matmul_f32(%[[CW]], %[[CX]], %[[CY]], %c0_i32, %c0_i32, %c0_i32, %c0_i32)
// CHECK-NOT: linalg.conv
// CHECK-LABEL: func.func @pointwise_biased
// CHECK: linalg.fill
// CHECK: call @placer_gpu_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %c0_i32, %c1_i32, %c0_i32)
func.func @pointwise(%x: memref<2x3x5x7xf32>, %w: memref<8x3x1x1xf32>, %y: memref<2x8x5x7xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<2x8x5x7xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<2x3x5x7xf32>, memref<8x3x1x1xf32>) outs(%y : memref<2x8x5x7xf32>)
  return
}
func.func @pointwise_biased(%x: memref<2x3x5x7xf32>, %w: memref<8x3x1x1xf32>, %y: memref<2x8x5x7xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%y : memref<2x8x5x7xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<2x3x5x7xf32>, memref<8x3x1x1xf32>) outs(%y : memref<2x8x5x7xf32>)
  return
}

// A strided 1x1 convolution (a downsampling shortcut) stays with cuDNN.
// CHECK-LABEL: func.func @pointwise_strided
// CHECK: call @placer_gpu_conv2d_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c2_i64, %c2_i64,
func.func @pointwise_strided(%x: memref<2x3x6x6xf32>, %w: memref<8x3x1x1xf32>, %y: memref<2x8x3x3xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : memref<2x3x6x6xf32>, memref<8x3x1x1xf32>) outs(%y : memref<2x8x3x3xf32>)
  return
}


// Epilogues: a bias, a residual add and ReLU after an overwritten
// convolution (ResNet's block end) become one fused call writing the
// generic's output (with_residual 1, then tf32); bias and ReLU alone pass
// the output as the residual, with_residual 0. ReLU6 is no step cuDNN's
// fused call has: that convolution and its generic stay.
// CHECK-LABEL: func.func @epilogues
// CHECK-DAG: %[[B:.*]] = memref.cast %arg2 : memref<8xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK-DAG: %[[R:.*]] = memref.cast %arg3 : memref<1x8x4x4xf32> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK-DAG: %[[Z:.*]] = memref.cast %arg4 : memref<1x8x4x4xf32> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: call @placer_gpu_conv2d_bias_relu_f32(%{{.*}}, %{{.*}}, %[[Z]], %[[B]], %[[R]], %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i32, %c0_i32)
// CHECK-DAG: %[[Z2:.*]] = memref.cast %arg5 : memref<1x8x4x4xf32> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: call @placer_gpu_conv2d_bias_relu_f32(%{{.*}}, %{{.*}}, %[[Z2]], %{{.*}}, %[[Z2]], {{.*}}, %c0_i32, %c0_i32)
// CHECK: call @placer_gpu_conv2d_f32(
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
// TF32-LABEL: func.func @epilogues
// TF32: call @placer_gpu_conv2d_bias_relu_f32({{.*}}, %c1_i32, %c1_i32)
// PLAIN-LABEL: func.func @epilogues
// PLAIN-NOT: placer_gpu_conv2d_bias_relu_f32
// PLAIN-COUNT-3: linalg.generic
func.func @epilogues(%x: memref<1x3x6x6xf32>, %w: memref<8x3x3x3xf32>, %b: memref<8xf32>, %r: memref<1x8x4x4xf32>, %z: memref<1x8x4x4xf32>, %z2: memref<1x8x4x4xf32>, %z3: memref<1x8x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %y = memref.alloc() : memref<1x8x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x8x4x4xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x6x6xf32>, memref<8x3x3x3xf32>) outs(%y : memref<1x8x4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %b, %r : memref<1x8x4x4xf32>, memref<8xf32>, memref<1x8x4x4xf32>) outs(%z : memref<1x8x4x4xf32>) {
  ^bb0(%v: f32, %bias: f32, %res: f32, %out: f32):
    %0 = arith.addf %v, %bias : f32
    %1 = arith.addf %0, %res : f32
    %2 = arith.maximumf %1, %zero : f32
    linalg.yield %2 : f32
  }
  memref.dealloc %y : memref<1x8x4x4xf32>
  %y2 = memref.alloc() : memref<1x8x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%y2 : memref<1x8x4x4xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x6x6xf32>, memref<8x3x3x3xf32>) outs(%y2 : memref<1x8x4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y2, %b : memref<1x8x4x4xf32>, memref<8xf32>) outs(%z2 : memref<1x8x4x4xf32>) {
  ^bb0(%v: f32, %bias: f32, %out: f32):
    %0 = arith.addf %v, %bias : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %y2 : memref<1x8x4x4xf32>
  %y3 = memref.alloc() : memref<1x8x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%y3 : memref<1x8x4x4xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x6x6xf32>, memref<8x3x3x3xf32>) outs(%y3 : memref<1x8x4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y3, %b : memref<1x8x4x4xf32>, memref<8xf32>) outs(%z3 : memref<1x8x4x4xf32>) {
  ^bb0(%v: f32, %bias: f32, %out: f32):
    %0 = arith.addf %v, %bias : f32
    %1 = arith.maximumf %0, %zero : f32
    %2 = arith.minimumf %1, %six : f32
    linalg.yield %2 : f32
  }
  memref.dealloc %y3 : memref<1x8x4x4xf32>
  return
}


// --gpu-precision: a bf16 product into an f32 accumulator calls the bf16
// GemmEx (A and B bf16, C f32); an f16 one the f16 call.
// CHECK-LABEL: func.func @matmul_bf16
// CHECK: call @placer_gpu_matmul_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %c0_i32, %c0_i32, %c0_i32) : (memref<?x?x?xbf16, {{.*}}>, memref<?x?x?xbf16, {{.*}}>, memref<?x?x?xf32, {{.*}}>, i32, i32, i32, i32) -> ()
// CHECK-LABEL: func.func @matmul_f16
// CHECK: call @placer_gpu_matmul_f16(
func.func @matmul_bf16(%a: memref<4x6xbf16>, %b: memref<6x5xbf16>, %c: memref<4x5xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x5xf32>)
  linalg.matmul ins(%a, %b : memref<4x6xbf16>, memref<6x5xbf16>) outs(%c : memref<4x5xf32>)
  return
}
func.func @matmul_f16(%a: memref<4x6xf16>, %b: memref<6x5xf16>, %c: memref<4x5xf32>) {
  linalg.matmul ins(%a, %b : memref<4x6xf16>, memref<6x5xf16>) outs(%c : memref<4x5xf32>)
  return
}

// A bf16 convolution into a zero-filled f32 accumulator that one
// elementwise op reads: cuDNN writes bf16 only, so the call gets a bf16
// buffer of its own (overwritten) and the reader widens it; its bias add
// and rounding stay. Grouped ones alike, through their views. An
// accumulator that is not zero-filled, or that two ops read, keeps the
// generated loops.
// CHECK-LABEL: func.func @conv_bf16
// CHECK-NOT: linalg.fill
// CHECK: %[[HY:.*]] = memref.alloc() : memref<1x8x4x4xbf16>
// CHECK: %[[HC:.*]] = memref.cast %[[HY]] : memref<1x8x4x4xbf16> to memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: call @placer_gpu_conv2d_bf16(%{{.*}}, %{{.*}}, %[[HC]], %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c0_i32, %c0_i32)
// CHECK: linalg.generic {{.*}} ins(%[[HY]], %arg2 : memref<1x8x4x4xbf16>, memref<8xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: bf16, %[[BIAS:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[WIDE:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT: %[[B32:.*]] = arith.extf %[[BIAS]] : bf16 to f32
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[WIDE]], %[[B32]] : f32
// CHECK: memref.dealloc %[[HY]] : memref<1x8x4x4xbf16>
// CHECK-LABEL: func.func @grouped_bf16
// CHECK: %[[GH:.*]] = memref.alloc() : memref<1x8x4x4xbf16>
// CHECK: call @placer_gpu_conv2d_bf16({{.*}}, %c8_i64, %c0_i32, %c0_i32)
// CHECK: ins(%[[GH]] : memref<1x8x4x4xbf16>)
// CHECK-LABEL: func.func @conv_bf16_kept
// CHECK-NOT: call
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.conv_2d_nchw_fchw
func.func @conv_bf16(%x: memref<1x3x6x6xbf16>, %w: memref<8x3x3x3xbf16>, %b: memref<8xbf16>, %z: memref<1x8x4x4xbf16>) {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<1x8x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x8x4x4xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x6x6xbf16>, memref<8x3x3x3xbf16>) outs(%y : memref<1x8x4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %b : memref<1x8x4x4xf32>, memref<8xbf16>) outs(%z : memref<1x8x4x4xbf16>) {
  ^bb0(%v: f32, %bias: bf16, %out: bf16):
    %0 = arith.extf %bias : bf16 to f32
    %1 = arith.addf %v, %0 : f32
    %2 = arith.truncf %1 : f32 to bf16
    linalg.yield %2 : bf16
  }
  memref.dealloc %y : memref<1x8x4x4xf32>
  return
}
func.func @grouped_bf16(%x: memref<1x8x6x6xbf16>, %w: memref<8x1x3x3xbf16>, %z: memref<1x8x4x4xbf16>) {
  %zero = arith.constant 0.0 : f32
  %xg = memref.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 8, 1, 6, 6] : memref<1x8x6x6xbf16> into memref<1x8x1x6x6xbf16>
  %wg = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [8, 1, 1, 3, 3] : memref<8x1x3x3xbf16> into memref<8x1x1x3x3xbf16>
  %y = memref.alloc() : memref<1x8x4x4xf32>
  %yg = memref.expand_shape %y [[0], [1, 2], [3], [4]] output_shape [1, 8, 1, 4, 4] : memref<1x8x4x4xf32> into memref<1x8x1x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%yg : memref<1x8x1x4x4xf32>)
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%xg, %wg : memref<1x8x1x6x6xbf16>, memref<8x1x1x3x3xbf16>) outs(%yg : memref<1x8x1x4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : memref<1x8x4x4xf32>) outs(%z : memref<1x8x4x4xbf16>) {
  ^bb0(%v: f32, %out: bf16):
    %0 = arith.truncf %v : f32 to bf16
    linalg.yield %0 : bf16
  }
  return
}
func.func @conv_bf16_kept(%x: memref<1x3x6x6xbf16>, %w: memref<8x3x3x3xbf16>, %z: memref<1x8x4x4xbf16>, %z2: memref<1x8x4x4xbf16>) {
  %y = memref.alloc() : memref<1x8x4x4xf32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x6x6xbf16>, memref<8x3x3x3xbf16>) outs(%y : memref<1x8x4x4xf32>)
  %zero = arith.constant 0.0 : f32
  %y2 = memref.alloc() : memref<1x8x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%y2 : memref<1x8x4x4xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x6x6xbf16>, memref<8x3x3x3xbf16>) outs(%y2 : memref<1x8x4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %y2 : memref<1x8x4x4xf32>, memref<1x8x4x4xf32>) outs(%z : memref<1x8x4x4xbf16>) {
  ^bb0(%v: f32, %v2: f32, %out: bf16):
    %0 = arith.addf %v, %v2 : f32
    %1 = arith.truncf %0 : f32 to bf16
    linalg.yield %1 : bf16
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y2 : memref<1x8x4x4xf32>) outs(%z2 : memref<1x8x4x4xbf16>) {
  ^bb0(%v: f32, %out: bf16):
    %0 = arith.truncf %v : f32 to bf16
    linalg.yield %0 : bf16
  }
  return
}

// The runtime functions are declared once, with C interfaces.
// CHECK: func.func private @placer_gpu_conv2d_f32({{.*}}) attributes {llvm.emit_c_interface}
// CHECK: func.func private @placer_gpu_matmul_f32({{.*}}) attributes {llvm.emit_c_interface}
// CHECK: func.func private @placer_gpu_matmul_bf16({{.*}}) attributes {llvm.emit_c_interface}
// CHECK: func.func private @placer_gpu_matmul_f16({{.*}}) attributes {llvm.emit_c_interface}
// CHECK: func.func private @placer_gpu_conv2d_bf16({{.*}}) attributes {llvm.emit_c_interface}
// CHECK: func.func private @placer_gpu_conv2d_bias_relu_f32({{.*}}) attributes {llvm.emit_c_interface}
