// RUN: placer-opt %s --pass-pipeline='builtin.module(func.func(placer-distinct-results))' | FileCheck %s

// A buffer returned three times: each repeat becomes a copy of its own.
// CHECK-LABEL: func.func @thrice
// CHECK-SAME: (%[[X:.*]]: memref<2xf32>, %[[Y:.*]]: memref<2xf32>)
// CHECK: %[[C1:.*]] = memref.alloc() : memref<2xf32>
// CHECK: memref.copy %[[X]], %[[C1]]
// CHECK: %[[C2:.*]] = memref.alloc() : memref<2xf32>
// CHECK: memref.copy %[[X]], %[[C2]]
// CHECK: return %[[X]], %[[C1]], %[[Y]], %[[C2]]
func.func @thrice(%x: memref<2xf32>, %y: memref<2xf32>)
    -> (memref<2xf32>, memref<2xf32>, memref<2xf32>, memref<2xf32>) {
  return %x, %x, %y, %x : memref<2xf32>, memref<2xf32>, memref<2xf32>, memref<2xf32>
}

// Distinct results are left alone.
// CHECK-LABEL: func.func @distinct
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @distinct(%x: memref<2xf32>, %y: memref<2xf32>) -> (memref<2xf32>, memref<2xf32>) {
  return %x, %y : memref<2xf32>, memref<2xf32>
}
