// Two accelerators, links of 16 B/s: a 16-byte tensor takes 1 s, the
// transfer_time the ops carry. Used by the simulator tests.




module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "acc", device_class = accelerator, count = 2, peak_flops = {default = 1.0}, memory_bandwidth = 1.0, memory_capacity = 1000.0>, #placer.kind<name = "cpu", device_class = cpu, peak_flops = {default = 1.0}, memory_bandwidth = 1.0>], default_link = #placer.link<bandwidth = 16.0>>} {
  func.func @main_graph(%x: tensor<4xf32>) -> tensor<4xf32> {
    %w = graph.constant "w" : tensor<4xf32> = dense<1.0> : tensor<4xf32>
    %a = graph.node "A"(%x, %w) attributes {name = "a", output_names = ["a"], placer.cost = #placer.cost<param_bytes = 100, time = {acc = 4.0 : f64, cpu = 40.0 : f64}, transfer_time = 1.0>, version = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %b = graph.node "B"(%a) attributes {name = "b", output_names = ["b"], placer.cost = #placer.cost<param_bytes = 0, time = {acc = 4.0 : f64, cpu = 40.0 : f64}, transfer_time = 1.0>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %c = graph.node "C"(%b) attributes {name = "c", output_names = ["c"], placer.cost = #placer.cost<param_bytes = 0, time = {acc = 2.0 : f64, cpu = 20.0 : f64}, transfer_time = 1.0>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %d = graph.node "D"(%c) attributes {name = "d", output_names = ["d"], placer.cost = #placer.cost<param_bytes = 0, time = {acc = 6.0 : f64, cpu = 60.0 : f64}, transfer_time = 1.0>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    return %d : tensor<4xf32>
  }
}
