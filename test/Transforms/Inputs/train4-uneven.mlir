// Four ops in a chain, two heavy (1 s forward, 2 s backward) then two
// light (0.25 s forward, 0.75 s backward), each 2000 bytes of weights with their
// training state and a 16-byte output: one stage per accelerator cannot
// balance two accelerators (3 | 5 at best), chunks can (4 | 4). Used by
// test/Transforms/place-schedules.test.

module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "acc", device_class = accelerator, count = 4, peak_flops = {default = 1.0}, memory_bandwidth = 1.0, memory_capacity = 1000000.0>], default_link = #placer.link<bandwidth = 1.0e30>, training = #placer.training<schedule = "1f1b", microbatches = 4, optimizer_state_factor = 0.0>>} {
  func.func @main_graph(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = graph.node "A"(%x) attributes {name = "a", output_names = ["a"], placer.cost = #placer.cost<param_bytes = 1000, output_bytes = 16, time = {acc = 1.0 : f64}, backward_time = {acc = 2.0 : f64}, training_param_bytes = 2000>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %b = graph.node "B"(%a) attributes {name = "b", output_names = ["b"], placer.cost = #placer.cost<param_bytes = 1000, output_bytes = 16, time = {acc = 1.0 : f64}, backward_time = {acc = 2.0 : f64}, training_param_bytes = 2000>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %c = graph.node "C"(%b) attributes {name = "c", output_names = ["c"], placer.cost = #placer.cost<param_bytes = 1000, output_bytes = 16, time = {acc = 0.25 : f64}, backward_time = {acc = 0.75 : f64}, training_param_bytes = 2000>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %d = graph.node "D"(%c) attributes {name = "d", output_names = ["d"], placer.cost = #placer.cost<param_bytes = 1000, output_bytes = 16, time = {acc = 0.25 : f64}, backward_time = {acc = 0.75 : f64}, training_param_bytes = 2000>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    return %d : tensor<4xf32>
  }
}
