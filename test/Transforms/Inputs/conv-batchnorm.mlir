// A convolution cut by output channels, then inference BatchNormalization:
// each device normalizes its channels with their statistics.
func.func @main_graph(%x: tensor<1x2x6x6xf32> {graph.name = "x"}) -> (tensor<1x8x6x6xf32> {graph.name = "y"}) {
  %w = graph.constant "w" : tensor<8x2x3x3xf32> = dense<0.25> : tensor<8x2x3x3xf32>
  %b = graph.constant "b" : tensor<8xf32> = dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %scale = graph.constant "bn.scale" : tensor<8xf32> = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %bias = graph.constant "bn.bias" : tensor<8xf32> = dense<[0.5, -0.5, 0.25, -0.25, 1.0, -1.0, 2.0, -2.0]> : tensor<8xf32>
  %mean = graph.constant "bn.mean" : tensor<8xf32> = dense<[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]> : tensor<8xf32>
  %var = graph.constant "bn.var" : tensor<8xf32> = dense<[1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5]> : tensor<8xf32>
  %c = graph.node "Conv"(%x, %w, %b) attributes {attrs = {pads = array<i64: 1, 1, 1, 1>}, name = "conv", output_names = ["c"], version = 11 : i64} : (tensor<1x2x6x6xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  %n = graph.node "BatchNormalization"(%c, %scale, %bias, %mean, %var) attributes {name = "bn", output_names = ["n"], version = 15 : i64} : (tensor<1x8x6x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  %y = graph.node "Relu"(%n) attributes {name = "relu", output_names = ["y"], version = 14 : i64} : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}
