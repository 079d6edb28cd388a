// A training graph with its backward ops written out, as the paper's
// workloads give it, already placed on two accelerators: f1 (1 s) on device
// 0 feeds f2 (1 s) on device 1; the backward op b2 (2 s) follows f2 there
// and sends its gradient back to b1 (2 s) on device 0, which also reads
// f1's output. Links are so fast that transfers take no time worth
// printing. Used by the training simulator tests.

module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "acc", device_class = accelerator, count = 2, peak_flops = {default = 1.0}, memory_bandwidth = 1.0, memory_capacity = 1000000.0>], default_link = #placer.link<bandwidth = 1.0e30>>} {
  func.func @main_graph(%x: tensor<4xf32>) -> tensor<4xf32> {
    %f1 = graph.node "F"(%x) attributes {name = "f1", output_names = ["f1"], attrs = {backward = 0 : i64}, placer.device = #placer.device<0>, placer.cost = #placer.cost<param_bytes = 100, time = {acc = 1.0 : f64}>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %f2 = graph.node "F"(%f1) attributes {name = "f2", output_names = ["f2"], attrs = {backward = 0 : i64}, placer.device = #placer.device<1>, placer.cost = #placer.cost<param_bytes = 100, time = {acc = 1.0 : f64}>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %b2 = graph.node "B"(%f2) attributes {name = "b2", output_names = ["b2"], attrs = {backward = 1 : i64}, placer.device = #placer.device<1>, placer.cost = #placer.cost<time = {acc = 2.0 : f64}>, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %b1 = graph.node "B"(%b2, %f1) attributes {name = "b1", output_names = ["b1"], attrs = {backward = 1 : i64}, placer.device = #placer.device<0>, placer.cost = #placer.cost<time = {acc = 2.0 : f64}>, version = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %b1 : tensor<4xf32>
  }
}
