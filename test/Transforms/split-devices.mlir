// One function per device, in pipeline order, with one send/recv pair per
// (value, receiving device); the constant is replicated, not sent.
// RUN: placer-opt %S/place-devices.mlir --placer-place-devices --placer-split-devices 2>/dev/null | FileCheck %s
// The output verifies when read back (dist.program checks channels and
// deadlock freedom).
// RUN: placer-opt %S/place-devices.mlir --placer-place-devices --placer-split-devices 2>/dev/null | placer-opt -o /dev/null

// CHECK-LABEL: func.func @main_graph_d0(%arg0: tensor<4xf32> {dist.arg = 0 : i64}) {
// CHECK-NEXT:    %w = graph.constant "w" {{.*}}{dist.position = 1 : i64, placer.device = #placer.device<0>}
// CHECK-NEXT:    %a = graph.node "A"(%arg0, %w) attributes {dist.position = 2 : i64
// CHECK-NEXT:    %b = graph.node "B"(%a) attributes {dist.position = 3 : i64
// CHECK-NEXT:    dist.send %b to 1 channel 0 : tensor<4xf32>
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @main_graph_d1() -> (tensor<4xf32> {dist.result = 0 : i64}) {
// CHECK-NEXT:    %0 = dist.recv from 0 channel 0 : tensor<4xf32>
// CHECK-NEXT:    %c = graph.node "C"(%0) attributes {dist.position = 4 : i64
// CHECK-NEXT:    %d = graph.node "D"(%c) attributes {dist.position = 5 : i64
// CHECK-NEXT:    return %d : tensor<4xf32>
// CHECK:       dist.program @main_graph {channels = [#dist.channel<0 : 0 -> 1, tensor<4xf32>>], devices = array<i64: 0, 1>, stages = [@main_graph_d0, @main_graph_d1]}
