//===- GraphOps.td - The imported-graph dialect ------------*- tablegen -*-===//
//
// `graph` holds a model exactly as its ONNX file describes it: one generic op
// per ONNX node, constants that refer to their bytes instead of copying them,
// and regions for subgraphs. It is deliberately not named `onnx`, so that it
// can live in one context with onnx-mlir's dialect.
//
//===----------------------------------------------------------------------===//

#ifndef PLACER_DIALECT_GRAPH_GRAPHOPS_TD
#define PLACER_DIALECT_GRAPH_GRAPHOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

def Graph_Dialect : Dialect {
  let name = "graph";
  let cppNamespace = "::placer::graph";
  let summary = "A faithful, lossless representation of ONNX graphs";
  let description = [{
    Every ONNX node becomes one `graph.node` op that keeps its op type,
    domain, opset version, node name (also used as the op's location, so
    diagnostics name ONNX nodes), output tensor names and all attributes with
    their ONNX types. Initializers and `Constant` nodes become
    `graph.constant`. Graph inputs are function arguments and graph outputs
    the function's results; subgraphs (`If`, `Loop`, `Scan`) are regions
    terminated by `graph.yield`.

    ONNX attribute kinds map to builtin attributes one to one, so that an
    export can restore the exact kind:

    | ONNX     | MLIR attribute                                   |
    |----------|--------------------------------------------------|
    | INT      | `i64` IntegerAttr                                |
    | FLOAT    | `f32` FloatAttr                                  |
    | STRING   | StringAttr                                       |
    | INTS     | `array<i64: ...>` (DenseI64ArrayAttr)            |
    | FLOATS   | `array<f32: ...>` (DenseF32ArrayAttr)            |
    | STRINGS  | ArrayAttr of StringAttr                          |
    | TENSOR   | ElementsAttr                                     |
    | TENSORS  | ArrayAttr of ElementsAttr                        |
    | TYPE_PROTO | TypeAttr                                       |
    | TYPE_PROTOS | ArrayAttr of TypeAttr                         |
    | GRAPH    | a region of the op, named in `subgraphs`         |
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class Graph_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Graph_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Graph_StringType : Graph_Type<"String", "string"> {
  let summary = "ONNX STRING element type";
}

def Graph_UnknownType : Graph_Type<"Unknown", "unknown"> {
  let summary = "a value whose type neither the model nor shape inference gives";
}

def Graph_SequenceType : Graph_Type<"Sequence", "seq"> {
  let summary = "ONNX sequence of tensors";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Graph_OptionalType : Graph_Type<"Optional", "opt"> {
  let summary = "ONNX optional value";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Graph_MapType : Graph_Type<"Map", "map"> {
  let summary = "ONNX-ML map";
  let parameters = (ins "::mlir::Type":$keyType, "::mlir::Type":$valueType);
  let assemblyFormat = "`<` $keyType `,` $valueType `>`";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Graph_ExternalDataAttr : AttrDef<Graph_Dialect, "ExternalData"> {
  let mnemonic = "external";
  let summary = "tensor bytes stored in a file beside the model";
  let description = [{
    The ONNX external-data reference of an initializer: `location` is
    relative to the directory of the model file (recorded on the module as
    `graph.model_dir`), and the bytes are `[offset, offset + length)`. The
    importer never reads them; it only checks, outside shapes-only mode, that
    the file exists and is long enough.
  }];
  let parameters = (ins StringRefParameter<>:$location, "int64_t":$offset,
                        "int64_t":$length);
  let assemblyFormat =
      "`<` $location `,` `offset` `=` $offset `,` `length` `=` $length `>`";
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits>;

def Graph_NodeOp : Graph_Op<"node", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "one ONNX node";
  let description = [{
    A node of any ONNX op type, in any domain. `inputs` are the node's inputs
    in order; an empty (omitted optional) input is a value from `graph.none`.
    Each result is one ONNX output, named in `output_names`; an output the
    node does not produce has the empty name and type `none`. `attrs` holds
    the ONNX attributes (see the dialect description for the kind mapping)
    except graph attributes, which are the op's regions, named in
    `subgraphs`. `output_dims`, present when an output has a symbolic dim,
    names each output's dims: the symbol of a dynamic dim (a dim parameter
    of the graph's inputs, such as `batch`), "" for a fixed or unnamed one.

    ```mlir
    %y = graph.node "Conv"(%x, %w, %b) {attrs = {pads = array<i64: 1, 1, 1, 1>},
           name = "conv1", output_names = ["y"], version = 13 : i64}
         : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
         -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins
    Variadic<AnyType>:$inputs,
    StrAttr:$op_type,
    DefaultValuedStrAttr<StrAttr, "">:$domain,
    ConfinedAttr<I64Attr, [IntMinValue<1>]>:$version,
    DefaultValuedStrAttr<StrAttr, "">:$name,
    StrArrayAttr:$output_names,
    DefaultValuedAttr<DictionaryAttr, "{}">:$attrs,
    OptionalAttr<StrArrayAttr>:$subgraphs,
    OptionalAttr<TypedArrayAttrBase<StrArrayAttr, "per-output dim names">>:$output_dims
  );
  let results = (outs Variadic<AnyType>:$outputs);
  let regions = (region VariadicRegion<SizedRegion<1>>:$bodies);
  let assemblyFormat = [{
    $op_type `(` $inputs `)` attr-dict-with-keyword ($bodies^)?
    `:` functional-type($inputs, $outputs)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The ONNX name of this node for diagnostics: its node name, or its
    /// first output's name when the node has none.
    ::llvm::StringRef getDisplayName();
  }];
}

def Graph_ConstantOp : Graph_Op<"constant", [Pure,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "an initializer or the output of an ONNX Constant node";
  let description = [{
    `name` is the ONNX tensor name. `value` is an ElementsAttr (small tensors
    inline as `dense<...>`, large ones as `dense_resource<...>` blobs that own
    the bytes the protobuf parser read, without a copy) or a
    `#graph.external` reference to a weight file. `node` is present when the
    constant came from a `Constant` node, and holds that node's name.
  }];
  let arguments = (ins StrAttr:$name, AnyAttr:$value, OptionalAttr<StrAttr>:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$name `:` type($result) `=` $value attr-dict";
  let hasVerifier = 1;
}

def Graph_NoneOp : Graph_Op<"none", [Pure]> {
  let summary = "the empty value given for an omitted optional input";
  let results = (outs NoneType:$result);
  let assemblyFormat = "attr-dict";
}

def Graph_YieldOp : Graph_Op<"yield", [Terminator, HasParent<"NodeOp">]> {
  let summary = "ends a subgraph region and returns its outputs";
  let description = [{
    The region's block arguments are the subgraph's inputs, named in
    `input_names`; the operands are its outputs, named in `output_names`.
    `graph_name` is the ONNX subgraph's name.
  }];
  let arguments = (ins Variadic<AnyType>:$values,
                       DefaultValuedStrAttr<StrAttr, "">:$graph_name,
                       StrArrayAttr:$input_names,
                       StrArrayAttr:$output_names);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let hasVerifier = 1;
}

#endif // PLACER_DIALECT_GRAPH_GRAPHOPS_TD
