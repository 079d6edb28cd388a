// A language model's head, alone: its product's result is the function's.
func.func @main_graph(%x: tensor<4x16xf32> {graph.name = "x"}) -> (tensor<4x32xf32> {graph.name = "logits"}) {
  %w = graph.constant "head.w" : tensor<16x32xf32> = dense<0.5> : tensor<16x32xf32>
  %y = graph.node "MatMul"(%x, %w) attributes {name = "head", output_names = ["logits"], version = 13 : i64} : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}
