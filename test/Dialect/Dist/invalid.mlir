// Each rule of the dist.program verifier.
// RUN: placer-opt %s -split-input-file -verify-diagnostics

func.func @a() { return }
// expected-error @+1 {{has 1 stages but 2 devices}}
dist.program @g {channels = [], devices = array<i64: 0, 1>, stages = [@a]}

// -----

// expected-error @+1 {{stage @missing is not a function}}
dist.program @g {channels = [], devices = array<i64: 0>, stages = [@missing]}

// -----

func.func @a() { return }
func.func @b() { return }
// expected-error @+1 {{lists device 0 twice or negative}}
dist.program @g {channels = [], devices = array<i64: 0, 0>, stages = [@a, @b]}

// -----

func.func @a(%x: tensor<2xf32>) {
  dist.send %x to 1 channel 0 : tensor<2xf32>
  return
}
func.func @b() { return }
// expected-error @+1 {{channel 0 has no recv}}
dist.program @g {channels = [#dist.channel<0 : 0 -> 1, tensor<2xf32>>], devices = array<i64: 0, 1>, stages = [@a, @b]}

// -----

func.func @a(%x: tensor<2xf32>) {
  // expected-error @+1 {{does not match channel 0 (0 -> 1)}}
  dist.send %x to 2 channel 0 : tensor<2xf32>
  return
}
func.func @b() {
  %0 = dist.recv from 0 channel 0 : tensor<2xf32>
  return
}
dist.program @g {channels = [#dist.channel<0 : 0 -> 1, tensor<2xf32>>], devices = array<i64: 0, 1>, stages = [@a, @b]}

// -----

func.func @a(%x: tensor<2xf32>) {
  dist.send %x to 1 channel 0 : tensor<2xf32>
  return
}
func.func @b() {
  %0 = dist.recv from 0 channel 0 : tensor<3xf32>
  return
}
// expected-error @+1 {{channel 0 carries 'tensor<2xf32>' but sends 'tensor<2xf32>' and receives 'tensor<3xf32>'}}
dist.program @g {channels = [#dist.channel<0 : 0 -> 1, tensor<2xf32>>], devices = array<i64: 0, 1>, stages = [@a, @b]}

// -----

func.func @a(%x: tensor<2xf32>) {
  dist.send %x to 1 channel 0 : tensor<2xf32>
  // expected-error @+1 {{uses channel 7, which the program does not list}}
  dist.send %x to 1 channel 7 : tensor<2xf32>
  return
}
func.func @b() {
  %0 = dist.recv from 0 channel 0 : tensor<2xf32>
  return
}
dist.program @g {channels = [#dist.channel<0 : 0 -> 1, tensor<2xf32>>], devices = array<i64: 0, 1>, stages = [@a, @b]}

// -----

func.func @a(%x: tensor<2xf32>) {
  dist.send %x to 1 channel 0 : tensor<2xf32>
  dist.send %x to 1 channel 0 : tensor<2xf32>
  return
}
func.func @b() {
  %0 = dist.recv from 0 channel 0 : tensor<2xf32>
  return
}
// expected-error @+1 {{channel 0 has two sends}}
dist.program @g {channels = [#dist.channel<0 : 0 -> 1, tensor<2xf32>>], devices = array<i64: 0, 1>, stages = [@a, @b]}

// -----

// Each stage waits for the other before sending.
func.func @a(%x: tensor<2xf32>) {
  // expected-error @+1 {{waits for a send that cannot happen first: the stages deadlock}}
  %0 = dist.recv from 1 channel 1 : tensor<2xf32>
  dist.send %x to 1 channel 0 : tensor<2xf32>
  return
}
func.func @b(%y: tensor<2xf32>) {
  %0 = dist.recv from 0 channel 0 : tensor<2xf32>
  dist.send %y to 0 channel 1 : tensor<2xf32>
  return
}
dist.program @g {channels = [#dist.channel<0 : 0 -> 1, tensor<2xf32>>, #dist.channel<1 : 1 -> 0, tensor<2xf32>>], devices = array<i64: 0, 1>, stages = [@a, @b]}

// -----

func.func @a() {
  // expected-error @+1 {{'dist.recv' op attribute 'channel' failed to satisfy constraint}}
  %0 = dist.recv from 0 channel -1 : tensor<2xf32>
  return
}

// -----

// dist.position, dist.arg and dist.result: non-negative i64 on stage
// functions only.
func.func @stage(%x: tensor<2xf32> {dist.arg = -1 : i64}) -> tensor<2xf32> {
  // expected-error @-1 {{'dist.arg' must be a non-negative i64}}
  return %x : tensor<2xf32>
}

// -----

func.func @stage(%x: tensor<2xf32>) -> (tensor<2xf32> {dist.result = "first"}) {
  // expected-error @-1 {{'dist.result' must be a non-negative i64}}
  return %x : tensor<2xf32>
}

// -----

func.func @stage(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'dist.position' must be a non-negative i64}}
  %y = graph.node "Relu"(%x) attributes {name = "r", output_names = ["y"], version = 13 : i64, dist.position = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// expected-error @+1 {{'dist.position' belongs in a stage function}}
module attributes {dist.position = 3 : i64} {}

// -----

// expected-error @+1 {{unknown attribute 'dist.stage' of the dist dialect}}
module attributes {dist.stage = 3 : i64} {}

// -----

func.func @f() {
  // expected-error @+1 {{needs exactly one of a result and an 'into' buffer}}
  "dist.recv"() <{channel = 0 : i64, peer = 1 : i64}> : () -> ()
  return
}

// -----

func.func @f(%m: memref<2xf32>) {
  // expected-error @+1 {{needs exactly one of a result and an 'into' buffer}}
  %0 = "dist.recv"(%m) <{channel = 0 : i64, peer = 1 : i64}> : (memref<2xf32>) -> tensor<2xf32>
  return
}

// -----

// expected-error @+1 {{'dist.ranks' lists device 1 twice or negative}}
func.func @f() attributes {dist.ranks = array<i64: 1, 1>} { return }

// -----

// expected-error @+1 {{'dist.ranks' must be an i64 array on a function}}
func.func @f() attributes {dist.ranks = [1, 2]} { return }

// -----

// expected-error @+1 {{'dist.replicas' must be an i64 array on a function, one entry per rank of its 'dist.ranks'}}
func.func @f() attributes {dist.ranks = array<i64: 1, 2>, dist.replicas = array<i64: 2>} { return }

// -----

// A stage on two ranks needs two consecutive entries of 2.
// expected-error @+1 {{'dist.replicas' at rank 1: a stage on 2 ranks needs that many consecutive entries equal to it}}
func.func @f() attributes {dist.ranks = array<i64: 1, 2, 3>, dist.replicas = array<i64: 1, 2, 1>} { return }

// -----

// expected-error @+1 {{'dist.replicas' at rank 0: a stage on 0 ranks}}
func.func @f() attributes {dist.ranks = array<i64: 1>, dist.replicas = array<i64: 0>} { return }

// -----

func.func @a() { return }
// expected-error @+1 {{has 2 replica counts for 1 stages}}
dist.program @g {channels = [], devices = array<i64: 0>, replicas = array<i64: 2, 1>, replica_devices = array<i64: 1>, stages = [@a]}

// -----

func.func @a() { return }
// expected-error @+1 {{replicates a stage 0 times}}
dist.program @g {channels = [], devices = array<i64: 0>, replicas = array<i64: 0>, stages = [@a]}

// -----

func.func @a() { return }
// expected-error @+1 {{lists 1 replica devices for 2 copies}}
dist.program @g {channels = [], devices = array<i64: 0>, replicas = array<i64: 3>, replica_devices = array<i64: 1>, stages = [@a]}

// -----

func.func @a() { return }
// expected-error @+1 {{lists device 0 twice or negative}}
dist.program @g {channels = [], devices = array<i64: 0>, replicas = array<i64: 2>, replica_devices = array<i64: 0>, stages = [@a]}

// -----

func.func @a() { return }
// expected-error @+1 {{lists replica devices but no replicas}}
dist.program @g {channels = [], devices = array<i64: 0>, replica_devices = array<i64: 1>, stages = [@a]}

// -----

// Collectives: a group of two or more distinct devices, ascending.
func.func @lonely(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{needs a group of at least two devices, got 1}}
  %0 = dist.all_reduce %x over [3] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @repeated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{group must list distinct device indices in ascending order, got [1, 1]}}
  %0 = dist.all_reduce %x over [1, 1] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unsorted(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{group must list distinct device indices in ascending order, got [2, 0]}}
  %0 = dist.all_gather %x over [2, 0] along 0 : tensor<4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @negative(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{group must list distinct device indices in ascending order, got [-1, 0]}}
  %0 = dist.all_reduce %x over [-1, 0] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reshaped(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{result 'tensor<8xf32>' must have the shape and element type of 'tensor<4xf32>'}}
  %0 = dist.all_reduce %x over [0, 1] : tensor<4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @short(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{result 'tensor<2x4xf32>' must be 'tensor<2x4xf32>' with axis 1 2 times as long}}
  %0 = dist.all_gather %x over [0, 1] along 1 : tensor<2x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @axis(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{axis 1 is not an axis of 'tensor<4xf32>'}}
  %0 = dist.all_gather %x over [0, 1] along 1 : tensor<4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @element(%x: tensor<4xf32>) -> tensor<8xf16> {
  // expected-error @+1 {{result 'tensor<8xf16>' must have the rank and element type of 'tensor<4xf32>'}}
  %0 = dist.all_gather %x over [0, 1] along 0 : tensor<4xf32> -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// One form or the other: a tensor in and out, or a buffer in and 'into' one.
func.func @both(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{needs exactly one of a result and an 'into' buffer}}
  %0 = "dist.all_reduce"(%x, %y) <{group = array<i64: 0, 1>}> : (memref<4xf32>, memref<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @tensor_into(%x: tensor<4xf32>, %y: memref<8xf32>) {
  // expected-error @+1 {{reads a buffer once it writes one, got 'tensor<4xf32>'}}
  dist.all_gather %x over [0, 1] along 0 into %y : tensor<4xf32> -> memref<8xf32>
  return
}
