// RUN: placer-opt %s --placer-accumulate-microbatches=microbatches=3 | FileCheck %s
// RUN: placer-opt %s --placer-accumulate-microbatches=microbatches=1 | FileCheck %s --check-prefix=ONE
// RUN: placer-opt %s --placer-accumulate-microbatches=microbatches=2 --partition-devices="devices=2" | FileCheck %s --check-prefix=PLACED
// RUN: placer-opt %S/Inputs/two-layer.mlir --placer-build-training --partition-devices="devices=2 split=false schedule=gpipe microbatches=3" --placer-accumulate-microbatches | FileCheck %s --check-prefix=GPIPE
// RUN: placer-opt %S/Inputs/two-layer.mlir --placer-build-training --partition-devices="devices=2 split=false schedule=1f1b microbatches=3" --placer-accumulate-microbatches | FileCheck %s --check-prefix=1F1B
// RUN: placer-opt %S/Inputs/two-layer.mlir --placer-build-training --partition-devices="devices=2 split=false schedule=1f1b microbatches=3" --placer-accumulate-microbatches="microbatches=2 schedule=gpipe" | FileCheck %s --check-prefix=OPTIONS
// RUN: placer-opt %S/Inputs/two-layer.mlir --placer-build-training --partition-devices="devices=2 split=false schedule=zb-h1 microbatches=3" --placer-accumulate-microbatches | FileCheck %s --check-prefix=ZBH1
// RUN: placer-opt %S/Inputs/two-layer.mlir --placer-build-training --partition-devices="devices=1 split=false schedule=zb-h1 microbatches=2" | sed 's/microbatches = 2>/microbatches = 2, recompute = [0]>/' | placer-opt --placer-accumulate-microbatches | FileCheck %s --check-prefix=ZBRECOMPUTE
// RUN: placer-opt %S/Inputs/two-layer.mlir --placer-build-training --placer-accumulate-microbatches=microbatches=2 | FileCheck %s --check-prefix=SEQUENTIAL
// RUN: placer-opt %S/Inputs/two-layer.mlir --placer-build-training --partition-devices="devices=2 split=false schedule=gpipe microbatches=2" | sed 's/microbatches = 2>/microbatches = 2, recompute = [0]>/' | placer-opt --placer-accumulate-microbatches | FileCheck %s --check-prefix=RECOMPUTE
// RUN: placer-opt %S/Inputs/two-layer.mlir --placer-build-training --partition-devices="devices=3 split=false schedule=gpipe microbatches=4 replication=true" | placer-opt --placer-accumulate-microbatches | FileCheck %s --check-prefix=REPLICAS

// A hand-written SGD step of y = x * w (--placer-build-training's form):
// over 3 microbatches its inputs triple, each microbatch is a slice of
// them, the forward and backward nodes run once per slice, and the
// optimizer reads the mean gradient.
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: (%arg0: tensor<6x3xf32> {graph.name = "x"}, %arg1: tensor<6x3xf32> {graph.name = "labels"})
// CHECK-SAME: -> (tensor<f32> {graph.name = "loss"}, tensor<3xf32> {graph.name = "w", placer.updates = "w"})
// The shared constants come first.
// CHECK: graph.constant "w"
// CHECK: graph.constant "w/update/lr"
// Microbatch 0: rows 0 to 2 of each input.
// CHECK: %[[S0:.*]] = graph.constant "x/mb0/const0" : tensor<1xi64> = dense<0>
// CHECK: %[[E0:.*]] = graph.constant "x/mb0/const1" : tensor<1xi64> = dense<2>
// CHECK: %[[X0:.*]] = graph.node "Slice"(%arg0, %[[S0]], %[[E0]], %{{.*}}) attributes {name = "x/mb0/3"{{.*}}-> tensor<2x3xf32>
// CHECK: graph.node "Mul"(%[[X0]], %{{.*}}) attributes {name = "mul/mb0", output_names = ["y/mb0"], placer.color_class = 0 : i64, version = 17 : i64}
// CHECK: %[[L0:.*]] = graph.node "Slice"(%arg1,
// CHECK: graph.node "Sub"({{.*}}, %[[L0]]) attributes {name = "loss/0/mb0"
// CHECK: %[[G0:.*]] = graph.node "ReduceSum"{{.*}}name = "mul/grad/1/mb0"{{.*}}placer.backward, placer.color_class = 0
// Microbatch 1: rows 2 to 4; microbatch 2: rows 4 to 6.
// CHECK: graph.constant "x/mb1/const0" : tensor<1xi64> = dense<2>
// CHECK: graph.constant "x/mb1/const1" : tensor<1xi64> = dense<4>
// CHECK: %[[G1:.*]] = graph.node "ReduceSum"{{.*}}name = "mul/grad/1/mb1"
// The gradient summed as each microbatch's backward work ends (one running
// sum lives, not a gradient per microbatch), backward work of the
// gradient's class.
// CHECK: %[[A:.*]] = graph.node "Add"(%[[G0]], %[[G1]]) attributes {name = "mul/grad/1/mean/0"{{.*}}placer.backward, placer.color_class = 0
// CHECK: graph.constant "x/mb2/const0" : tensor<1xi64> = dense<4>
// CHECK: graph.constant "x/mb2/const1" : tensor<1xi64> = dense<6>
// CHECK: %[[G2:.*]] = graph.node "ReduceSum"{{.*}}name = "mul/grad/1/mb2"
// CHECK: %[[B:.*]] = graph.node "Add"(%[[A]], %[[G2]])
// The mean gradient and the mean loss.
// CHECK: %[[THIRD:.*]] = graph.constant "mul/grad/1/mean/const2" : tensor<f32> = dense<0.333333343>
// CHECK: %[[MEAN:.*]] = graph.node "Mul"(%[[B]], %[[THIRD]])
// CHECK: %[[LOSS:.*]] = graph.node "Mul"({{.*}}) attributes {name = "loss/2/mean/3"
// CHECK-NOT: placer.backward
// CHECK-SAME: -> tensor<f32>
// The optimizer once, on the mean.
// CHECK: %[[STEP:.*]] = graph.node "Mul"(%[[MEAN]], %{{.*}}) attributes {name = "w/update/0"
// CHECK: %[[NEXT:.*]] = graph.node "Sub"(%{{.*}}, %[[STEP]])
// CHECK-NOT: graph.node
// CHECK: return %[[LOSS]], %[[NEXT]]

// A placed step (fc1 on device 0, fc2 and the loss on device 1): the
// microbatches' work in the placement's schedule and microbatches,
// recorded on the function; the copies keep their node's device, each
// input's slice goes to its reader's. GPipe: every forward, then every
// backward in reverse, on each device.
// GPIPE-LABEL: func.func @main_graph(%arg0: tensor<6x64xf32> {graph.name = "x"}, %arg1: tensor<6x64xf32> {graph.name = "labels"})
// GPIPE-SAME: placer.microbatches = 3 : i64, placer.schedule = "gpipe"
// GPIPE: name = "x/mb0/3"{{.*}}placer.device = #placer.device<0>
// GPIPE: name = "fc1/mb0"{{.*}}placer.device = #placer.device<0>
// GPIPE: name = "fc1/mb1"
// GPIPE: name = "fc1/mb2"
// GPIPE: name = "fc2/mb0"{{.*}}placer.device = #placer.device<1>
// GPIPE: name = "labels/mb0/3"{{.*}}placer.device = #placer.device<1>
// GPIPE: name = "fc2/mb1"
// GPIPE: name = "fc2/mb2"
// GPIPE: name = "fc2/grad/0/mb2"
// GPIPE: name = "fc2/grad/0/mb1"
// GPIPE: name = "fc2/grad/0/mb0"
// GPIPE: name = "fc1/grad/0/mb2"
// GPIPE: name = "fc1/grad/0/mb1"
// GPIPE: name = "fc1/grad/0/mb0"
// The gradients are summed in microbatch order whatever the schedule (the
// same sums as one process's): under GPipe once the first microbatch's
// backward work is done.
// GPIPE: graph.node "Add"(%fc1_grad_{{[0-9]+}}_0_mb0, %fc1_grad_{{[0-9]+}}_0_mb1)
// GPIPE: graph.node "Add"(%fc1_grad_{{[0-9]+}}_mean_0_0, %fc1_grad_{{[0-9]+}}_0_mb2)
// One forward one backward: the first of two stages warms up with one forward, then takes
// turns; the last takes turns from the start.
// 1F1B-LABEL: func.func @main_graph(%arg0: tensor<6x64xf32>
// 1F1B-SAME: placer.microbatches = 3 : i64, placer.schedule = "1f1b"
// 1F1B: name = "fc1/mb0"
// 1F1B: name = "fc1/mb1"
// 1F1B: name = "fc2/mb0"
// 1F1B: name = "fc2/grad/0/mb0"
// 1F1B: name = "fc2/mb1"
// 1F1B: name = "fc2/grad/0/mb1"
// 1F1B: name = "fc1/grad/0/mb0"
// 1F1B: name = "fc1/mb2"
// 1F1B: name = "fc1/grad/0/mb1"
// 1F1B: name = "fc2/mb2"
// 1F1B: name = "fc2/grad/0/mb2"
// 1F1B: name = "fc1/grad/0/mb2"
// ZB-H1: each backward pass in two items, input gradients (B) and weight
// gradients (W, placer.weight_gradient), the second stage's W one
// microbatch behind its B; device 0: F0 F1 B0 W0 F2 B1 W1 B2 W2, device 1:
// F0 B0 F1 B1 W0 F2 B2 W1 W2 (docs/Schedules.md). The gradients still sum
// in microbatch order.
// ZBH1-LABEL: func.func @main_graph
// ZBH1-SAME: placer.schedule = "zb-h1"
// ZBH1: name = "fc1/mb0"
// ZBH1: name = "fc1/mb1"
// ZBH1: name = "fc2/mb0"
// ZBH1: name = "fc2/grad/0/mb0"
// ZBH1-NOT: name = "fc2/grad/2/mb0"
// ZBH1: name = "fc2/mb1"
// ZBH1: name = "fc2/grad/0/mb1"
// ZBH1: name = "fc2/grad/2/mb0"{{.*}}placer.weight_gradient
// ZBH1: %[[W0:.*]] = graph.node "MatMul"{{.*}}name = "fc2/grad/3/mb0"
// ZBH1: name = "tanh/grad/0/mb0"{{.*}}placer.device = #placer.device<0>
// ZBH1: name = "fc1/grad/3/mb0"{{.*}}placer.weight_gradient
// ZBH1: name = "fc1/mb2"
// ZBH1: name = "tanh/grad/0/mb1"
// ZBH1: name = "fc1/grad/3/mb1"
// ZBH1: name = "fc2/mb2"
// ZBH1: name = "fc2/grad/0/mb2"
// ZBH1: name = "fc2/grad/2/mb1"
// ZBH1: %[[W1:.*]] = graph.node "MatMul"{{.*}}name = "fc2/grad/3/mb1"
// ZBH1: graph.node "Add"(%[[W0]], %[[W1]])
// ZBH1: name = "fc2/grad/3/mb2"

// ZB-H1 on a recomputing device (one stage: F B W per microbatch): the
// weight work, an item of its own, reads the forward values the backward
// work recomputed (the forward pass's died), and recomputes nothing more.
// ZBRECOMPUTE: name = "tanh/mb0"
// ZBRECOMPUTE: %[[A:.*]] = graph.node "Tanh"{{.*}}name = "tanh/mb0/recompute"
// ZBRECOMPUTE: name = "tanh/grad/0/mb0"
// ZBRECOMPUTE-NOT: /mb0/recompute"
// ZBRECOMPUTE: graph.node "Transpose"(%[[A]]){{.*}}name = "fc2/grad/2/mb0"{{.*}}placer.weight_gradient
// ZBRECOMPUTE-NOT: /mb0/recompute"
// ZBRECOMPUTE: name = "fc1/mb1"

// The options override the placement's.
// OPTIONS-LABEL: func.func @main_graph(%arg0: tensor<4x64xf32>
// OPTIONS-SAME: placer.microbatches = 2 : i64, placer.schedule = "gpipe"
// Not placed: sequential by default, each microbatch's forward and
// backward before the next one's.
// SEQUENTIAL-LABEL: func.func @main_graph(%arg0: tensor<4x64xf32>
// SEQUENTIAL-SAME: placer.microbatches = 2 : i64, placer.schedule = "sequential"
// SEQUENTIAL: name = "fc1/mb0"
// SEQUENTIAL: name = "fc1/grad/0/mb0"
// SEQUENTIAL: name = "fc1/mb1"
// SEQUENTIAL: name = "fc1/grad/0/mb1"

// A placement whose device 0 recomputes its activations: its backward
// work for a microbatch first runs again the forward ops it reads (fc1 and
// tanh; not the loss's), so the forward pass's values die at once there.
// Device 1 keeps its stash.
// RECOMPUTE: name = "fc1/mb0"
// RECOMPUTE: name = "fc1/mb1"
// RECOMPUTE: name = "fc2/grad/0/mb0"
// RECOMPUTE-NOT: name = "{{[^"]*}}/recompute"
// RECOMPUTE: name = "fc1/mb1/recompute"{{.*}}placer.device = #placer.device<0>
// RECOMPUTE: %[[A1:.*]] = graph.node "Tanh"{{.*}}name = "tanh/mb1/recompute"
// RECOMPUTE: graph.node "Mul"(%[[A1]], %[[A1]]){{.*}}name = "tanh/grad/0/mb1"
// RECOMPUTE: name = "fc1/mb0/recompute"
// RECOMPUTE: name = "tanh/mb0/recompute"
// RECOMPUTE: name = "tanh/grad/0/mb0"

// ONE-LABEL: func.func @main_graph
// ONE-SAME: (%arg0: tensor<2x3xf32> {graph.name = "x"}
// ONE-NOT: Slice
// ONE-NOT: /mb

// Every copy of a node keeps its class, so a placement puts the copies of
// a node and its backward twin on one device.
// PLACED-DAG: name = "mul/mb0"{{.*}}placer.device = #placer.device<[[D:[0-9]]]>
// PLACED-DAG: name = "mul/mb1"{{.*}}placer.device = #placer.device<[[D]]>
// PLACED-DAG: name = "mul/grad/0/mb1"{{.*}}placer.device = #placer.device<[[D]]>
// PLACED-DAG: name = "w/update/1"{{.*}}placer.device = #placer.device<[[D]]>

module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x3xf32> {graph.name = "x"}, %labels: tensor<2x3xf32> {graph.name = "labels"}) -> (tensor<f32> {graph.name = "loss"}, tensor<3xf32> {graph.name = "w", placer.updates = "w"}) {
  %w = graph.constant "w" : tensor<3xf32> = dense<0.5> : tensor<3xf32>
  %y = graph.node "Mul"(%x, %w) attributes {name = "mul", output_names = ["y"], placer.color_class = 0 : i64, version = 17 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %d = graph.node "Sub"(%y, %labels) attributes {name = "loss/0", output_names = ["loss/0:0"], version = 17 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %sq = graph.node "Mul"(%d, %d) attributes {name = "loss/1", output_names = ["loss/1:0"], version = 17 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %loss = graph.node "ReduceMean"(%sq) attributes {attrs = {keepdims = 0 : i64}, name = "loss/2", output_names = ["loss/2:0"], version = 17 : i64} : (tensor<2x3xf32>) -> tensor<f32>
  %axes = graph.constant "mul/grad/axes" : tensor<1xi64> = dense<0> : tensor<1xi64> {node = "mul/grad/axes"}
  %g = graph.node "Mul"(%d, %x) attributes {name = "mul/grad/0", output_names = ["mul/grad/0:0"], placer.backward, placer.color_class = 0 : i64, version = 17 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %gw = graph.node "ReduceSum"(%g, %axes) attributes {attrs = {keepdims = 0 : i64}, name = "mul/grad/1", output_names = ["mul/grad/1:0"], placer.backward, placer.color_class = 0 : i64, version = 17 : i64} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<3xf32>
  %lr = graph.constant "w/update/lr" : tensor<f32> = dense<0.1> : tensor<f32> {node = "w/update/lr"}
  %step = graph.node "Mul"(%gw, %lr) attributes {name = "w/update/0", output_names = ["w/update/0:0"], placer.backward, placer.optimizer, placer.color_class = 0 : i64, version = 17 : i64} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %next = graph.node "Sub"(%w, %step) attributes {name = "w/update/1", output_names = ["w/update/1:0"], placer.backward, placer.optimizer, placer.color_class = 0 : i64, version = 17 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %loss, %next : tensor<f32>, tensor<3xf32>
}
}

// Replicated stages (Inputs/two-layer.mlir over three accelerators, four
// microbatches, replication=true): fc2's stage runs on device 1 and on its
// copy, device 2 (replica_of). Copy c takes the microbatches m with
// m mod 2 = c; each copy sums its own microbatches' gradients in order
// (under GPipe microbatch 3's backward work ends first and waits for 1's),
// and the stage's device adds the copies' sums in copy order before the
// mean: the reduction of the all-reduce (the split sends the mean back).
// REPLICAS: replica_of = [-1, -1, 1,
// REPLICAS: name = "fc2/mb0"{{.*}}placer.device = #placer.device<1>
// REPLICAS: name = "fc2/mb1"{{.*}}placer.device = #placer.device<2>
// REPLICAS: name = "fc2/mb2"{{.*}}placer.device = #placer.device<1>
// REPLICAS: name = "fc2/mb3"{{.*}}placer.device = #placer.device<2>
// REPLICAS: %[[G3:.*]] = graph.node "MatMul"{{.*}}name = "fc2/grad/3/mb3"{{.*}}placer.device = #placer.device<2>
// REPLICAS: %[[G2:.*]] = graph.node "MatMul"{{.*}}name = "fc2/grad/3/mb2"{{.*}}placer.device = #placer.device<1>
// REPLICAS: %[[G1:.*]] = graph.node "MatMul"{{.*}}name = "fc2/grad/3/mb1"{{.*}}placer.device = #placer.device<2>
// REPLICAS: %[[ODD:.*]] = graph.node "Add"(%[[G1]], %[[G3]]){{.*}}placer.device = #placer.device<2>
// REPLICAS: %[[G0:.*]] = graph.node "MatMul"{{.*}}name = "fc2/grad/3/mb0"{{.*}}placer.device = #placer.device<1>
// REPLICAS: %[[EVEN:.*]] = graph.node "Add"(%[[G0]], %[[G2]]){{.*}}placer.device = #placer.device<1>
// REPLICAS: %[[TOTAL:.*]] = graph.node "Add"(%[[EVEN]], %[[ODD]]){{.*}}placer.device = #placer.device<1>
// REPLICAS: graph.node "Mul"(%[[TOTAL]], {{.*}}placer.device = #placer.device<1>
