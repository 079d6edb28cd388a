//===- CostOpInterface.td - Per-op work for the cost model -*- tablegen -*-===//
#ifndef PLACER_INTERFACES_COSTOPINTERFACE_TD
#define PLACER_INTERFACES_COSTOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::placer";
  let description = [{
    The work an op does, independent of the device it runs on: FLOPs (a
    multiply-add counts as 2), bytes read and written, parameter bytes and
    output bytes. `--placer-estimate-costs` turns it into a time per device
    kind with a roofline. Ops of any dialect can implement it, directly or as
    an external model attached to a dialect registry; ops without it get a
    bytes-only estimate and are listed in a warning.
  }];
  let methods = [
    InterfaceMethod<[{
        Returns the op's work, or failure after emitting an error (for
        example when a shape it needs is dynamic).
      }],
      "::mlir::FailureOr<::placer::OpWork>", "estimateWork">
  ];
}

#endif // PLACER_INTERFACES_COSTOPINTERFACE_TD
