// Each placer attribute's verifier, and where the dialect allows them.
// RUN: placer-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{link bandwidth must be positive, got 0}}
module attributes {placer.x = #placer.link<bandwidth = 0.0>} {}

// -----

// expected-error @+1 {{link latency must not be negative, got -1}}
module attributes {placer.x = #placer.link<bandwidth = 1.0, latency = -1.0>} {}

// -----

// expected-error @+1 {{device kind 'gpu': count must be in [1, 4096], got 0}}
module attributes {placer.x = #placer.kind<name = "gpu", device_class = accelerator, count = 0, peak_flops = {default = 1.0}, memory_bandwidth = 1.0>} {}

// -----

// expected-error @+1 {{device kind 'gpu': peak_flops.f32 must be a positive float}}
module attributes {placer.x = #placer.kind<name = "gpu", device_class = accelerator, peak_flops = {f32 = 0.0}, memory_bandwidth = 1.0>} {}

// -----

// expected-error @+1 {{device kind 'gpu': memory_bandwidth must be positive}}
module attributes {placer.x = #placer.kind<name = "gpu", device_class = accelerator, peak_flops = {f32 = 1.0}, memory_bandwidth = 0.0>} {}

// -----

// expected-error @+1 {{device kind name must not be empty}}
module attributes {placer.x = #placer.kind<name = "", device_class = cpu, peak_flops = {f32 = 1.0}, memory_bandwidth = 1.0>} {}

// -----

// expected-error @+1 {{hierarchy devices_per_node must be at least 1, got 0}}
module attributes {placer.x = #placer.hierarchy<devices_per_node = 0, intra_node = #placer.link<bandwidth = 1.0>, inter_node = #placer.link<bandwidth = 1.0>>} {}

// -----

// expected-error @+1 {{duplicate device kind 'gpu'}}
module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "gpu", device_class = accelerator, peak_flops = {f32 = 1.0}, memory_bandwidth = 1.0>, #placer.kind<name = "gpu", device_class = cpu, peak_flops = {f32 = 1.0}, memory_bandwidth = 1.0>], default_link = #placer.link<bandwidth = 1.0>>} {}

// -----

// expected-error @+1 {{a cluster has at least one device kind}}
module attributes {placer.cluster = #placer.cluster<kinds = [], default_link = #placer.link<bandwidth = 1.0>>} {}

// -----

// expected-error @+1 {{cluster kinds must be #placer.kind}}
module attributes {placer.cluster = #placer.cluster<kinds = [1 : i64], default_link = #placer.link<bandwidth = 1.0>>} {}

// -----

// expected-error @+1 {{kind link names unknown device kind 'tpu'}}
module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "gpu", device_class = accelerator, peak_flops = {f32 = 1.0}, memory_bandwidth = 1.0>], default_link = #placer.link<bandwidth = 1.0>, kind_links = [#placer.kind_link<"gpu", "tpu", #placer.link<bandwidth = 1.0>>]>} {}

// -----

// expected-error @+1 {{device link names device 7, out of range [0, 2)}}
module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "gpu", device_class = accelerator, count = 2, peak_flops = {f32 = 1.0}, memory_bandwidth = 1.0>], default_link = #placer.link<bandwidth = 1.0>, device_links = [#placer.device_link<0, 7, #placer.link<bandwidth = 1.0>>]>} {}

// -----

// expected-error @+1 {{'placer.cluster' must be a #placer.cluster attribute}}
module attributes {placer.cluster = "{\"device_kinds\": []}"} {}

// -----

func.func @f() attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "gpu", device_class = accelerator, peak_flops = {f32 = 1.0}, memory_bandwidth = 1.0>], default_link = #placer.link<bandwidth = 1.0>>} {
  // expected-error @-1 {{'placer.cluster' belongs on a module}}
  return
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cost FLOPs and byte counts must not be negative}}
  %y = graph.node "Relu"(%x) attributes {name = "r", output_names = ["y"], version = 13 : i64, placer.cost = #placer.cost<flops = -1, time = {gpu = 1.0}>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cost time.gpu must be a non-negative float (seconds)}}
  %y = graph.node "Relu"(%x) attributes {name = "r", output_names = ["y"], version = 13 : i64, placer.cost = #placer.cost<time = {gpu = -1.0}>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cost backward_time.gpu must be a non-negative float (seconds)}}
  %y = graph.node "Relu"(%x) attributes {name = "r", output_names = ["y"], version = 13 : i64, placer.cost = #placer.cost<time = {gpu = 1.0}, backward_time = {gpu = "slow"}>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cost transfer_time must not be negative}}
  %y = graph.node "Relu"(%x) attributes {name = "r", output_names = ["y"], version = 13 : i64, placer.cost = #placer.cost<time = {gpu = 1.0}, transfer_time = -2.0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "gpu", device_class = accelerator, peak_flops = {f32 = 1.0}, memory_bandwidth = 1.0>], default_link = #placer.link<bandwidth = 1.0>>} {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'placer.cost' gives a time for device kind 'tpu', which the module's cluster does not have}}
    %y = graph.node "Relu"(%x) attributes {name = "r", output_names = ["y"], version = 13 : i64, placer.cost = #placer.cost<time = {tpu = 1.0}>} : (tensor<4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'placer.cost' must be a #placer.cost attribute}}
  %y = graph.node "Relu"(%x) attributes {name = "r", output_names = ["y"], version = 13 : i64, placer.cost = {time = {gpu = 1.0}}} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{device index must not be negative, got -1}}
  %y = graph.node "Relu"(%x) attributes {name = "r", output_names = ["y"], version = 13 : i64, placer.device = #placer.device<-1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "gpu", device_class = accelerator, count = 2, peak_flops = {f32 = 1.0}, memory_bandwidth = 1.0>], default_link = #placer.link<bandwidth = 1.0>>} {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{is placed on device 2 but the module's cluster has 2 devices}}
    %y = graph.node "Relu"(%x) attributes {name = "r", output_names = ["y"], version = 13 : i64, placer.device = #placer.device<2>} : (tensor<4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'placer.device' must be a #placer.device attribute}}
  %y = graph.node "Relu"(%x) attributes {name = "r", output_names = ["y"], version = 13 : i64, placer.device = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{'placer.placement' must be a #placer.placement attribute}}
module attributes {placer.placement = {objective = "throughput"}} {}

// -----

// expected-error @+2 {{expected true or false}}
// expected-error @+1 {{failed to parse Placer_PlacementAttr parameter 'optimal'}}
module attributes {placer.placement = #placer.placement<objective = throughput, algorithm = "dp", max_load = 1.0, lower_bound = 1.0, optimal = yes, accelerators = 1, cpus = 0>} {}

// -----

// expected-error @+1 {{unknown attribute 'placer.devices' of the placer dialect}}
module attributes {placer.devices = 3 : i64} {}

// -----

// Schedules are solver::Schedule (include/placer/Solver/Schedule.h): a
// name that is none is refused by the parser, one the cluster cannot train
// with by the verifier.
// expected-error @+3 {{unknown schedule "dualpipe" (one of "gpipe", "1f1b", "zb-h1", "interleaved", "zb-v", "sequential", "inference")}}
// expected-error @+2 {{failed to parse Placer_TrainingAttr parameter 'schedule'}}
// expected-error @+1 {{failed to parse Placer_ClusterAttr parameter 'training'}}
module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "gpu", device_class = accelerator, peak_flops = {f32 = 1.0}, memory_bandwidth = 1.0>], default_link = #placer.link<bandwidth = 1.0>, training = <schedule = "dualpipe", microbatches = 4, optimizer_state_factor = 2.0>>} {}

// -----

// expected-error @+2 {{training schedule must be gpipe, 1f1b, zb-h1, interleaved or zb-v, got "sequential"}}
// expected-error @+1 {{failed to parse Placer_ClusterAttr parameter 'training'}}
module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "gpu", device_class = accelerator, peak_flops = {f32 = 1.0}, memory_bandwidth = 1.0>], default_link = #placer.link<bandwidth = 1.0>, training = <schedule = "sequential", microbatches = 4, optimizer_state_factor = 2.0>>} {}

// -----

// expected-error @+2 {{training needs at least one microbatch}}
// expected-error @+1 {{failed to parse Placer_ClusterAttr parameter 'training'}}
module attributes {placer.cluster = #placer.cluster<kinds = [#placer.kind<name = "gpu", device_class = accelerator, peak_flops = {f32 = 1.0}, memory_bandwidth = 1.0>], default_link = #placer.link<bandwidth = 1.0>, training = <schedule = "gpipe", microbatches = 0, optimizer_state_factor = 2.0>>} {}

// -----

// expected-error @+1 {{placement schedule and microbatches come together (training) or not at all (inference)}}
module attributes {placer.placement = #placer.placement<objective = throughput, algorithm = "dp", max_load = 1.0, lower_bound = 1.0, optimal = true, accelerators = 1, cpus = 0, schedule = "gpipe">} {}

// -----

// expected-error @+2 {{unknown schedule "dualpipe"}}
// expected-error @+1 {{failed to parse Placer_PlacementAttr parameter 'schedule'}}
module attributes {placer.placement = #placer.placement<objective = throughput, algorithm = "dp", max_load = 1.0, lower_bound = 1.0, optimal = true, accelerators = 1, cpus = 0, schedule = "dualpipe", microbatches = 4>} {}

// -----

// expected-error @+1 {{placement schedule must be gpipe, 1f1b, zb-h1, interleaved or zb-v, got "sequential"}}
module attributes {placer.placement = #placer.placement<objective = throughput, algorithm = "dp", max_load = 1.0, lower_bound = 1.0, optimal = true, accelerators = 1, cpus = 0, schedule = "sequential", microbatches = 4>} {}

// -----

// expected-error @+2 {{expected throughput or latency, got speed}}
// expected-error @+1 {{failed to parse Placer_PlacementAttr parameter 'objective'}}
module attributes {placer.placement = #placer.placement<objective = speed, algorithm = "dp", max_load = 1.0, lower_bound = 1.0, optimal = true, accelerators = 1, cpus = 0>} {}

// -----

// expected-error @+1 {{placement recompute needs a training schedule}}
module attributes {placer.placement = #placer.placement<objective = throughput, algorithm = "dp", max_load = 1.0, lower_bound = 1.0, optimal = true, accelerators = 1, cpus = 0, recompute = [0]>} {}

// -----

// expected-error @+1 {{placement recompute must list devices in ascending order, got array<i64: 2, 1>}}
module attributes {placer.placement = #placer.placement<objective = throughput, algorithm = "dp", max_load = 1.0, lower_bound = 1.0, optimal = true, accelerators = 2, cpus = 0, schedule = "1f1b", microbatches = 4, recompute = [2, 1]>} {}

// -----

// expected-error @+1 {{placement replica_of: device 2 cannot copy device 1 in array<i64: -1, 0, 1>}}
module attributes {placer.placement = #placer.placement<objective = throughput, algorithm = "dp", max_load = 1.0, lower_bound = 1.0, optimal = true, accelerators = 3, cpus = 0, replica_of = [-1, 0, 1]>} {}

// -----

// A replica's result updates a state: placer.replica stands beside
// placer.updates only.
// expected-error @+1 {{'placer.replica' on result 0 must be a unit attribute beside 'placer.updates'}}
func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32> {placer.replica}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'placer.replica' on result 0 must be a unit attribute beside 'placer.updates'}}
func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32> {placer.updates = "w", placer.replica = 1 : i64}) {
  return %x : tensor<2xf32>
}

// -----

// A tensor-parallel member's slice of a state (placer.shard): beside
// placer.updates only, on an axis its blocks divide, in a group of two or
// more ascending devices that has the member.
// expected-error @+1 {{'placer.shard' on result 0 must be a #placer.shard attribute beside 'placer.updates'}}
func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32> {placer.shard = #placer.shard<axis = 0, blocks = 1, index = 0, group = 0, 1>}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'placer.shard' on result 0 cuts axis 1 in 1 blocks, which its type 'tensor<2xf32>' does not have}}
func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32> {placer.updates = "w", placer.shard = #placer.shard<axis = 1, blocks = 1, index = 0, group = 0, 1>}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'placer.shard' on result 0 cuts axis 0 in 3 blocks, which its type 'tensor<2xf32>' does not have}}
func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32> {placer.updates = "w", placer.shard = #placer.shard<axis = 0, blocks = 3, index = 0, group = 0, 1>}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{shard index 2 is not a member of a 2-device group}}
func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32> {placer.updates = "w", placer.shard = #placer.shard<axis = 0, blocks = 1, index = 2, group = 0, 1>}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{shard's group must list distinct devices in ascending order}}
func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32> {placer.updates = "w", placer.shard = #placer.shard<axis = 0, blocks = 1, index = 0, group = 1, 0>}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{shard's group needs two or more devices, got 1}}
func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32> {placer.updates = "w", placer.shard = #placer.shard<axis = 0, blocks = 1, index = 0, group = 0>}) {
  return %x : tensor<2xf32>
}

// -----

// The weight-gradient mark belongs on backward nodes, not the optimizer's.
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'placer.weight_gradient' belongs on a backward node that is not the optimizer's}}
  %y = graph.node "Neg"(%x) attributes {name = "neg", output_names = ["y"], placer.weight_gradient, version = 17 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'placer.weight_gradient' belongs on a backward node that is not the optimizer's}}
  %y = graph.node "Neg"(%x) attributes {name = "w/update/0", output_names = ["y"], placer.backward, placer.optimizer, placer.weight_gradient, version = 17 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// Recomputation marks a forward node (its backward pass computes it again).
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'placer.recompute' belongs on a forward node: its backward pass recomputes it}}
  %y = graph.node "Neg"(%x) attributes {name = "neg/grad/0", output_names = ["y"], placer.backward, placer.recompute, version = 17 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// A node's chunk (several chunks per accelerator) is a non-negative integer.
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'placer.chunk' must be a non-negative integer}}
  %y = graph.node "Neg"(%x) attributes {name = "neg", output_names = ["y"], placer.chunk = -1 : i64, version = 17 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// Chunks per accelerator belong to the schedules that run several.
// expected-error @+1 {{placement chunks must be at least 2 under a schedule that runs several per accelerator (interleaved, zb-v) and 1 otherwise, got 2 under "1f1b"}}
module attributes {placer.placement = #placer.placement<objective = throughput, algorithm = "dp", max_load = 1.0, lower_bound = 1.0, optimal = true, accelerators = 2, cpus = 0, schedule = "1f1b", microbatches = 4, chunks = 2>} {}

// -----

// expected-error @+1 {{placement chunks must be at least 2 under a schedule that runs several per accelerator (interleaved, zb-v) and 1 otherwise, got 1 under "interleaved"}}
module attributes {placer.placement = #placer.placement<objective = throughput, algorithm = "ip-chunks", max_load = 1.0, lower_bound = 1.0, optimal = true, accelerators = 2, cpus = 0, schedule = "interleaved", microbatches = 4>} {}

// -----

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'placer.recompute' must be a unit attribute}}
  %y = graph.node "Neg"(%x) attributes {name = "neg", output_names = ["y"], placer.recompute = 1 : i64, version = 17 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// expected-error @+1 {{tensor_config 'v': times and bytes must be finite and not negative}}
module attributes {placer.x = #placer.tensor_config<id = "v", time = -1.0, param_bytes = 0.0, stash_bytes = 0.0, fixed_bytes = 0.0, sync_in = [], sync_out = []>} {}

// -----

// A decode step's KV cache bytes (cache_bytes, 0 when left out) too.
// expected-error @+1 {{tensor_config 'kv': times and bytes must be finite and not negative}}
module attributes {placer.x = #placer.tensor_config<id = "kv", time = 1.0, param_bytes = 0.0, stash_bytes = 0.0, fixed_bytes = 0.0, sync_in = [], sync_out = [], cache_bytes = -4.0>} {}

// -----

// expected-error @+1 {{tensor_config 'v': the time on 'slow' must be a finite, not negative float}}
module attributes {placer.x = #placer.tensor_config<id = "v", time = 1.0, param_bytes = 0.0, stash_bytes = 0.0, fixed_bytes = 0.0, sync_in = [], sync_out = [], times = {fast = 1.0 : f64, slow = -2.0 : f64}>} {}

// -----

// expected-error @+1 {{tensor_config 'v': the time on 'slow' must be a finite, not negative float}}
module attributes {placer.x = #placer.tensor_config<id = "v", time = 1.0, param_bytes = 0.0, stash_bytes = 0.0, fixed_bytes = 0.0, sync_in = [], sync_out = [], times = {slow = "fast"}>} {}

// -----

// expected-error @+1 {{tensor_degree 2: two configurations named 'v'}}
module attributes {placer.x = #placer.tensor_degree<degree = 2, configs = [#placer.tensor_config<id = "v", time = 1.0, param_bytes = 0.0, stash_bytes = 0.0, fixed_bytes = 0.0, sync_in = [], sync_out = []>, #placer.tensor_config<id = "v", time = 2.0, param_bytes = 0.0, stash_bytes = 0.0, fixed_bytes = 0.0, sync_in = [], sync_out = []>]>} {}

// -----

// expected-error @+1 {{tensor_degree must be at least 1, got 0}}
module attributes {placer.x = #placer.tensor_degree<degree = 0, configs = [#placer.tensor_config<id = "v", time = 1.0, param_bytes = 0.0, stash_bytes = 0.0, fixed_bytes = 0.0, sync_in = [], sync_out = []>]>} {}

// -----

// expected-error @+1 {{placement stages overlap: devices [0, 2) and [1, 2)}}
module attributes {placer.x = #placer.placement<objective = throughput, algorithm = "parallel", max_load = 1.0, lower_bound = 1.0, optimal = true, accelerators = 4, cpus = 0, stages = [#placer.parallel_stage<first = 0, tensor = 2, data = 1, time = 1.0, memory = 1.0>, #placer.parallel_stage<first = 1, tensor = 1, data = 1, time = 1.0, memory = 1.0>]>} {}

// -----

func.func @sync_counts() {
  // expected-error @+1 {{'placer.tensor_configs': configuration 'v' of degree 1 has 1 sync_in and 0 sync_out entries; the node has 0 inputs and 0 uses}}
  %a = graph.node "Node"() attributes {domain = "placer.workload", name = "a", output_names = ["a"], version = 1 : i64, placer.tensor_configs = [#placer.tensor_degree<degree = 1, configs = [#placer.tensor_config<id = "v", time = 1.0, param_bytes = 0.0, stash_bytes = 0.0, fixed_bytes = 0.0, sync_in = [0.0], sync_out = []>]>]} : () -> !graph.unknown
  return
}

// -----

func.func @degrees_ascend() {
  // expected-error @+1 {{'placer.tensor_configs' must list degrees in ascending order}}
  %a = graph.node "Node"() attributes {domain = "placer.workload", name = "a", output_names = ["a"], version = 1 : i64, placer.tensor_configs = [#placer.tensor_degree<degree = 2, configs = [#placer.tensor_config<id = "v", time = 1.0, param_bytes = 0.0, stash_bytes = 0.0, fixed_bytes = 0.0, sync_in = [], sync_out = []>]>, #placer.tensor_degree<degree = 1, configs = [#placer.tensor_config<id = "v", time = 1.0, param_bytes = 0.0, stash_bytes = 0.0, fixed_bytes = 0.0, sync_in = [], sync_out = []>]>]} : () -> !graph.unknown
  return
}

// -----

func.func @chosen_config() {
  // expected-error @+1 {{'placer.tensor_config' names 'r', which no placer.tensor_configs entry has}}
  %a = graph.node "Node"() attributes {domain = "placer.workload", name = "a", output_names = ["a"], version = 1 : i64, placer.tensor_config = "r", placer.tensor_configs = [#placer.tensor_degree<degree = 1, configs = [#placer.tensor_config<id = "v", time = 1.0, param_bytes = 0.0, stash_bytes = 0.0, fixed_bytes = 0.0, sync_in = [], sync_out = []>]>]} : () -> !graph.unknown
  return
}

// -----

func.func @edge_bytes() {
  // expected-error @+1 {{'placer.edge_bytes' must give one non-negative size per input (0)}}
  %a = graph.node "Node"() attributes {domain = "placer.workload", name = "a", output_names = ["a"], version = 1 : i64, placer.edge_bytes = array<f64: 1.0>} : () -> !graph.unknown
  return
}

// -----

// expected-error @+1 {{'placer.tensor_configs' belongs on a graph.node}}
func.func @not_on_a_node() attributes {placer.tensor_configs = []} {
  return
}

// -----

// expected-error @+1 {{'placer.precision' must be bf16 or f16}}
module attributes {placer.precision = f32} {}

// -----

func.func @precision_on_a_function() attributes {placer.precision = bf16} {
  // expected-error @-1 {{'placer.precision' belongs on a module}}
  return
}
