// RUN: placer-opt %s --placer-build-training="learning-rate=0.5" | FileCheck %s
// RUN: placer-opt %s --placer-build-training="optimizer=momentum momentum=0.25" | FileCheck %s --check-prefix=MOMENTUM
// RUN: placer-opt %s --placer-build-training="optimizer=adam beta1=0.5" | FileCheck %s --check-prefix=ADAM
// RUN: placer-opt %s --placer-build-training="loss=cross-entropy output=z" | FileCheck %s --check-prefix=CE
// RUN: placer-opt %s --placer-build-training | placer-opt --partition-devices="devices=2" | FileCheck %s --check-prefix=PLACED
// RUN: placer-opt %s --placer-estimate-costs=training=true --placer-place-devices="devices=2 tensor-degrees=2" --placer-build-training | FileCheck %s --check-prefix=PARALLEL
// RUN: placer-opt %s --placer-build-training | FileCheck %s --check-prefix=SPLIT
// The step's input reaching the products through an op that is not
// differentiated (an Identity on no weight's path) still makes their
// adjoints input gradients: fc2's dX stays B.
// RUN: sed -e 's/graph.node "MatMul"(%x, %%t)/graph.node "MatMul"(%xi, %%t)/' -e 's/^  %%t = graph.node/  %xi = graph.node "Identity"(%x) attributes {name = "xi", output_names = ["xi"], version = 17 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>\n  %%t = graph.node/' %s | placer-opt --placer-build-training | FileCheck %s --check-prefix=THROUGH
// RUN: not placer-opt %s --placer-build-training="learning-rate=nan" 2>&1 | FileCheck %s --check-prefix=BADRATE
// RUN: not placer-opt %s --placer-build-training="loss=hinge" 2>&1 | FileCheck %s --check-prefix=BADLOSS
// RUN: not placer-opt %s --placer-build-training="output=nothing" 2>&1 | FileCheck %s --check-prefix=BADOUTPUT
// RUN: not placer-opt %s --placer-build-training="batch-norm=frozen" 2>&1 | FileCheck %s --check-prefix=BADNORM

// One training step of a two-layer MLP: a labels input, the loss and the
// next value of each weight as results, each naming the initializer it
// replaces; backward nodes tagged and sharing their forward node's class.
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: %arg1: tensor<2x3xf32> {graph.name = "labels"}
// CHECK-SAME: -> (tensor<f32> {graph.name = "loss"}, tensor<3x4xf32> {graph.name = "w1", placer.updates = "w1"}, tensor<3xf32> {graph.name = "b1", placer.updates = "b1"}, tensor<3x3xf32> {graph.name = "w2", placer.updates = "w2"})
// CHECK: graph.node "Transpose"{{.*}}placer.color_class = 0
// CHECK: graph.node "MatMul"(%arg0, %{{.*}}) {{.*}}placer.color_class = 1
// CHECK: graph.node "Add"{{.*}}placer.color_class = 2
// CHECK: graph.node "Relu"{{.*}}placer.color_class = 3
// CHECK: %[[Y:.*]] = graph.node "MatMul"{{.*}}placer.color_class = 4
// The scale after it is off the loss's path: no class.
// CHECK: graph.node "Mul"(%[[Y]], %{{.*}}) attributes {name = "scaled", output_names = ["z"], version = 17 : i64}
// The loss is forward work: mean of the squared difference.
// CHECK: graph.node "Sub"(%[[Y]], %arg1) attributes {name = "loss/0", output_names = ["loss/0:0"], version = 17 : i64}
// CHECK-NOT: placer.backward
// CHECK: graph.node "ReduceMean"
// CHECK: graph.node "Sign"{{.*}}name = "relu/grad/{{[0-9]+}}"{{.*}}placer.backward, placer.color_class = 3
// SGD: w - 0.5 * grad.
// CHECK: graph.constant "w1/update/const{{[0-9]+}}" : tensor<f32> = dense<5.000000e-01>
// CHECK: graph.node "Sub"(%{{.*}}, %{{.*}}) attributes {name = "w1/update/{{[0-9]+}}"{{.*}}placer.backward, placer.color_class = 0
// The input's constant shape is no weight: not trained.
// CHECK-NOT: placer.updates = "scale"
// CHECK: return

// The backward split in two: the input gradients (B: the nodes the
// adjoint of an activation is computed from, which the devices upstream
// wait for) and the weight gradients (W: placer.weight_gradient), which the
// zero-bubble schedules defer. fc2's twin: dX = dY w2^T is B, dW = a^T dY
// is W; relu's is B; the bias's sum and fc1's twin are W (x is the step's
// input, so fc1's input gradient goes nowhere, and t transposes a weight:
// its adjoint is w1's gradient). The optimizer's nodes are neither.
// SPLIT: name = "loss/grad/1"{{.*}}placer.color_class = 4 : i64, version
// SPLIT: name = "fc2/grad/0"{{.*}}placer.color_class = 4 : i64, version
// SPLIT: name = "fc2/grad/1"{{.*}}placer.color_class = 4 : i64, version
// SPLIT: name = "fc2/grad/2"{{.*}}placer.color_class = 4 : i64, placer.weight_gradient
// SPLIT: name = "fc2/grad/3"{{.*}}placer.color_class = 4 : i64, placer.weight_gradient
// SPLIT: name = "relu/grad/0"{{.*}}placer.color_class = 3 : i64, version
// SPLIT: name = "relu/grad/1"{{.*}}placer.color_class = 3 : i64, version
// SPLIT: name = "bias/grad/1"{{.*}}placer.color_class = 2 : i64, placer.weight_gradient
// SPLIT: name = "fc1/grad/3"{{.*}}placer.color_class = 1 : i64, placer.weight_gradient
// SPLIT: name = "t/grad/0"{{.*}}placer.color_class = 0 : i64, placer.weight_gradient
// SPLIT: name = "w1/update/1"{{.*}}placer.optimizer, version

// THROUGH: name = "fc2/grad/1"{{.*}}placer.color_class = {{[0-9]+}} : i64, version
// THROUGH: name = "fc2/grad/3"{{.*}}placer.weight_gradient

// MOMENTUM-LABEL: func.func @main_graph
// MOMENTUM-SAME: tensor<3x4xf32> {graph.name = "w1.momentum", placer.updates = "w1.momentum"}
// MOMENTUM: graph.constant "w1.momentum" : tensor<3x4xf32> = dense<0.000000e+00>
// MOMENTUM: graph.constant "w1/update/const{{[0-9]+}}" : tensor<f32> = dense<2.500000e-01>

// ADAM-LABEL: func.func @main_graph
// ADAM-SAME: (tensor<f32> {graph.name = "loss"}, tensor<f32> {graph.name = "adam.step", placer.updates = "adam.step"}, tensor<3x4xf32> {graph.name = "w1.adam_m", placer.updates = "w1.adam_m"}, tensor<3x4xf32> {graph.name = "w1.adam_v", placer.updates = "w1.adam_v"}, tensor<3x4xf32> {graph.name = "w1", placer.updates = "w1"}
// ADAM: graph.constant "adam.step" : tensor<f32> = dense<0.000000e+00>
// ADAM: graph.node "Pow"
// ADAM: graph.node "Sqrt"

// Cross-entropy on the second output: int64 class labels, LogSoftmax and a
// one-hot in the loss.
// CE-LABEL: func.func @main_graph
// CE-SAME: %arg1: tensor<2xi64> {graph.name = "labels"}
// CE: graph.node "LogSoftmax"
// CE: graph.node "OneHot"(%arg1,
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x4xf32> {graph.name = "x"}) -> (tensor<2x3xf32> {graph.name = "y"}, tensor<2x3xf32> {graph.name = "z"}) {
  %w1 = graph.constant "w1" : tensor<3x4xf32> = dense<0.5> : tensor<3x4xf32>
  %b1 = graph.constant "b1" : tensor<3xf32> = dense<0.1> : tensor<3xf32>
  %w2 = graph.constant "w2" : tensor<3x3xf32> = dense<0.25> : tensor<3x3xf32>
  %scale = graph.constant "scale" : tensor<f32> = dense<2.0> : tensor<f32>
  %t = graph.node "Transpose"(%w1) attributes {name = "t", output_names = ["t"], version = 17 : i64} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %h = graph.node "MatMul"(%x, %t) attributes {name = "fc1", output_names = ["h"], version = 17 : i64} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %hb = graph.node "Add"(%h, %b1) attributes {name = "bias", output_names = ["hb"], version = 17 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %a = graph.node "Relu"(%hb) attributes {name = "relu", output_names = ["a"], version = 17 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = graph.node "MatMul"(%a, %w2) attributes {name = "fc2", output_names = ["y"], version = 17 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %z = graph.node "Mul"(%y, %scale) attributes {name = "scaled", output_names = ["z"], version = 17 : i64} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %y, %z : tensor<2x3xf32>, tensor<2x3xf32>
}
}

// The placement keeps each backward node with its forward node (their
// shared class), as for the paper's training workloads.
// PLACED-DAG: name = "fc1"{{.*}}placer.device = #placer.device<[[FC1:[0-9]]]>
// PLACED-DAG: name = "relu"{{.*}}placer.device = #placer.device<[[RELU:[0-9]]]>
// PLACED-DAG: name = "fc2"{{.*}}placer.device = #placer.device<[[FC2:[0-9]]]>
// PLACED-DAG: name = "fc2/grad/{{[0-9]+}}"{{.*}}placer.backward{{.*}}placer.device = #placer.device<[[FC2]]>
// PLACED-DAG: name = "relu/grad/{{[0-9]+}}"{{.*}}placer.backward{{.*}}placer.device = #placer.device<[[RELU]]>
// PLACED-DAG: name = "fc1/grad/{{[0-9]+}}"{{.*}}placer.backward{{.*}}placer.device = #placer.device<[[FC1]]>

// BADRATE: error: placer-build-training: learning-rate must be finite and positive, not nan
// BADLOSS: error: placer-build-training: loss must be mse or cross-entropy, not 'hinge'
// BADOUTPUT: error: placer-build-training: no graph output named 'nothing'
// BADNORM: error: placer-build-training: batch-norm must be running or batch, not 'frozen'

// A forward graph that the three-dimensional planner placed (priced for
// training): the step's backward nodes run where their forward twins do,
// the loss and the optimizer with what they read, and what the planner read
// of the forward graph (its configurations) is gone.
// PARALLEL-NOT: placer.tensor_config
// PARALLEL: graph.node "MatMul"(%arg0, %t) {{.*}}name = "fc1"{{.*}}placer.device = #placer.device<0>
// PARALLEL: graph.node "ReduceMean"{{.*}}name = "loss/2"{{.*}}placer.device = #placer.device<0>
// PARALLEL: graph.node "MatMul"{{.*}}name = "fc2/grad/1"{{.*}}placer.backward, placer.color_class = 4 : i64, placer.device = #placer.device<0>
// PARALLEL-NOT: placer.tensor_config
