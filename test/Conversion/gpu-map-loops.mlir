// RUN: not placer-opt %s --split-input-file --placer-gpu-map-loops --canonicalize 2>/dev/null | FileCheck %s
// RUN: not placer-opt %s --split-input-file --placer-gpu-map-loops=block-size=128 --canonicalize 2>/dev/null | FileCheck %s --check-prefix=B128
// RUN: placer-opt %s --split-input-file --placer-gpu-map-loops --verify-diagnostics -o /dev/null
// RUN: not placer-opt %s --split-input-file --placer-gpu-map-loops=block-size=2000 2>&1 | FileCheck %s --check-prefix=BAD

// Blocks of 256 threads along the innermost dimension (1000 -> 4 blocks,
// the last guarded), one block per row (the grid's x has the most
// blocks); a loop nest with no parallel dimension runs as one thread;
// every launch is on the device, no load or store is left on the host.
// CHECK-LABEL: func.func @relu
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c6, {{.*}} = %c4, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1)
// CHECK: scf.if
// CHECK: memref.load
// CHECK: gpu.terminator
// CHECK-NOT: SCFToGPU_visited
// B128-LABEL: func.func @relu
// B128: gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}} = %c6, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c128, {{.*}} = %c1, {{.*}} = %c1)
// B128-LABEL: func.func @small_rows
// B128: threads({{.*}}) in ({{.*}} = %c7, {{.*}} = %c7, {{.*}} = %c2)
// BAD: error: --placer-gpu-map-loops: block-size must be in [1, 1024], got 2000
func.func @relu(%x: memref<6x1000xf32>, %y: memref<6x1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c1000 = arith.constant 1000 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c1000) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<6x1000xf32>
    %r = arith.maximumf %v, %zero : f32
    memref.store %r, %y[%i, %j] : memref<6x1000xf32>
    scf.reduce
  }
  return
}

// -----

// A short innermost dimension (7x7 activations) fills the block along y
// and z: 7 x 7 x 5 threads of at most 256; blocks: the 32 images on x
// (the most blocks), 64 / 5 -> 13 channel tiles on y, the rest one each.
// CHECK-LABEL: func.func @small_rows
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c32, {{.*}} = %c13, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c7, {{.*}} = %c7, {{.*}} = %c5)
// CHECK: scf.if
func.func @small_rows(%x: memref<32x64x7x7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c32, %c64, %c7, %c7) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%n, %c, %h, %w] : memref<32x64x7x7xf32>
    %r = arith.maximumf %v, %zero : f32
    memref.store %r, %x[%n, %c, %h, %w] : memref<32x64x7x7xf32>
    scf.reduce
  }
  return
}

// -----

// The accumulator a reduction loads and stores every iteration is a
// register (an iter_arg) in the loop, loaded before and stored after it.
// CHECK-LABEL: func.func @total
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1)
// CHECK-NEXT: %[[S:.*]] = memref.load %arg1[]
// CHECK-NEXT: %[[T:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[S]]) -> (f32)
// CHECK-NEXT: memref.load %arg0
// CHECK-NEXT: arith.addf %[[A]]
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[T]], %arg1[]
func.func @total(%x: memref<1000xf32>, %sum: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c1000 step %c1 {
    %v = memref.load %x[%i] : memref<1000xf32>
    %s = memref.load %sum[] : memref<f32>
    %t = arith.addf %s, %v : f32
    memref.store %t, %sum[] : memref<f32>
  }
  return
}

// -----

// Left in memory: an accumulator also read elsewhere in the loop, one
// whose index changes with the loop (a running sum), and one beside a
// store to another argument (arguments may alias).
// CHECK-LABEL: func.func @kept_in_memory
// CHECK-NOT: iter_args
// CHECK: return
func.func @kept_in_memory(%x: memref<1000xf32>, %sum: memref<2xf32>, %run: memref<1000xf32>, %acc: memref<f32>, %other: memref<1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c1000 step %c1 {
    %v = memref.load %x[%i] : memref<1000xf32>
    %s = memref.load %sum[%c0] : memref<2xf32>
    %u = memref.load %sum[%c1] : memref<2xf32>
    %t = arith.addf %s, %v : f32
    %w = arith.addf %t, %u : f32
    memref.store %w, %sum[%c0] : memref<2xf32>
  }
  scf.for %i = %c1 to %c1000 step %c1 {
    %v = memref.load %run[%i] : memref<1000xf32>
    %t = arith.addf %v, %v : f32
    memref.store %t, %run[%i] : memref<1000xf32>
  }
  scf.for %i = %c0 to %c1000 step %c1 {
    %v = memref.load %x[%i] : memref<1000xf32>
    %s = memref.load %acc[] : memref<f32>
    %t = arith.addf %s, %v : f32
    memref.store %t, %acc[] : memref<f32>
    memref.store %t, %other[%i] : memref<1000xf32>
  }
  return
}

// -----

// Scalar code on rank-0 buffers (a fill, an op on a scalar) runs as one
// thread too.
// CHECK-LABEL: func.func @scalar
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1)
// CHECK-NEXT: memref.load %arg0[]
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: memref.store
func.func @scalar(%x: memref<f32>, %y: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %v = memref.load %x[] : memref<f32>
  %r = arith.maximumf %v, %zero : f32
  memref.store %r, %y[] : memref<f32>
  return
}

// -----

// A value the host itself uses (here, as a call's argument) would be read
// from device memory on the host: an error naming the node it came from.
func.func private @consume(f32)
// expected-error @below {{GPU code: the host would access device memory for node 'first_element' (no GPU lowering of that code)}}
func.func @escaping(%x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<8xf32> loc("first_element")
  func.call @consume(%v) : (f32) -> ()
  return
}

// -----

// Host arithmetic the host uses later (an address, a size) stays on the
// host; the device work beside it becomes a kernel.
// CHECK-LABEL: func.func @beside_host_math
// CHECK: %[[M:.*]] = arith.muli %arg1, %c2
// CHECK: gpu.launch
// CHECK-NEXT: memref.store %{{.*}}, %arg0[]
// CHECK: call @take(%[[M]])
func.func private @take(index)
func.func @beside_host_math(%y: memref<f32>, %n: index) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2 : index
  memref.store %zero, %y[] : memref<f32>
  %m = arith.muli %n, %two : index
  func.call @take(%m) : (index) -> ()
  return
}
