// Upstream programs the cost models cannot price.
//
// Ops of a dialect Placer does not know (StableHLO text read with
// --allow-unregistered-dialect) get the bytes-only estimate, a warning that
// lists them, and are still placed and split.
// RUN: placer-opt --allow-unregistered-dialect %s --partition-devices="devices=2 report=-" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: warning: ops with no cost formula got a bytes-only estimate: stablehlo.add, stablehlo.dot, stablehlo.tanh
// UNKNOWN: remark: placed 3 ops on 2 accelerators
// UNKNOWN: "assignment": {
// UNKNOWN-NEXT: "stablehlo.add#3": 0,
// UNKNOWN-NEXT: "stablehlo.dot#1": 0,
// UNKNOWN-NEXT: "stablehlo.tanh#2": 0
// Dynamic shapes are an error naming every op that has one (with a model
// or without: its bytes are its estimate), and nothing is placed.
// RUN: not placer-opt --allow-unregistered-dialect %S/Inputs/upstream-dynamic.mlir --partition-devices=2 -o %t.out 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: error: cannot estimate the cost of 'linalg.matmul': operand #0 has type 'tensor<?x64xf32>', not a static shape (placement needs static shapes: bind them before placing)
// DYNAMIC: error: cannot estimate the cost of 'tosa.tanh': operand #0 has type 'tensor<?x64xf32>', not a static shape
// DYNAMIC: error: cannot estimate the cost of 'stablehlo.abs': operand #0 has type 'tensor<?x64xf32>', not a static shape
// DYNAMIC-NOT: remark: placed
// RUN: not test -s %t.out
func.func @main(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = "stablehlo.dot"(%a, %b) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = "stablehlo.tanh"(%0) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %2 = "stablehlo.add"(%1, %a) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %2 : tensor<64x64xf32>
}

