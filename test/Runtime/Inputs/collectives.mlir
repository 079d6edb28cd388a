// Two members of a tensor-parallel group (test/Runtime/mpi-collectives.test):
// each computes its part, then both sum them and gather them.
module {
  func.func @g_d0(%x: tensor<2x3xf32> {dist.arg = 0 : i64, graph.name = "x"}) -> (tensor<2x3xf32> {dist.result = 0 : i64, graph.name = "sum"}, tensor<2x6xf32> {dist.result = 1 : i64, graph.name = "cat"}) {
    %one = graph.constant "one" : tensor<f32> = dense<1.0> : tensor<f32>
    %p = graph.node "Mul"(%x, %one) attributes {name = "p0", output_names = ["p"], version = 14 : i64} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %s = dist.all_reduce %p over [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
    %c = dist.all_gather %p over [0, 1] along 1 : tensor<2x3xf32> -> tensor<2x6xf32>
    return %s, %c : tensor<2x3xf32>, tensor<2x6xf32>
  }
  func.func @g_d1(%x: tensor<2x3xf32> {dist.arg = 0 : i64, graph.name = "x"}) {
    %two = graph.constant "two" : tensor<f32> = dense<2.0> : tensor<f32>
    %p = graph.node "Mul"(%x, %two) attributes {name = "p1", output_names = ["p"], version = 14 : i64} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %s = dist.all_reduce %p over [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
    %c = dist.all_gather %p over [0, 1] along 1 : tensor<2x3xf32> -> tensor<2x6xf32>
    return
  }
  dist.program @g {channels = [], devices = array<i64: 0, 1>, stages = [@g_d0, @g_d1]}
}
