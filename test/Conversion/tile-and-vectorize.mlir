// RUN: placer-opt %s --placer-tile-and-vectorize --canonicalize | FileCheck %s
// RUN: placer-opt %s --placer-tile-and-vectorize="m-tile=4" --canonicalize | FileCheck %s --check-prefix=MTILE
// RUN: placer-opt %s --placer-tile-and-vectorize="n-tile=16" --canonicalize | FileCheck %s --check-prefix=NTILE
// RUN: placer-opt %s --placer-tile-and-vectorize="k-tile=1" --canonicalize | FileCheck %s --check-prefix=KTILE
// RUN: placer-opt %s --placer-tile-and-vectorize="im2col=false" --canonicalize | FileCheck %s --check-prefix=NOIM2COL
// RUN: placer-opt %s --placer-tile-and-vectorize="library-calls=true" --canonicalize | FileCheck %s --check-prefix=LIBRARY
// RUN: placer-opt %s --placer-tile-and-vectorize="parallel-elementwise=true" --canonicalize | FileCheck %s --check-prefix=THREADS
// RUN: placer-opt %s --placer-tile-and-vectorize="parallel-elementwise=true library-calls=true" --canonicalize | FileCheck %s --check-prefix=EPILOGUE

// 40 columns: blocks of 32, then the 8-column remainder; rows in blocks of
// 8; the reduction in steps of 4, the accumulator carried as a vector.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c4 iter_args(%{{.*}} = %{{.*}}) -> (vector<8x32xf32>)
// CHECK: vector.transfer_read {{.*}} : tensor<16x64xf32>, vector<8x4xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<64x40xf32>, vector<4x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x4xf32>, vector<4x8xf32> into vector<8x8xf32>
// CHECK-NOT: linalg.matmul
// MTILE-LABEL: func.func @matmul
// MTILE: vector.contract {{.*}} into vector<4x32xf32>
// MTILE: vector.contract {{.*}} into vector<4x8xf32>
// NTILE-LABEL: func.func @matmul
// NTILE: vector.contract {{.*}} into vector<8x16xf32>
// NTILE: vector.contract {{.*}} into vector<8x8xf32>
// KTILE-LABEL: func.func @matmul
// KTILE: scf.for %{{.*}} = %c0 to %c64 step %c1
// KTILE: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
func.func @matmul(%a: tensor<16x64xf32>, %b: tensor<64x40xf32>) -> tensor<16x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x40xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x40xf32>) -> tensor<16x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x40xf32>) outs(%init : tensor<16x40xf32>) -> tensor<16x40xf32>
  return %r : tensor<16x40xf32>
}

// 17 columns: a 16-lane block and a 1-lane remainder.
// CHECK-LABEL: func.func @short_columns
// MTILE-LABEL: func.func @short_columns
// NTILE-LABEL: func.func @short_columns
// KTILE-LABEL: func.func @short_columns
// CHECK: vector.contract {{.*}} into vector<8x16xf32>
// CHECK: vector.contract {{.*}} into vector<8x1xf32>
func.func @short_columns(%a: tensor<8x8xf32>, %b: tensor<8x17xf32>) -> tensor<8x17xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x17xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x17xf32>) -> tensor<8x17xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x17xf32>) outs(%init : tensor<8x17xf32>) -> tensor<8x17xf32>
  return %r : tensor<8x17xf32>
}

// A broadcast batched matmul as the graph lowering writes it (a generic):
// the batch loop steps by one, the vector is the output's last dimension.
// CHECK-LABEL: func.func @batched_generic
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: vector.contract {{.*}} : vector<1x8x4xf32>, vector<4x16xf32> into vector<1x8x16xf32>
#lhs = affine_map<(b, m, n, k) -> (b, m, k)>
#rhs = affine_map<(b, m, n, k) -> (k, n)>
#out = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @batched_generic(%a: tensor<3x8x12xf32>, %b: tensor<12x16xf32>) -> tensor<3x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x8x16xf32>) -> tensor<3x8x16xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x8x12xf32>, tensor<12x16xf32>) outs(%init : tensor<3x8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x8x16xf32>
  return %r : tensor<3x8x16xf32>
}

// A 3x3 NCHW convolution becomes im2col (a copy into 72 x 16 patches) and a
// vectorized contraction; with im2col=false it keeps its loops.
// CHECK-LABEL: func.func @conv
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x72x16xf32>)
// CHECK: vector.contract {{.*}} : vector<8x4xf32>, vector<1x4x16xf32> into vector<1x8x16xf32>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// NOIM2COL-LABEL: func.func @conv
// NOIM2COL: linalg.conv_2d_nchw_fchw
// NOIM2COL-NOT: vector.contract
func.func @conv(%x: tensor<1x8x6x6xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %r = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %r : tensor<1x16x4x4xf32>
}

// A 1x1 convolution with unit strides needs no im2col: a contraction of the
// (16 x 8) filter with the flattened (8 x 36) image.
// CHECK-LABEL: func.func @pointwise_conv
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<1x8x6x6xf32> into tensor<1x8x36xf32>
// CHECK-NOT: tensor<1x8x36xf32> into
// CHECK: vector.contract {{.*}} : vector<8x4xf32>, vector<1x4x32xf32> into vector<1x8x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x4xf32>, vector<1x4x4xf32> into vector<1x8x4xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<1x16x6x6xf32>
// NOIM2COL-LABEL: func.func @pointwise_conv
// NOIM2COL: linalg.conv_2d_nchw_fchw
func.func @pointwise_conv(%x: tensor<1x8x6x6xf32>, %w: tensor<16x8x1x1xf32>) -> tensor<1x16x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x6x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  %r = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x6x6xf32>, tensor<16x8x1x1xf32>) outs(%init : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  return %r : tensor<1x16x6x6xf32>
}

// Not contractions, or with a dynamic reduction: left to the loop lowering.
// CHECK-LABEL: func.func @untouched
// CHECK: linalg.exp
// CHECK: linalg.matmul ins(%{{.*}} : tensor<8x?xf32>, tensor<?x8xf32>)
// CHECK-NOT: vector.
func.func @untouched(%a: tensor<16x40xf32>, %d: tensor<8x?xf32>, %w: tensor<?x8xf32>, %o: tensor<8x8xf32>) -> (tensor<16x40xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<16x40xf32>
  %r = linalg.exp ins(%a : tensor<16x40xf32>) outs(%e : tensor<16x40xf32>) -> tensor<16x40xf32>
  %m = linalg.matmul ins(%d, %w : tensor<8x?xf32>, tensor<?x8xf32>) outs(%o : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r, %m : tensor<16x40xf32>, tensor<8x8xf32>
}

// A dynamic batch (code compiled for any size) is a loop over its items,
// each a static contraction that gets the register tiling. (scf.forall: its
// slices bufferize without the value-bounds analysis that took minutes on
// a ResNet's loop-carried slices.)
// CHECK-LABEL: func.func @dynamic_batch
// CHECK: %[[ROWS:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?x8xf32>
// CHECK: scf.forall (%[[ROW:.*]]) in (%[[ROWS]]) shared_outs(
// CHECK: vector.transfer_read %{{.*}}[%[[ROW]], %{{.*}}], %{{.*}} {in_bounds = [true, true]} : tensor<?x8xf32>, vector<1x4xf32>
// CHECK: vector.contract
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[ROW]], 0] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<?x8xf32>
func.func @dynamic_batch(%d: tensor<?x8xf32>, %w: tensor<8x8xf32>, %o: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %m = linalg.matmul ins(%d, %w : tensor<?x8xf32>, tensor<8x8xf32>) outs(%o : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %m : tensor<?x8xf32>
}

// Empty iteration spaces are left alone (upstream tiling and im2col divide
// by loop extents; a model with a zero-sized dim crashed them).
// CHECK-LABEL: func.func @empty_dims
// CHECK: linalg.matmul
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: vector.
func.func @empty_dims(%a: tensor<0x8xf32>, %b: tensor<8x16xf32>, %x: tensor<1x1x4x0xf32>, %w: tensor<2x1x3x3xf32>) -> (tensor<0x16xf32>, tensor<1x2x2x0xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<0x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<0x16xf32>) -> tensor<0x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<0x8xf32>, tensor<8x16xf32>) outs(%z : tensor<0x16xf32>) -> tensor<0x16xf32>
  %ce = tensor.empty() : tensor<1x2x2x0xf32>
  %cz = linalg.fill ins(%cst : f32) outs(%ce : tensor<1x2x2x0xf32>) -> tensor<1x2x2x0xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x1x4x0xf32>, tensor<2x1x3x3xf32>) outs(%cz : tensor<1x2x2x0xf32>) -> tensor<1x2x2x0xf32>
  return %m, %c : tensor<0x16xf32>, tensor<1x2x2x0xf32>
}

// A convolution over a batch of images runs image by image: the im2col
// buffer of one image (27 x 64 here) stays in cache.
// CHECK-LABEL: func.func @conv_batch
// CHECK: scf.forall (%[[IMG:.*]]) in (2) shared_outs(
// CHECK: tensor.extract_slice %{{.*}}[%[[IMG]], 0, 0, 0] [1, 3, 10, 10] [1, 1, 1, 1] : tensor<2x3x10x10xf32> to tensor<1x3x10x10xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x3x10x10xf32>) outs(%{{.*}} : tensor<1x27x64xf32>)
// CHECK: vector.contract
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[IMG]], 0, 0, 0] [1, 8, 8, 8]
// NOIM2COL-LABEL: func.func @conv_batch
// NOIM2COL: scf.forall
// NOIM2COL: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x8x8x8xf32>
func.func @conv_batch(%x: tensor<2x3x10x10xf32>, %w: tensor<8x3x3x3xf32>, %o: tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%o : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  return %c : tensor<2x8x8x8xf32>
}

// With library-calls, static f32 convolutions and products are left to
// placer-cpu-library-calls: no batch loop, im2col or register blocks; a
// dynamic batch is still a loop, whose static items are then left alone,
// and a product of another element type is still tiled.
// LIBRARY-LABEL: func.func @matmul
// LIBRARY-NOT: vector.contract
// LIBRARY: linalg.matmul ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<64x40xf32>)
// LIBRARY-LABEL: func.func @conv
// LIBRARY-NOT: tensor.collapse_shape
// LIBRARY: linalg.conv_2d_nchw_fchw
// LIBRARY-LABEL: func.func @dynamic_batch
// LIBRARY: scf.forall
// LIBRARY-NOT: vector.contract
// LIBRARY: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x8xf32>, tensor<8x8xf32>)
// LIBRARY-LABEL: func.func @conv_batch
// LIBRARY-NOT: scf.forall
// LIBRARY: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<2x8x8x8xf32>
// LIBRARY-LABEL: func.func @matmul_f64
// LIBRARY: vector.contract
// LIBRARY-NOT: linalg.matmul
func.func @matmul_f64(%a: tensor<16x64xf64>, %b: tensor<64x40xf64>) -> tensor<16x40xf64> {
  %cst = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<16x40xf64>
  %z = linalg.fill ins(%cst : f64) outs(%e : tensor<16x40xf64>) -> tensor<16x40xf64>
  %m = linalg.matmul ins(%a, %b : tensor<16x64xf64>, tensor<64x40xf64>) outs(%z : tensor<16x40xf64>) -> tensor<16x40xf64>
  return %m : tensor<16x40xf64>
}

// With parallel-elementwise, an elementwise op of at least 16K elements is
// an scf.forall over its images and rows (the threads' share), a smaller
// one stays whole; without it, both stay whole.
// THREADS-LABEL: func.func @elementwise
// THREADS: scf.forall (%[[N:.*]], %[[H:.*]]) in (2, 64) shared_outs(
// THREADS: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1x16x16xf32>)
// THREADS: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[N]], %[[H]], 0, 0] [1, 1, 16, 16]
// THREADS-NOT: scf.forall
// THREADS: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4x16x16xf32>)
// CHECK-LABEL: func.func @elementwise
// CHECK-NOT: scf.forall
func.func @elementwise(%big: tensor<2x64x16x16xf32>, %small: tensor<2x4x16x16xf32>) -> (tensor<2x64x16x16xf32>, tensor<2x4x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64x16x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%big : tensor<2x64x16x16xf32>) outs(%e : tensor<2x64x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x64x16x16xf32>
  %se = tensor.empty() : tensor<2x4x16x16xf32>
  %sr = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%small : tensor<2x4x16x16xf32>) outs(%se : tensor<2x4x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x4x16x16xf32>
  return %r, %sr : tensor<2x64x16x16xf32>, tensor<2x4x16x16xf32>
}

// Row reductions (a LayerNormalization's mean over 768 columns, reductions
// innermost) are split over their outer parallel loops, each row's sum in
// one iteration; a reduction over an outer dimension is not, nor is a
// product. A transpose of an activation is split like an elementwise op;
// one of an argument (a model input or weight, which the library calls
// read through) is not.
// THREADS-LABEL: func.func @rows
// THREADS: scf.forall (%{{.*}}, %{{.*}}) in (2, 64) shared_outs(
// THREADS: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<1x1x768xf32>)
// THREADS: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%arg1 : tensor<128x768xf32>)
// THREADS: linalg.transpose ins(%arg2 : tensor<2x768x64xf32>)
// THREADS: scf.forall ({{.*}}) in (2, 768)
// THREADS: scf.forall ({{.*}}) in (2, 64)
// THREADS: linalg.transpose ins(%{{.*}} : tensor<1x768x1xf32>)
// THREADS-NOT: scf.forall (
// CHECK-LABEL: func.func @rows
// CHECK-NOT: scf.forall
func.func @rows(%x: tensor<2x64x768xf32>, %y: tensor<128x768xf32>, %z: tensor<2x768x64xf32>) -> (tensor<2x64xf32>, tensor<768xf32>, tensor<2x64x768xf32>, tensor<2x64x768xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64xf32>) -> tensor<2x64xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x64x768xf32>) outs(%f : tensor<2x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x64xf32>
  %ce = tensor.empty() : tensor<768xf32>
  %cf = linalg.fill ins(%zero : f32) outs(%ce : tensor<768xf32>) -> tensor<768xf32>
  %cols = linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (c)>], iterator_types = ["reduction", "parallel"]} ins(%y : tensor<128x768xf32>) outs(%cf : tensor<768xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<768xf32>
  %te = tensor.empty() : tensor<2x64x768xf32>
  %weight = linalg.transpose ins(%z : tensor<2x768x64xf32>) outs(%te : tensor<2x64x768xf32>) permutation = [0, 2, 1]
  %re = tensor.empty() : tensor<2x768x64xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%z : tensor<2x768x64xf32>) outs(%re : tensor<2x768x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x768x64xf32>
  %ae = tensor.empty() : tensor<2x64x768xf32>
  %act = linalg.transpose ins(%relu : tensor<2x768x64xf32>) outs(%ae : tensor<2x64x768xf32>) permutation = [0, 2, 1]
  return %mean, %cols, %act, %weight : tensor<2x64xf32>, tensor<768xf32>, tensor<2x64x768xf32>, tensor<2x64x768xf32>
}

// A transpose a convolution reads (the padded model input made NHWC) stays
// an op, which placer-cpu-library-calls reads through.
// THREADS-LABEL: func.func @conv_input
// THREADS-NOT: scf.forall (
// THREADS: linalg.transpose
// THREADS-NOT: scf.forall (
// THREADS: linalg.conv_2d_nhwc_fhwc
func.func @conv_input(%x: tensor<1x3x224x224xf32>, %w: tensor<8x7x7x3xf32>) -> tensor<1x112x112x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 3, 3] high[0, 0, 3, 3] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x224x224xf32> to tensor<1x3x230x230xf32>
  %te = tensor.empty() : tensor<1x230x230x3xf32>
  %t = linalg.transpose ins(%p : tensor<1x3x230x230xf32>) outs(%te : tensor<1x230x230x3xf32>) permutation = [0, 2, 3, 1]
  %e = tensor.empty() : tensor<1x112x112x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x112x112x8xf32>) -> tensor<1x112x112x8xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%t, %w : tensor<1x230x230x3xf32>, tensor<8x7x7x3xf32>) outs(%f : tensor<1x112x112x8xf32>) -> tensor<1x112x112x8xf32>
  return %c : tensor<1x112x112x8xf32>
}

// An elementwise op on a convolution's result that placer-cpu-library-calls
// folds into the call (a bias and a ReLU: oneDNN post-ops) stays whole
// when the convolution goes to the library; split over the threads, it
// could not be folded.
// EPILOGUE-LABEL: func.func @conv_epilogue
// EPILOGUE-NOT: scf.forall
// EPILOGUE: linalg.conv_2d_nhwc_fhwc
// EPILOGUE: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x32x32x16xf32>, tensor<16xf32>)
// THREADS-LABEL: func.func @conv_epilogue
// THREADS: scf.forall
func.func @conv_epilogue(%x: tensor<1x32x32x8xf32>, %w: tensor<16x1x1x8xf32>, %b: tensor<16xf32>) -> tensor<1x32x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x32x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x32x16xf32>) -> tensor<1x32x32x16xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x32x32x8xf32>, tensor<16x1x1x8xf32>) outs(%z : tensor<1x32x32x16xf32>) -> tensor<1x32x32x16xf32>
  %o = tensor.empty() : tensor<1x32x32x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x32x32x16xf32>, tensor<16xf32>) outs(%o : tensor<1x32x32x16xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x32x16xf32>
  return %r : tensor<1x32x32x16xf32>
}
