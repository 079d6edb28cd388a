"""Writes a decoder's decode step as exporters write it: every layer takes
its past keys and values (past_key_values.N.key / .value, symbolic batch
and past length) and returns them extended by the new token's
(present.N.key / .value), as Optimum's exports name them.

    decode_step.py OUT.onnx [LAYERS] [WIDTH]

float16 throughout; LAYERS 2 and WIDTH 64 by default. Each layer: q, k, v
projections of x[batch, 1, WIDTH], k and v appended to the past along axis
1, attention over the extended keys, an output projection and a residual.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
layers = int(sys.argv[2]) if len(sys.argv) > 2 else 2
width = int(sys.argv[3]) if len(sys.argv) > 3 else 64
rng = np.random.default_rng(0)
F16 = TensorProto.FLOAT16
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
