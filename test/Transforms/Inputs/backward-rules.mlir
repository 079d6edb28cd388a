// The sharding rules a training step's backward pass needs, in one graph
// (test/Transforms/split-devices-tensor.test): a and b come out
// column-parallel; their Concat along the split axis is 2 blocks of the
// result (join) that the next product reads row-parallel with its weight
// cut in the same blocks; their Concat along another axis keeps the split;
// a ReduceSum off the split axis keeps it (keepdims=0 moves it), one over
// it sums in parts (an all-reduce); the product of a split transpose is
// cut along its rows (rows); Sign follows its input.
func.func @main_graph(%x: tensor<4x16xf32> {graph.name = "x"}) -> (tensor<4x8xf32> {graph.name = "d"}, tensor<16xf32> {graph.name = "r"}, tensor<4x1xf32> {graph.name = "p"}, tensor<16x16xf32> {graph.name = "g"}, tensor<4x16xf32> {graph.name = "s"}) {
  %wa = graph.constant "wa" : tensor<16x16xf32> = dense<0.25> : tensor<16x16xf32>
  %wb = graph.constant "wb" : tensor<16x16xf32> = dense<-0.5> : tensor<16x16xf32>
  %w2 = graph.constant "w2" : tensor<32x8xf32> = dense<[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0], [4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0], [5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0], [6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0], [7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0], [8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0], [9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0], [10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0], [11.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0, 11.0], [12.0, 12.0, 12.0, 12.0, 12.0, 12.0, 12.0, 12.0], [13.0, 13.0, 13.0, 13.0, 13.0, 13.0, 13.0, 13.0], [14.0, 14.0, 14.0, 14.0, 14.0, 14.0, 14.0, 14.0], [15.0, 15.0, 15.0, 15.0, 15.0, 15.0, 15.0, 15.0], [16.0, 16.0, 16.0, 16.0, 16.0, 16.0, 16.0, 16.0], [17.0, 17.0, 17.0, 17.0, 17.0, 17.0, 17.0, 17.0], [18.0, 18.0, 18.0, 18.0, 18.0, 18.0, 18.0, 18.0], [19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0], [20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0], [21.0, 21.0, 21.0, 21.0, 21.0, 21.0, 21.0, 21.0], [22.0, 22.0, 22.0, 22.0, 22.0, 22.0, 22.0, 22.0], [23.0, 23.0, 23.0, 23.0, 23.0, 23.0, 23.0, 23.0], [24.0, 24.0, 24.0, 24.0, 24.0, 24.0, 24.0, 24.0], [25.0, 25.0, 25.0, 25.0, 25.0, 25.0, 25.0, 25.0], [26.0, 26.0, 26.0, 26.0, 26.0, 26.0, 26.0, 26.0], [27.0, 27.0, 27.0, 27.0, 27.0, 27.0, 27.0, 27.0], [28.0, 28.0, 28.0, 28.0, 28.0, 28.0, 28.0, 28.0], [29.0, 29.0, 29.0, 29.0, 29.0, 29.0, 29.0, 29.0], [30.0, 30.0, 30.0, 30.0, 30.0, 30.0, 30.0, 30.0], [31.0, 31.0, 31.0, 31.0, 31.0, 31.0, 31.0, 31.0]]> : tensor<32x8xf32>
  %axes0 = graph.constant "axes0" : tensor<1xi64> = dense<0> : tensor<1xi64>
  %axes1 = graph.constant "axes1" : tensor<1xi64> = dense<1> : tensor<1xi64>
  %a = graph.node "MatMul"(%x, %wa) attributes {name = "a", output_names = ["a"], version = 13 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %b = graph.node "MatMul"(%x, %wb) attributes {name = "b", output_names = ["b"], version = 13 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %c = graph.node "Concat"(%a, %b) attributes {attrs = {axis = 1 : i64}, name = "c", output_names = ["c"], version = 13 : i64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x32xf32>
  %d = graph.node "MatMul"(%c, %w2) attributes {name = "dproj", output_names = ["d"], version = 13 : i64} : (tensor<4x32xf32>, tensor<32x8xf32>) -> tensor<4x8xf32>
  %e = graph.node "Concat"(%a, %b) attributes {attrs = {axis = 0 : i64}, name = "e", output_names = ["e"], version = 13 : i64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %r = graph.node "ReduceSum"(%e, %axes0) attributes {attrs = {keepdims = 0 : i64}, name = "r", output_names = ["r"], version = 13 : i64} : (tensor<8x16xf32>, tensor<1xi64>) -> tensor<16xf32>
  %p = graph.node "ReduceSum"(%a, %axes1) attributes {name = "p", output_names = ["p"], version = 13 : i64} : (tensor<4x16xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %at = graph.node "Transpose"(%a) attributes {attrs = {perm = array<i64: 1, 0>}, name = "at", output_names = ["at"], version = 13 : i64} : (tensor<4x16xf32>) -> tensor<16x4xf32>
  %g = graph.node "MatMul"(%at, %x) attributes {name = "g", output_names = ["g"], version = 13 : i64} : (tensor<16x4xf32>, tensor<4x16xf32>) -> tensor<16x16xf32>
  %s = graph.node "Sign"(%b) attributes {name = "s", output_names = ["s"], version = 13 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %d, %r, %p, %g, %s : tensor<4x8xf32>, tensor<16xf32>, tensor<4x1xf32>, tensor<16x16xf32>, tensor<4x16xf32>
}
