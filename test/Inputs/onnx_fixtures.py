#!/usr/bin/env python3
"""Writes the small ONNX models the lit tests import.

    onnx_fixtures.py NAME OUT.onnx

Each fixture is built with Debian's python3-onnx helpers so that the tests
do not depend on committed binaries. Bad-input fixtures are written without
running onnx.checker (it would reject them, which is the point).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 13)]


def model(nodes, inputs, outputs, initializers=(), value_info=(),
          opsets=OPSET, name="g"):
    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs),
                              initializer=list(initializers),
                              value_info=list(value_info))
    m = helper.make_model(graph, opset_imports=list(opsets),
                          producer_name="placer-fixtures")
    m.ir_version = 8
    return m


def tensor(name, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def f32(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)


def conv():
    """Conv -> Relu with inline weights: the basic feature fixture."""
    w = f32("w", np.arange(2 * 1 * 3 * 3).reshape(2, 1, 3, 3) / 10.0)
    b = f32("b", [0.5, -0.5])
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[1, 1], group=1),
        helper.make_node("Relu", ["c"], ["y"], name="relu1"),
    ]
    return model(nodes, [tensor("x", [1, 1, 4, 4])], [tensor("y", None)],
                 [w, b])


def unsorted():
    """Valid ONNX whose nodes are listed consumers first."""
    nodes = [
        helper.make_node("Add", ["b", "a"], ["y"], name="last"),
        helper.make_node("Neg", ["a"], ["b"], name="middle"),
        helper.make_node("Abs", ["x"], ["a"], name="first"),
    ]
    return model(nodes, [tensor("x", [2])], [tensor("y", [2])])


def cycle():
    nodes = [
        helper.make_node("Add", ["x", "q"], ["p"], name="add_p"),
        helper.make_node("Neg", ["p"], ["q"], name="neg_q"),
    ]
    return model(nodes, [tensor("x", [2])], [tensor("p", [2])])


def undefined_input():
    nodes = [helper.make_node("Add", ["x", "ghost"], ["y"], name="adder")]
    return model(nodes, [tensor("x", [2])], [tensor("y", [2])])


def duplicate_output():
    nodes = [
        helper.make_node("Abs", ["x"], ["y"], name="first_writer"),
        helper.make_node("Neg", ["x"], ["y"], name="second_writer"),
    ]
    return model(nodes, [tensor("x", [2])], [tensor("y", [2])])


def negative_dim():
    nodes = [helper.make_node("Abs", ["x"], ["y"], name="abs")]
    return model(nodes, [tensor("x", [2, -3])], [tensor("y", None)])


def overflow_dim():
    big = TensorProto(name="huge", data_type=TensorProto.FLOAT,
                      dims=[1 << 40, 1 << 40])
    nodes = [helper.make_node("Add", ["x", "huge"], ["y"], name="add")]
    return model(nodes, [tensor("x", [2])], [tensor("y", None)], [big])


def wrong_attr_type():
    w = f32("w", np.ones((1, 1, 1, 1)))
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="bad_conv")
    node.attribute.append(helper.make_attribute("strides", [1.0, 1.0]))
    return model([node], [tensor("x", [1, 1, 2, 2])], [tensor("y", None)], [w])


def _external(write_data):
    w = f32("w", np.arange(16).reshape(4, 4))
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "external.data"), ("offset", "0"),
                       ("length", "64")):
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")]
    m = model(nodes, [tensor("x", ["batch", 4])], [tensor("y", ["batch", 4])],
              [w])
    return m, write_data


def external():
    return _external(True)


def external_missing():
    return _external(False)


def symbolic():
    """BERT-style [batch, seq] inputs and a data-dependent Reshape."""
    nodes = [
        helper.make_node("Shape", ["ids"], ["shape"], name="shape"),
        helper.make_node("Cast", ["ids"], ["idsf"], name="cast",
                         to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["idsf", "axes"], ["u"], name="unsq"),
        helper.make_node("Reshape", ["u", "shape"], ["y"], name="reshape"),
    ]
    axes = numpy_helper.from_array(np.array([2], dtype=np.int64), "axes")
    return model(nodes, [tensor("ids", ["batch", "seq"], TensorProto.INT64)],
                 [tensor("y", None)], [axes])


def dynamic_batch():
    """A small CNN exported with a symbolic batch: Conv, Relu, global
    pooling, Flatten, Gemm. Like torch.onnx, the file names another value's
    batch with a name of its own ("relu_dim_0")."""
    rng = np.random.RandomState(0)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("GlobalAveragePool", ["r"], ["p"], name="pool"),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], name="fc",
                         transB=1),
    ]
    weights = [f32("w", rng.randn(4, 3, 3, 3) * 0.3), f32("b", rng.randn(4)),
               f32("fw", rng.randn(3, 4)), f32("fb", rng.randn(3))]
    return model(nodes, [tensor("x", ["batch", 3, 8, 8])],
                 [tensor("y", ["batch", 3])], weights,
                 value_info=[tensor("r", ["relu_dim_0", 4, 8, 8])])


def subgraph_if():
    then_graph = helper.make_graph(
        [helper.make_node("Add", ["x", "x"], ["t"], name="then_add")],
        "then_branch", [], [tensor("t", [2])])
    else_graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e"], name="else_neg")],
        "else_branch", [], [tensor("e", [2])])
    nodes = [
        helper.make_node("If", ["cond"], ["y"], name="branch",
                         then_branch=then_graph, else_branch=else_graph),
    ]
    return model(nodes, [tensor("cond", [], TensorProto.BOOL),
                         tensor("x", [2])], [tensor("y", None)])


def loop():
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep"),
         helper.make_node("Add", ["acc_in", "x"], ["acc_out"], name="acc")],
        "body",
        [tensor("iter", [], TensorProto.INT64),
         tensor("cond_in", [], TensorProto.BOOL), tensor("acc_in", [2])],
        [tensor("cond_out", [], TensorProto.BOOL), tensor("acc_out", [2])])
    trip = numpy_helper.from_array(np.array(3, dtype=np.int64), "trip")
    cond = numpy_helper.from_array(np.array(True), "cond")
    nodes = [helper.make_node("Loop", ["trip", "cond", "x"], ["sum"],
                              name="loop", body=body)]
    return model(nodes, [tensor("x", [2])], [tensor("sum", None)],
                 [trip, cond])


def custom_op():
    nodes = [
        helper.make_node("FusedThing", ["x"], ["a"], name="fused",
                         domain="com.example", alpha=0.5),
        helper.make_node("NotAnOnnxOp", ["a"], ["y"], name="mystery"),
    ]
    return model(nodes, [tensor("x", [2])], [tensor("y", [2])],
                 opsets=OPSET + [helper.make_opsetid("com.example", 1)])


def unimported_domain():
    nodes = [helper.make_node("Thing", ["x"], ["y"], name="stray",
                              domain="org.nowhere")]
    return model(nodes, [tensor("x", [2])], [tensor("y", [2])])


def optional_io():
    """An omitted optional input (Clip min) and an omitted output (mask)."""
    hi = f32("hi", 6.0)
    nodes = [
        helper.make_node("Clip", ["x", "", "hi"], ["c"], name="clip"),
        helper.make_node("Dropout", ["c"], ["y", ""], name="drop"),
    ]
    return model(nodes, [tensor("x", [3])], [tensor("y", None)], [hi])


def multi_output():
    split = numpy_helper.from_array(np.array([1, 2, 3], dtype=np.int64),
                                    "split")
    nodes = [helper.make_node("Split", ["x", "split"], ["a", "b", "c"],
                              name="splitter", axis=0)]
    return model(nodes, [tensor("x", [6])],
                 [tensor("a", None), tensor("b", None), tensor("c", None)],
                 [split])


def all_attrs():
    """One custom node carrying every ONNX attribute kind."""
    sub = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["s"], name="inner")], "sub", [],
        [tensor("s", [2])])
    node = helper.make_node(
        "Everything", ["x"], ["y"], name="every", domain="com.example",
        i=7, f=1.5, s="text", ints=[1, -2, 3], floats=[0.25, 0.5],
        strings=["a", "b"],
        t=numpy_helper.from_array(np.array([1, 2], dtype=np.int32)),
        tensors=[numpy_helper.from_array(np.array([1.0], dtype=np.float32)),
                 numpy_helper.from_array(np.array([2.0], dtype=np.float32))],
        g=sub, tp=helper.make_tensor_type_proto(TensorProto.INT8, [2, 3]))
    node.attribute.append(onnx.AttributeProto(
        name="empty_ints", type=onnx.AttributeProto.INTS))
    return model([node], [tensor("x", [2])], [tensor("y", [2])],
                 opsets=OPSET + [helper.make_opsetid("com.example", 2)])


def constants():
    nodes = [
        helper.make_node("Constant", [], ["k_tensor"], name="k1",
                         value=f32("unused", [[1.0, 2.0]])),
        helper.make_node("Constant", [], ["k_ints"], name="k2",
                         value_ints=[4, 5, 6]),
        helper.make_node("Constant", [], ["k_float"], name="k3",
                         value_float=2.5),
        helper.make_node("Constant", [], ["k_string"], name="k4",
                         value_string="hello"),
        helper.make_node("Mul", ["x", "k_float"], ["y"], name="scale"),
    ]
    return model(nodes, [tensor("x", [2])],
                 [tensor("y", None), tensor("k_tensor", None),
                  tensor("k_ints", None, TensorProto.INT64),
                  tensor("k_string", None, TensorProto.STRING)])


def dtypes():
    """Initializers of every element type, in raw and in typed fields."""
    arrays = {
        "f16": np.array([1.5, -2], dtype=np.float16),
        "f64": np.array([0.1], dtype=np.float64),
        "i8": np.array([-1, 2], dtype=np.int8),
        "u8": np.array([255, 0], dtype=np.uint8),
        "i16": np.array([-300], dtype=np.int16),
        "u16": np.array([65535], dtype=np.uint16),
        "i32": np.array([-7], dtype=np.int32),
        "u32": np.array([4000000000], dtype=np.uint32),
        "u64": np.array([2**63], dtype=np.uint64),
        "bool": np.array([True, False, True]),
        "c64": np.array([1 + 2j], dtype=np.complex64),
    }
    inits = [numpy_helper.from_array(a, n) for n, a in arrays.items()]
    # The same values through the typed fields instead of raw_data.
    inits.append(helper.make_tensor("typed_i64", TensorProto.INT64, [2],
                                    [3, -4]))
    inits.append(helper.make_tensor("typed_f32", TensorProto.FLOAT, [2],
                                    [0.5, 0.25]))
    inits.append(helper.make_tensor("typed_bool", TensorProto.BOOL, [2],
                                    [True, False]))
    inits.append(helper.make_tensor("strs", TensorProto.STRING, [2],
                                    [b"ab", b"c"]))
    outputs = [helper.make_tensor_value_info(t.name, t.data_type, None)
               for t in inits]
    return model([], [], outputs, inits)


def large_initializer():
    """A 4 KiB initializer: stored as a dense_resource blob."""
    w = f32("big_w", np.arange(1024).reshape(32, 32))
    nodes = [helper.make_node("MatMul", ["x", "big_w"], ["y"], name="mm")]
    return model(nodes, [tensor("x", [1, 32])], [tensor("y", [1, 32])], [w])


def future_opset():
    """Relu under opset 21, newer than ONNX 1.12 knows (17)."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [tensor("x", [2])], [tensor("y", [2])],
                 opsets=[helper.make_opsetid("", 21)])


def transformer_block(batch=1):
    """One pre-norm transformer block (d 64, 4 heads of 16, MLP 256, seq 8)
    with a fused q/k/v projection, as GPT-2 exports it: Megatron-LM's
    tensor-parallel pattern. `batch` None: a symbolic batch."""
    d, heads, seq, hidden = 64, 4, 8, 256
    rng = np.random.default_rng(7)

    def w(name, *shape):
        return f32(name, rng.standard_normal(shape) * 0.1)

    def i64(name, values):
        return numpy_helper.from_array(np.asarray(values, dtype=np.int64), name)

    n = helper.make_node
    nodes = [
        n("LayerNormalization", ["x", "ln1.g", "ln1.b"], ["ln1"], name="ln1"),
        n("MatMul", ["ln1", "qkv.w"], ["qkv"], name="qkv"),
        n("Add", ["qkv", "qkv.b"], ["qkv_bias"], name="qkv_bias"),
        n("Split", ["qkv_bias"], ["q", "k", "v"], name="split", axis=-1),
    ]
    for t, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        nodes += [n("Reshape", [t, "heads_shape"], [t + "_heads"], name=t + "_heads"),
                  n("Transpose", [t + "_heads"], [t + "_t"], name=t + "_t", perm=perm)]
    nodes += [
        n("MatMul", ["q_t", "k_t"], ["scores"], name="scores"),
        n("Mul", ["scores", "scale"], ["scaled"], name="scaled"),
        n("Softmax", ["scaled"], ["probs"], name="probs", axis=-1),
        n("MatMul", ["probs", "v_t"], ["ctx"], name="ctx"),
        n("Transpose", ["ctx"], ["ctx_t"], name="ctx_t", perm=[0, 2, 1, 3]),
        n("Reshape", ["ctx_t", "model_shape"], ["ctx_merged"], name="ctx_merged"),
        n("MatMul", ["ctx_merged", "proj.w"], ["proj"], name="proj"),
        n("Add", ["x", "proj"], ["residual1"], name="residual1"),
        n("LayerNormalization", ["residual1", "ln2.g", "ln2.b"], ["ln2"], name="ln2"),
        n("MatMul", ["ln2", "fc.w"], ["fc"], name="fc"),
        n("Relu", ["fc"], ["act"], name="act"),
        n("MatMul", ["act", "out.w"], ["mlp"], name="mlp"),
        n("Add", ["residual1", "mlp"], ["y"], name="residual2"),
    ]
    inits = [f32("ln1.g", np.ones(d)), f32("ln1.b", np.zeros(d)),
             w("qkv.w", d, 3 * d), w("qkv.b", 3 * d),
             i64("heads_shape", [0, seq, heads, d // heads]),
             i64("model_shape", [0, seq, d]), f32("scale", 0.25),
             w("proj.w", d, d), f32("ln2.g", np.ones(d)), f32("ln2.b", np.zeros(d)),
             w("fc.w", d, hidden), w("out.w", hidden, d)]
    dims = [batch if batch else "batch", seq, d]
    return model(nodes, [tensor("x", dims)], [tensor("y", dims)], inits,
                 opsets=[helper.make_opsetid("", 17)])


def embedding_mlp():
    """An embedding lookup (Gather of a 64 x 16 table) and a two-layer MLP
    of Gemms, the first with transB and a bias, the second without: the
    registry's attribute-dependent sharding rules."""
    rng = np.random.default_rng(3)
    n = helper.make_node
    nodes = [
        n("Gather", ["table", "ids"], ["emb"], name="embed", axis=0),
        n("Gemm", ["emb", "w1", "b1"], ["h"], name="up", transB=1),
        n("Relu", ["h"], ["a"], name="act"),
        n("Gemm", ["a", "w2"], ["y"], name="down"),
    ]
    inits = [f32("table", rng.standard_normal((64, 16))),
             f32("w1", rng.standard_normal((32, 16))),
             f32("b1", rng.standard_normal(32)),
             f32("w2", rng.standard_normal((32, 16)))]
    return model(nodes, [tensor("ids", [8], TensorProto.INT64)],
                 [tensor("y", [8, 16])], inits)


def transformer_block_symbolic():
    return transformer_block(batch=None)


FIXTURES = {f.__name__.replace("_", "-"): f for f in [
    transformer_block, transformer_block_symbolic, embedding_mlp,
    conv, unsorted, cycle, undefined_input, duplicate_output, negative_dim,
    overflow_dim, wrong_attr_type, external, external_missing, symbolic,
    dynamic_batch, subgraph_if, loop, custom_op, unimported_domain, optional_io,
    multi_output, all_attrs, constants, dtypes, large_initializer,
    future_opset]}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in FIXTURES:
        sys.exit("usage: onnx_fixtures.py {%s} OUT.onnx" % "|".join(FIXTURES))
    name, out = sys.argv[1], sys.argv[2]
    result = FIXTURES[name]()
    write_data = None
    if isinstance(result, tuple):
        result, write_data = result
    with open(out, "wb") as f:
        f.write(result.SerializeToString())
    if write_data is not None:
        data_path = os.path.join(os.path.dirname(os.path.abspath(out)),
                                 "external.data")
        if write_data:
            with open(data_path, "wb") as f:
                f.write(np.arange(16, dtype=np.float32).tobytes())
        elif os.path.exists(data_path):
            os.remove(data_path)


if __name__ == "__main__":
    main()
