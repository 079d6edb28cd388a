module {
func.func @main_graph(%m: tensor<i64> {graph.name = "m"}, %x: tensor<2xf32> {graph.name = "x"}) -> (tensor<2xf32> {graph.name = "y"}, tensor<3x2xf32> {graph.name = "s"}) {
  %c = graph.constant "c" : tensor<i1> = dense<true> : tensor<i1>
  %y, %s = graph.node "Loop"(%m, %c, %x) attributes {name = "loop", output_names = ["y", "s"], subgraphs = ["body"], version = 13 : i64} {
  ^bb0(%i: tensor<i64>, %go: tensor<i1>, %v: tensor<2xf32>):
    %w = graph.node "Add"(%v, %v) attributes {name = "double", output_names = ["w"], version = 14 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    graph.yield %go, %w, %w : tensor<i1>, tensor<2xf32>, tensor<2xf32> {graph_name = "body", input_names = ["i", "go", "v"], output_names = ["go", "w", "w"]}
  } : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  return %y, %s : tensor<2xf32>, tensor<3x2xf32>
}
}
