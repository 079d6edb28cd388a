// x ** y with both operands computed: math.powf, which PTX has no
// instruction for (CUDA's libdevice would have __nv_powf).
module {
  func.func @main(%x: tensor<4x8xf32> {graph.name = "x"}, %y: tensor<4x8xf32> {graph.name = "y"}) -> (tensor<4x8xf32> {graph.name = "z"}) {
    %z = graph.node "Pow"(%x, %y) attributes {name = "power", output_names = ["z"], version = 13 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %z : tensor<4x8xf32>
  }
}
