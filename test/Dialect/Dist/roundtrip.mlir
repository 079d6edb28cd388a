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

// Collectives of a tensor-parallel group (placer/Analysis/Sharding.h): the
// partial sums of a row-parallel product summed, a split value gathered.
// CHECK-LABEL: func.func @collectives
// CHECK: %0 = dist.all_reduce %arg0 over [0, 1] : tensor<8x64xf32> -> tensor<8x64xf32>
// CHECK: %1 = dist.all_gather %arg1 over [2, 3, 5, 7] along 1 : tensor<8x16xf32> -> tensor<8x64xf32>
// CHECK: %2 = dist.all_gather %arg2 over [0, 1] along 0 : tensor<?x4xf32> -> tensor<?x4xf32>
func.func @collectives(%partial: tensor<8x64xf32>, %slice: tensor<8x16xf32>,
                       %rows: tensor<?x4xf32>)
    -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<?x4xf32>) {
  %0 = dist.all_reduce %partial over [0, 1] : tensor<8x64xf32> -> tensor<8x64xf32>
  %1 = dist.all_gather %slice over [2, 3, 5, 7] along 1 : tensor<8x16xf32> -> tensor<8x64xf32>
  %2 = dist.all_gather %rows over [0, 1] along 0 : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0, %1, %2 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<?x4xf32>
}

// Bufferized, a collective reads a buffer and writes a fresh one.
// CHECK-LABEL: func.func @buffers
// CHECK: dist.all_reduce %arg0 over [0, 1] into %arg1 : memref<8x64xf32> -> memref<8x64xf32>
// CHECK: dist.all_gather %arg2 over [0, 1] along 1 into %arg3 : memref<8x32xf32, strided<[64, 1]>> -> memref<8x64xf32>
func.func @buffers(%partial: memref<8x64xf32>, %sum: memref<8x64xf32>,
                   %slice: memref<8x32xf32, strided<[64, 1]>>, %whole: memref<8x64xf32>) {
  dist.all_reduce %partial over [0, 1] into %sum : memref<8x64xf32> -> memref<8x64xf32>
  dist.all_gather %slice over [0, 1] along 1 into %whole : memref<8x32xf32, strided<[64, 1]>> -> memref<8x64xf32>
  return
}
