// RUN: placer-opt %s --placer-cpu-library-calls --canonicalize | FileCheck %s
// RUN: placer-opt %s --placer-cpu-library-calls=epilogues=false --canonicalize | FileCheck %s --check-prefix=PLAIN

// On bufferized CPU code, convolutions and products become calls of
// libplacer_rt's oneDNN functions. The matching is
// placer-gpu-library-calls' (test/Conversion/gpu-library-calls.mlir covers
// it case by case); what differs is checked here: the functions, a
// convolution's last argument (whether its weights are a model's), no TF32
// argument for products, and strided product operands copied to contiguous
// buffers rather than left to loops.

// Each distinct epilogue is a constant table of (kind, alpha, beta) steps,
// at the module's start (the cases at the end of this file).
// CHECK-DAG: memref.global "private" constant @[[RELU6:__placer_conv_epilogue[_0-9]*]] : memref<6xf32> = dense<[1.000000e+00, 0.000000e+00, 0.000000e+00, 4.000000e+00, 0.000000e+00, 6.000000e+00]>
// CHECK-DAG: memref.global "private" constant @[[SWISH:__placer_conv_epilogue[_0-9]*]] : memref<6xf32> = dense<[2.000000e+00, 0.000000e+00, 0.000000e+00, 5.000000e+00, 0.000000e+00, 0.000000e+00]>
// CHECK-DAG: memref.global "private" constant @[[LINEAR:__placer_conv_epilogue[_0-9]*]] : memref<6xf32> = dense<[3.000000e+00, 2.000000e+00, 0.000000e+00, 4.000000e+00, 0xFF800000, 1.000000e+00]>
// CHECK-DAG: memref.global "private" constant @[[SILU:__placer_conv_epilogue[_0-9]*]] : memref<6xf32> = dense<[1.000000e+00, 0.000000e+00, 0.000000e+00, 7.000000e+00, 0.000000e+00, 0.000000e+00]>
// CHECK-DAG: memref.global "private" constant @[[SIGMOID:__placer_conv_epilogue[_0-9]*]] : memref<3xf32> = dense<[6.000000e+00, 0.000000e+00, 0.000000e+00]>

// A convolution whose weights are an argument marked placer.constant (a
// model weight): constant_weights = 1; accumulate = 1 (no zero fill).
// CHECK-LABEL: func.func @conv_weight
// CHECK: %[[X:.*]] = memref.cast %arg0 : memref<1x3x10x10xf32> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: call @placer_cpu_conv2d_f32(%[[X]], %{{.*}}, %{{.*}}, %c2_i64, %c2_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i32, %c1_i32)
// CHECK-NOT: linalg.conv
func.func @conv_weight(%x: memref<1x3x10x10xf32>, %w: memref<8x3x3x3xf32> {placer.constant}, %y: memref<1x8x4x4xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x10x10xf32>, memref<8x3x3x3xf32>) outs(%y : memref<1x8x4x4xf32>)
  return
}

// Weights computed by the program (here: an unmarked argument) may change
// between calls: constant_weights = 0. Dilations go through as they are.
// CHECK-LABEL: func.func @conv_computed
// CHECK: call @placer_cpu_conv2d_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i32, %c0_i32)
func.func @conv_computed(%x: memref<1x3x10x10xf32>, %w: memref<8x3x3x3xf32>, %y: memref<1x8x6x6xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x10x10xf32>, memref<8x3x3x3xf32>) outs(%y : memref<1x8x6x6xf32>)
  return
}

// A depthwise convolution of a marked weight seen through its group view:
// constant_weights = 1, 8 groups; the zero padding and the zero fill of
// the output go to the call (pad 1, accumulate 0).
// CHECK-LABEL: func.func @depthwise_padded
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.fill
// CHECK: %[[DX:.*]] = memref.cast %arg0 : memref<1x8x6x6xf32>
// CHECK: %[[DW:.*]] = memref.cast %arg1 : memref<8x1x3x3xf32>
// CHECK: call @placer_cpu_conv2d_f32(%[[DX]], %[[DW]], %{{.*}}, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c8_i64, %c0_i32, %c1_i32)
// CHECK-NEXT: return
func.func @depthwise_padded(%x: memref<1x8x6x6xf32>, %w: memref<8x1x3x3xf32> {placer.constant}, %y: memref<1x8x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x8x8x8xf32>)
  %centre = memref.subview %p[0, 0, 1, 1] [1, 8, 6, 6] [1, 1, 1, 1] : memref<1x8x8x8xf32> to memref<1x8x6x6xf32, strided<[512, 64, 8, 1], offset: 9>>
  memref.copy %x, %centre : memref<1x8x6x6xf32> to memref<1x8x6x6xf32, strided<[512, 64, 8, 1], offset: 9>>
  %xg = memref.expand_shape %p [[0], [1, 2], [3], [4]] output_shape [1, 8, 1, 8, 8] : memref<1x8x8x8xf32> into memref<1x8x1x8x8xf32>
  %wg = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [8, 1, 1, 3, 3] : memref<8x1x3x3xf32> into memref<8x1x1x3x3xf32>
  %yg = memref.expand_shape %y [[0], [1, 2], [3], [4]] output_shape [1, 8, 1, 6, 6] : memref<1x8x6x6xf32> into memref<1x8x1x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%yg : memref<1x8x1x6x6xf32>)
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%xg, %wg : memref<1x8x1x8x8xf32>, memref<8x1x1x3x3xf32>) outs(%yg : memref<1x8x1x6x6xf32>)
  memref.dealloc %p : memref<1x8x8x8xf32>
  return
}

// An expansion that is not the group split (a 1-D convolution's, which
// also adds a unit height) is not taken for one: the 5-D buffers are
// collapsed to NCHW instead (the input's collapse folds with its
// expansion).
// CHECK-LABEL: func.func @conv1d_groups
// CHECK-DAG: %[[Y1:.*]] = memref.collapse_shape %arg2 {{\[}}[0], [1, 2], [3], [4]] : memref<1x4x1x1x4xf32> into memref<1x4x1x4xf32>
// CHECK-DAG: %[[X1:.*]] = memref.expand_shape %arg0 {{\[}}[0], [1], [2, 3]] output_shape [1, 4, 1, 6] : memref<1x4x6xf32> into memref<1x4x1x6xf32>
// CHECK: %[[CX:.*]] = memref.cast %[[X1]]
// CHECK: %[[CW:.*]] = memref.cast %arg1
// CHECK: %[[CY:.*]] = memref.cast %[[Y1]]
// CHECK: call @placer_cpu_conv2d_f32(%[[CX]], %[[CW]], %[[CY]], %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c4_i64, %c1_i32, %c0_i32)
func.func @conv1d_groups(%x: memref<1x4x6xf32>, %w: memref<4x1x1x3xf32>, %y: memref<1x4x1x1x4xf32>) {
  %xg = memref.expand_shape %x [[0], [1, 2], [3, 4]] output_shape [1, 4, 1, 1, 6] : memref<1x4x6xf32> into memref<1x4x1x1x6xf32>
  %wg = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [4, 1, 1, 1, 3] : memref<4x1x1x3xf32> into memref<4x1x1x1x3xf32>
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%xg, %wg : memref<1x4x1x1x6xf32>, memref<4x1x1x1x3xf32>) outs(%y : memref<1x4x1x1x4xf32>)
  return
}

// Products: (a, b, c, trans_a, trans_b, accumulate), no TF32 argument.
// CHECK-LABEL: func.func @linear
// CHECK: call @placer_cpu_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %c1_i32, %c0_i32) : (memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i32, i32, i32) -> ()
func.func @linear(%a: memref<4x6xf32>, %b: memref<5x6xf32>, %c: memref<4x5xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x5xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<4x6xf32>, memref<5x6xf32>) outs(%c : memref<4x5xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %p = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// A strided view (a slice of a fused projection) is copied into a
// contiguous buffer before the call; a strided output is copied in, and
// back after the call. Both copies are freed.
// CHECK-LABEL: func.func @strided
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x6xf32>
// CHECK: memref.copy %arg0, %[[A]]
// CHECK: %[[C:.*]] = memref.alloc() : memref<4x5xf32>
// CHECK: memref.copy %arg2, %[[C]]
// CHECK: call @placer_cpu_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %c0_i32, %c1_i32)
// CHECK: memref.copy %[[C]], %arg2
// CHECK-DAG: memref.dealloc %[[C]]
// CHECK-DAG: memref.dealloc %[[A]]
// CHECK-NOT: linalg.matmul
func.func @strided(%a: memref<4x6xf32, strided<[12, 1]>>, %b: memref<6x5xf32>, %c: memref<4x5xf32, strided<[10, 1], offset: 2>>) {
  linalg.matmul ins(%a, %b : memref<4x6xf32, strided<[12, 1]>>, memref<6x5xf32>) outs(%c : memref<4x5xf32, strided<[10, 1], offset: 2>>)
  return
}

// A 1x1 convolution with unit strides is a product per image, no
// reorders around it.
// CHECK-LABEL: func.func @pointwise
// CHECK: call @placer_cpu_matmul_f32(
// CHECK-NOT: placer_cpu_conv2d_f32
func.func @pointwise(%x: memref<2x8x5x5xf32>, %w: memref<4x8x1x1xf32> {placer.constant}, %y: memref<2x4x5x5xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<2x8x5x5xf32>, memref<4x8x1x1xf32>) outs(%y : memref<2x4x5x5xf32>)
  return
}

// Other element types stay linalg ops (loops).
// CHECK-LABEL: func.func @f64
// CHECK-NOT: call
// CHECK: linalg.matmul
func.func @f64(%a: memref<4x6xf64>, %b: memref<6x5xf64>, %c: memref<4x5xf64>) {
  linalg.matmul ins(%a, %b : memref<4x6xf64>, memref<6x5xf64>) outs(%c : memref<4x5xf64>)
  return
}


// Channels-last convolutions (placer-channels-last's): the NHWC buffers go
// to the call as N C H W views of themselves (memref.transpose), which
// oneDNN reads as NHWC; a weight's transposed copy is read where it came
// from (a model weight: constant_weights = 1) and the copy goes; the zero
// padding of an NHWC input (margins on dimensions 1 and 2) goes to the
// call.
// CHECK-LABEL: func.func @nhwc_padded
// CHECK-NOT: linalg.transpose
// CHECK-NOT: memref.copy
// CHECK: %[[NX:.*]] = memref.transpose %arg0 (d0, d1, d2, d3) -> (d0, d3, d1, d2) : memref<1x6x6x4xf32> to memref<1x4x6x6xf32, strided<[144, 1, 24, 4]>>
// CHECK: %[[NY:.*]] = memref.transpose %arg2 (d0, d1, d2, d3) -> (d0, d3, d1, d2) : memref<1x6x6x8xf32> to memref<1x8x6x6xf32, strided<[288, 1, 48, 8]>>
// CHECK: %[[CX:.*]] = memref.cast %[[NX]]
// CHECK: %[[CW:.*]] = memref.cast %arg1 : memref<8x4x3x3xf32>
// CHECK: %[[CY:.*]] = memref.cast %[[NY]]
// CHECK: call @placer_cpu_conv2d_f32(%[[CX]], %[[CW]], %[[CY]], %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c0_i32, %c1_i32)
// CHECK-NEXT: return
func.func @nhwc_padded(%x: memref<1x6x6x4xf32>, %w: memref<8x4x3x3xf32> {placer.constant}, %y: memref<1x6x6x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x8x8x4xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x8x8x4xf32>)
  %centre = memref.subview %p[0, 1, 1, 0] [1, 6, 6, 4] [1, 1, 1, 1] : memref<1x8x8x4xf32> to memref<1x6x6x4xf32, strided<[256, 32, 4, 1], offset: 36>>
  memref.copy %x, %centre : memref<1x6x6x4xf32> to memref<1x6x6x4xf32, strided<[256, 32, 4, 1], offset: 36>>
  %wt = memref.alloc() : memref<8x3x3x4xf32>
  linalg.transpose ins(%w : memref<8x4x3x3xf32>) outs(%wt : memref<8x3x3x4xf32>) permutation = [0, 2, 3, 1]
  linalg.fill ins(%zero : f32) outs(%y : memref<1x6x6x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %wt : memref<1x8x8x4xf32>, memref<8x3x3x4xf32>) outs(%y : memref<1x6x6x8xf32>)
  memref.dealloc %wt : memref<8x3x3x4xf32>
  memref.dealloc %p : memref<1x8x8x4xf32>
  return
}

// The model's input transposed to NHWC is read as it was (NCHW: oneDNN
// reorders it); a weight copy that two convolutions read is read through
// by both, and goes once neither reads it.
// CHECK-LABEL: func.func @nhwc_shared_weight
// CHECK-NOT: linalg.transpose
// CHECK: %[[IN:.*]] = memref.cast %arg0 : memref<1x3x5x5xf32>
// CHECK: call @placer_cpu_conv2d_f32(%[[IN]], %{{.*}}, %{{.*}}, %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i32, %c0_i32)
// CHECK: call @placer_cpu_conv2d_f32(
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @nhwc_shared_weight(%x: memref<1x3x5x5xf32>, %w: memref<2x3x1x1xf32>, %y: memref<1x5x5x2xf32>, %z: memref<1x5x5x2xf32>) {
  %xt = memref.alloc() : memref<1x5x5x3xf32>
  linalg.transpose ins(%x : memref<1x3x5x5xf32>) outs(%xt : memref<1x5x5x3xf32>) permutation = [0, 2, 3, 1]
  %wt = memref.alloc() : memref<2x1x1x3xf32>
  linalg.transpose ins(%w : memref<2x3x1x1xf32>) outs(%wt : memref<2x1x1x3xf32>) permutation = [0, 2, 3, 1]
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%xt, %wt : memref<1x5x5x3xf32>, memref<2x1x1x3xf32>) outs(%y : memref<1x5x5x2xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%xt, %wt : memref<1x5x5x3xf32>, memref<2x1x1x3xf32>) outs(%z : memref<1x5x5x2xf32>)
  memref.dealloc %wt : memref<2x1x1x3xf32>
  memref.dealloc %xt : memref<1x5x5x3xf32>
  return
}

// A channels-last depthwise convolution: N H W (G C) and (G F) C KH KW
// from the group views, 8 groups.
// CHECK-LABEL: func.func @nhwc_depthwise
// CHECK: %[[DX:.*]] = memref.transpose %arg0 (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK: %[[DY:.*]] = memref.transpose %arg2 (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK: %[[DWC:.*]] = memref.cast %arg1 : memref<8x1x3x3xf32>
// CHECK: call @placer_cpu_conv2d_f32(%{{.*}}, %[[DWC]], %{{.*}}, %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c8_i64, %c1_i32, %c1_i32)
func.func @nhwc_depthwise(%x: memref<1x6x6x8xf32>, %w: memref<8x1x3x3xf32> {placer.constant}, %y: memref<1x4x4x8xf32>) {
  %xg = memref.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [1, 6, 6, 8, 1] : memref<1x6x6x8xf32> into memref<1x6x6x8x1xf32>
  %wg = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [8, 1, 1, 3, 3] : memref<8x1x3x3xf32> into memref<8x1x1x3x3xf32>
  %wt = memref.alloc() : memref<8x1x3x3x1xf32>
  linalg.transpose ins(%wg : memref<8x1x1x3x3xf32>) outs(%wt : memref<8x1x3x3x1xf32>) permutation = [0, 1, 3, 4, 2]
  %yg = memref.expand_shape %y [[0], [1], [2], [3, 4]] output_shape [1, 4, 4, 8, 1] : memref<1x4x4x8xf32> into memref<1x4x4x8x1xf32>
  linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%xg, %wt : memref<1x6x6x8x1xf32>, memref<8x1x3x3x1xf32>) outs(%yg : memref<1x4x4x8x1xf32>)
  memref.dealloc %wt : memref<8x1x3x3x1xf32>
  return
}

// Weights that are no transposed copy stay a linalg op (loops).
// CHECK-LABEL: func.func @nhwc_plain_weights
// CHECK-NOT: call
// CHECK: linalg.conv_2d_nhwc_fhwc
func.func @nhwc_plain_weights(%x: memref<1x5x5x3xf32>, %w: memref<2x1x1x3xf32>, %y: memref<1x5x5x2xf32>) {
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x5x5x3xf32>, memref<2x1x1x3xf32>) outs(%y : memref<1x5x5x2xf32>)
  return
}

// Epilogues: the elementwise op that alone reads an overwritten
// convolution output goes into the call, which writes that op's output
// (%arg3); the intermediate buffer and the op go. Steps are (kind, alpha,
// beta): bias (1), clamp to [0, 6] (4).
// CHECK-LABEL: func.func @epilogue_bias_relu6
// CHECK-NOT: memref.alloc
// CHECK-DAG: %[[TABLE:.*]] = memref.get_global @[[RELU6]]
// CHECK-DAG: %[[STEPS:.*]] = memref.cast %[[TABLE]] : memref<6xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK-DAG: %[[BIAS:.*]] = memref.cast %arg2 : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK-DAG: %[[OUT:.*]] = memref.transpose %arg3 (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[Y:.*]] = memref.cast %[[OUT]]
// CHECK: call @placer_cpu_conv2d_epilogue_f32(%{{.*}}, %{{.*}}, %[[Y]], %[[BIAS]], %[[Y]], %[[STEPS]], %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i32)
// CHECK-NOT: linalg.generic
// CHECK: return
// Without epilogues, the call writes the intermediate buffer and the op
// stays.
// PLAIN-LABEL: func.func @epilogue_bias_relu6
// PLAIN: memref.alloc() : memref<1x4x4x16xf32>
// PLAIN: call @placer_cpu_conv2d_f32(
// PLAIN: linalg.generic
// PLAIN-NOT: placer_cpu_conv2d_epilogue_f32
func.func @epilogue_bias_relu6(%x: memref<1x4x4x8xf32>, %w: memref<16x8x1x1xf32> {placer.constant}, %b: memref<16xf32>, %z: memref<1x4x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %wt = memref.alloc() : memref<16x1x1x8xf32>
  linalg.transpose ins(%w : memref<16x8x1x1xf32>) outs(%wt : memref<16x1x1x8xf32>) permutation = [0, 2, 3, 1]
  %y = memref.alloc() : memref<1x4x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x16xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wt : memref<1x4x4x8xf32>, memref<16x1x1x8xf32>) outs(%y : memref<1x4x4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %b : memref<1x4x4x16xf32>, memref<16xf32>) outs(%z : memref<1x4x4x16xf32>) {
  ^bb0(%v: f32, %bias: f32, %out: f32):
    %0 = arith.addf %v, %bias : f32
    %1 = arith.maximumf %0, %zero : f32
    %2 = arith.minimumf %1, %six : f32
    linalg.yield %2 : f32
  }
  memref.dealloc %y : memref<1x4x4x16xf32>
  memref.dealloc %wt : memref<16x1x1x8xf32>
  return
}

// A residual (2, passed as the same N C H W view as the output) and
// HardSwish's five ops (5); no bias, so the table stands in for it.
// CHECK-LABEL: func.func @epilogue_residual_hardswish
// CHECK-DAG: %[[TABLE:.*]] = memref.get_global @[[SWISH]]
// CHECK-DAG: %[[STEPS:.*]] = memref.cast %[[TABLE]]
// CHECK-DAG: %[[RT:.*]] = memref.transpose %arg2 (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[R:.*]] = memref.cast %[[RT]]
// CHECK: call @placer_cpu_conv2d_epilogue_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[STEPS]], %[[R]], %[[STEPS]],
// CHECK-NOT: linalg.generic
func.func @epilogue_residual_hardswish(%x: memref<1x4x4x8xf32>, %w: memref<16x8x1x1xf32>, %r: memref<1x4x4x16xf32>, %z: memref<1x4x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %sixth = arith.constant 0.166666672 : f32
  %wt = memref.alloc() : memref<16x1x1x8xf32>
  linalg.transpose ins(%w : memref<16x8x1x1xf32>) outs(%wt : memref<16x1x1x8xf32>) permutation = [0, 2, 3, 1]
  %y = memref.alloc() : memref<1x4x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x16xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wt : memref<1x4x4x8xf32>, memref<16x1x1x8xf32>) outs(%y : memref<1x4x4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %y : memref<1x4x4x16xf32>, memref<1x4x4x16xf32>) outs(%z : memref<1x4x4x16xf32>) {
  ^bb0(%res: f32, %v: f32, %out: f32):
    %s = arith.addf %v, %res : f32
    %0 = arith.mulf %s, %sixth : f32
    %1 = arith.addf %0, %half : f32
    %2 = arith.maximumf %1, %zero : f32
    %3 = arith.minimumf %2, %one : f32
    %4 = arith.mulf %s, %3 : f32
    linalg.yield %4 : f32
  }
  memref.dealloc %y : memref<1x4x4x16xf32>
  memref.dealloc %wt : memref<16x1x1x8xf32>
  return
}

// A scale (3: x * 2 + 0), the constant on either side, and a clamp from
// above alone (4: from -inf to 1).
// CHECK-LABEL: func.func @epilogue_linear_min
// CHECK: memref.get_global @[[LINEAR]]
// CHECK: call @placer_cpu_conv2d_epilogue_f32(
func.func @epilogue_linear_min(%x: memref<1x4x4x8xf32>, %w: memref<16x8x1x1xf32>, %z: memref<1x4x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %wt = memref.alloc() : memref<16x1x1x8xf32>
  linalg.transpose ins(%w : memref<16x8x1x1xf32>) outs(%wt : memref<16x1x1x8xf32>) permutation = [0, 2, 3, 1]
  %y = memref.alloc() : memref<1x4x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x16xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wt : memref<1x4x4x8xf32>, memref<16x1x1x8xf32>) outs(%y : memref<1x4x4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : memref<1x4x4x16xf32>) outs(%z : memref<1x4x4x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %0 = arith.mulf %two, %v : f32
    %1 = arith.minimumf %0, %one : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %y : memref<1x4x4x16xf32>
  memref.dealloc %wt : memref<16x1x1x8xf32>
  return
}

// SiLU after a bias (EfficientNet's: the sigmoid's four ops and the
// product, 7), and a lone sigmoid (6), each one step.
// CHECK-LABEL: func.func @epilogue_silu
// CHECK: memref.get_global @[[SILU]]
// CHECK: call @placer_cpu_conv2d_epilogue_f32(
// CHECK: memref.get_global @[[SIGMOID]]
// CHECK: call @placer_cpu_conv2d_epilogue_f32(
// CHECK-NOT: linalg.generic
func.func @epilogue_silu(%x: memref<1x4x4x8xf32>, %w: memref<16x8x1x1xf32>, %b: memref<16xf32>, %z: memref<1x4x4x16xf32>, %z2: memref<1x4x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %wt = memref.alloc() : memref<16x1x1x8xf32>
  linalg.transpose ins(%w : memref<16x8x1x1xf32>) outs(%wt : memref<16x1x1x8xf32>) permutation = [0, 2, 3, 1]
  %y = memref.alloc() : memref<1x4x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x16xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wt : memref<1x4x4x8xf32>, memref<16x1x1x8xf32>) outs(%y : memref<1x4x4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %b : memref<1x4x4x16xf32>, memref<16xf32>) outs(%z : memref<1x4x4x16xf32>) {
  ^bb0(%v: f32, %bias: f32, %out: f32):
    %0 = arith.addf %v, %bias : f32
    %1 = arith.negf %0 : f32
    %2 = math.exp %1 : f32
    %3 = arith.addf %2, %one : f32
    %4 = arith.divf %one, %3 : f32
    %5 = arith.mulf %0, %4 : f32
    linalg.yield %5 : f32
  }
  memref.dealloc %y : memref<1x4x4x16xf32>
  %y2 = memref.alloc() : memref<1x4x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%y2 : memref<1x4x4x16xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wt : memref<1x4x4x8xf32>, memref<16x1x1x8xf32>) outs(%y2 : memref<1x4x4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y2 : memref<1x4x4x16xf32>) outs(%z2 : memref<1x4x4x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %1 = arith.negf %v : f32
    %2 = math.exp %1 : f32
    %3 = arith.addf %one, %2 : f32
    %4 = arith.divf %one, %3 : f32
    linalg.yield %4 : f32
  }
  memref.dealloc %y2 : memref<1x4x4x16xf32>
  memref.dealloc %wt : memref<16x1x1x8xf32>
  return
}

// Not a sigmoid: exp(-v) + 2 (a step no table holds), and x * sigmoid(x)
// whose product reads the conv's output before the bias: both stay loops.
// CHECK-LABEL: func.func @epilogue_not_silu
// CHECK-COUNT-2: call @placer_cpu_conv2d_f32(
// CHECK-NOT: placer_cpu_conv2d_epilogue_f32
func.func @epilogue_not_silu(%x: memref<1x4x4x8xf32>, %w: memref<16x8x1x1xf32>, %b: memref<16xf32>, %z: memref<1x4x4x16xf32>, %z2: memref<1x4x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %wt = memref.alloc() : memref<16x1x1x8xf32>
  linalg.transpose ins(%w : memref<16x8x1x1xf32>) outs(%wt : memref<16x1x1x8xf32>) permutation = [0, 2, 3, 1]
  %y = memref.alloc() : memref<1x4x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x16xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wt : memref<1x4x4x8xf32>, memref<16x1x1x8xf32>) outs(%y : memref<1x4x4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : memref<1x4x4x16xf32>) outs(%z : memref<1x4x4x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %1 = arith.negf %v : f32
    %2 = math.exp %1 : f32
    %3 = arith.addf %2, %two : f32
    %4 = arith.divf %one, %3 : f32
    linalg.yield %4 : f32
  }
  memref.dealloc %y : memref<1x4x4x16xf32>
  %y2 = memref.alloc() : memref<1x4x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%y2 : memref<1x4x4x16xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wt : memref<1x4x4x8xf32>, memref<16x1x1x8xf32>) outs(%y2 : memref<1x4x4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y2, %b : memref<1x4x4x16xf32>, memref<16xf32>) outs(%z2 : memref<1x4x4x16xf32>) {
  ^bb0(%v: f32, %bias: f32, %out: f32):
    %0 = arith.addf %v, %bias : f32
    %1 = arith.negf %0 : f32
    %2 = math.exp %1 : f32
    %3 = arith.addf %2, %one : f32
    %4 = arith.divf %one, %3 : f32
    %5 = arith.mulf %v, %4 : f32
    linalg.yield %5 : f32
  }
  memref.dealloc %y2 : memref<1x4x4x16xf32>
  memref.dealloc %wt : memref<16x1x1x8xf32>
  return
}

// Buffers are freed after their last reader (optimize-allocation-liveness
// runs before this pass): a call that reads a buffer later than the code
// did (the input of a convolution moved to its epilogue, the source of a
// padded copy) moves its free past itself.
// CHECK-LABEL: func.func @frees_move_past_calls
// CHECK: %[[S:.*]] = memref.alloc() {{.*}} : memref<1x4x4x8xf32>
// CHECK: call @placer_cpu_conv2d_f32(
// CHECK-NEXT: memref.dealloc %[[S]]
// CHECK: call @placer_cpu_conv2d_epilogue_f32(
// CHECK-NEXT: memref.dealloc %[[X:.*]] : memref<1x4x4x16xf32>
// CHECK-NOT: memref.dealloc %[[X]]
func.func @frees_move_past_calls(%w: memref<16x8x3x3xf32>, %v: memref<16x16x1x1xf32>, %z: memref<1x4x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %s = memref.alloc() {alignment = 64 : i64} : memref<1x4x4x8xf32>
  linalg.fill ins(%one : f32) outs(%s : memref<1x4x4x8xf32>)
  %p = memref.alloc() : memref<1x6x6x8xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x6x6x8xf32>)
  %centre = memref.subview %p[0, 1, 1, 0] [1, 4, 4, 8] [1, 1, 1, 1] : memref<1x6x6x8xf32> to memref<1x4x4x8xf32, strided<[288, 48, 8, 1], offset: 56>>
  memref.copy %s, %centre : memref<1x4x4x8xf32> to memref<1x4x4x8xf32, strided<[288, 48, 8, 1], offset: 56>>
  memref.dealloc %s : memref<1x4x4x8xf32>
  %wt = memref.alloc() : memref<16x3x3x8xf32>
  linalg.transpose ins(%w : memref<16x8x3x3xf32>) outs(%wt : memref<16x3x3x8xf32>) permutation = [0, 2, 3, 1]
  %x = memref.alloc() {alignment = 64 : i64} : memref<1x4x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%x : memref<1x4x4x16xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %wt : memref<1x6x6x8xf32>, memref<16x3x3x8xf32>) outs(%x : memref<1x4x4x16xf32>)
  memref.dealloc %p : memref<1x6x6x8xf32>
  memref.dealloc %wt : memref<16x3x3x8xf32>
  %vt = memref.alloc() : memref<16x1x1x16xf32>
  linalg.transpose ins(%v : memref<16x16x1x1xf32>) outs(%vt : memref<16x1x1x16xf32>) permutation = [0, 2, 3, 1]
  %y = memref.alloc() : memref<1x4x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x16xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %vt : memref<1x4x4x16xf32>, memref<16x1x1x16xf32>) outs(%y : memref<1x4x4x16xf32>)
  memref.dealloc %x : memref<1x4x4x16xf32>
  memref.dealloc %vt : memref<16x1x1x16xf32>
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : memref<1x4x4x16xf32>) outs(%z : memref<1x4x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %y : memref<1x4x4x16xf32>
  return
}

// No epilogue: an op with no step (a division), an output another op
// reads too, an output accumulated into (no zero fill).
// CHECK-LABEL: func.func @epilogue_refused
// CHECK-COUNT-3: call @placer_cpu_conv2d_f32(
// CHECK-NOT: placer_cpu_conv2d_epilogue_f32
func.func @epilogue_refused(%x: memref<1x4x4x8xf32>, %w: memref<16x8x1x1xf32>, %z: memref<1x4x4x16xf32>, %z2: memref<1x4x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %wt = memref.alloc() : memref<16x1x1x8xf32>
  linalg.transpose ins(%w : memref<16x8x1x1xf32>) outs(%wt : memref<16x1x1x8xf32>) permutation = [0, 2, 3, 1]
  %y = memref.alloc() : memref<1x4x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x16xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wt : memref<1x4x4x8xf32>, memref<16x1x1x8xf32>) outs(%y : memref<1x4x4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : memref<1x4x4x16xf32>) outs(%z : memref<1x4x4x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %0 = arith.divf %v, %two : f32
    linalg.yield %0 : f32
  }
  %y2 = memref.alloc() : memref<1x4x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%y2 : memref<1x4x4x16xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wt : memref<1x4x4x8xf32>, memref<16x1x1x8xf32>) outs(%y2 : memref<1x4x4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y2 : memref<1x4x4x16xf32>) outs(%z : memref<1x4x4x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %0 = arith.mulf %v, %two : f32
    linalg.yield %0 : f32
  }
  memref.copy %y2, %z2 : memref<1x4x4x16xf32> to memref<1x4x4x16xf32>
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wt : memref<1x4x4x8xf32>, memref<16x1x1x8xf32>) outs(%z2 : memref<1x4x4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%z2 : memref<1x4x4x16xf32>) outs(%z : memref<1x4x4x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %0 = arith.mulf %v, %two : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %y : memref<1x4x4x16xf32>
  memref.dealloc %y2 : memref<1x4x4x16xf32>
  memref.dealloc %wt : memref<16x1x1x8xf32>
  return
}

// CHECK-LABEL: func.func private @placer_cpu_conv2d_f32(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i32, i32) attributes {llvm.emit_c_interface}
