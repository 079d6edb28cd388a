// One 128x128 product per element type, its weights a constant: the cost
// model's peak and bytes for each (test/Analysis/estimate-costs.mlir).
module {
  func.func @main_graph(%a: tensor<128x128xf32>, %b: tensor<128x128xf16>, %c: tensor<128x128xbf16>) -> (tensor<128x128xf32>, tensor<128x128xf16>, tensor<128x128xbf16>) {
    %wa = graph.constant "wa" : tensor<128x128xf32> = dense<1.0> : tensor<128x128xf32>
    %wb = graph.constant "wb" : tensor<128x128xf16> = dense<1.0> : tensor<128x128xf16>
    %wc = graph.constant "wc" : tensor<128x128xbf16> = dense<1.0> : tensor<128x128xbf16>
    %0 = graph.node "MatMul"(%a, %wa) attributes {name = "f32", output_names = ["ya"], version = 13 : i64} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    %1 = graph.node "MatMul"(%b, %wb) attributes {name = "f16", output_names = ["yb"], version = 13 : i64} : (tensor<128x128xf16>, tensor<128x128xf16>) -> tensor<128x128xf16>
    %2 = graph.node "MatMul"(%c, %wc) attributes {name = "bf16", output_names = ["yc"], version = 13 : i64} : (tensor<128x128xbf16>, tensor<128x128xbf16>) -> tensor<128x128xbf16>
    return %0, %1, %2 : tensor<128x128xf32>, tensor<128x128xf16>, tensor<128x128xbf16>
  }
}
