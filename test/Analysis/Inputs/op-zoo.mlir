// One op of each cost family, with static shapes, for estimate-costs.mlir.
func.func @main_graph(%a: tensor<2x4x8xf32>, %g: tensor<4x8xf32>, %e1: tensor<2x3x4xf32>, %e2: tensor<2x4x5xf32>, %img: tensor<1x4x8x8xf32>, %seq: tensor<5x2x8xf32>, %idx: tensor<2x3xi64>, %small: tensor<1x2x4x4xf32>) -> (tensor<2x4x16xf32>, tensor<4x16xf32>, tensor<2x3x5xf32>, tensor<2x4x16xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>, tensor<5x1x2x16xf32>, tensor<2x3x16xf32>, tensor<2x16x4xf32>, tensor<128xf32>, tensor<2x4x16xf32>, tensor<2x4x1xf32>, tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>) {
  %b = graph.constant "b" : tensor<8x16xf32> = #graph.external<"w.data", offset = 0, length = 512>
  %gb = graph.constant "gb" : tensor<8x16xf32> = #graph.external<"w.data", offset = 512, length = 512>
  %gc = graph.constant "gc" : tensor<16xf32> = #graph.external<"w.data", offset = 1024, length = 64>
  %scale = graph.constant "scale" : tensor<4xf32> = #graph.external<"w.data", offset = 1088, length = 16>
  %lw = graph.constant "lw" : tensor<1x64x8xf32> = #graph.external<"w.data", offset = 1104, length = 2048>
  %lr = graph.constant "lr" : tensor<1x64x16xf32> = #graph.external<"w.data", offset = 3152, length = 4096>
  %table = graph.constant "table" : tensor<100x16xf32> = #graph.external<"w.data", offset = 7248, length = 6400>
  %dw = graph.constant "dw" : tensor<4x1x3x3xf32> = #graph.external<"w.data", offset = 13648, length = 144>
  %tw = graph.constant "tw" : tensor<2x3x2x2xf32> = #graph.external<"w.data", offset = 13792, length = 96>
  %shape = graph.constant "shape" : tensor<1xi64> = dense<128> : tensor<1xi64> {node = "shape_const"}
  %mm = graph.node "MatMul"(%a, %b) attributes {name = "matmul", output_names = ["mm"], version = 13 : i64} : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %gemm = graph.node "Gemm"(%g, %gb, %gc) attributes {name = "gemm", output_names = ["gemm"], version = 13 : i64} : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %es = graph.node "Einsum"(%e1, %e2) attributes {attrs = {equation = "bij,bjk->bik"}, name = "einsum", output_names = ["es"], version = 13 : i64} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %relu = graph.node "Relu"(%mm) attributes {name = "relu", output_names = ["relu"], version = 13 : i64} : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sm = graph.node "Softmax"(%relu) attributes {name = "softmax", output_names = ["sm"], version = 13 : i64} : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %ln = graph.node "LayerNormalization"(%sm, %gc) attributes {name = "layernorm", output_names = ["ln"], version = 17 : i64} : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %bn = graph.node "BatchNormalization"(%img, %scale, %scale, %scale, %scale) attributes {name = "batchnorm", output_names = ["bn"], version = 15 : i64} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %mp = graph.node "MaxPool"(%bn) attributes {attrs = {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}, name = "maxpool", output_names = ["mp"], version = 12 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %gap = graph.node "GlobalAveragePool"(%bn) attributes {name = "gap", output_names = ["gap"], version = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %lstm = graph.node "LSTM"(%seq, %lw, %lr) attributes {attrs = {hidden_size = 16 : i64}, name = "lstm", output_names = ["lstm"], version = 14 : i64} : (tensor<5x2x8xf32>, tensor<1x64x8xf32>, tensor<1x64x16xf32>) -> tensor<5x1x2x16xf32>
  %gat = graph.node "Gather"(%table, %idx) attributes {name = "gather", output_names = ["gat"], version = 13 : i64} : (tensor<100x16xf32>, tensor<2x3xi64>) -> tensor<2x3x16xf32>
  %tr = graph.node "Transpose"(%relu) attributes {attrs = {perm = array<i64: 0, 2, 1>}, name = "transpose", output_names = ["tr"], version = 13 : i64} : (tensor<2x4x16xf32>) -> tensor<2x16x4xf32>
  %rs = graph.node "Reshape"(%relu, %shape) attributes {name = "reshape", output_names = ["rs"], version = 14 : i64} : (tensor<2x4x16xf32>, tensor<1xi64>) -> tensor<128xf32>
  %cu = graph.node "Fused"(%relu) attributes {domain = "com.example", name = "custom", output_names = ["cu"], version = 1 : i64} : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %rm = graph.node "ReduceMean"(%relu) attributes {attrs = {axes = array<i64: 2>}, name = "reducemean", output_names = ["rm"], version = 13 : i64} : (tensor<2x4x16xf32>) -> tensor<2x4x1xf32>
  %dc = graph.node "Conv"(%img, %dw) attributes {attrs = {group = 4 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}, name = "depthwise", output_names = ["dc"], version = 11 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  %ct = graph.node "ConvTranspose"(%small, %tw) attributes {attrs = {strides = array<i64: 2, 2>}, name = "convtranspose", output_names = ["ct"], version = 11 : i64} : (tensor<1x2x4x4xf32>, tensor<2x3x2x2xf32>) -> tensor<1x3x8x8xf32>
  return %mm, %gemm, %es, %relu, %bn, %mp, %gap, %lstm, %gat, %tr, %rs, %cu, %rm, %dc, %ct : tensor<2x4x16xf32>, tensor<4x16xf32>, tensor<2x3x5xf32>, tensor<2x4x16xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>, tensor<5x1x2x16xf32>, tensor<2x3x16xf32>, tensor<2x16x4xf32>, tensor<128xf32>, tensor<2x4x16xf32>, tensor<2x4x1xf32>, tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>
}
