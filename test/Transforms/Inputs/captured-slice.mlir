// A slice with starts known only at run time, as the lowering of such an
// ONNX Slice writes it: tensor.generate reads the sliced tensor from above
// (tensor.extract in its body), not through an operand.
func.func @main(%x: tensor<64x64xf32>, %start: tensor<1xi64>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<64x64xf32>
  %c0 = arith.constant 0 : index
  %s = tensor.extract %start[%c0] : tensor<1xi64>
  %si = arith.index_cast %s : i64 to index
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %jj = arith.addi %j, %si : index
    %v = tensor.extract %a[%i, %jj] : tensor<64x64xf32>
    tensor.yield %v : f32
  } : tensor<64x32xf32>
  %e2 = tensor.empty() : tensor<64x32xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%g : tensor<64x32xf32>) outs(%e2 : tensor<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.tanh %in : f32
    linalg.yield %v : f32
  } -> tensor<64x32xf32>
  return %b : tensor<64x32xf32>
}
