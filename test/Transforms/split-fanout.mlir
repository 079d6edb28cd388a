// A value read on two other devices crosses once per receiver; a value read
// twice on one device crosses once; inputs and outputs go to the stages
// that use and produce them.
// RUN: placer-opt %s --placer-split-devices | FileCheck %s
// RUN: placer-opt %s --placer-split-devices --placer-merge-devices | FileCheck %s --check-prefix=MERGED

// CHECK-LABEL: func.func @g_d0(%arg0: tensor<2xf32> {dist.arg = 0 : i64, graph.name = "x"}) {
// CHECK:         %a = graph.node "Abs"(%arg0)
// CHECK-NEXT:    dist.send %a to 1 channel 0
// CHECK-NEXT:    dist.send %a to 2 channel 1
// CHECK-LABEL: func.func @g_d1() -> (tensor<2xf32> {dist.result = 1 : i64, graph.name = "m"}) {
// CHECK-NEXT:    %0 = dist.recv from 0 channel 0
// CHECK-NEXT:    %n = graph.node "Neg"(%0)
// CHECK-NEXT:    %m = graph.node "Mul"(%0, %n)
// CHECK-NEXT:    return %m
// CHECK-LABEL: func.func @g_d2() -> (tensor<2xf32> {dist.result = 0 : i64, graph.name = "s"}) {
// CHECK-NEXT:    %0 = dist.recv from 0 channel 1
// CHECK-NEXT:    %s = graph.node "Sqrt"(%0)
// CHECK:       dist.program @g {channels = [#dist.channel<0 : 0 -> 1, tensor<2xf32>>, #dist.channel<1 : 0 -> 2, tensor<2xf32>>], devices = array<i64: 0, 1, 2>, graph_attrs = {graph.name = "fanout"}, stages = [@g_d0, @g_d1, @g_d2]}

// MERGED: func.func @g(%arg0: tensor<2xf32> {graph.name = "x"}) -> (tensor<2xf32> {graph.name = "s"}, tensor<2xf32> {graph.name = "m"}) attributes {graph.name = "fanout"} {
// MERGED-NEXT: %a = graph.node "Abs"(%arg0)
// MERGED-NEXT: %n = graph.node "Neg"(%a)
// MERGED-NEXT: %m = graph.node "Mul"(%a, %n)
// MERGED-NEXT: %s = graph.node "Sqrt"(%a)
// MERGED-NEXT: return %s, %m
// MERGED-NOT: dist.

func.func @g(%x: tensor<2xf32> {graph.name = "x"}) -> (tensor<2xf32> {graph.name = "s"}, tensor<2xf32> {graph.name = "m"}) attributes {graph.name = "fanout"} {
  %a = graph.node "Abs"(%x) attributes {output_names = ["a"], placer.device = #placer.device<0>, version = 13 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %n = graph.node "Neg"(%a) attributes {output_names = ["n"], placer.device = #placer.device<1>, version = 13 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %m = graph.node "Mul"(%a, %n) attributes {output_names = ["m"], placer.device = #placer.device<1>, version = 13 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %s = graph.node "Sqrt"(%a) attributes {output_names = ["s"], placer.device = #placer.device<2>, version = 13 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %s, %m : tensor<2xf32>, tensor<2xf32>
}
