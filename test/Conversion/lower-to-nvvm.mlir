// RUN: placer-opt %s --placer-lower-to-nvvm | FileCheck %s
// RUN: placer-opt %s --placer-lower-to-nvvm="chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: placer-opt %s --placer-lower-to-nvvm="tf32=true" --mlir-print-ir-after=placer-gpu-library-calls -o /dev/null 2>&1 | FileCheck %s --check-prefix=TF32
// RUN: placer-opt %s --placer-lower-to-nvvm --mlir-print-ir-after=placer-gpu-library-calls -o /dev/null 2>&1 | FileCheck %s --check-prefix=FP32
// RUN: not placer-opt %s --placer-lower-to-nvvm="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: placer-opt %s --placer-lower-to-nvvm="channels-last=true" --mlir-print-ir-after=placer-gpu-library-calls -o /dev/null 2>&1 | FileCheck %s --check-prefix=NHWC

// A graph module for an NVIDIA GPU: kernels outlined and compiled to PTX
// for the chip (gpu.binary), the convolution and the product as calls of
// the CUDA runtime, the input copied to the device and the output back
// (two copies: the weights are device memory already), device buffers
// allocated and freed, math inline (no libdevice call in the PTX), and the
// host side in the LLVM dialect calling the mgpu* runtime functions.

// CHECK-LABEL: llvm.func @net(
// CHECK-COUNT-2: llvm.call @mgpuMemcpy
// CHECK-NOT: llvm.call @mgpuMemcpy
// CHECK: llvm.func @_mlir_ciface_net(
// CHECK: gpu.binary @net_kernel
// CHECK-SAME: .target sm_90
// CHECK-NOT: __nv_
// CHECK: llvm.call @_mlir_ciface_placer_gpu_conv2d_f32
// CHECK: llvm.call @_mlir_ciface_placer_gpu_matmul_f32
// CHECK-DAG: llvm.func @mgpuMemAlloc(
// CHECK-DAG: llvm.func @mgpuMemFree(
// SM80: gpu.binary @net_kernel
// SM80-SAME: .target sm_80
// TF32: call @placer_gpu_conv2d_f32({{.*}}, %c1_i32{{(_[0-9]+)?}})
// TF32: call @placer_gpu_matmul_f32({{.*}}, %c1_i32{{(_[0-9]+)?}})
// FP32: call @placer_gpu_conv2d_f32({{.*}}, %c0_i32{{(_[0-9]+)?}})
// FP32: call @placer_gpu_matmul_f32({{.*}}, %c0_i32{{(_[0-9]+)?}})
// BAD: --gpu-chip must name an NVIDIA chip (sm_80, sm_90, ...), not 'gfx90a'
// channels-last: the input transposed to NHWC once, the filter to F KH KW
// C, and the call reading both and writing the NHWC output through N C H W
// views (channel stride 1).
// NHWC: linalg.transpose ins(%{{.*}} : memref<1x3x{{[0-9]+}}x{{[0-9]+}}xf32>) {{.*}} permutation = [0, 2, 3, 1]
// NHWC: linalg.transpose ins(%{{.*}} : memref<4x3x3x3xf32>) outs(%{{.*}} : memref<4x3x3x3xf32>) permutation = [0, 2, 3, 1]
// NHWC: memref.transpose {{.*}} to memref<4x3x3x3xf32, strided<[27, 1, 9, 3]>>
// NHWC: call @placer_gpu_conv2d_f32(
module {
  func.func @net(%x: tensor<1x3x8x8xf32> {graph.name = "x"}) -> (tensor<1x10xf32> {graph.name = "y"}) {
    %w = graph.constant "w" : tensor<4x3x3x3xf32> = dense<0.5> : tensor<4x3x3x3xf32>
    %fc = graph.constant "fc" : tensor<256x10xf32> = dense<0.25> : tensor<256x10xf32>
    %shape = graph.constant "shape" : tensor<2xi64> = dense<[1, 256]> : tensor<2xi64>
    %c = graph.node "Conv"(%x, %w) attributes {attrs = {pads = array<i64: 1, 1, 1, 1>}, name = "conv", output_names = ["c"], version = 13 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %r = graph.node "Relu"(%c) attributes {name = "relu", output_names = ["r"], version = 13 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %f = graph.node "Reshape"(%r, %shape) attributes {name = "flatten", output_names = ["f"], version = 13 : i64} : (tensor<1x4x8x8xf32>, tensor<2xi64>) -> tensor<1x256xf32>
    %m = graph.node "MatMul"(%f, %fc) attributes {name = "fc", output_names = ["m"], version = 13 : i64} : (tensor<1x256xf32>, tensor<256x10xf32>) -> tensor<1x10xf32>
    %y = graph.node "Softmax"(%m) attributes {attrs = {axis = 1 : i64}, name = "softmax", output_names = ["y"], version = 13 : i64} : (tensor<1x10xf32>) -> tensor<1x10xf32>
    return %y : tensor<1x10xf32>
  }
}
