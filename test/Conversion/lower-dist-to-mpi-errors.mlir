// --placer-lower-dist-to-mpi's errors, each naming the transfer.
// RUN: placer-opt %s --split-input-file --verify-diagnostics --placer-lower-dist-to-mpi=transfers=blocking

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{must be bufferized before --placer-lower-dist-to-mpi}}
  dist.send %x to 1 channel 0 : tensor<2xf32>
  return
}

// -----

func.func @f(%x: memref<2xf16>) {
  // expected-error @+1 {{transfers=blocking cannot send 'f16' (upstream's MPI lowering has no datatype for it); use transfers=pipelined}}
  dist.send %x to 1 channel 0 : memref<2xf16>
  return
}

// -----

func.func @f(%x: memref<2xf32>) attributes {dist.ranks = array<i64: 0, 1>} {
  // expected-error @+1 {{peer device 4 is not in the function's dist.ranks}}
  dist.send %x to 4 channel 0 : memref<2xf32>
  return
}

// -----

func.func @f(%x: memref<?xf32>) {
  // expected-error @+1 {{transfers need static shapes, got 'memref<?xf32>'}}
  dist.send %x to 1 channel 0 : memref<?xf32>
  return
}

// -----

// A collective's group must run on evenly spaced ranks, as the split lays
// groups out.
func.func @f(%x: memref<2xf32>, %y: memref<2xf32>) attributes {dist.ranks = array<i64: 0, 1, 3, 2>} {
  // expected-error @+1 {{group [0, 1, 2] runs on ranks that are not evenly spaced}}
  dist.all_reduce %x over [0, 1, 2] into %y : memref<2xf32> -> memref<2xf32>
  return
}

// -----

func.func @f(%x: memref<2xi8>, %y: memref<2xi8>) {
  // expected-error @+1 {{cannot sum 'i8' (f32, f64, f16, bf16, i32 and i64 are summed)}}
  dist.all_reduce %x over [0, 1] into %y : memref<2xi8> -> memref<2xi8>
  return
}

// -----

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{must be bufferized before --placer-lower-dist-to-mpi}}
  %0 = dist.all_reduce %x over [0, 1] : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
