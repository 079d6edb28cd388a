// Two accelerator kinds, the slow one first in device order: device 0 is
// "slow" (30 bytes), device 1 "fast" (45 bytes). a takes 8 s on slow and
// 4 s on fast, b 2 s on both; 8 bytes of weights each, 16-byte tensors,
// free transfers. Used by place-clusters.test.
module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "slow", device_class = accelerator, count = 1, peak_flops = {default = 1.0}, memory_bandwidth = 1.0, memory_capacity = 30.0>, #placer.kind<name = "fast", device_class = accelerator, count = 1, peak_flops = {default = 1.0}, memory_bandwidth = 1.0, memory_capacity = 45.0>], default_link = #placer.link<bandwidth = 16.0>>} {
  func.func @main_graph(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = graph.node "A"(%x) attributes {name = "a", output_names = ["a"], placer.cost = #placer.cost<param_bytes = 8, time = {slow = 8.0 : f64, fast = 4.0 : f64}, transfer_time = 0.0>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %b = graph.node "B"(%a) attributes {name = "b", output_names = ["b"], placer.cost = #placer.cost<param_bytes = 8, time = {slow = 2.0 : f64, fast = 2.0 : f64}, transfer_time = 0.0>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
}
