"""A small block in half precision and its float32 reference.

    half_model.py make DIR TYPE      # DIR/TYPE.onnx, DIR/TYPE_x.npy (TYPE: f16 | bf16)
    half_model.py check DIR TYPE OUT # OUT/y.npy, OUT/z.npy against float32 arithmetic

The block: MatMul with a residual, Softmax and LayerNormalization of it,
Tanh, a product and a ReduceSum, every tensor of TYPE (weights and input
rounded to it once). bfloat16 arrays are their uint16 bits (placer-run's
convention, as ONNX's numpy_helper holds them). `check` prints the largest
error of each output relative to the output's largest magnitude, computed
in float32 from the same rounded weights and input.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

WIDTH = 16


def to_bfloat16_bits(a):
    """float32 to bfloat16 bits, rounded to nearest even."""
    u = a.astype(np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def to_float(a):
    """A half-precision array (float16, or bfloat16 bits) as float32."""
    if a.dtype == np.uint16:
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a.astype(np.float32)


def stored(a, kind):
    return a.astype(np.float16) if kind == "f16" else to_bfloat16_bits(a)


def tensor(name, a, kind):
    if kind == "f16":
        return numpy_helper.from_array(a.astype(np.float16), name)
    return helper.make_tensor(name, TensorProto.BFLOAT16, a.shape,
                              to_bfloat16_bits(a).tobytes(), raw=True)


def make(folder, kind):
    elem = TensorProto.FLOAT16 if kind == "f16" else TensorProto.BFLOAT16
    rng = np.random.default_rng(0)
    w = rng.standard_normal((WIDTH, WIDTH)).astype(np.float32) * 0.25
    x = rng.standard_normal((4, WIDTH)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]),
             helper.make_node("Add", ["h", "x"], ["r"]),
             helper.make_node("Softmax", ["r"], ["s"], axis=-1),
             helper.make_node("LayerNormalization", ["r", "g", "b"], ["ln"],
                              axis=-1, epsilon=1e-5),
             helper.make_node("Tanh", ["ln"], ["t"]),
             helper.make_node("Mul", ["t", "s"], ["y"]),
             helper.make_node("ReduceSum", ["y", "axes"], ["z"], keepdims=1)]
    graph = helper.make_graph(
        nodes, "half", [helper.make_tensor_value_info("x", elem, [4, WIDTH])],
        [helper.make_tensor_value_info("y", elem, [4, WIDTH]),
         helper.make_tensor_value_info("z", elem, [4, 1])],
        [tensor("w", w, kind), tensor("g", np.ones(WIDTH, np.float32), kind),
         tensor("b", np.zeros(WIDTH, np.float32), kind),
         numpy_helper.from_array(np.array([1], np.int64), "axes")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(folder, kind + ".onnx"))
    np.save(os.path.join(folder, kind + "_x.npy"), stored(x, kind))


def reference(folder, kind):
    model = onnx.load(os.path.join(folder, kind + ".onnx"))
    w = to_float(numpy_helper.to_array(
        next(i for i in model.graph.initializer if i.name == "w")))
    x = to_float(np.load(os.path.join(folder, kind + "_x.npy")))
    r = x @ w + x
    s = np.exp(r - r.max(-1, keepdims=True))
    s /= s.sum(-1, keepdims=True)
    ln = (r - r.mean(-1, keepdims=True)) / np.sqrt(r.var(-1, keepdims=True) + 1e-5)
    y = np.tanh(ln) * s
    return {"y": y, "z": y.sum(1, keepdims=True)}


if __name__ == "__main__":
    mode, folder, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "make":
        make(folder, kind)
    else:
        out = sys.argv[4]
        for name, ref in reference(folder, kind).items():
            got = np.load(os.path.join(out, name + ".npy"))
            error = np.abs(to_float(got) - ref).max() / np.abs(ref).max()
            print("%s %s: dtype %s, shape %s, relative error %s" % (
                kind, name, got.dtype, list(got.shape),
                "below 1e-2" if error < 1e-2 else "%.3g" % error))
