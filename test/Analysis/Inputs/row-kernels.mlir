// Kernels of row-kernels.test: a LayerNormalization node, the same
// LayerNorm exported op by op, a Softmax with its scale and mask, its
// boundaries, and a product's epilogue.
func.func @node(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %g = graph.constant "g" : tensor<16xf32> = dense<1.0> : tensor<16xf32>
  %b = graph.constant "b" : tensor<16xf32> = dense<0.0> : tensor<16xf32>
  %y = graph.node "LayerNormalization"(%x, %g, %b) attributes {attrs = {axis = -1 : i64}, name = "ln", output_names = ["y"], version = 17 : i64} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

func.func @decomposed(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %g = graph.constant "g" : tensor<16xf32> = dense<1.0> : tensor<16xf32>
  %b = graph.constant "b" : tensor<16xf32> = dense<0.0> : tensor<16xf32>
  %two = graph.constant "two" : tensor<f32> = dense<2.0> : tensor<f32>
  %eps = graph.constant "eps" : tensor<f32> = dense<1.0e-5> : tensor<f32>
  %mean = graph.node "ReduceMean"(%x) attributes {attrs = {axes = array<i64: -1>}, name = "mean", output_names = ["mean"], version = 13 : i64} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %d = graph.node "Sub"(%x, %mean) attributes {name = "sub", output_names = ["d"], version = 14 : i64} : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = graph.node "Pow"(%d, %two) attributes {name = "pow", output_names = ["sq"], version = 15 : i64} : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %var = graph.node "ReduceMean"(%sq) attributes {attrs = {axes = array<i64: -1>}, name = "var", output_names = ["var"], version = 13 : i64} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %ve = graph.node "Add"(%var, %eps) attributes {name = "add_eps", output_names = ["ve"], version = 14 : i64} : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %sd = graph.node "Sqrt"(%ve) attributes {name = "sqrt", output_names = ["sd"], version = 13 : i64} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = graph.node "Div"(%d, %sd) attributes {name = "div", output_names = ["n"], version = 14 : i64} : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = graph.node "Mul"(%n, %g) attributes {name = "scale", output_names = ["s"], version = 14 : i64} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = graph.node "Add"(%s, %b) attributes {name = "shift", output_names = ["y"], version = 14 : i64} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

func.func @attention(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %half = graph.constant "half" : tensor<f32> = dense<0.5> : tensor<f32>
  %mask = graph.constant "mask" : tensor<4x16xf32> = dense<0.0> : tensor<4x16xf32>
  %bias = graph.constant "bias" : tensor<16xf32> = dense<0.0> : tensor<16xf32>
  // Two readers: the product's result is written; Mul, Add and Softmax
  // are one row kernel.
  %scores = graph.node "MatMul"(%x, %w) attributes {name = "scores", output_names = ["scores"], version = 13 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %scaled = graph.node "Mul"(%scores, %half) attributes {name = "scaled", output_names = ["scaled"], version = 14 : i64} : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %masked = graph.node "Add"(%scaled, %mask) attributes {name = "masked", output_names = ["masked"], version = 14 : i64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %probs = graph.node "Softmax"(%masked) attributes {attrs = {axis = -1 : i64}, name = "probs", output_names = ["probs"], version = 13 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  // Reads the probabilities and what a product computed from them: that
  // path leaves the row kernel and comes back, so it is not in it (it is
  // that product's epilogue instead).
  %ctx = graph.node "MatMul"(%probs, %w) attributes {name = "ctx", output_names = ["ctx"], version = 13 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %mixed = graph.node "Add"(%probs, %ctx) attributes {name = "mixed", output_names = ["mixed"], version = 14 : i64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  // The bias add alone reads its product: the product's epilogue.
  %proj = graph.node "MatMul"(%x, %w) attributes {name = "proj", output_names = ["proj"], version = 13 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %biased = graph.node "Add"(%proj, %bias) attributes {name = "biased", output_names = ["biased"], version = 14 : i64} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %act = graph.node "Relu"(%biased) attributes {name = "act", output_names = ["act"], version = 14 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %mixed, %act, %scores : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}
