// RUN: placer-opt %s --pass-pipeline="builtin.module(gpu.module(placer-gpu-native-math))" | FileCheck %s

// Kernel math as the LLVM intrinsics NVPTX implements (no libdevice call
// left for convert-gpu-to-nvvm to make); rsqrt as 1 / sqrt; a cube as
// products; a power with a computed exponent stays (and the compile step
// refuses the PTX that would call __nv_powf).
// CHECK-LABEL: gpu.func @kernel
// CHECK: llvm.call_intrinsic "llvm.sqrt.f32"(%arg0)
// CHECK: llvm.call_intrinsic "llvm.floor.f32"(%arg0)
// CHECK: llvm.call_intrinsic "llvm.fabs.f64"(%arg2)
// CHECK: llvm.call_intrinsic "llvm.fma.f32"(%arg0, %arg1, %arg0)
// CHECK: %[[ROOT:.*]] = llvm.call_intrinsic "llvm.sqrt.f32"(%arg1)
// CHECK: arith.divf %{{.*}}, %[[ROOT]]
// CHECK: %[[SQ:.*]] = arith.mulf %arg0, %arg0
// CHECK: arith.mulf %arg0, %[[SQ]]
// CHECK: math.powf %arg0, %arg1
// CHECK-NOT: math.sqrt
// CHECK-NOT: math.rsqrt
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%a: f32, %b: f32, %d: f64, %out: memref<8xf32>, %outd: memref<f64>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %three = arith.constant 3.0 : f32
      %s = math.sqrt %a : f32
      %f = math.floor %a : f32
      %ab = math.absf %d : f64
      %m = math.fma %a, %b, %a : f32
      %r = math.rsqrt %b : f32
      %cube = math.powf %a, %three : f32
      %p = math.powf %a, %b : f32
      memref.store %s, %out[%c0] : memref<8xf32>
      memref.store %f, %out[%c1] : memref<8xf32>
      memref.store %m, %out[%c2] : memref<8xf32>
      memref.store %r, %out[%c3] : memref<8xf32>
      memref.store %cube, %out[%c4] : memref<8xf32>
      memref.store %p, %out[%c5] : memref<8xf32>
      memref.store %ab, %outd[] : memref<f64>
      gpu.return
    }
  }
}
