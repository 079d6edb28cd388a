//===- DistOps.td - Per-device programs and their transfers -*- tablegen -*-===//
//
// `dist` describes a model split over devices: one function per device,
// explicit transfers between them, and one op that describes the program as
// a whole (devices, pipeline order, channels).
//
//===----------------------------------------------------------------------===//

#ifndef PLACER_DIALECT_DIST_DISTOPS_TD
#define PLACER_DIALECT_DIST_DISTOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Dist_Dialect : Dialect {
  let name = "dist";
  let cppNamespace = "::placer::dist";
  let summary = "Per-device programs with explicit send/recv";
  let description = [{
    After `--placer-split-devices`, a module holds one `func.func` per
    device (`@<graph>_d<device>`), each with that device's ops in an order
    that respects their dependencies, and a `dist.program` that lists the
    devices in pipeline order and every channel. A value that one device
    computes and another uses crosses exactly once per receiving device: a
    `dist.send` right after its producer, a `dist.recv` right before its
    first use on the receiver, both naming the channel.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

def Dist_ChannelAttr : AttrDef<Dist_Dialect, "Channel"> {
  let mnemonic = "channel";
  let summary = "a one-way channel that carries one tensor per sample";
  let parameters = (ins "int64_t":$id, "int64_t":$from, "int64_t":$to,
                        "::mlir::Type":$type);
  let assemblyFormat = "`<` $id `:` $from `->` $to `,` $type `>`";
}

class Dist_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dist_Dialect, mnemonic, traits>;

def Dist_ProgramOp : Dist_Op<"program", [HasParent<"::mlir::ModuleOp">]> {
  let summary = "the split program: devices, pipeline order, channels";
  let description = [{
    `stages` are the per-device functions in pipeline order and `devices`
    their device indices (into the cluster's device list). `channels` lists
    every transfer. `graph` names the function the program was split from,
    and `graph_attrs` keeps that function's own attributes (its ONNX graph
    name, for instance).
    A replicated stage (data parallelism within it) runs on several
    devices: `replicas` gives per stage how many (absent: one each), and
    `replica_devices` the devices of the copies, stage by stage in order.
    Copy i of a stage with r replicas takes the microbatches m with
    m mod r = i (the stage's own device is copy 0); a send to a replicated
    stage's device goes to the copy that takes its microbatch, and copies
    send as their stage does. Training all-reduces a replicated stage's
    gradients among its copies once per iteration.
    The verifier checks that every channel has exactly one matching send and
    recv (same channel, endpoints and type), that the functions exist, that
    no device appears twice (copies included), that the replicas match the
    copies listed, and that the programs can run together without deadlock:
    treating each send as completing before its recv, the ops of all
    functions have a global order.
  }];
  let arguments = (ins FlatSymbolRefAttr:$graph,
                       SymbolRefArrayAttr:$stages,
                       DenseI64ArrayAttr:$devices,
                       TypedArrayAttrBase<Dist_ChannelAttr, "channels">:$channels,
                       OptionalAttr<DictionaryAttr>:$graph_attrs,
                       OptionalAttr<DenseI64ArrayAttr>:$replicas,
                       OptionalAttr<DenseI64ArrayAttr>:$replica_devices);
  let assemblyFormat = "$graph attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Every device that runs stage `index`: its own, then its copies'.
    ::llvm::SmallVector<int64_t> getStageDevices(size_t index);
    /// One MPI rank per device, stage by stage, each stage's own device
    /// first: the devices in rank order.
    ::llvm::SmallVector<int64_t> getRankDevices();
    /// Per rank (the order of getRankDevices), the stage it runs.
    ::llvm::SmallVector<int64_t> getRankStages();
  }];
}

def Dist_SendOp : Dist_Op<"send",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "send a tensor (or, once bufferized, a buffer) to another device";
  let description = [{
    Sends `value` to device `peer` over `channel`. Before bufferization the
    value is a tensor (or a workload's `!graph.unknown`); bufferization turns it into the buffer that
    holds it, which the op reads. Either way the op writes the channel (a
    side effect, so it is never removed or reordered with other transfers).
  }];
  let arguments = (ins AnyType:$value,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$channel,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$peer);
  let assemblyFormat = "$value `to` $peer `channel` $channel attr-dict `:` type($value)";
  let extraClassDeclaration = [{
    /// The tensor or buffer type the channel carries.
    ::mlir::Type getTransferType() { return getValue().getType(); }
  }];
}

def Dist_RecvOp : Dist_Op<"recv",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "receive a tensor (or, once bufferized, into a buffer) from another device";
  let description = [{
    Receives what device `peer` sends over `channel`. Before bufferization
    the op yields a tensor (or a workload's `!graph.unknown`); bufferization gives it a fresh buffer to
    receive `into` instead, which the op writes. Exactly one of the two
    forms: a result or an `into` buffer.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$channel,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$peer,
                       Optional<AnyMemRef>:$buffer);
  let results = (outs Optional<AnyType>:$result);
  let assemblyFormat = [{
    `from` $peer `channel` $channel (`into` $buffer^)? attr-dict `:`
    custom<TransferType>(type($buffer), type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The tensor or buffer type the channel carries.
    ::mlir::Type getTransferType() {
      if (getResult())
        return getResult().getType();
      return getBuffer().getType();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Collectives of a tensor-parallel group
//===----------------------------------------------------------------------===//

class Dist_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Dist_Op<mnemonic,
              !listconcat([DeclareOpInterfaceMethods<MemoryEffectsOpInterface>],
                          traits)> {
  code commonDeclaration = [{
    /// The group's devices, ascending.
    ::llvm::ArrayRef<int64_t> getDevices() { return getGroup(); }
  }];
}

def Dist_AllReduceOp : Dist_CollectiveOp<"all_reduce"> {
  let summary = "sum a tensor over a tensor-parallel group";
  let description = [{
    Every device of `group` (cluster device indices, at least two, distinct,
    ascending) runs this op on a tensor of the same type, at the same point
    of its program relative to the group's other collectives; each gets the
    element-wise sum of all of them: the partial sums of a row-parallel
    product (placer/Analysis/Sharding.h, docs/Sharding.md) made whole. The
    sum adds the devices' tensors in the group's order on every device, so
    all of them hold the same bits, run after run. The op reads and writes
    the group's communication, so it is never removed or reordered with
    other transfers.

    Before bufferization it takes a tensor and yields one of the same type;
    bufferization gives it a fresh buffer to sum `into` instead (its operand
    then the buffer it reads), as `dist.recv` does. Exactly one of the two
    forms.
  }];
  let arguments = (ins AnyTypeOf<[AnyRankedTensor, AnyMemRef]>:$value,
                       DenseI64ArrayAttr:$group,
                       Optional<AnyMemRef>:$buffer);
  let results = (outs Optional<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $value `over` $group (`into` $buffer^)? attr-dict `:` type($value) `->`
    custom<TransferType>(type($buffer), type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = commonDeclaration;
}

def Dist_AllGatherOp : Dist_CollectiveOp<"all_gather"> {
  let summary = "concatenate a tensor's slices from a tensor-parallel group";
  let description = [{
    Every device of `group` (as for `dist.all_reduce`) runs this op on its
    slice; each gets the slices concatenated along `axis` in the group's
    order: a split value made whole for a consumer that needs it whole. The
    result's `axis` is the operand's times the group's size, its other
    dimensions and its element type the operand's. Before bufferization a
    tensor op; after, it gathers `into` a fresh buffer (as `dist.all_reduce`).
  }];
  let arguments = (ins AnyTypeOf<[AnyRankedTensor, AnyMemRef]>:$value,
                       DenseI64ArrayAttr:$group,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$axis,
                       Optional<AnyMemRef>:$buffer);
  let results = (outs Optional<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $value `over` $group `along` $axis (`into` $buffer^)? attr-dict `:`
    type($value) `->` custom<TransferType>(type($buffer), type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = commonDeclaration;
}

#endif // PLACER_DIALECT_DIST_DISTOPS_TD
