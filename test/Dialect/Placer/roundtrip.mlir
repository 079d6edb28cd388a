// Every placer attribute prints and parses back unchanged; defaults (zero
// counts, model source, zero latency) are left out.
// RUN: placer-opt %s | placer-opt | FileCheck %s
// RUN: placer-opt %s > %t.1.mlir && placer-opt %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir

// CHECK: module attributes {placer.cluster = #placer.cluster<name = "two-nodes", kinds = [#placer.kind<name = "gpu", device_class = accelerator, count = 4, peak_flops = {default = 1.000000e+12 : f64, f16 = 4.000000e+12 : f64}, memory_bandwidth = 1.0e+12, memory_capacity = 8.0e+10, op_overhead = 5.0e-06>, #placer.kind<name = "cpu", device_class = cpu, count = 2, peak_flops = {default = 1.000000e+11 : f64}, memory_bandwidth = 1.0e+10>], default_link = <bandwidth = 1.0e+11, latency = 1.0e-06>, hierarchy = <devices_per_node = 2, intra_node = <bandwidth = 3.0e+11>, inter_node = <bandwidth = 1.25e+10, latency = 2.0e-05>>, kind_links = [#placer.kind_link<"gpu", "cpu", <bandwidth = 3.2e+10>>], device_links = [#placer.device_link<0, 5, <bandwidth = 1.0e+09>>]>
// CHECK-SAME: placer.placement = #placer.placement<objective = latency, algorithm = "ip", max_load = 2.5, lower_bound = 2.0, optimal = false, accelerators = 4, cpus = 2, latency = 3.25, schedule = "1f1b", microbatches = 8, recompute = [0, 2], replica_of = [-1, 0, -1, -1, -1, -1]>
module attributes {
  placer.cluster = #placer.cluster<name = "two-nodes",
    kinds = [#placer.kind<name = "gpu", device_class = accelerator, count = 4,
                          peak_flops = {default = 1.0e12, f16 = 4.0e12},
                          memory_bandwidth = 1.0e12, memory_capacity = 8.0e10,
                          op_overhead = 5.0e-6>,
             #placer.kind<name = "cpu", device_class = cpu, count = 2,
                          peak_flops = {default = 1.0e11},
                          memory_bandwidth = 1.0e10>],
    default_link = #placer.link<bandwidth = 1.0e11, latency = 1.0e-6>,
    hierarchy = #placer.hierarchy<devices_per_node = 2,
                                  intra_node = #placer.link<bandwidth = 3.0e11>,
                                  inter_node = #placer.link<bandwidth = 1.25e10, latency = 2.0e-5>>,
    kind_links = [#placer.kind_link<"gpu", "cpu", #placer.link<bandwidth = 3.2e10>>],
    device_links = [#placer.device_link<0, 5, #placer.link<bandwidth = 1.0e9>>]>,
  placer.placement = #placer.placement<objective = latency, algorithm = "ip",
    max_load = 2.5, lower_bound = 2.0, optimal = false, accelerators = 4,
    cpus = 2, latency = 3.25, schedule = "1f1b", microbatches = 8,
    recompute = [0, 2], replica_of = [-1, 0, -1, -1, -1, -1]>} {
  func.func @main_graph(%x: tensor<4xf32>) -> tensor<4xf32> {
    // CHECK: placer.cost = #placer.cost<flops = 8, bytes_read = 16, bytes_written = 16, output_bytes = 16, time = {cpu = 2.000000e-06 : f64, gpu = 9.9999999999999995E-7 : f64}, transfer_time = 1.6e-10, backward_time = {cpu = 4.000000e-06 : f64, gpu = 2.000000e-06 : f64}, training_param_bytes = 0>
    // CHECK-SAME: placer.device = #placer.device<5>
    %y = graph.node "Relu"(%x) attributes {name = "relu", output_names = ["y"], version = 13 : i64,
      placer.cost = #placer.cost<flops = 8, bytes_read = 16, bytes_written = 16, output_bytes = 16,
                                 time = {gpu = 1.0e-6, cpu = 2.0e-6}, transfer_time = 1.6e-10,
                                 backward_time = {gpu = 2.0e-6, cpu = 4.0e-6},
                                 training_param_bytes = 0>,
      placer.device = #placer.device<5>} : (tensor<4xf32>) -> tensor<4xf32>
    // CHECK: placer.cost = #placer.cost<time = {cpu = 0.000000e+00 : f64}, source = workload>
    %z = graph.node "Neg"(%y) attributes {name = "neg", output_names = ["z"], version = 13 : i64,
      placer.cost = #placer.cost<time = {cpu = 0.0}, source = workload>} : (tensor<4xf32>) -> tensor<4xf32>
    return %z : tensor<4xf32>
  }
}
