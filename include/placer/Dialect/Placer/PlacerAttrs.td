//===- PlacerAttrs.td - The state passes hand each other -*- tablegen -*-===//
//
// The `placer` dialect has no ops: it types the attributes that the cost,
// placement, split and simulation passes write and read, so that each is
// verified once and read through accessors instead of string keys.
//
//===----------------------------------------------------------------------===//

#ifndef PLACER_DIALECT_PLACER_PLACERATTRS_TD
#define PLACER_DIALECT_PLACER_PLACERATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def Placer_Dialect : Dialect {
  let name = "placer";
  let cppNamespace = "::placer";
  let summary = "Typed placement state: cluster, per-op cost, device";
  let description = [{
    The contract between Placer's passes (docs/Architecture.md):

    | attribute | on | written by | read by |
    |---|---|---|---|
    | `placer.cluster = #placer.cluster<...>` | module | `--placer-estimate-costs`, workload import | placement, simulator |
    | `placer.cost = #placer.cost<...>` | top-level op | `--placer-estimate-costs`, workload import | placement, simulator, cost table |
    | `placer.device = #placer.device<N>` | top-level op | `--placer-place-devices` | split, DOT export, stage export |
    | `placer.placement = #placer.placement<...>` | module | `--placer-place-devices` | users, tests |
    | `placer.backward`, `placer.optimizer` (unit), `placer.color_class = N` | graph.node | `--placer-build-training` | placement, `--placer-accumulate-microbatches` |
    | `placer.weight_gradient` (unit, on a backward node not the optimizer's) | graph.node | `--placer-build-training` | the pipeline schedules that defer weight gradients (docs/Schedules.md) |
    | `placer.updates = "NAME"` | a training step's function result | `--placer-build-training` | the runner |
    | `placer.microbatches = M`, `placer.schedule = "gpipe"` | a training step's function | `--placer-accumulate-microbatches` | the runner |
    | `placer.replica` (unit, beside `placer.updates`) | a split training step's result | `--placer-split-devices` | the runner (not saved) |

    The dialect verifies each where it appears: the right attribute kind on
    the right op, devices inside the module's cluster, times only for the
    cluster's device kinds.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let discardableAttrs = (ins
    "::placer::ClusterAttr":$cluster,
    "::placer::CostAttr":$cost,
    "::placer::DeviceAttr":$device,
    "::placer::PlacementAttr":$placement,
    "::mlir::ArrayAttr":$tensor_configs,
    "::mlir::StringAttr":$tensor_config,
    "::mlir::DenseF64ArrayAttr":$edge_bytes
  );
}

//===----------------------------------------------------------------------===//
// Parameters and enums
//===----------------------------------------------------------------------===//

/// A double printed in its shortest round-tripping form.
class Placer_F64Param<string desc>
    : AttrOrTypeParameter<"::placer::F64", desc, "double"> {
  let parser = [{ ::placer::detail::parseF64($_parser) }];
  let printer = [{ ::placer::detail::printF64($_printer, $_self) }];
}

/// A double that may be left out, reading as `default`.
class Placer_DefaultF64Param<string desc, string default>
    : Placer_F64Param<desc> {
  let defaultValue = default;
}

class Placer_DefaultI64Param<string desc, string default>
    : DefaultValuedParameter<"int64_t", default, desc>;

def Placer_OptionalF64Param
    : OptionalParameter<"std::optional<::placer::F64>"> {
  let parser = [{ ::placer::detail::parseOptionalF64($_parser) }];
  let printer = [{ ::placer::detail::printF64($_printer, *$_self) }];
}

def Placer_OptionalI64Param : OptionalParameter<"std::optional<int64_t>"> {
  let printer = [{ $_printer << *$_self }];
}

def Placer_BoolParam : AttrOrTypeParameter<"bool", "true or false"> {
  let parser = [{ ::placer::detail::parseBool($_parser) }];
  let printer = [{ $_printer << ($_self ? "true" : "false") }];
}

/// A Placer_BoolParam that struct(params) may leave out: false then.
def Placer_OptionalBoolParam : AttrOrTypeParameter<"bool", "true or false"> {
  let parser = [{ ::placer::detail::parseBool($_parser) }];
  let printer = [{ $_printer << ($_self ? "true" : "false") }];
  let defaultValue = "false";
}

def Placer_DeviceClass : I32EnumAttr<"DeviceClass", "what a device kind is", [
    I32EnumAttrCase<"Accelerator", 0, "accelerator">,
    I32EnumAttrCase<"Cpu", 1, "cpu">]> {
  let cppNamespace = "::placer";
  let genSpecializedAttr = 0;
}

def Placer_CostSource : I32EnumAttr<"CostSource", "where an op's times come from", [
    I32EnumAttrCase<"Model", 0, "model">,
    I32EnumAttrCase<"Generic", 1, "generic">,
    I32EnumAttrCase<"Profile", 2, "profile">,
    I32EnumAttrCase<"Workload", 3, "workload">]> {
  let cppNamespace = "::placer";
  let genSpecializedAttr = 0;
}

/// The objective of include/placer/Solver/Schedule.h (declared there once,
/// plain C++): `throughput` or `latency`.
def Placer_ObjectiveParam
    : AttrOrTypeParameter<"::placer::solver::Objective", "throughput or latency"> {
  let parser = [{ ::placer::detail::parseObjective($_parser) }];
  let printer = [{ $_printer << ::placer::solver::getName($_self) }];
}

/// A schedule of include/placer/Solver/Schedule.h, written as its name in
/// quotes ("gpipe", "1f1b", "zb-h1"); `default` when left out.
class Placer_ScheduleParam<string desc, string default = "">
    : AttrOrTypeParameter<"::placer::solver::Schedule", desc> {
  let parser = [{ ::placer::detail::parseSchedule($_parser) }];
  let printer = [{ $_printer << '"' << ::placer::solver::getName($_self) << '"' }];
  let defaultValue = default;
}

def Placer_CostSourceParam : EnumParameter<Placer_CostSource> {
  let defaultValue = "::placer::CostSource::Model";
}

class Placer_Attr<string name, string attrMnemonic>
    : AttrDef<Placer_Dialect, name> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Cluster
//===----------------------------------------------------------------------===//

def Placer_LinkAttr : Placer_Attr<"Link", "link"> {
  let summary = "a link between two devices: bytes/s and seconds per transfer";
  let parameters = (ins Placer_F64Param<"bytes/s">:$bandwidth,
                        Placer_DefaultF64Param<"seconds", "0.0">:$latency);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Placer_DeviceKindAttr : Placer_Attr<"DeviceKind", "kind"> {
  let summary = "a kind of device, how many there are, and its figures";
  let description = [{
    `peak_flops` maps element type names (`f32`, `f16`, ..., `default`) to
    FLOP/s. A capacity of 0 means unlimited (CPU cores).
  }];
  let parameters = (ins StringRefParameter<"name">:$name,
                        EnumParameter<Placer_DeviceClass>:$device_class,
                        Placer_DefaultI64Param<"devices", "1">:$count,
                        "::mlir::DictionaryAttr":$peak_flops,
                        Placer_F64Param<"bytes/s">:$memory_bandwidth,
                        Placer_DefaultF64Param<"bytes", "0.0">:$memory_capacity,
                        Placer_DefaultF64Param<"seconds", "0.0">:$op_overhead);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Placer_HierarchyAttr : Placer_Attr<"Hierarchy", "hierarchy"> {
  let summary = "nodes of equal size: one link inside a node, one between nodes";
  let parameters = (ins "int64_t":$devices_per_node,
                        "::placer::LinkAttr":$intra_node,
                        "::placer::LinkAttr":$inter_node);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Placer_TrainingAttr : Placer_Attr<"Training", "training"> {
  let summary = "how the cluster trains pipelines";
  let description = [{
    The schedule ("gpipe", "1f1b" or "zb-h1"), the microbatches per
    iteration and
    the optimizer state bytes per weight byte; placement options override
    each (docs/Placement.md, "Memory under a training schedule").
  }];
  let parameters = (ins Placer_ScheduleParam<"gpipe, 1f1b or zb-h1">:$schedule,
                        "int64_t":$microbatches,
                        Placer_F64Param<"bytes per weight byte">:$optimizer_state_factor);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Placer_KindLinkAttr : Placer_Attr<"KindLink", "kind_link"> {
  let summary = "the link between any device of one kind and one of another";
  let parameters = (ins StringRefParameter<"kind">:$a,
                        StringRefParameter<"kind">:$b,
                        "::placer::LinkAttr":$link);
  let assemblyFormat = "`<` $a `,` $b `,` $link `>`";
}

def Placer_DeviceLinkAttr : Placer_Attr<"DeviceLink", "device_link"> {
  let summary = "the link between two given devices";
  let parameters = (ins "int64_t":$a, "int64_t":$b,
                        "::placer::LinkAttr":$link);
  let assemblyFormat = "`<` $a `,` $b `,` $link `>`";
}

def Placer_ClusterAttr : Placer_Attr<"Cluster", "cluster"> {
  let summary = "the machine a module is placed on";
  let description = [{
    Device kinds in order (kind 0's devices are devices 0..count-1, and so
    on) and the links between devices: a device pair wins over a kind pair,
    which wins over the hierarchy, which wins over the default link
    (docs/CostModel.md). `getCluster()` gives the plain C++ model the
    solvers and the simulator use.
  }];
  let parameters = (ins
    StringRefParameter<"name", "\"\"">:$name,
    AttrParameter<"::mlir::ArrayAttr", "#placer.kind list">:$kinds,
    "::placer::LinkAttr":$default_link,
    OptionalParameter<"::placer::HierarchyAttr">:$hierarchy,
    OptionalParameter<"::mlir::ArrayAttr", "#placer.kind_link list">:$kind_links,
    OptionalParameter<"::mlir::ArrayAttr", "#placer.device_link list">:$device_links,
    OptionalParameter<"::placer::TrainingAttr">:$training);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The attribute of a cluster, and the cluster of an attribute.
    static ClusterAttr get(::mlir::MLIRContext *context,
                           const ::placer::Cluster &cluster);
    ::placer::Cluster getCluster() const;
    int64_t getNumDevices() const;
  }];
}

//===----------------------------------------------------------------------===//
// Per-op state
//===----------------------------------------------------------------------===//

def Placer_CostAttr : Placer_Attr<"Cost", "cost"> {
  let summary = "an op's work and its time on each device kind";
  let description = [{
    FLOPs, bytes read and written, weight (parameter) bytes and result bytes
    are device-independent; `time` gives seconds per device kind of the
    module's cluster; `transfer_time` is c(u), moving the result between two
    devices. In training, `backward_time` and `training_param_bytes`
    (weights, gradients and optimizer state) are present.
  }];
  let parameters = (ins
    Placer_DefaultI64Param<"FLOPs", "0">:$flops,
    Placer_DefaultI64Param<"bytes", "0">:$bytes_read,
    Placer_DefaultI64Param<"bytes", "0">:$bytes_written,
    Placer_DefaultI64Param<"bytes", "0">:$param_bytes,
    Placer_DefaultI64Param<"bytes", "0">:$output_bytes,
    "::mlir::DictionaryAttr":$time,
    Placer_DefaultF64Param<"seconds", "0.0">:$transfer_time,
    Placer_CostSourceParam:$source,
    OptionalParameter<"::mlir::DictionaryAttr">:$backward_time,
    Placer_OptionalI64Param:$training_param_bytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Seconds on device kind `kind`; std::nullopt when not given.
    std::optional<double> getTimeOn(::llvm::StringRef kind) const;
    std::optional<double> getBackwardTimeOn(::llvm::StringRef kind) const;
    /// Bytes the op keeps on its device: training_param_bytes when
    /// training, else param_bytes.
    int64_t getResidentBytes() const;
  }];
}

//===----------------------------------------------------------------------===//
// Tensor-parallel configurations (three-dimensional plans)
//===----------------------------------------------------------------------===//

def Placer_TensorConfigAttr : Placer_Attr<"TensorConfig", "tensor_config"> {
  let summary = "one way of running a layer on a tensor-parallel group";
  let description = [{
    Piper's TMPC (include/placer/Solver/ParallelPlan.h, TensorConfig): the
    forward and backward `time` of one sample on the group, the
    `param_bytes` a data-parallel copy all-reduces, memory per device
    `stash_bytes * y + fixed_bytes` (y microbatches in flight), and the
    extra bytes per sample over each incoming (`sync_in`, in operand order)
    and outgoing edge (`sync_out`, in the order of the node's uses).
    On a cluster that mixes accelerators, `times` gives the seconds per
    sample on each kind by name (`time` is then the first kind's); the
    planner needs one for every accelerator kind of the cluster.
    `recompute`: the layer keeps no activations from its forward pass to
    its backward pass and computes them again there (its time counts the
    forward pass twice); a training step marks the nodes of such chosen
    configurations `placer.recompute`. `cache_bytes` (0 when left out): the
    KV caches a device of the group keeps for every sequence the stage
    serves, beside `fixed_bytes`; each of a stage's d data-parallel copies
    serves 1 / d of the sequences and keeps `cache_bytes / d`.
  }];
  let parameters = (ins StringRefParameter<"configuration id">:$id,
                        Placer_F64Param<"seconds per sample">:$time,
                        Placer_F64Param<"bytes">:$param_bytes,
                        Placer_F64Param<"bytes per microbatch">:$stash_bytes,
                        Placer_F64Param<"bytes">:$fixed_bytes,
                        "::mlir::DenseF64ArrayAttr":$sync_in,
                        "::mlir::DenseF64ArrayAttr":$sync_out,
                        OptionalParameter<"::mlir::DictionaryAttr">:$times,
                        Placer_OptionalBoolParam:$recompute,
                        Placer_DefaultF64Param<"bytes", "0.0">:$cache_bytes);
  let builders = [
    AttrBuilder<(ins "::llvm::StringRef":$id, "double":$time,
                     "double":$param_bytes, "double":$stash_bytes,
                     "double":$fixed_bytes,
                     "::mlir::DenseF64ArrayAttr":$sync_in,
                     "::mlir::DenseF64ArrayAttr":$sync_out), [{
      return $_get($_ctxt, id, time, param_bytes, stash_bytes, fixed_bytes,
                   sync_in, sync_out, ::mlir::DictionaryAttr(), false, 0.0);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Seconds per sample on device kind `kind`: its entry in `times`, or
    /// `time` when there are none; std::nullopt when `times` lacks it.
    std::optional<double> getTimeOn(::llvm::StringRef kind) const;
  }];
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Placer_TensorDegreeAttr : Placer_Attr<"TensorDegree", "tensor_degree"> {
  let summary = "a layer's configurations for one tensor-parallel degree";
  let description = [{
    `configs` holds #placer.tensor_config attributes with distinct ids. A
    graph.node lists one per degree it supports, by ascending degree, as
    `placer.tensor_configs`; the three-dimensional planner chooses a
    degree per stage and one of these per node, recorded as
    `placer.tensor_config` (the chosen id).
  }];
  let parameters = (ins "int64_t":$degree, "::mlir::ArrayAttr":$configs);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Placer_ParallelStageAttr : Placer_Attr<"ParallelStage", "parallel_stage"> {
  let summary = "a stage of a three-dimensional plan";
  let description = [{
    The stage runs on the `tensor * data` consecutive devices from `first`:
    `data` copies, each a tensor-parallel group of `tensor` devices;
    `time` is its time per sample and `memory` its bytes per device.
  }];
  let parameters = (ins "int64_t":$first, "int64_t":$tensor, "int64_t":$data,
                        Placer_F64Param<"seconds per sample">:$time,
                        Placer_F64Param<"bytes per device">:$memory);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Placer_ShardAttr : Placer_Attr<"Shard", "shard"> {
  let summary = "the slice of a training state one member of a tensor-parallel group holds";
  let description = [{
    On a result of a tensor-parallel member's training step, beside
    `placer.updates`: the member holds the state it updates as its slice,
    step after step, never whole. Along `axis`, cut in `blocks` equal
    blocks, each cut in as many equal slices as `group` has devices; member
    `index` (device `group[index]`) holds its slice of every block, the
    layout of docs/Sharding.md. The runtime gathers the slices over the
    group only to save the state whole.
  }];
  let parameters = (ins "int64_t":$axis, "int64_t":$blocks, "int64_t":$index,
                        ArrayRefParameter<"int64_t", "the group's devices">:$group);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Placer_DeviceAttr : Placer_Attr<"Device", "device"> {
  let summary = "the device an op runs on: an index into the cluster's devices";
  let parameters = (ins "int64_t":$index);
  let assemblyFormat = "`<` $index `>`";
  let genVerifyDecl = 1;
}

def Placer_PlacementAttr : Placer_Attr<"Placement", "placement"> {
  let summary = "what the placement found, for the module as a whole";
  let description = [{
    When a training step was placed, `schedule` ("gpipe", "1f1b", "zb-h1",
    "interleaved" or "zb-v") and
    `microbatches` are the pipeline the placement sized memory for (the
    cluster's `training`, as the placement options override it); the
    simulator runs that schedule. Both are absent for inference (the
    schedule reads "inference"). `chunks` is the chunks of the model per
    accelerator of a schedule that runs several (interleaved, zb-v; 1
    otherwise, left out); each placed node then carries its chunk
    (`placer.chunk`).
    `recompute` lists the devices (ascending) whose stage recomputes its
    activations instead of stashing them (`recompute=true`). `replica_of`
    (with `replication=true`) gives, per cluster device, the device whose
    stage it runs a copy of, or -1. A three-dimensional plan (nodes with
    `placer.tensor_configs`) lists its `stages` (#placer.parallel_stage, in
    pipeline order, on disjoint ranges of the cluster's accelerators:
    consecutive on a flat network, aligned blocks on nodes, each kind's
    stages on its devices).
  }];
  let parameters = (ins
    Placer_ObjectiveParam:$objective,
    StringRefParameter<"algorithm">:$algorithm,
    Placer_F64Param<"max load">:$max_load,
    Placer_F64Param<"lower bound">:$lower_bound,
    Placer_BoolParam:$optimal,
    "int64_t":$accelerators,
    "int64_t":$cpus,
    Placer_OptionalF64Param:$latency,
    Placer_ScheduleParam<"training schedule",
                         "::placer::solver::Schedule::Inference">:$schedule,
    Placer_DefaultI64Param<"microbatches per iteration", "0">:$microbatches,
    Placer_DefaultI64Param<"chunks per accelerator", "1">:$chunks,
    OptionalParameter<"::mlir::DenseI64ArrayAttr">:$recompute,
    OptionalParameter<"::mlir::DenseI64ArrayAttr">:$replica_of,
    OptionalParameter<"::mlir::ArrayAttr">:$stages);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // PLACER_DIALECT_PLACER_PLACERATTRS_TD
