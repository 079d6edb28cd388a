//===- Passes.td - Placer's passes -------------------------*- tablegen -*-===//
#ifndef PLACER_TRANSFORMS_PASSES_TD
#define PLACER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def EstimateCosts : Pass<"placer-estimate-costs", "::mlir::ModuleOp"> {
  let summary = "Annotate every op with its work and its time per device kind";
  let description = [{
    For every op of the module's functions, computes FLOPs, bytes read and
    written, parameter and output bytes (through CostOpInterface, or a
    bytes-only estimate for ops without it, listed in one warning) and the
    roofline time on each device kind of the cluster. Results go on each op
    as a `placer.cost` dictionary; the cluster is recorded on the module as
    `placer.cluster` (its JSON). A profile overrides estimated times per op
    and device kind. Ops imported from a paper workload keep their costs.
  }];
  let options = [
    Option<"cluster", "cluster", "std::string", /*default=*/"\"a100-80gb\"",
           "Cluster preset name or JSON file">,
    Option<"dump", "dump", "std::string", /*default=*/"\"\"",
           "Write the per-op costs and totals as JSON to this file">,
    Option<"profile", "profile", "std::string", /*default=*/"\"\"",
           "JSON of measured times: node name -> {device kind: seconds}">,
    Option<"training", "training", "bool", /*default=*/"false",
           "Also give backward times and training memory">,
    Option<"backwardFactor", "backward-factor", "double", /*default=*/"2.0",
           "Backward time as a multiple of forward time (training)">,
    Option<"optimizerStateFactor", "optimizer-state-factor", "double",
           /*default=*/"2.0",
           "Optimizer state bytes per weight byte (training; Adam: 2)">
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
  }];
  let options = [
    Option<"devices", "devices", "int64_t", /*default=*/"0",
           "Accelerators to use (0: all of the cluster's first accelerator kind)">,
    Option<"cpus", "cpus", "int64_t", /*default=*/"-1",
           "CPU cores to use (-1: a workload's l, else 0)">,
    Option<"memory", "memory", "double", /*default=*/"0",
           "Memory per accelerator in bytes (0: the cluster's capacity)">,
    Option<"objective", "objective", "std::string", /*default=*/"\"throughput\"",
           "throughput (max load per device) | latency (one sample end to end)">,
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"auto\"",
           "auto (dp for throughput, ip for latency) | dp | ip | pipedream | greedy | single | split-file">,
    Option<"contiguous", "contiguous", "bool", /*default=*/"true",
           "algorithm=ip, throughput: require a contiguous (pipelined) split">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"600",
           "algorithm=ip: CBC's time limit in seconds">,
    Option<"gap", "gap", "double", /*default=*/"0",
           "algorithm=ip: stop at this relative gap">,
    Option<"threads", "threads", "int64_t", /*default=*/"1",
           "algorithm=ip: CBC threads">,
    Option<"calls", "calls", "int64_t", /*default=*/"1",
           "objective=latency: calls (convex subgraphs) per accelerator">,
    Option<"progress", "progress", "double", /*default=*/"10",
           "algorithm=ip: seconds between progress lines on stderr (0: none)">,
    Option<"exportLp", "export-lp", "std::string", /*default=*/"\"\"",
           "algorithm=ip: write the model (LP, or MPS for .mps) instead of solving">,
    Option<"idealLimit", "ideal-limit", "int64_t", /*default=*/"2000000",
           "Past this many ideals the DP linearizes the graph and says so">,
    Option<"splitIn", "split-in", "std::string", /*default=*/"\"\"",
           "Split to score with algorithm=split-file (the paper's format)">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the placement report (JSON) to this file">,
    Option<"exportSplit", "export-split", "std::string", /*default=*/"\"\"",
           "Write the split in the paper's format to this file">
  ];
}

def PartitionDevices : Pass<"partition-devices", "::mlir::ModuleOp"> {
  let summary = "The default pipeline: costs, then placement";
  let description = [{
    `--partition-devices=N` (a bare number means `devices=N`) or
    `--partition-devices="devices=N cpus=L memory=BYTES algorithm=dp ..."`
    runs `--placer-estimate-costs` (skipped for workload imports, which carry
    their costs), `--placer-place-devices` with the same settings, and
    `--placer-split-devices` (unless `split=false`).
  }];
  let options = [
    Option<"cluster", "cluster", "std::string", /*default=*/"\"a100-80gb\"",
           "Cluster preset name or JSON file (ONNX models)">,
    Option<"devices", "devices", "int64_t", /*default=*/"0",
           "Accelerators to use (0: all of the cluster's)">,
    Option<"cpus", "cpus", "int64_t", /*default=*/"-1",
           "CPU cores to use (-1: a workload's l, else 0)">,
    Option<"memory", "memory", "double", /*default=*/"0",
           "Memory per accelerator in bytes (0: the cluster's capacity)">,
    Option<"objective", "objective", "std::string", /*default=*/"\"throughput\"",
           "throughput (max load per device) | latency (one sample end to end)">,
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"auto\"",
           "auto (dp for throughput, ip for latency) | dp | ip | pipedream | greedy | single | split-file">,
    Option<"contiguous", "contiguous", "bool", /*default=*/"true",
           "algorithm=ip, throughput: require a contiguous (pipelined) split">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"600",
           "algorithm=ip: CBC's time limit in seconds">,
    Option<"gap", "gap", "double", /*default=*/"0",
           "algorithm=ip: stop at this relative gap">,
    Option<"threads", "threads", "int64_t", /*default=*/"1",
           "algorithm=ip: CBC threads">,
    Option<"calls", "calls", "int64_t", /*default=*/"1",
           "objective=latency: calls (convex subgraphs) per accelerator">,
    Option<"progress", "progress", "double", /*default=*/"10",
           "algorithm=ip: seconds between progress lines on stderr (0: none)">,
    Option<"exportLp", "export-lp", "std::string", /*default=*/"\"\"",
           "algorithm=ip: write the model (LP, or MPS for .mps) instead of solving">,
    Option<"idealLimit", "ideal-limit", "int64_t", /*default=*/"2000000",
           "Past this many ideals the DP linearizes the graph and says so">,
    Option<"splitIn", "split-in", "std::string", /*default=*/"\"\"",
           "Split to score with algorithm=split-file">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the placement report (JSON) to this file">,
    Option<"exportSplit", "export-split", "std::string", /*default=*/"\"\"",
           "Write the split in the paper's format to this file">,
    Option<"training", "training", "bool", /*default=*/"false",
           "Cost backward passes and training memory (ONNX models)">,
    Option<"split", "split", "bool", /*default=*/"true",
           "End with --placer-split-devices (one function per device)">
  ];
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
    sender and the receiver are each busy for the whole transfer. Reports
    single-sample latency, total time, steady-state time per sample, idle
    time and peak memory per device (remark, and JSON with `report=`); draws
    the timeline as SVG with `timeline=`.
  }];
  let options = [
    Option<"microbatches", "microbatches", "int64_t", /*default=*/"1",
           "Samples pushed through the pipeline">,
    Option<"overlap", "overlap", "bool", /*default=*/"true",
           "Transfers overlap compute (false: serialized, as the model)">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the simulation's figures and events as JSON">,
    Option<"timeline", "timeline", "std::string", /*default=*/"\"\"",
           "Write the timeline as a self-contained SVG">
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
