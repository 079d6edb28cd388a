// A convolution as a lowering writes it (pad, fill, convolution, bias add,
// ReLU), each op at its own position (no locations that name a node):
// kernel-fusion.test places costs on it.
func.func @conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
  %empty = tensor.empty() : tensor<1x8x6x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %w : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %e1 = tensor.empty() : tensor<1x8x6x6xf32>
  %biased = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv, %b : tensor<1x8x6x6xf32>, tensor<8xf32>) outs(%e1 : tensor<1x8x6x6xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<1x8x6x6xf32>
  %e2 = tensor.empty() : tensor<1x8x6x6xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%biased : tensor<1x8x6x6xf32>) outs(%e2 : tensor<1x8x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x6x6xf32>
  return %relu : tensor<1x8x6x6xf32>
}
