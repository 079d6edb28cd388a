// RUN: placer-opt %s --placer-channels-last --canonicalize --cse | FileCheck %s

// Convolutions become NHWC convolutions between transposes, and the
// transposes move through elementwise ops, zero padding and group
// reshapes until they cancel: between two convolutions nothing is
// transposed, only the weights, the model's input and what reaches an op
// that needs NCHW.

// conv -> bias + ReLU -> zero padding -> conv: the bias reads its channel
// through the permutation (d3), the padding pads H and W of the NHWC
// tensor, the result is transposed back once, at the end.
// CHECK-LABEL: func.func @chain
// CHECK-DAG: %[[X:.*]] = linalg.transpose ins(%arg0 : tensor<1x3x8x8xf32>) outs(%{{.*}} : tensor<1x8x8x3xf32>) permutation = [0, 2, 3, 1]
// CHECK-DAG: %[[W1:.*]] = linalg.transpose ins(%arg1 : tensor<4x3x1x1xf32>) outs(%{{.*}} : tensor<4x1x1x3xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[C1:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%[[X]], %[[W1]] : tensor<1x8x8x3xf32>, tensor<4x1x1x3xf32>) outs(%{{.*}} : tensor<1x8x8x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID:.*]], #[[CH:.*]], #[[ID]]], {{.*}} ins(%[[C1]], %arg2 : tensor<1x8x8x4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<1x8x8x4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x8x4xf32>)
// CHECK: %[[P:.*]] = tensor.pad %[[R]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[C2:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%[[P]], %{{.*}} : tensor<1x10x10x4xf32>, tensor<4x3x3x4xf32>) outs(%{{.*}} : tensor<1x8x8x4xf32>)
// CHECK: %[[OUT:.*]] = linalg.transpose ins(%[[C2]] : tensor<1x8x8x4xf32>) outs(%{{.*}} : tensor<1x4x8x8xf32>) permutation = [0, 3, 1, 2]
// CHECK: return %[[OUT]]
// CHECK-NOT: linalg.transpose
func.func @chain(%x: tensor<1x3x8x8xf32>, %w1: tensor<4x3x1x1xf32>, %b: tensor<4xf32>, %w2: tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %biased = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1, %b : tensor<1x4x8x8xf32>, tensor<4xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x8xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%biased : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %padded = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %w2 : tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %c2 : tensor<1x4x8x8xf32>
}

// A residual add of two transposed tensors runs NHWC; an elementwise op
// with an NCHW operand that is not transposed keeps its layout (the
// transpose stays before it).
// CHECK-LABEL: func.func @residual
// CHECK: %[[A:.*]] = linalg.conv_2d_nhwc_fhwc
// CHECK: %[[B:.*]] = linalg.conv_2d_nhwc_fhwc
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) outs(%{{.*}} : tensor<1x4x4x2xf32>)
// CHECK: %[[BACK:.*]] = linalg.transpose ins(%[[SUM]] : tensor<1x4x4x2xf32>) outs(%{{.*}} : tensor<1x2x4x4xf32>) permutation = [0, 3, 1, 2]
// CHECK: linalg.generic {{.*}} ins(%[[BACK]], %arg3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%{{.*}} : tensor<1x2x4x4xf32>)
func.func @residual(%x: tensor<1x3x4x4xf32>, %w1: tensor<2x3x1x1xf32>, %w2: tensor<2x3x1x1xf32>, %other: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) outs(%f : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w2 : tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) outs(%f : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%l: f32, %r: f32, %out: f32):
    %s = arith.addf %l, %r : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  %mixed = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum, %other : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%l: f32, %r: f32, %out: f32):
    %s = arith.mulf %l, %r : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  return %mixed : tensor<1x2x4x4xf32>
}

// A depthwise convolution (groups of one channel) runs as
// conv_2d_nhwgc_gfhwc: its input's group split moves through the
// transpose (expand of the NHWC tensor), its output's merge too (collapse),
// so the following convolution reads NHWC directly.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_fhwc
// CHECK: %[[XG:.*]] = tensor.expand_shape %[[C]] {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 6, 6, 4, 1] : tensor<1x6x6x4xf32> into tensor<1x6x6x4x1xf32>
// CHECK: %[[WG:.*]] = linalg.transpose ins(%{{.*}} : tensor<4x1x1x3x3xf32>) outs(%{{.*}} : tensor<4x1x3x3x1xf32>) permutation = [0, 1, 3, 4, 2]
// CHECK: %[[D:.*]] = linalg.conv_2d_nhwgc_gfhwc {{.*}} ins(%[[XG]], %[[WG]] : tensor<1x6x6x4x1xf32>, tensor<4x1x3x3x1xf32>) outs(%{{.*}} : tensor<1x4x4x4x1xf32>)
// CHECK: %[[Y:.*]] = tensor.collapse_shape %[[D]] {{\[}}[0], [1], [2], [3, 4]] : tensor<1x4x4x4x1xf32> into tensor<1x4x4x4xf32>
// CHECK: linalg.transpose ins(%[[Y]] : tensor<1x4x4x4xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>) permutation = [0, 3, 1, 2]
func.func @depthwise(%x: tensor<1x3x6x6xf32>, %w: tensor<4x3x1x1xf32>, %dw: tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x3x6x6xf32>, tensor<4x3x1x1xf32>) outs(%f : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %xg = tensor.expand_shape %c [[0], [1, 2], [3], [4]] output_shape [1, 4, 1, 6, 6] : tensor<1x4x6x6xf32> into tensor<1x4x1x6x6xf32>
  %wg = tensor.expand_shape %dw [[0, 1], [2], [3], [4]] output_shape [4, 1, 1, 3, 3] : tensor<4x1x3x3xf32> into tensor<4x1x1x3x3xf32>
  %ge = tensor.empty() : tensor<1x4x1x4x4xf32>
  %gf = linalg.fill ins(%zero : f32) outs(%ge : tensor<1x4x1x4x4xf32>) -> tensor<1x4x1x4x4xf32>
  %d = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xg, %wg : tensor<1x4x1x6x6xf32>, tensor<4x1x1x3x3xf32>) outs(%gf : tensor<1x4x1x4x4xf32>) -> tensor<1x4x1x4x4xf32>
  %y = tensor.collapse_shape %d [[0], [1, 2], [3], [4]] : tensor<1x4x1x4x4xf32> into tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// Other element types and dynamic shapes keep their NCHW convolutions.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: linalg.transpose
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.conv_2d_nchw_fchw
func.func @untouched(%x: tensor<1x3x4x4xf64>, %w: tensor<2x3x1x1xf64>, %o: tensor<1x2x4x4xf64>, %xd: tensor<?x3x4x4xf32>, %wd: tensor<2x3x1x1xf32>, %od: tensor<?x2x4x4xf32>) -> (tensor<1x2x4x4xf64>, tensor<?x2x4x4xf32>) {
  %a = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x3x4x4xf64>, tensor<2x3x1x1xf64>) outs(%o : tensor<1x2x4x4xf64>) -> tensor<1x2x4x4xf64>
  %b = linalg.conv_2d_nchw_fchw ins(%xd, %wd : tensor<?x3x4x4xf32>, tensor<2x3x1x1xf32>) outs(%od : tensor<?x2x4x4xf32>) -> tensor<?x2x4x4xf32>
  return %a, %b : tensor<1x2x4x4xf64>, tensor<?x2x4x4xf32>
}

// Max pooling runs NHWC like a convolution (its window as it is), and a
// concatenation (insert_slice of transposed tensors into an empty one)
// moves its transposes out: conv -> pool -> concat with another conv's
// output stays NHWC, offsets along the channel dimension now 3.
// CHECK-LABEL: func.func @pool_concat
// CHECK: %[[A:.*]] = linalg.conv_2d_nhwc_fhwc
// CHECK: %[[P:.*]] = linalg.pooling_nhwc_max {{.*}} ins(%[[A]], %{{.*}} : tensor<1x4x4x2xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x2x2x2xf32>)
// CHECK: %[[B:.*]] = linalg.conv_2d_nhwc_fhwc
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[P]] into %{{.*}}[0, 0, 0, 0] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<1x2x2x2xf32> into tensor<1x2x2x4xf32>
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[B]] into %[[I1]][0, 0, 0, 2] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<1x2x2x2xf32> into tensor<1x2x2x4xf32>
// CHECK: linalg.transpose ins(%[[I2]] : tensor<1x2x2x4xf32>) outs(%{{.*}} : tensor<1x4x2x2xf32>) permutation = [0, 3, 1, 2]
func.func @pool_concat(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %x2: tensor<1x3x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -3.4e38 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) outs(%f : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %pe = tensor.empty() : tensor<1x2x2x2xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%a, %window : tensor<1x2x4x4xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %be = tensor.empty() : tensor<1x2x2x2xf32>
  %bf = linalg.fill ins(%zero : f32) outs(%be : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x2, %w : tensor<1x3x2x2xf32>, tensor<2x3x1x1xf32>) outs(%bf : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %cat = tensor.empty() : tensor<1x4x2x2xf32>
  %i1 = tensor.insert_slice %p into %cat[0, 0, 0, 0] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<1x2x2x2xf32> into tensor<1x4x2x2xf32>
  %i2 = tensor.insert_slice %b into %i1[0, 2, 0, 0] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<1x2x2x2xf32> into tensor<1x4x2x2xf32>
  return %i2 : tensor<1x4x2x2xf32>
}

// A global average pool's sum over H and W reads the NHWC convolution
// output where it is (dimensions [1, 2]); its N C result needs no
// transpose. A sum over C and H keeps N W in order too; one over N and H
// keeps C W, which NHWC's reduction (over its dimensions 0 and 1) gives
// as W C: that small result is transposed.
// CHECK-LABEL: func.func @reductions
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_fhwc
// CHECK-NOT: linalg.transpose ins(%[[C]]
// CHECK: linalg.reduce ins(%[[C]] : tensor<1x4x4x2xf32>) outs(%{{.*}} : tensor<1x2xf32>) dimensions = [1, 2]
// CHECK: linalg.reduce ins(%[[C]] : tensor<1x4x4x2xf32>) outs(%{{.*}} : tensor<1x4xf32>) dimensions = [1, 3]
// CHECK: %[[HC:.*]] = linalg.reduce ins(%[[C]] : tensor<1x4x4x2xf32>) outs(%{{.*}} : tensor<4x2xf32>) dimensions = [0, 1]
// CHECK: linalg.transpose ins(%[[HC]] : tensor<4x2xf32>) outs(%{{.*}} : tensor<2x4xf32>) permutation = [1, 0]
func.func @reductions(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>) -> (tensor<1x2xf32>, tensor<1x4xf32>, tensor<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) outs(%f : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %re = tensor.empty() : tensor<1x2xf32>
  %rf = linalg.fill ins(%zero : f32) outs(%re : tensor<1x2xf32>) -> tensor<1x2xf32>
  %sum = linalg.reduce ins(%a : tensor<1x2x4x4xf32>) outs(%rf : tensor<1x2xf32>) dimensions = [2, 3]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %we = tensor.empty() : tensor<1x4xf32>
  %wf = linalg.fill ins(%zero : f32) outs(%we : tensor<1x4xf32>) -> tensor<1x4xf32>
  %byw = linalg.reduce ins(%a : tensor<1x2x4x4xf32>) outs(%wf : tensor<1x4xf32>) dimensions = [1, 2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %ce = tensor.empty() : tensor<2x4xf32>
  %cf = linalg.fill ins(%zero : f32) outs(%ce : tensor<2x4xf32>) -> tensor<2x4xf32>
  %byc = linalg.reduce ins(%a : tensor<1x2x4x4xf32>) outs(%cf : tensor<2x4xf32>) dimensions = [0, 2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %sum, %byw, %byc : tensor<1x2xf32>, tensor<1x4xf32>, tensor<2x4xf32>
}

// A transpose of dynamic shape (not one this pass made) stays before its
// reduction.
// CHECK-LABEL: func.func @dynamic_reduction
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: linalg.reduce ins(%[[T]] : tensor<?x4xf32>)
func.func @dynamic_reduction(%x: tensor<4x?xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<4x?xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x?xf32>) outs(%e : tensor<?x4xf32>) permutation = [1, 0]
  %r = linalg.reduce ins(%t : tensor<?x4xf32>) outs(%init : tensor<4xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}
