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

#endif // PLACER_TRANSFORMS_PASSES_TD
