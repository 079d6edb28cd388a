//===- Passes.td - Placer's passes -------------------------*- tablegen -*-===//
#ifndef PLACER_TRANSFORMS_PASSES_TD
#define PLACER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// The options of cost estimation and placement are declared once, here:
// --placer-estimate-costs takes the first list, --placer-place-devices the
// second and --partition-devices both. `readCostSettings` and
// `readPlacementSettings` (PlacementOptions.h) turn them into typed settings
// and say which value is unknown.
defvar CostOptionList = [
  Option<"cluster", "cluster", "std::string", /*default=*/"\"a100-80gb\"",
         "Cluster preset name or JSON file">,
  Option<"dump", "dump", "std::string", /*default=*/"\"\"",
         "Write the per-op costs and totals as JSON to this file">,
  Option<"profile", "profile", "std::string", /*default=*/"\"\"",
         "JSON of measured times: node name -> {device kind: seconds}">,
  Option<"training", "training", "bool", /*default=*/"false",
         "Also give backward times and training memory">,
  Option<"tf32", "tf32", "bool", /*default=*/"false",
         "Price f32 products and convolutions at each kind's tf32 peak, as "
         "tensor cores run them with TF32 on (placer-run --gpu-tf32)">,
  Option<"backwardFactor", "backward-factor", "double", /*default=*/"-1.0",
         "Backward time as a multiple of forward time for every op "
         "(training; negative: per op type, by the op registry "
         "(docs/OpCoverage.md), 2 for types it does not list)">,
  Option<"optimizerStateFactor", "optimizer-state-factor", "double",
         /*default=*/"-1.0",
         "Optimizer state bytes per weight byte (training; Adam: 2; "
         "negative: the cluster's, 2 by default)">,
  ListOption<"dims", "dims", "std::string",
             "NAME=VALUE: the size of a symbolic dim of a module imported "
             "without --dim (bound before costing)">
];

defvar PlaceOptionList = [
  Option<"devices", "devices", "int64_t", /*default=*/"0",
         "Accelerators to use, the cluster's first ones in device order, "
         "of every accelerator kind (0: all)">,
  Option<"cpus", "cpus", "int64_t", /*default=*/"-1",
         "CPU cores to use (-1: a workload's l, else 0)">,
  Option<"memory", "memory", "double", /*default=*/"0",
         "Memory per accelerator in bytes (0: the cluster's capacity)">,
  Option<"activations", "activations", "bool", /*default=*/"true",
         "Memory per accelerator counts the peak of its live activations "
         "besides its weights (false: weights only, as in the paper)">,
  Option<"schedule", "schedule", "std::string", /*default=*/"\"\"",
         "Training graphs: gpipe | 1f1b | zb-h1 | interleaved | zb-v, how "
         "many microbatches' activations each stage stashes (empty: the "
         "cluster's, 1f1b by default)">,
  Option<"microbatches", "microbatches", "int64_t", /*default=*/"0",
         "Training graphs: microbatches per iteration (0: the cluster's, 8 "
         "by default)">,
  Option<"chunks", "chunks", "int64_t", /*default=*/"2",
         "schedule=interleaved: chunks of the model per accelerator (at "
         "least 2)">,
  Option<"kvBatch", "kv-batch", "int64_t", /*default=*/"0",
         "Decode steps: sequences each KV cache holds (0: its input's "
         "first dim)">,
  Option<"context", "context", "int64_t", /*default=*/"0",
         "Decode steps: tokens each KV cache holds (0: the length of the "
         "present keys and values the step returns)">,
  ListOption<"tensorDegrees", "tensor-degrees", "int64_t",
             "Tensor-parallel degrees a stage may take (default 1: pipeline "
             "stages only, or every degree of a module that lists its own "
             "configurations, as Piper's inputs do; otherwise tensor x data "
             "x pipeline with configurations derived from the costs, or "
             "only those degrees of the module's own; one degree forces it "
             "on every stage)">,
  Option<"recompute", "recompute", "bool", /*default=*/"false",
         "Training graphs: a stage whose stashed activations do not fit may "
         "recompute them in its backward pass (activation checkpointing at "
         "the stage's inputs), at the cost of its forward time">,
  Option<"replication", "replication", "bool", /*default=*/"false",
         "A stage may run on several consecutive accelerators, each taking "
         "every r-th microbatch (training: plus a ring all-reduce of its "
         "gradients per iteration)">,
  Option<"links", "links", "std::string", /*default=*/"\"cluster\"",
         "cluster (transfers cost what the cluster's link between the two "
         "devices gives) | flat (the solver prices every link like the "
         "first two devices'; the report still scores the cluster's)">,
  Option<"objective", "objective", "std::string",
         /*default=*/"\"throughput\"",
         "throughput (max load per device) | latency (one sample end to "
         "end)">,
  Option<"algorithm", "algorithm", "std::string", /*default=*/"\"auto\"",
         "auto (dp for throughput, ip for latency) | dp | ip | pipedream | "
         "greedy | single | split-file">,
  Option<"contiguous", "contiguous", "bool", /*default=*/"true",
         "algorithm=ip, throughput: require a contiguous (pipelined) split">,
  Option<"timeLimit", "time-limit", "double", /*default=*/"600",
         "The time limit in seconds, end to end, of algorithm=ip "
         "(heuristic, model and CBC), local-search, the latency "
         "heuristic and the three-dimensional planner">,
  Option<"gap", "gap", "double", /*default=*/"0",
         "algorithm=ip: stop at this relative gap">,
  Option<"nodes", "nodes", "int64_t", /*default=*/"0",
         "algorithm=ip: stop after this many branch-and-bound nodes (0: no "
         "limit; unlike time, the same answer on every machine)">,
  Option<"threads", "threads", "int64_t", /*default=*/"1",
         "algorithm=ip: CBC threads">,
  Option<"calls", "calls", "int64_t", /*default=*/"1",
         "objective=latency: calls (convex subgraphs) per accelerator">,
  Option<"progress", "progress", "double", /*default=*/"10",
         "algorithm=ip: seconds between progress lines on stderr (0: "
         "none)">,
  Option<"exportLp", "export-lp", "std::string", /*default=*/"\"\"",
         "algorithm=ip: write the model (LP, or MPS for .mps) instead of "
         "solving">,
  Option<"idealLimit", "ideal-limit", "int64_t", /*default=*/"200000",
         "Past this many ideals the DP refines the PipeDream-style split "
         "within windows of the lattice and says so">,
  Option<"splitIn", "split-in", "std::string", /*default=*/"\"\"",
         "Split to score with algorithm=split-file (the paper's format), or "
         "for objective=latency with algorithm=ip or greedy a placement to "
         "start from">,
  Option<"report", "report", "std::string", /*default=*/"\"\"",
         "Write the placement report (JSON) to this file">,
  Option<"exportSplit", "export-split", "std::string", /*default=*/"\"\"",
         "Write the split in the paper's format to this file">
];

def EstimateCosts : Pass<"placer-estimate-costs", "::mlir::ModuleOp"> {
  let summary = "Annotate every op with its work and its time per device kind";
  let description = [{
    For every op of the module's functions, computes FLOPs, bytes read and
    written, parameter and output bytes (through CostOpInterface, or a
    bytes-only estimate for ops without it, listed in one warning) and the
    roofline time on each device kind of the cluster. Results go on each op
    as `placer.cost = #placer.cost<...>`; the cluster is recorded on the
    module as `placer.cluster = #placer.cluster<...>`. A profile overrides estimated times per op
    and device kind. Ops imported from a paper workload keep their costs.

    `dims` (NAME=VALUE sizes of symbolic dims) are bound first, as by
    `--placer-bind-dims`; a module with symbolic dims and no sizes is an
    error naming them. `--partition-devices` takes the same options.
  }];
  let options = CostOptionList;
}

def BindDims : Pass<"placer-bind-dims", "::mlir::ModuleOp"> {
  let summary = "Give the module's symbolic dims sizes (as import's --dim)";
  let description = [{
    A model imported without `--dim` keeps its symbolic dims (`batch`):
    its inputs' `graph.dim_params` and its nodes' `output_dims` name them,
    and the native code runs on any size. Costs, memory and a placement
    need sizes: this pass sets every dim a symbol names to the size
    `dims=NAME=VALUE,...` gives it, in the types of the functions' inputs
    and of every node output, and drops the names it bound. A name the
    module does not have, a malformed entry or a non-positive size is an
    error that lists the module's symbols; nothing changes then.
    `--placer-estimate-costs` and `--partition-devices` take the same
    `dims` option and bind first.
  }];
  let options = [
    ListOption<"dims", "dims", "std::string",
               "NAME=VALUE: the size of a symbolic dim">
  ];
}

def PrintCosts : Pass<"placer-print-costs", "::mlir::ModuleOp"> {
  let summary = "Print the per-op cost table and totals (after placer-estimate-costs)";
  let description = [{
    Prints one line per op annotated by `--placer-estimate-costs` (name, op
    type, FLOPs, bytes, parameter bytes, time per device kind) and a total
    line to stdout, like MLIR's test-print passes.
  }];
}

def PlaceDevices : Pass<"placer-place-devices", "::mlir::ModuleOp"> {
  let summary = "Choose a device for every op: optimal pipelined split or a baseline";
  let description = [{
    Builds the placement problem of Tarnawski et al. (NeurIPS 2020) from the
    `placer.cost` annotations (`--placer-estimate-costs`, or a workload
    import) and the module's `placer.cluster`, solves it, and annotates every
    op with `placer.device` (an index into the cluster's device list).
    Constants and shape computations whose values are known at compile time
    are kept out of the search and follow their first consumer. The module
    gets `placer.placement` (objective, algorithm, max-load, latency, lower
    bound).

    `objective=throughput` minimises the largest per-device load (time per
    sample of a pipeline); `objective=latency` the time one sample takes
    through the placed graph, with each accelerator running its ops as up
    to `calls` convex subgraphs (docs/IntegerPrograms.md).

    `--partition-devices` takes the same options; docs/Placement.md says
    what each algorithm does with them.
  }];
  let options = PlaceOptionList;
}

def PartitionDevices : Pass<"partition-devices", "::mlir::ModuleOp"> {
  let summary = "The default pipeline: costs, placement and the split, with one set of options";
  let description = [{
    Runs `--placer-estimate-costs` (a workload import keeps its costs),
    `--placer-place-devices` and, unless `split=false` or `export-lp` is
    given, `--placer-split-devices` on the module, as one nested pipeline
    configured by this pass's options: those of the first two passes and
    `split`. `--partition-devices=4` is short for `devices=4`. A value the
    placement does not know (an unknown `algorithm`, `schedule`,
    `objective` or `links`) is an error when the options are parsed, before
    anything runs; a misspelt option's error lists the valid ones.
  }];
  let options = !listconcat(CostOptionList, PlaceOptionList, [
    Option<"split", "split", "bool", /*default=*/"true",
           "End with --placer-split-devices (one function per device)">
  ]);
  let dependentDialects = ["::placer::PlacerDialect",
                           "::placer::dist::DistDialect"];
}

def SplitDevices : Pass<"placer-split-devices", "::mlir::ModuleOp"> {
  let summary = "One function per device, with explicit send/recv";
  let description = [{
    Turns every function whose ops carry `placer.device` into one function
    per device (`@<name>_d<device>`), each holding that device's ops in the
    original order, plus a `dist.program` describing devices, pipeline order
    and channels. A value computed on one device and used on another is sent
    once per receiving device: `dist.send` right after its producer,
    `dist.recv` right before its first use. Constants (and `graph.none`) are
    replicated on every device that uses them instead. Each stage function
    records, as `dist.arg` / `dist.result`, which graph input and output its
    arguments and results are; ops keep their original position as
    `dist.position` so that `--placer-merge-devices` can undo the split.

    A training step: every device that reads a weight or optimizer state
    the step updates gets its own copy of the optimizer nodes that update
    it (named `NODE/d<device>`, reading the same gradient, sent from where
    it is summed) and returns its next value with `placer.replica` beside
    `placer.updates`; a weight tied across stages and the copies of a
    replicated stage stay equal that way. A stage that reads state whose
    update is no optimizer node is refused. An accumulated step
    (`placer.microbatches`) has its replicas' work placed already, so each
    of their devices gets a function of its own.

    A stage that a three-dimensional plan runs on a tensor-parallel group
    of t devices (`#placer.parallel_stage` with tensor > 1) becomes t
    functions side by side in the program (`@<stage>` on the group's first
    device, `@<stage>_t<i>` on the others): each holds its slices of the
    weights and computes its part of every node the sharding analysis cuts,
    with `dist.all_reduce` and `dist.all_gather` where the plan needs a
    value whole (docs/Sharding.md, "Per-device programs"); with
    data-parallel copies, each member is a replicated stage.
  }];
  let dependentDialects = ["::placer::dist::DistDialect"];
}

def MergeDevices : Pass<"placer-merge-devices", "::mlir::ModuleOp"> {
  let summary = "Undo --placer-split-devices: one function again";
  let description = [{
    Rebuilds the original function from a `dist.program` and its stage
    functions: transfers disappear (a recv's uses read the sent value),
    replicated constants become one again, ops return to their original
    order.
  }];
}

def SelectStage : Pass<"placer-select-stage", "::mlir::ModuleOp"> {
  let summary = "Keep one device's program of a split module (one MPI rank)";
  let description = [{
    Keeps the stage function at position `stage` of the module's
    `dist.program` and drops the other stages and the program op. One MPI
    rank runs each device, stage by stage, a replicated stage's own device
    first and then its copies (without replication, rank = stage). The
    kept function records the devices in rank order as `dist.ranks` and,
    when stages are replicated, per rank the number of ranks running its
    stage as `dist.replicas`, so that its transfers' peer devices map to
    ranks (and microbatches to copies) when they are lowered. Its sends and
    recvs stay; only this stage's weights remain referenced. Every copy of
    a stage compiles the same function.
  }];
  let options = [
    Option<"stage", "stage", "int64_t", /*default=*/"0",
           "Position of the stage in dist.program">
  ];
}

def Simulate : Pass<"placer-simulate", "::mlir::ModuleOp"> {
  let summary = "Run a split program on the cluster model, event by event";
  let description = [{
    Executes the stages of a `dist.program` (after `--placer-split-devices`)
    for `microbatches` samples in a pipeline: each device runs its ops in
    order, each as soon as the device is free and its inputs are there; a
    transfer takes bytes / bandwidth + latency on its link (the cluster's
    link between the two devices; for workload imports, whose tensors have
    no size, the producer's transfer_time), and transfers sharing a link
    queue. With `overlap=true` transfers run beside compute; with
    `overlap=false` they are serialized as the throughput model assumes: the
    sender and the receiver are each busy for the whole transfer.

    A training program (backward ops, or backward times from the cost model)
    runs one iteration of `microbatches` under its schedule: GPipe (every
    forward, then every backward in reverse), 1F1B (a stage warms up
    with as many forwards as stages follow it, then alternates) or ZB-H1
    (1F1B with weight gradients apart, deferred), in the order
    --placer-accumulate-microbatches builds the step in (one place:
    solver::getStageOrder); interleaved 1F1B and ZB-V run the chunks their
    placement chose (`placer.chunk`), each device its list over its chunks
    (solver::buildPipelineSchedule). Reports single-sample
    latency, total time, time per sample, bubble fraction, idle time and
    peak memory per device (remark, and JSON with `report=`); draws the
    timeline as SVG with `timeline=`. docs/Simulator.md has the model.

    A three-dimensional plan (`--placer-place-devices` on nodes with
    tensor-parallel configurations, not split) runs as one batch stage by
    stage instead: each stage's data-parallel copies take every d-th
    microbatch, receive, compute and send it, and all-reduce at the end;
    the report gives the batch, the time per sample beside the plan's, and
    per stage its figures (docs/Simulator.md, "Three-dimensional plans").
  }];
  let options = [
    Option<"microbatches", "microbatches", "int64_t", /*default=*/"0",
           "Samples pushed through the pipeline (0: the placement's "
           "microbatches per iteration for training, 1 for inference)">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"\"",
           "Training programs: gpipe | 1f1b | zb-h1 | interleaved | zb-v "
           "(default: the placement's, else the cluster's; the last two "
           "need a placement for them)">,
    Option<"overlap", "overlap", "bool", /*default=*/"true",
           "Transfers overlap compute (false: serialized, as the model)">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the simulation's figures and events as JSON">,
    Option<"timeline", "timeline", "std::string", /*default=*/"\"\"",
           "Write the timeline as a self-contained SVG">
  ];
}

def BuildTraining : Pass<"placer-build-training", "::mlir::ModuleOp"> {
  let summary = "Turn a graph module into one training step (loss, backward, optimizer)";
  let description = [{
    Differentiates the module's graph function in reverse mode: a loss on
    one output (`output`, default the first) against a new input named
    `labels` (`loss=mse`: the output's shape, mean squared error;
    `loss=cross-entropy`: [batch] int64 class indices for [batch, classes]
    logits, mean negative log-likelihood of their softmax), the backward
    nodes from one vector-Jacobian rule per op type
    (include/placer/Transforms/Gradients.h), and each trained weight's
    update by `optimizer` (`sgd`, `momentum`: PyTorch's SGD with momentum,
    `adam`: PyTorch's Adam with bias correction) at `learning-rate`. Trained
    weights are the floating-point initializers of rank 1 or more on a path
    to the loss; optimizer state is new initializers (`W.momentum`,
    `W.adam_m`, `W.adam_v`, `adam.step`) starting at zero. The function
    then returns `loss` and the next value of every weight and state, each
    result marked `placer.updates = "NAME"` with the initializer it
    replaces; the original outputs go. Backward nodes carry
    `placer.backward` and share `placer.color_class` with their forward
    node, which the placement keeps on one device. With `batch-norm=batch`
    each BatchNormalization normalises by its batch's statistics (its
    nodes written out, so that the gradient flows through them) and the
    step updates its running statistics as PyTorch's train() does. Needs
    static shapes and opset 13 or later; nodes on a weight's path without a
    rule are one error that names them all. docs/Training.md.
  }];
  let options = [
    Option<"loss", "loss", "std::string", /*default=*/"\"mse\"",
           "mse or cross-entropy">,
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "The graph output the loss is on (default: the first)">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"sgd\"",
           "sgd, momentum or adam">,
    Option<"learningRate", "learning-rate", "double", /*default=*/"0.01",
           "Step size">,
    Option<"momentum", "momentum", "double", /*default=*/"0.9",
           "optimizer=momentum: the velocity's decay">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9",
           "optimizer=adam: the first moment's decay">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999",
           "optimizer=adam: the second moment's decay">,
    Option<"epsilon", "epsilon", "double", /*default=*/"1e-8",
           "optimizer=adam: added to the root of the second moment">,
    Option<"batchNorm", "batch-norm", "std::string", /*default=*/"\"running\"",
           "running: BatchNormalization normalises by its running "
           "statistics as given (PyTorch's eval()); batch: by the batch's, "
           "and the step updates the running ones (PyTorch's train())">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def AccumulateMicrobatches
    : Pass<"placer-accumulate-microbatches", "::mlir::ModuleOp"> {
  let summary = "Make a training step average the gradients of M microbatches";
  let description = [{
    Turns a training step (--placer-build-training) whose inputs hold one
    microbatch into a step over `microbatches` of them: every input's first
    axis grows M times; the step slices it into M equal parts (`Slice`),
    runs the forward and backward nodes once per part (copies named
    `NODE/mb<m>`, sharing the weights and their `placer.color_class`),
    averages each gradient and the loss over the parts, and runs the
    optimizer's nodes (`placer.optimizer`) once on the averages. The
    function records both (`placer.microbatches`, `placer.schedule`).

    The copies are ordered by `schedule`, per stage (the devices of a
    placed module, in the order of their first op; one stage otherwise):
    `sequential` runs each microbatch's forward and backward work before
    the next one's (one microbatch's activations live at a time), `gpipe`
    every forward, then every backward in reverse, `1f1b` as many forwards
    as stages follow, then one forward and one backward in turn, `zb-h1`
    1F1B's order with each backward's weight-gradient nodes
    (`placer.weight_gradient`) as work of their own, the stage d stages
    from the first running them d microbatches late (docs/Schedules.md).
    Under `interleaved` and `zb-v` the stages are the chunks the placement
    chose (`placer.chunk`), each device running its list over its chunks
    (Megatron-LM's order; ZB-V's), which needs a placement for that
    schedule. The
    stages' orders are interleaved as their inputs allow, so that each
    stage's function keeps its order once split. In a placed module the
    copies keep their node's `placer.device`, and the slices and means go
    to the device of their reader and producer. `microbatches=0` and an
    empty `schedule` take the placement's (`placer.placement`); without
    one, the schedule is `sequential`. A device the placement lists in
    `recompute` runs again, before each microbatch's backward work, the
    forward ops that work reads (copies named `NODE/mb<m>/recompute`), so
    its forward values die after its forward work (under `zb-h1` its weight
    work reads what its backward work recomputed). A stage the placement
    replicates (`replica_of`) runs microbatch m on copy m mod r of its r
    devices; each copy sums its own microbatches' gradients and the
    stage's device adds the copies' sums (--placer-split-devices sends the
    mean back and copies the update). `microbatches=1` changes nothing
    without replicas. Errors: no optimizer nodes, a rank-0 input, a
    schedule the placement's devices cannot run in that order, `zb-h1` on
    a step with no weight-gradient node marked, a step that averages
    microbatches already, fewer microbatches than a stage's copies.
    docs/Training.md.
  }];
  let options = [
    Option<"microbatches", "microbatches", "int64_t", /*default=*/"0",
           "How many equal slices of the batch's first axis a step "
           "averages (0: the placement's)">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"\"",
           "sequential | gpipe | 1f1b | zb-h1: the order of the microbatches' "
           "work (default: the placement's, else sequential)">,
  ];
}

def Autocast : Pass<"placer-autocast", "::mlir::ModuleOp"> {
  let summary = "Compute a float32 model in half precision, as PyTorch's autocast does";
  let description = [{
    Rewrites every function's graph so that its products compute in `type`
    (bf16 or f16) on tensor cores while numerically sensitive ops stay in
    f32, after the op lists of PyTorch's CUDA autocast. Each op's
    `CastPolicy` in the op registry says which: convolutions and products
    (Conv, ConvTranspose, MatMul, Gemm) take their f32 inputs cast to
    `type`; Softmax, LogSoftmax, LayerNormalization, exp, log, pow, the sums
    and the losses take half inputs cast back to f32; every other op
    computes in its data's type (ONNX's type parameter, read from ONNX's
    schemas): in `type` when its half inputs meet only constants, in f32
    (the half ones cast up) when they meet a computed f32 tensor.

    Constants cast to `type` are converted once, here (a weight file is
    read and its values rounded to nearest even): the compiled program
    stores and loads them in half precision. So are weights seen through
    ops of constants alone (an exported Linear's Transpose), which then
    compute in half; a constant an f32 op reads too keeps its name, its
    half copy is named `NAME/bf16` (or `/f16`). Casts are `Cast` nodes named
    `autocast/N`, one per value and type. The functions' signatures do not
    change: a half value a function returns, or a region or any other op
    reads, is cast back to f32 first. Nodes with subgraphs and nodes of
    other domains compute in f32. Only f32 is converted (f64 and integers
    stay). The module records the type (`placer.precision`): compiled
    programs report it, and a second run in another type is an error.
  }];
  let dependentDialects = ["::placer::PlacerDialect"];
  let options = [
    Option<"type", "type", "std::string", /*default=*/"\"bf16\"",
           "The half-precision type products compute in: bf16 or f16">
  ];
}

def LoadWeights : Pass<"placer-load-weights", "::mlir::ModuleOp"> {
  let summary = "Replace initializers by the arrays of a folder of .npy files";
  let description = [{
    Gives every initializer (a graph.constant of no Constant node) that has
    a file `dir/<name>.npy` (the name as placer-run writes it: characters
    other than letters, digits, `-`, `_` and `.` as `_`) that file's
    values: the weights `placer-run --train-steps S --save-weights dir`
    wrote, so that `placer-translate --export-onnx` then writes the trained
    model. The file's dtype and shape must be the initializer's. Files that
    name no initializer (optimizer state) are left alone; a folder in which
    no file names one, an unreadable file, or a dtype or shape that differs
    is an error that names the file, and changes nothing.
    docs/Training.md.
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"\"\"",
           "The folder of <name>.npy files">,
  ];
}

def DeriveTensorConfigs
    : Pass<"placer-derive-tensor-configs", "::mlir::ModuleOp"> {
  let summary = "Give each node Piper-style configurations per tensor-parallel degree";
  let description = [{
    For every graph.node and every degree t of `degrees`, derives what the
    three-dimensional planner needs (placer.tensor_configs, the form Piper's
    inputs import to, and placer.edge_bytes) from the node's `placer.cost`
    on the cluster's first accelerator kind and the layout
    `planSharding` gives it on t devices (docs/Sharding.md): time per sample
    divided by t where each device runs a slice (forward, plus backward
    where the costs have it), plus its collectives as ring all-reduces and
    all-gathers on the group's link (the intra-node link of a hierarchy,
    else the first two devices'; twice in training, whose backward pass
    mirrors them); weights it reads cut held 1 / t; its output 1 / t when
    it stays split, stashed per microbatch in flight in training, held once
    in inference; parameter bytes all-reduced by data parallelism only in
    training; edges the bytes of each input another node produces (half in
    inference: the planner charges an edge both ways, activation and
    gradient). Each configuration is named by its strategy (`whole` at
    t = 1). With `recompute=true`, a node of a graph priced for training
    gets a second configuration per degree, `<strategy>+recompute`: its
    forward pass (collectives included) runs again before its backward
    pass, and its output is held for one microbatch instead of stashed
    for every microbatch in flight. Run `--placer-estimate-costs` first;
    `--placer-place-devices` with `tensor-degrees=` runs this itself
    (with its `recompute`, `kv-batch` and `context`). A decode step's KV
    caches (an input a Concat extends into a result) count as that
    Concat's `cache_bytes` for `kv-batch` sequences of `context` tokens,
    1 / t where the Concat runs on slices: the past keys and values are
    held split as the step's new ones come out (a device keeps the caches
    of its heads), and nothing is gathered for them.
  }];
  let options = [
    ListOption<"degrees", "degrees", "int64_t",
               "Tensor-parallel degrees (default 1)">,
    Option<"recompute", "recompute", "bool", /*default=*/"false",
           "Training: also a configuration per degree that recomputes the "
           "node's output in its backward pass">,
    Option<"kvBatch", "kv-batch", "int64_t", /*default=*/"0",
           "Decode steps: sequences each KV cache holds (0: its input's "
           "first dim)">,
    Option<"context", "context", "int64_t", /*default=*/"0",
           "Decode steps: tokens each KV cache holds (0: the length of the "
           "present keys and values the step returns)">
  ];
}

def ReportSharding : Pass<"placer-report-sharding", "::mlir::ModuleOp"> {
  let summary = "Say how each node runs on a tensor-parallel group";
  let description = [{
    Plans the module's graph function for a tensor-parallel group of
    `degree` devices (placer/Analysis/Sharding.h, docs/Sharding.md): per
    node, the sharding rule of its op registry entry it uses (a product's
    column-, row- or batch-parallel strategy; elementwise ops on the slices
    they get; a split carried through a reshape, transpose, split or
    normalization; else whole on every device), how its results come out
    cut, and the collectives it needs. One remark per node that is cut or
    communicates, a summary remark, and with `report=` the whole plan as
    JSON. Changes nothing.
  }];
  let options = [
    Option<"degree", "degree", "int64_t", /*default=*/"2",
           "Devices of the tensor-parallel group">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the plan as JSON">
  ];
}

def ExportDot : Pass<"placer-export-dot", "::mlir::ModuleOp"> {
  let summary = "Write the placed operator graph as Graphviz DOT";
  let description = [{
    One node per ONNX node (constants left out), filled with one colour per
    device, and one edge per use; edges that cross devices (transfers) are
    drawn red, bold and dashed. Works on a placed module and on a split one
    (then a recv's uses are drawn from the value's producer). Render with
    Graphviz: `dot -Tsvg graph.dot -o graph.svg`.
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"\"-\"",
           "Where to write the DOT text (- for stdout)">
  ];
}

#endif // PLACER_TRANSFORMS_PASSES_TD
