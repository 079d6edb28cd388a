// An op type without a lowering: refused up front for every target.
module {
  func.func @main(%x: tensor<4x8xf32> {graph.name = "x"}) -> (tensor<4x8xf32> {graph.name = "y"}) {
    %y = graph.node "TfIdfVectorizer"(%x) attributes {name = "u", output_names = ["y"], version = 13 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
}
