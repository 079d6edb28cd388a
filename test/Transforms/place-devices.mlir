// The placement pass on a small hand-made graph whose optimum is known:
// a -> b -> c -> d with times 4, 4, 2, 6 on an accelerator, transfer cost 1
// per output, two accelerators. The best split is {a, b} | {c, d}:
// 8 + 1 (b's output leaves) = 9 and 8 + 1 (it arrives) = 9.
// RUN: placer-opt %s --placer-place-devices="report=%t.json export-split=%t.split.json" 2>&1 | FileCheck %s
// RUN: %python %S/Inputs/report.py %t.json | FileCheck %s --check-prefix=REPORT
// Scoring the exported split gives the same max-load.
// RUN: placer-opt %s --placer-place-devices="algorithm=split-file split-in=%t.split.json report=%t.score.json" -o /dev/null
// RUN: %python %S/Inputs/report.py %t.score.json | FileCheck %s --check-prefix=SCORE
// RUN: placer-opt %s --placer-place-devices="activations=false report=%t.weights.json" -o /dev/null
// RUN: %python %S/Inputs/report.py %t.weights.json | FileCheck %s --check-prefix=WEIGHTS
// WEIGHTS: device 0 acc load 9 compute 8 in 0 out 1 memory 100 (weights 100 activations 0)
// WEIGHTS-NEXT: device 1 acc load 9 compute 8 in 1 out 0 memory 0 (weights 0 activations 0)
// RUN: placer-opt %s --placer-place-devices="algorithm=single" 2>&1 | FileCheck %s --check-prefix=SINGLE
// RUN: placer-opt %s --placer-place-devices="algorithm=pipedream" 2>&1 | FileCheck %s --check-prefix=PIPEDREAM
// RUN: placer-opt %s --placer-place-devices="algorithm=greedy" 2>&1 | FileCheck %s --check-prefix=GREEDY

// CHECK: remark: placed 4 ops on 2 accelerators and 0 CPU cores with dp: max load 9 (lower bound 8), 5 ideals
// CHECK: module attributes {placer.cluster = {{.*}}, placer.placement = #placer.placement<objective = throughput, algorithm = "dp", max_load = 9.0, lower_bound = 8.0, optimal = true, accelerators = 2, cpus = 0>}
// The constant follows its consumer.
// CHECK: graph.constant "w" {{.*}}placer.device = #placer.device<0>
// CHECK: graph.node "A"{{.*}}placer.device = #placer.device<0>
// CHECK: graph.node "B"{{.*}}placer.device = #placer.device<0>
// CHECK: graph.node "C"{{.*}}placer.device = #placer.device<1>
// CHECK: graph.node "D"{{.*}}placer.device = #placer.device<1>

// REPORT: algorithm dp optimal True coarsened False
// REPORT-NEXT: max_load 9 lower_bound 8
// REPORT-NEXT: devices 2 accelerators 2 cpus 0
// Memory: device 0 holds A's 100 weight bytes and, while B runs, a and b
// (16 bytes each; b waits to be sent); device 1 holds the received b while
// C runs, then c while D runs: 32 each. The graph input x is not counted.
// REPORT-NEXT: device 0 acc load 9 compute 8 in 0 out 1 memory 132 (weights 100 activations 32)
// REPORT-NEXT: device 1 acc load 9 compute 8 in 1 out 0 memory 32 (weights 0 activations 32)
// REPORT-NEXT: assigned 4
// SCORE: algorithm split-file optimal False
// SCORE-NEXT: max_load 9 lower_bound 8

// All on one accelerator: 16.
// SINGLE: with single: max load 16
// PIPEDREAM: with pipedream: max load 9
// GREEDY: with greedy: max load 9

module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "acc", device_class = accelerator, count = 2, peak_flops = {default = 1.0}, memory_bandwidth = 1.0, memory_capacity = 1000.0>, #placer.kind<name = "cpu", device_class = cpu, peak_flops = {default = 1.0}, memory_bandwidth = 1.0>], default_link = #placer.link<bandwidth = 1.0>>} {
  func.func @main_graph(%x: tensor<4xf32>) -> tensor<4xf32> {
    %w = graph.constant "w" : tensor<4xf32> = dense<1.0> : tensor<4xf32>
    %a = graph.node "A"(%x, %w) attributes {name = "a", output_names = ["a"], placer.cost = #placer.cost<param_bytes = 100, time = {acc = 4.0 : f64, cpu = 40.0 : f64}, transfer_time = 1.0>, version = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %b = graph.node "B"(%a) attributes {name = "b", output_names = ["b"], placer.cost = #placer.cost<param_bytes = 0, time = {acc = 4.0 : f64, cpu = 40.0 : f64}, transfer_time = 1.0>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %c = graph.node "C"(%b) attributes {name = "c", output_names = ["c"], placer.cost = #placer.cost<param_bytes = 0, time = {acc = 2.0 : f64, cpu = 20.0 : f64}, transfer_time = 1.0>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %d = graph.node "D"(%c) attributes {name = "d", output_names = ["d"], placer.cost = #placer.cost<param_bytes = 0, time = {acc = 6.0 : f64, cpu = 60.0 : f64}, transfer_time = 1.0>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    return %d : tensor<4xf32>
  }
}
