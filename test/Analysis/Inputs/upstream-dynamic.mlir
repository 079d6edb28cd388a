// A linalg, a TOSA and an unknown op on dynamic shapes, for upstream-bad-input.mlir.
func.func @dynamic(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x64xf32>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  %1 = tosa.tanh %0 : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %2 = "stablehlo.abs"(%1) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %2 : tensor<?x64xf32>
}
