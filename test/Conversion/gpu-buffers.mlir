// RUN: placer-opt %s --split-input-file --placer-gpu-buffers | FileCheck %s
// RUN: placer-opt %s --split-input-file --placer-gpu-buffers | FileCheck %s --check-prefix=HOST

// Activations live in device memory: the input crosses to the device once,
// the output back once before the return, the weight (already on the
// device) is used as it is, a constant global gets a device copy, buffers
// are device allocations, contiguous copies are gpu.memcpy and strided ones
// linalg.copy (a kernel later).

// CHECK-LABEL: func.func @stage(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<4x8xf32> {graph.name = "x"}, %[[W:[a-z0-9]+]]: memref<8x8xf32> {graph.weight
// CHECK-SAME: %[[Y:[a-z0-9]+]]: memref<4x8xf32> {graph.name = "y"}
// CHECK-DAG: %[[DY:.*]] = gpu.alloc () : memref<4x8xf32>
// CHECK-DAG: %[[DX:.*]] = gpu.alloc () : memref<4x8xf32>
// CHECK: gpu.memcpy %[[DX]], %[[X]]
// CHECK-NOT: gpu.memcpy %[[DY]], %[[Y]]
// CHECK: %[[T:.*]] = gpu.alloc () : memref<4x8xf32>
// CHECK: linalg.matmul ins(%[[DX]], %[[W]] : {{.*}}) outs(%[[T]] :
// CHECK: %[[G:.*]] = memref.get_global @table
// CHECK: %[[DG:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.memcpy %[[DG]], %[[G]]
// CHECK: linalg.generic {{.*}} ins(%[[DG]] : memref<4xf32>) outs(%[[T]] :
// CHECK: %[[HALF:.*]] = memref.subview %[[T]][0, 0] [4, 4] [1, 1]
// CHECK: %[[RIGHT:.*]] = memref.subview %[[DY]][0, 4] [4, 4] [1, 1]
// CHECK: linalg.copy ins(%[[HALF]] : {{.*}}) outs(%[[RIGHT]] :
// CHECK: %[[C:.*]] = gpu.alloc () : memref<4x8xf32>
// CHECK: gpu.memcpy %[[C]], %[[T]]
// CHECK: gpu.dealloc %[[T]]
// CHECK: gpu.dealloc %[[C]]
// CHECK: gpu.dealloc %[[DX]]
// CHECK: gpu.memcpy %[[Y]], %[[DY]]
// CHECK: gpu.dealloc %[[DY]]
// CHECK: gpu.dealloc %[[DG]]
// CHECK-NEXT: return
// No host buffer is left.
// HOST-NOT: memref.alloc
// HOST-NOT: memref.dealloc
// HOST-NOT: memref.copy
// HOST: // -----
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @stage(%x: memref<4x8xf32> {graph.name = "x"},
                 %w: memref<8x8xf32> {graph.weight = {name = "w"}},
                 %y: memref<4x8xf32> {graph.name = "y"}) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  linalg.matmul ins(%x, %w : memref<4x8xf32>, memref<8x8xf32>) outs(%t : memref<4x8xf32>)
  %g = memref.get_global @table : memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%g : memref<4xf32>) outs(%t : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  %half = memref.subview %t[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  %yhalf = memref.subview %y[0, 4] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 4>>
  memref.copy %half, %yhalf : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32, strided<[8, 1], offset: 4>>
  %yleft = memref.subview %y[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  memref.copy %half, %yleft : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32, strided<[8, 1]>>
  %c = memref.alloc() : memref<4x8xf32>
  memref.copy %t, %c : memref<4x8xf32> to memref<4x8xf32>
  memref.dealloc %t : memref<4x8xf32>
  memref.dealloc %c : memref<4x8xf32>
  return
}

// -----

// A stage's transfers go through host buffers: device to host before the
// send, host to device after the receive.
// CHECK-LABEL: func.func @stage(
// CHECK: %[[T:.*]] = gpu.alloc () : memref<4x8xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT: gpu.memcpy %[[OUT]], %[[T]]
// CHECK-NEXT: dist.send %[[OUT]] to 1 channel 0
// CHECK-NEXT: memref.dealloc %[[OUT]]
// CHECK: %[[R:.*]] = gpu.alloc () : memref<4x8xf32>
// CHECK-NEXT: %[[IN:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT: dist.recv from 1 channel 1 into %[[IN]]
// CHECK-NEXT: gpu.memcpy %[[R]], %[[IN]]
// CHECK-NEXT: memref.dealloc %[[IN]]
func.func @stage(%x: memref<4x8xf32> {graph.name = "x"}) attributes {dist.ranks = array<i64: 0, 1>} {
  %t = memref.alloc() : memref<4x8xf32>
  memref.copy %x, %t : memref<4x8xf32> to memref<4x8xf32>
  dist.send %t to 1 channel 0 : memref<4x8xf32>
  %r = memref.alloc() : memref<4x8xf32>
  dist.recv from 1 channel 1 into %r : memref<4x8xf32>
  memref.dealloc %t : memref<4x8xf32>
  memref.dealloc %r : memref<4x8xf32>
  return
}

// -----

// A library call reads its inputs and writes its output (operand 2) only:
// an input it reads still crosses to the device, and is not copied back;
// an output it writes comes back. Any other call may write every operand.

// CHECK-LABEL: func.func @library(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<1x4x8xf32> {graph.name = "a"}, %[[B:[a-z0-9]+]]: memref<1x8x8xf32> {graph.name = "b"}, %[[C:[a-z0-9]+]]: memref<1x4x8xf32> {graph.name = "c"}
// CHECK-DAG: %[[DC:.*]] = gpu.alloc () : memref<1x4x8xf32>
// CHECK-DAG: %[[DB:.*]] = gpu.alloc () : memref<1x8x8xf32>
// CHECK-DAG: %[[DA:.*]] = gpu.alloc () : memref<1x4x8xf32>
// CHECK-DAG: gpu.memcpy %[[DA]], %[[A]]
// CHECK-DAG: gpu.memcpy %[[DB]], %[[B]]
// CHECK-NOT: gpu.memcpy %[[DC]], %[[C]]
// CHECK: call @placer_gpu_matmul_f32
// CHECK-NOT: gpu.memcpy %[[A]], %[[DA]]
// CHECK-NOT: gpu.memcpy %[[B]], %[[DB]]
// CHECK: gpu.memcpy %[[C]], %[[DC]]
// CHECK-NOT: gpu.memcpy %[[A]], %[[DA]]
// CHECK: return
func.func private @placer_gpu_matmul_f32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i32, i32, i32)
func.func @library(%a: memref<1x4x8xf32> {graph.name = "a"}, %b: memref<1x8x8xf32> {graph.name = "b"},
                   %c: memref<1x4x8xf32> {graph.name = "c"}) {
  %zero = arith.constant 0 : i32
  %ca = memref.cast %a : memref<1x4x8xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
  %cb = memref.cast %b : memref<1x8x8xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
  %cc = memref.cast %c : memref<1x4x8xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
  call @placer_gpu_matmul_f32(%ca, %cb, %cc, %zero, %zero, %zero) : (memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i32, i32, i32) -> ()
  return
}
