// dist.send reads its tensor's buffer in place; dist.recv receives into a
// fresh identity-layout buffer, which deallocation then frees (the ops
// declare their memory effects, so the deallocation pipeline accepts them).
// RUN: placer-opt %s --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s
// RUN: placer-opt %s --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --buffer-deallocation-pipeline | FileCheck %s --check-prefix=DEALLOC

// CHECK-LABEL: func.func @stage(
// CHECK-SAME: %[[X:.*]]: memref<2x3xf32>
// CHECK: dist.send %[[X]] to 1 channel 0 : memref<2x3xf32>
// CHECK: %[[BUF:.*]] = memref.alloc() {{.*}}: memref<4xi64>
// CHECK: dist.recv from 1 channel 1 into %[[BUF]] : memref<4xi64>
// CHECK: return %[[BUF]] : memref<4xi64>
// DEALLOC-LABEL: func.func @relay
// DEALLOC: %[[IN:.*]] = memref.alloc() {{.*}}: memref<8xf32>
// DEALLOC: dist.recv from 0 channel 2 into %[[IN]]
// DEALLOC: dist.send %[[IN]] to 2 channel 3
// DEALLOC: memref.dealloc %[[IN]]
func.func @stage(%x: tensor<2x3xf32>) -> tensor<4xi64> {
  dist.send %x to 1 channel 0 : tensor<2x3xf32>
  %0 = dist.recv from 1 channel 1 : tensor<4xi64>
  return %0 : tensor<4xi64>
}

func.func @relay() {
  %0 = dist.recv from 0 channel 2 : tensor<8xf32>
  dist.send %0 to 2 channel 3 : tensor<8xf32>
  return
}

// A collective reads its operand's buffer and writes a fresh one, which
// deallocation frees after its last reader.
// CHECK-LABEL: func.func @collectives(
// CHECK-SAME: %[[P:.*]]: memref<4x8xf32>
// CHECK: %[[SUM:.*]] = memref.alloc() {{.*}}: memref<4x8xf32>
// CHECK: dist.all_reduce %[[P]] over [0, 1] into %[[SUM]] : memref<4x8xf32> -> memref<4x8xf32>
// CHECK: %[[WHOLE:.*]] = memref.alloc() {{.*}}: memref<4x16xf32>
// CHECK: dist.all_gather %[[SUM]] over [0, 1] along 1 into %[[WHOLE]] : memref<4x8xf32> -> memref<4x16xf32>
// CHECK: return %[[WHOLE]]
// DEALLOC-LABEL: func.func @collectives
// DEALLOC: dist.all_gather
// DEALLOC: memref.dealloc %{{.*}} : memref<4x8xf32>
func.func @collectives(%partial: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %0 = dist.all_reduce %partial over [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = dist.all_gather %0 over [0, 1] along 1 : tensor<4x8xf32> -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}
