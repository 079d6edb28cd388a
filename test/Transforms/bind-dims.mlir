// RUN: placer-opt %s --split-input-file --placer-bind-dims="dims=batch=3" | FileCheck %s
// RUN: placer-opt %s --split-input-file --placer-bind-dims="dims=batch=5" | FileCheck %s --check-prefix=FIVE
// RUN: not placer-opt %s --split-input-file --placer-estimate-costs="dims=batch=3" 2>&1 | FileCheck %s --check-prefix=COSTS
// RUN: not placer-opt %s --split-input-file --placer-estimate-costs 2>&1 | FileCheck %s --check-prefix=UNBOUND
// RUN: not placer-opt %s --split-input-file --placer-bind-dims="dims=seq=3" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not placer-opt %s --split-input-file --placer-bind-dims="dims=batch=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not placer-opt %s --split-input-file --placer-bind-dims="dims=batch=2,batch=3" 2>&1 | FileCheck %s --check-prefix=TWICE

// Every dim the symbol names gets the size, in the function's signature and
// every node output; the names bound are dropped, others stay.
// CHECK-LABEL: func.func @cnn(
// CHECK-SAME: %{{.*}}: tensor<3x4x?xf32> {graph.dim_params = ["", "", "len"]}) -> (tensor<3x4x?xf32> {graph.dim_params = ["", "", "len"]})
// CHECK: graph.node "Relu"{{.*}}output_dims = {{\[\[}}"", "", "len"]]{{.*}} -> tensor<3x4x?xf32>
// CHECK: graph.node "Relu"{{.*}} -> tensor<3x4x?xf32>
// FIVE: -> tensor<5x4x?xf32>

// Costs need every size: `len` left free is one error naming it.
// UNBOUND: error: --placer-estimate-costs: the module has symbolic dims without sizes (batch, len): give them with dims=NAME=VALUE, or bind them on import with --dim NAME=VALUE
// COSTS: error: --placer-estimate-costs: the module has symbolic dims without sizes (len)
func.func @cnn(%x: tensor<?x4x?xf32> {graph.dim_params = ["batch", "", "len"]}) -> (tensor<?x4x?xf32> {graph.dim_params = ["batch", "", "len"]}) {
  %r = graph.node "Relu"(%x) attributes {name = "relu", output_dims = [["batch", "", "len"]], output_names = ["r"], version = 13 : i64} : (tensor<?x4x?xf32>) -> tensor<?x4x?xf32>
  %s = graph.node "Relu"(%r) attributes {name = "relu2", output_dims = [["batch", "", "len"]], output_names = ["s"], version = 13 : i64} : (tensor<?x4x?xf32>) -> tensor<?x4x?xf32>
  return %s : tensor<?x4x?xf32>
}

// -----

// With every dim bound, costs come from the bound shapes: Relu over 3 x 4
// elements is 12 FLOPs and 48 bytes each way.
// COSTS-LABEL: func.func @mlp(
// COSTS-SAME: tensor<3x4xf32>
// COSTS: graph.node "Relu"{{.*}}placer.cost = #placer.cost<flops = 12, bytes_read = 48, bytes_written = 48, output_bytes = 48
func.func @mlp(%x: tensor<?x4xf32> {graph.dim_params = ["batch", ""]}) -> tensor<?x4xf32> {
  %r = graph.node "Relu"(%x) attributes {name = "relu", output_dims = [["batch", ""]], output_names = ["r"], version = 13 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// A name the module lacks, a size below 1 or a name given twice is an error
// listing the module's symbols; nothing changes.
// UNKNOWN: error: dims: the module has no symbolic dim 'seq' (it has: batch, len)
// UNKNOWN: error: dims: the module has no symbolic dim 'seq' (it has: batch)
// ZERO: error: dims: 'batch=0' is not NAME=VALUE with a positive size
// TWICE: error: dims: 'batch' is given twice
