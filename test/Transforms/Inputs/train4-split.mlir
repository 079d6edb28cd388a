// A training step written out: four forward ops in a chain (F), each
// stage's input gradient (B) and weight gradient (W, placer.weight_gradient)
// apart, every op 1 s, one colour class per stage, so that the placement
// puts one stage on each of four accelerators with F = B = W: the shape the
// zero-bubble schedules are measured on (docs/Schedules.md). Transfers take
// no time worth printing. Used by the training simulator tests.

#f = #placer.cost<param_bytes = 1000, output_bytes = 16, time = {acc = 1.0 : f64}, training_param_bytes = 2000>
#g = #placer.cost<output_bytes = 16, time = {acc = 1.0 : f64}>
module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "acc", device_class = accelerator, count = 4, peak_flops = {default = 1.0}, memory_bandwidth = 1.0, memory_capacity = 1000000.0>], default_link = #placer.link<bandwidth = 1.0e30>, training = #placer.training<schedule = "zb-h1", microbatches = 4, optimizer_state_factor = 0.0>>} {
  func.func @main_graph(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %a = graph.node "A"(%x) attributes {name = "a", output_names = ["a"], placer.color_class = 0 : i64, placer.cost = #f, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %b = graph.node "B"(%a) attributes {name = "b", output_names = ["b"], placer.color_class = 1 : i64, placer.cost = #f, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %c = graph.node "C"(%b) attributes {name = "c", output_names = ["c"], placer.color_class = 2 : i64, placer.cost = #f, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %d = graph.node "D"(%c) attributes {name = "d", output_names = ["d"], placer.color_class = 3 : i64, placer.cost = #f, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %dd = graph.node "DGrad"(%d) attributes {name = "d/grad/0", output_names = ["dd"], placer.backward, placer.color_class = 3 : i64, placer.cost = #g, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %wd = graph.node "DWeight"(%c, %d) attributes {name = "d/grad/1", output_names = ["wd"], placer.backward, placer.weight_gradient, placer.color_class = 3 : i64, placer.cost = #g, version = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %dc = graph.node "CGrad"(%dd) attributes {name = "c/grad/0", output_names = ["dc"], placer.backward, placer.color_class = 2 : i64, placer.cost = #g, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %wc = graph.node "CWeight"(%b, %dd) attributes {name = "c/grad/1", output_names = ["wc"], placer.backward, placer.weight_gradient, placer.color_class = 2 : i64, placer.cost = #g, version = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %db = graph.node "BGrad"(%dc) attributes {name = "b/grad/0", output_names = ["db"], placer.backward, placer.color_class = 1 : i64, placer.cost = #g, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %wb = graph.node "BWeight"(%a, %dc) attributes {name = "b/grad/1", output_names = ["wb"], placer.backward, placer.weight_gradient, placer.color_class = 1 : i64, placer.cost = #g, version = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %da = graph.node "AGrad"(%db) attributes {name = "a/grad/0", output_names = ["da"], placer.backward, placer.color_class = 0 : i64, placer.cost = #g, version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %wa = graph.node "AWeight"(%x, %db) attributes {name = "a/grad/1", output_names = ["wa"], placer.backward, placer.weight_gradient, placer.color_class = 0 : i64, placer.cost = #g, version = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %da, %wa, %wb, %wc, %wd : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
