// A training step of two ops: a (1 s forward, no backward, no weights) feeds
// b (2 s forward + 2 s backward, 18 bytes of weights); three accelerators on
// 100 B/s links, GPipe with six microbatches per iteration. Used by the
// replication tests.

module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "acc", device_class = accelerator, count = 3, peak_flops = {default = 1.0}, memory_bandwidth = 1.0, memory_capacity = 1000000.0>], default_link = #placer.link<bandwidth = 100.0>, training = #placer.training<schedule = "gpipe", microbatches = 6, optimizer_state_factor = 0.0>>} {
  func.func @main_graph(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = graph.node "A"(%x) attributes {name = "a", output_names = ["a"], placer.cost = #placer.cost<time = {acc = 1.0 : f64}, backward_time = {acc = 0.0 : f64}, training_param_bytes = 0>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %b = graph.node "B"(%a) attributes {name = "b", output_names = ["b"], placer.cost = #placer.cost<param_bytes = 18, time = {acc = 2.0 : f64}, backward_time = {acc = 2.0 : f64}, training_param_bytes = 36>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
}
