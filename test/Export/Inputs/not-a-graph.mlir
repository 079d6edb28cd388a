func.func private @helper(tensor<2xf32>) -> tensor<2xf32>
func.func @main_graph(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @helper(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
