// Two layers of 64x64 products: the placement puts one on each device.
module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x64xf32> {graph.name = "x"}) -> (tensor<2x64xf32> {graph.name = "y"}) {
  %w1 = graph.constant "w1" : tensor<64x64xf32> = dense<0.5> : tensor<64x64xf32>
  %w2 = graph.constant "w2" : tensor<64x64xf32> = dense<0.25> : tensor<64x64xf32>
  %h = graph.node "MatMul"(%x, %w1) attributes {name = "fc1", output_names = ["h"], version = 17 : i64} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32>
  %a = graph.node "Tanh"(%h) attributes {name = "tanh", output_names = ["a"], version = 17 : i64} : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %y = graph.node "MatMul"(%a, %w2) attributes {name = "fc2", output_names = ["y"], version = 17 : i64} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32>
  return %y : tensor<2x64xf32>
}
}
