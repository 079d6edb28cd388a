// RUN: placer-opt %s | placer-opt | FileCheck %s
// RUN: placer-opt %s > %t.1.mlir && placer-opt %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir

// CHECK: dist.send %arg0 to 1 channel 0 : tensor<2xf32>
// CHECK: %0 = dist.recv from 0 channel 0 : tensor<2xf32>
// CHECK: dist.program @g {channels = [#dist.channel<0 : 0 -> 1, tensor<2xf32>>], devices = array<i64: 0, 1>, graph_attrs = {graph.name = "x"}, stages = [@a, @b]}
func.func @a(%x: tensor<2xf32>) {
  dist.send %x to 1 channel 0 : tensor<2xf32>
  return
}
func.func @b() -> tensor<2xf32> {
  %0 = dist.recv from 0 channel 0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
dist.program @g {channels = [#dist.channel<0 : 0 -> 1, tensor<2xf32>>], devices = array<i64: 0, 1>, graph_attrs = {graph.name = "x"}, stages = [@a, @b]}

// Bufferized forms: a send of a buffer, a recv into one; a stage compiled
// alone with its devices in rank order.
// CHECK-LABEL: func.func @alone
// CHECK-SAME: dist.ranks = array<i64: 3, 5>
// CHECK: dist.send %arg0 to 5 channel 1 : memref<2xf32>
// CHECK: dist.recv from 5 channel 2 into %arg1 : memref<4xi8>
func.func @alone(%m: memref<2xf32>, %n: memref<4xi8>) attributes {dist.ranks = array<i64: 3, 5>} {
  dist.send %m to 5 channel 1 : memref<2xf32>
  dist.recv from 5 channel 2 into %n : memref<4xi8>
  return
}

// A stage next to a replicated one: device 5's stage runs on ranks 1 and 2.
// CHECK-LABEL: func.func @beside_copies
// CHECK-SAME: dist.ranks = array<i64: 3, 5, 6>, dist.replicas = array<i64: 1, 2, 2>
func.func @beside_copies(%m: memref<2xf32>) attributes {dist.ranks = array<i64: 3, 5, 6>, dist.replicas = array<i64: 1, 2, 2>} {
  dist.send %m to 5 channel 1 : memref<2xf32>
  return
}
