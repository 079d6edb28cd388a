// RUN: placer-opt %s --placer-approximate-math="functions=tanh,erf" | FileCheck %s
// RUN: placer-opt %s --placer-approximate-math="functions=erf" | FileCheck %s --check-prefix=ERF
// RUN: placer-opt %s --placer-approximate-math | FileCheck %s --check-prefix=NONE
// RUN: not placer-opt %s --placer-approximate-math="functions=exp" 2>&1 | FileCheck %s --check-prefix=BAD

// The chosen functions become arithmetic (no libm call left to block
// vectorization); the others stay.
// CHECK-LABEL: func.func @gelu_parts
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK: math.fma
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK: return
// ERF-LABEL: func.func @gelu_parts
// ERF: math.tanh
// ERF-NOT: math.erf
// NONE: math.tanh
// NONE: math.erf
// BAD: error: --placer-approximate-math: no approximation of 'exp' (choose from tanh, erf)
func.func @gelu_parts(%x: f32) -> (f32, f32) {
  %t = math.tanh %x : f32
  %e = math.erf %x : f32
  return %t, %e : f32, f32
}
