// RUN: placer-opt %s --placer-approximate-math="functions=tanh,erf" | FileCheck %s
// RUN: placer-opt %s --placer-approximate-math="functions=erf" | FileCheck %s --check-prefix=ERF
// RUN: placer-opt %s --placer-approximate-math | FileCheck %s --check-prefix=NONE
// RUN: placer-opt %s --placer-approximate-math="functions=exp" | FileCheck %s --check-prefix=EXP
// RUN: not placer-opt %s --placer-approximate-math="functions=sqrt" 2>&1 | FileCheck %s --check-prefix=BAD

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
// EXP-LABEL: func.func @gelu_parts
// EXP: math.tanh
// EXP: math.erf
// EXP-NOT: math.exp
// EXP: return
// BAD: error: --placer-approximate-math: no approximation of 'sqrt' (choose from tanh, erf, erfc, exp, expm1, log, log1p, log2, sin, cos, atan, atan2, asin, acos, cbrt)
func.func @gelu_parts(%x: f32) -> (f32, f32) {
  %t = math.tanh %x : f32
  %e = math.erf %x : f32
  %x2 = math.exp %x : f32
  %s = arith.addf %e, %x2 : f32
  return %t, %s : f32, f32
}
