// --placer-select-stage keeps the program of one rank.
// RUN: placer-opt %s --placer-select-stage=stage=1 | FileCheck %s
// RUN: placer-opt %s --placer-select-stage | FileCheck %s --check-prefix=FIRST
// RUN: not placer-opt %s --placer-select-stage=stage=3 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: placer-opt %s --placer-select-stage=stage=1 | not placer-opt --placer-select-stage 2>&1 | FileCheck %s --check-prefix=UNSPLIT
// RUN: placer-opt %S/Inputs/replicated-program.mlir --placer-select-stage=stage=1 | FileCheck %s --check-prefix=REPLICATED
// RUN: placer-opt %S/Inputs/replicated-program.mlir --placer-select-stage=stage=0 | FileCheck %s --check-prefix=COPIES

// Rank 1 runs device 4's function; its peers are named by device.
// CHECK-NOT: func.func @g_d0
// CHECK: func.func @g_d4() -> (tensor<2xf32> {dist.result = 0 : i64})
// CHECK-SAME: attributes {dist.ranks = array<i64: 0, 4>}
// CHECK: dist.recv from 0 channel 0 : tensor<2xf32>
// CHECK-NOT: dist.program
// FIRST: func.func @g_d0(
// FIRST-SAME: dist.ranks = array<i64: 0, 4>
// FIRST: dist.send %arg0 to 4 channel 0
// FIRST-NOT: func.func @g_d4
// RANGE: error: --placer-select-stage: stage 3 does not exist: the program has 2 stages
// UNSPLIT: error: --placer-select-stage needs a split module (one dist.program), found 0 programs

// Stage 0 runs on devices 0 and 3: ranks 0 and 1, then stage 1 on rank 2.
// Both copies of stage 0 compile the same function.
// REPLICATED: func.func @r_d1(
// REPLICATED-SAME: dist.ranks = array<i64: 0, 3, 1>, dist.replicas = array<i64: 2, 2, 1>
// REPLICATED: dist.recv from 0 channel 0
// COPIES: func.func @r_d0(
// COPIES-SAME: dist.ranks = array<i64: 0, 3, 1>, dist.replicas = array<i64: 2, 2, 1>
// COPIES: dist.send %arg0 to 1 channel 0
func.func @g_d0(%x: tensor<2xf32> {dist.arg = 0 : i64}) {
  dist.send %x to 4 channel 0 : tensor<2xf32>
  return
}
func.func @g_d4() -> (tensor<2xf32> {dist.result = 0 : i64}) {
  %0 = dist.recv from 0 channel 0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
dist.program @g {channels = [#dist.channel<0 : 0 -> 4, tensor<2xf32>>], devices = array<i64: 0, 4>, stages = [@g_d0, @g_d4]}
