// A full reduction to a rank-0 tensor, then an op on the scalar: device
// work outside any parallel loop, one thread's kernel.
module {
  func.func @main(%x: tensor<4x8xf32> {graph.name = "x"}) -> (tensor<f32> {graph.name = "s"}) {
    %axes = graph.constant "axes" : tensor<2xi64> = dense<[0, 1]> : tensor<2xi64>
    %s = graph.node "ReduceSum"(%x, %axes) attributes {attrs = {keepdims = 0 : i64}, name = "total", output_names = ["s"], version = 13 : i64} : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<f32>
    %r = graph.node "Relu"(%s) attributes {name = "relu", output_names = ["r"], version = 13 : i64} : (tensor<f32>) -> tensor<f32>
    return %r : tensor<f32>
  }
}
