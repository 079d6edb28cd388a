// a (1 s) -> b (4 s) -> c (2 s) -> d (3 s) -> e (2 s), transfer times 1/4,
// 1, 1/4, 1/4 s, on two nodes of two accelerators: 16 B/s within a node
// (the link transfer times are priced on), 2 B/s between nodes (8x slower).
// Used by place-clusters.test.
module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "acc", device_class = accelerator, count = 4, peak_flops = {default = 1.0}, memory_bandwidth = 1.0, memory_capacity = 1000.0>], default_link = #placer.link<bandwidth = 16.0>, hierarchy = #placer.hierarchy<devices_per_node = 2, intra_node = #placer.link<bandwidth = 16.0>, inter_node = #placer.link<bandwidth = 2.0>>>} {
  func.func @main_graph(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = graph.node "A"(%x) attributes {name = "a", output_names = ["a"], placer.cost = #placer.cost<param_bytes = 0, time = {acc = 1.0 : f64}, transfer_time = 0.25>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %b = graph.node "B"(%a) attributes {name = "b", output_names = ["b"], placer.cost = #placer.cost<param_bytes = 0, time = {acc = 4.0 : f64}, transfer_time = 1.0>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %c = graph.node "C"(%b) attributes {name = "c", output_names = ["c"], placer.cost = #placer.cost<param_bytes = 0, time = {acc = 2.0 : f64}, transfer_time = 0.25>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %d = graph.node "D"(%c) attributes {name = "d", output_names = ["d"], placer.cost = #placer.cost<param_bytes = 0, time = {acc = 3.0 : f64}, transfer_time = 0.25>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %e = graph.node "E"(%d) attributes {name = "e", output_names = ["e"], placer.cost = #placer.cost<param_bytes = 0, time = {acc = 2.0 : f64}, transfer_time = 0.25>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    return %e : tensor<4xf32>
  }
}
