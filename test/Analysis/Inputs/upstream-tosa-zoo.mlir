// TOSA ops for upstream-costs.mlir, one of each rule family, each named by
// its NameLoc.
func.func @main(%img: tensor<1x6x6x4xf32>, %a: tensor<1x4x8xf32>, %small: tensor<1x3x3x4xf32>, %table: tensor<1x10x8xf32>, %idx: tensor<1x4xi32>)
    -> (tensor<1x6x6x8xf32>, tensor<1x3x3x8xf32>, tensor<1x3x3x8xf32>, tensor<1x1x16xf32>, tensor<1x16x4xf32>, tensor<64xf32>, tensor<1x4x8xf32>, tensor<1x6x6x8xf32>) {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32> loc("zp")
  %w = "tosa.const"() <{values = dense<1.000000e-01> : tensor<8x3x3x4xf32>}> : () -> tensor<8x3x3x4xf32> loc("w")
  %b = "tosa.const"() <{values = dense<1.000000e+00> : tensor<8xf32>}> : () -> tensor<8xf32> loc("b")
  %conv = "tosa.conv2d"(%img, %w, %b, %zp, %zp) <{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}> : (tensor<1x6x6x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32> loc("conv")
  %relu = "tosa.clamp"(%conv) <{max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32}> : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> loc("relu")
  %dw = "tosa.const"() <{values = dense<1.000000e-01> : tensor<3x3x8x1xf32>}> : () -> tensor<3x3x8x1xf32> loc("dw")
  %depthwise = "tosa.depthwise_conv2d"(%relu, %dw, %b, %zp, %zp) <{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}> : (tensor<1x6x6x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32> loc("depthwise")
  %avg = "tosa.avg_pool2d"(%depthwise, %zp, %zp) <{acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}> : (tensor<1x6x6x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x8xf32> loc("avgpool")
  %max = "tosa.max_pool2d"(%depthwise) <{kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}> : (tensor<1x6x6x8xf32>) -> tensor<1x3x3x8xf32> loc("maxpool")
  %bm = "tosa.const"() <{values = dense<2.000000e-01> : tensor<1x8x16xf32>}> : () -> tensor<1x8x16xf32> loc("bm")
  %mm = "tosa.matmul"(%a, %bm, %zp, %zp) : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32> loc("matmul")
  %exp = "tosa.exp"(%mm) : (tensor<1x4x16xf32>) -> tensor<1x4x16xf32> loc("exp")
  %add = "tosa.add"(%exp, %mm) : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32> loc("add")
  %sum = "tosa.reduce_sum"(%add) <{axis = 1 : i32}> : (tensor<1x4x16xf32>) -> tensor<1x1x16xf32> loc("reducesum")
  %tr = "tosa.transpose"(%add) <{perms = array<i32: 0, 2, 1>}> : (tensor<1x4x16xf32>) -> tensor<1x16x4xf32> loc("transpose")
  %shape = "tosa.const_shape"() <{values = dense<64> : tensor<1xindex>}> : () -> !tosa.shape<1> loc("shape")
  %flat = "tosa.reshape"(%add, %shape) : (tensor<1x4x16xf32>, !tosa.shape<1>) -> tensor<64xf32> loc("reshape")
  %rows = "tosa.gather"(%table, %idx) : (tensor<1x10x8xf32>, tensor<1x4xi32>) -> tensor<1x4x8xf32> loc("gather")
  %tw = "tosa.const"() <{values = dense<1.000000e-01> : tensor<8x2x2x4xf32>}> : () -> tensor<8x2x2x4xf32> loc("tw")
  %up = "tosa.transpose_conv2d"(%small, %tw, %b, %zp, %zp) <{acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}> : (tensor<1x3x3x4xf32>, tensor<8x2x2x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32> loc("upconv")
  return %depthwise, %avg, %max, %sum, %tr, %flat, %rows, %up : tensor<1x6x6x8xf32>, tensor<1x3x3x8xf32>, tensor<1x3x3x8xf32>, tensor<1x1x16xf32>, tensor<1x16x4xf32>, tensor<64xf32>, tensor<1x4x8xf32>, tensor<1x6x6x8xf32>
}
