"""Writes a decoder's decode step as exporters write it: every layer takes
its past keys and values (past_key_values.N.key / .value, symbolic batch
and past length) and returns them extended by the new token's
(present.N.key / .value), as Optimum's exports name them.

    decode_step.py OUT.onnx [LAYERS] [WIDTH]
    decode_step.py inputs DIR BATCH PAST     # DIR/x.npy, DIR/past_key_values.N.{key,value}.npy
    decode_step.py check MODEL DIR OUT       # OUT/*.npy against float32 arithmetic

float16 throughout; LAYERS 2 and WIDTH 64 by default. Each layer: q, k, v
projections of x[batch, 1, WIDTH], k and v appended to the past along axis
1, attention over the extended keys, an output projection and a residual.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F16 = TensorProto.FLOAT16


def write_inputs(folder, batch, past, layers=2, width=64):
    rng = np.random.default_rng(1)
    np.save(os.path.join(folder, "x.npy"),
            rng.standard_normal((batch, 1, width)).astype(np.float16))
    for i in range(layers):
        for kv in ("key", "value"):
            np.save(os.path.join(folder, "past_key_values.%d.%s.npy" % (i, kv)),
                    rng.standard_normal((batch, past, width)).astype(np.float16))


def check(model_path, folder, out):
    """Each output's largest error relative to its largest magnitude, the
    step computed in float32 from the same float16 weights and inputs."""
    model = onnx.load(model_path)
    w = {t.name: numpy_helper.to_array(t).astype(np.float32)
         for t in model.graph.initializer}
    x = np.load(os.path.join(folder, "x.npy")).astype(np.float32)
    want = {}
    i = 0
    while "l%d.wq" % i in w:
        p = "l%d." % i
        past = {kv: np.load(os.path.join(folder, "past_key_values.%d.%s.npy" % (i, kv)))
                .astype(np.float32) for kv in ("key", "value")}
        k = np.concatenate([past["key"], x @ w[p + "wk"]], axis=1)
        v = np.concatenate([past["value"], x @ w[p + "wv"]], axis=1)
        scores = (x @ w[p + "wq"]) @ k.transpose(0, 2, 1)
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        x = x + (probs @ v) @ w[p + "wo"]
        want["present.%d.key" % i], want["present.%d.value" % i] = k, v
        i += 1
    want["l%d.out" % (i - 1)] = x
    for name in sorted(want):
        got = np.load(os.path.join(out, name + ".npy")).astype(np.float32)
        error = np.abs(got - want[name]).max() / np.abs(want[name]).max()
        print("%s: shape %s, relative error %s" % (
            name, list(got.shape), "below 2e-2" if error < 2e-2 else "%.3g" % error))


if sys.argv[1] == "inputs":
    write_inputs(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    sys.exit(0)
if sys.argv[1] == "check":
    check(sys.argv[2], sys.argv[3], sys.argv[4])
    sys.exit(0)
out = sys.argv[1]
layers = int(sys.argv[2]) if len(sys.argv) > 2 else 2
width = int(sys.argv[3]) if len(sys.argv) > 3 else 64
rng = np.random.default_rng(0)
nodes, inits = [], []
inputs = [helper.make_tensor_value_info("x", F16, ["batch", 1, width])]
outputs = []
x = "x"
for i in range(layers):
    for w in ("q", "k", "v", "o"):
        inits.append(numpy_helper.from_array(
            (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float16),
            "l%d.w%s" % (i, w)))
    for kv in ("key", "value"):
        inputs.append(helper.make_tensor_value_info(
            "past_key_values.%d.%s" % (i, kv), F16, ["batch", "past", width]))
        outputs.append(helper.make_tensor_value_info(
            "present.%d.%s" % (i, kv), F16, ["batch", "past_plus_1", width]))
    p = "l%d." % i
    nodes += [
        helper.make_node("MatMul", [x, p + "wq"], [p + "q"], name=p + "q"),
        helper.make_node("MatMul", [x, p + "wk"], [p + "k"], name=p + "k"),
        helper.make_node("MatMul", [x, p + "wv"], [p + "v"], name=p + "v"),
        helper.make_node("Concat", ["past_key_values.%d.key" % i, p + "k"],
                         ["present.%d.key" % i], axis=1, name=p + "append_key"),
        helper.make_node("Concat", ["past_key_values.%d.value" % i, p + "v"],
                         ["present.%d.value" % i], axis=1, name=p + "append_value"),
        helper.make_node("Transpose", ["present.%d.key" % i], [p + "kt"],
                         perm=[0, 2, 1], name=p + "kt"),
        helper.make_node("MatMul", [p + "q", p + "kt"], [p + "scores"], name=p + "scores"),
        helper.make_node("Softmax", [p + "scores"], [p + "probs"], axis=-1, name=p + "softmax"),
        helper.make_node("MatMul", [p + "probs", "present.%d.value" % i], [p + "a"],
                         name=p + "attend"),
        helper.make_node("MatMul", [p + "a", p + "wo"], [p + "o"], name=p + "o"),
        helper.make_node("Add", [x, p + "o"], [p + "out"], name=p + "residual"),
    ]
    x = p + "out"
outputs.insert(0, helper.make_tensor_value_info(x, F16, ["batch", 1, width]))
graph = helper.make_graph(nodes, "decode", inputs, outputs, inits)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), out)
