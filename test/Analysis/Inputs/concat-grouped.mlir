// A Concat of three tensors and a depthwise (grouped) Conv, for
// kernel-fusion.test: Concat lowers to a chain of tensor.insert_slice into
// an empty tensor, the grouped Conv to a pad read through a reshape by
// linalg.conv_2d_ngchw_gfchw.
func.func @main(%a: tensor<1x4x6x6xf32>, %b: tensor<1x2x6x6xf32>, %c: tensor<1x2x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %w = graph.constant "w" : tensor<8x1x3x3xf32> = dense<0.5> : tensor<8x1x3x3xf32>
  %cat = graph.node "Concat"(%a, %b, %c) attributes {attrs = {axis = 1 : i64}, name = "cat", output_names = ["cat"], version = 13 : i64} : (tensor<1x4x6x6xf32>, tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>) -> tensor<1x8x6x6xf32>
  %y = graph.node "Conv"(%cat, %w) attributes {attrs = {group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}, name = "dw", output_names = ["y"], version = 11 : i64} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}
