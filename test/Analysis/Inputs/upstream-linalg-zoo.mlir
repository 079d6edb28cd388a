// Upstream ops for upstream-costs.mlir: linalg named, generic and reduction
// ops, tensor views and moves, elementwise arith/math on tensors. Each op
// has its own NameLoc (its name in the report), except `conv` and its bias
// add, which share one: a lowering's two ops of one source op. The
// structure fuses across names: `relu_exp` alone reads the matmul (its
// epilogue), the conv alone reads `pad`.
#id = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @main(%x: tensor<4x8xf32>,
                %w: tensor<8x16xf32> {graph.weight = {name = "w", value = dense<5.000000e-01> : tensor<8x16xf32>}},
                %img: tensor<1x6x6x4xf32>)
    -> (tensor<4xf32>, tensor<1x6x6x8xf32>, tensor<64xf32>, tensor<4x16xf32>) {
  %zero = arith.constant 0.000000e+00 : f32 loc("zero")
  %e = tensor.empty() : tensor<4x16xf32> loc("empty")
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32> loc("fill")
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32> loc("matmul")
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    %s = math.exp %r : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32> loc("relu_exp")
  %e4 = tensor.empty() : tensor<4xf32> loc("empty4")
  %acc4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32> loc("fill4")
  %sum = linalg.reduce ins(%act : tensor<4x16xf32>) outs(%acc4 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %a = arith.addf %in, %init : f32
      linalg.yield %a : f32
    } loc("rowsum")
  %padded = tensor.pad %img low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x4xf32> to tensor<1x8x8x4xf32> loc("pad")
  %filter = arith.constant dense<1.000000e-01> : tensor<3x3x4x8xf32> loc("filter")
  %b = arith.constant dense<1.000000e+00> : tensor<8xf32> loc("b")
  %ec = tensor.empty() : tensor<1x6x6x8xf32> loc("emptyc")
  %accc = linalg.fill ins(%zero : f32) outs(%ec : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> loc("fillc")
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %filter : tensor<1x8x8x4xf32>, tensor<3x3x4x8xf32>) outs(%accc : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> loc("conv")
  %biased = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv, %b : tensor<1x6x6x8xf32>, tensor<8xf32>) outs(%ec : tensor<1x6x6x8xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %a = arith.addf %in, %bb : f32
    linalg.yield %a : f32
  } -> tensor<1x6x6x8xf32> loc("conv")
  %flat = tensor.collapse_shape %act [[0, 1]] : tensor<4x16xf32> into tensor<64xf32> loc("collapse")
  %sq = arith.mulf %flat, %flat : tensor<64xf32> loc("square")
  %th = math.tanh %sq : tensor<64xf32> loc("tanh")
  %cat = tensor.concat dim(0) %act, %act : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<8x16xf32> loc("concat")
  %slice = tensor.extract_slice %cat[2, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32> loc("slice")
  return %sum, %biased, %th, %slice : tensor<4xf32>, tensor<1x6x6x8xf32>, tensor<64xf32>, tensor<4x16xf32>
}
