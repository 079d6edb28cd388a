#!/usr/bin/env python3
"""Writes examples/mlp4.onnx, the bundled example: four residual MLP blocks.

    /usr/bin/python3 examples/make_example.py examples/mlp4.onnx

Input x[batch, 32]; each block is y = x + W2 * relu(W1 * x + b1) + b2 with a
hidden width of 128. Weights are fixed pseudo-random numbers so the file is
reproducible byte for byte.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D, H, BLOCKS = 32, 128, 4


def main():
    rng = np.random.default_rng(2020)
    nodes, inits = [], []
    x = "x"
    for i in range(BLOCKS):
        p = "block%d" % i
        for name, shape in (("w1", (D, H)), ("b1", (H,)), ("w2", (H, D)),
                            ("b2", (D,))):
            inits.append(numpy_helper.from_array(
                rng.standard_normal(shape).astype(np.float32) * 0.1,
                "%s.%s" % (p, name)))
        nodes += [
            helper.make_node("MatMul", [x, p + ".w1"], [p + "/h"], name=p + "/fc1"),
            helper.make_node("Add", [p + "/h", p + ".b1"], [p + "/hb"], name=p + "/bias1"),
            helper.make_node("Relu", [p + "/hb"], [p + "/a"], name=p + "/relu"),
            helper.make_node("MatMul", [p + "/a", p + ".w2"], [p + "/o"], name=p + "/fc2"),
            helper.make_node("Add", [p + "/o", p + ".b2"], [p + "/ob"], name=p + "/bias2"),
            helper.make_node("Add", [x, p + "/ob"], [p + "/out"], name=p + "/residual"),
        ]
        x = p + "/out"
    nodes.append(helper.make_node("Identity", [x], ["y"], name="output"))
    graph = helper.make_graph(
        nodes, "mlp4",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", D])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", D])],
        inits)
    model = helper.make_model(graph, producer_name="placer-example",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, sys.argv[1])


if __name__ == "__main__":
    main()
