// RUN: placer-opt %s --placer-lower-to-llvm | FileCheck %s
// RUN: placer-opt %s --placer-lower-to-llvm --mlir-print-ir-after=placer-cpu-library-calls -o /dev/null 2>&1 | FileCheck %s --check-prefix=CALLS

// The CPU pipeline on EfficientNet's pattern: a convolution, its SiLU (a
// Sigmoid and a Mul node), a mean over the image, a sigmoid of that.
// The SiLU goes into the convolution's call as an epilogue step (kind 7,
// after the splat bias, folded to a linear step: 3, x * 1 + 0.5)
// before math.exp is approximated, and every exp left (the mean's sigmoid)
// becomes inline arithmetic: no libm call keeps a loop scalar.

// CALLS-DAG: memref.global "private" constant @{{.*}} : memref<6xf32> = dense<[3.000000e+00, 1.000000e+00, 5.000000e-01, 7.000000e+00, 0.000000e+00, 0.000000e+00]>
// CALLS: call @placer_cpu_conv2d_epilogue_f32(
// CALLS: math.exp

// CHECK: llvm.func @net(
// CHECK: llvm.call @placer_cpu_conv2d_epilogue_f32(
// CHECK-NOT: expf
// CHECK-NOT: llvm.intr.exp
// CHECK: llvm.func @_mlir_ciface_net(
func.func @net(%x: tensor<1x8x6x6xf32>) -> tensor<1x16x1x1xf32> {
  %w = graph.constant "w" : tensor<16x8x1x1xf32> = dense<0.125> : tensor<16x8x1x1xf32>
  %b = graph.constant "b" : tensor<16xf32> = dense<0.5> : tensor<16xf32>
  %c = graph.node "Conv"(%x, %w, %b) attributes {attrs = {kernel_shape = array<i64: 1, 1>}, name = "conv", output_names = ["conv"], version = 17 : i64} : (tensor<1x8x6x6xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>) -> tensor<1x16x6x6xf32>
  %s = graph.node "Sigmoid"(%c) attributes {name = "sigmoid", output_names = ["sigmoid"], version = 17 : i64} : (tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  %y = graph.node "Mul"(%c, %s) attributes {name = "silu", output_names = ["silu"], version = 17 : i64} : (tensor<1x16x6x6xf32>, tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  %m = graph.node "GlobalAveragePool"(%y) attributes {name = "pool", output_names = ["pool"], version = 17 : i64} : (tensor<1x16x6x6xf32>) -> tensor<1x16x1x1xf32>
  %g = graph.node "Sigmoid"(%m) attributes {name = "gate", output_names = ["gate"], version = 17 : i64} : (tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  return %g : tensor<1x16x1x1xf32>
}
