// RUN: rm -rf %t && mkdir -p %t/w %t/empty %t/bad-shape %t/bad-dtype
// RUN: %python -c "import numpy as np; np.save('%t/w/w.npy', np.array([1.5, -2.0, 0.25], np.float32)); np.save('%t/w/enc_b.1.npy', np.array([[7, 8]], np.int64)); np.save('%t/w/w.momentum.npy', np.zeros(3, np.float32))"
// RUN: %python -c "import numpy as np; np.save('%t/bad-shape/w.npy', np.zeros((3, 1), np.float32))"
// RUN: %python -c "import numpy as np; np.save('%t/bad-dtype/w.npy', np.zeros(3, np.float64))"
// RUN: placer-opt %s --placer-load-weights="dir=%t/w" | FileCheck %s
// RUN: not placer-opt %s --placer-load-weights="dir=%t/empty" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not placer-opt %s --placer-load-weights="dir=%t/missing" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not placer-opt %s --placer-load-weights 2>&1 | FileCheck %s --check-prefix=NODIR
// RUN: not placer-opt %s --placer-load-weights="dir=%t/bad-shape" 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not placer-opt %s --placer-load-weights="dir=%t/bad-dtype" 2>&1 | FileCheck %s --check-prefix=DTYPE

// Initializers with a file get its values: w, and enc/b.1 from the file
// named as placer-run names it ('/' as '_'). The Constant node's output
// keeps its value though a file has its name; the optimizer state's file
// names no initializer and is left alone.
// CHECK: graph.constant "w" : tensor<3xf32> = dense<[1.500000e+00, -2.000000e+00, 2.500000e-01]>
// CHECK: graph.constant "enc/b.1" : tensor<1x2xi64> = dense<{{\[\[}}7, 8]]>
// CHECK: graph.constant "w.momentum_like" : tensor<3xf32> = dense<5.000000e-01>
// CHECK: graph.constant "enc_b.1" : tensor<1x2xi64> = dense<3> : tensor<1x2xi64> {node = "c"}

// EMPTY: error: placer-load-weights: no file in '{{.*}}empty' names an initializer of the module
// MISSING: error: placer-load-weights: dir must name a folder of .npy files, not '{{.*}}missing'
// NODIR: error: placer-load-weights: dir must name a folder of .npy files{{$}}
// SHAPE: error: placer-load-weights: {{.*}}bad-shape/w.npy holds <f4 [3, 1], but initializer 'w' is 'tensor<3xf32>'
// DTYPE: error: placer-load-weights: {{.*}}bad-dtype/w.npy holds <f8 [3], but initializer 'w' is 'tensor<3xf32>'

module attributes {graph.opset_import = {ai.onnx = 17 : i64}} {
func.func @main_graph(%x: tensor<2x3xf32> {graph.name = "x"}) -> (tensor<2x3xf32>, tensor<1x2xi64>) {
  %w = graph.constant "w" : tensor<3xf32> = dense<0.5> : tensor<3xf32>
  %b = graph.constant "enc/b.1" : tensor<1x2xi64> = dense<1> : tensor<1x2xi64>
  %m = graph.constant "w.momentum_like" : tensor<3xf32> = dense<0.5> : tensor<3xf32>
  %c = graph.constant "enc_b.1" : tensor<1x2xi64> = dense<3> : tensor<1x2xi64> {node = "c"}
  %y = graph.node "Mul"(%x, %w) attributes {name = "mul", output_names = ["y"], version = 17 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %z = graph.node "Mul"(%y, %m) attributes {name = "mul2", output_names = ["z"], version = 17 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %s = graph.node "Add"(%b, %c) attributes {name = "add", output_names = ["s"], version = 17 : i64} : (tensor<1x2xi64>, tensor<1x2xi64>) -> tensor<1x2xi64>
  return %z, %s : tensor<2x3xf32>, tensor<1x2xi64>
}
}
