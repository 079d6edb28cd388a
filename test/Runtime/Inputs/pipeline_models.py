#!/usr/bin/env python3
"""pipeline_models.py cnn|transformer|pointwise OUT.onnx | same|close A.npy B.npy |
                    within A.npy B.npy TOL | random OUT.npy SHAPE

Small models for the MPI pipeline tests, with seeded random weights:
  cnn          x[2,3,16,16] -> two Conv/Relu/MaxPool blocks -> global average
               pool -> Gemm -> Softmax (opset 13)
  transformer  x[2,16,32] -> one pre-norm block: two-head causal-free
               self-attention and an erf-GELU MLP, both residual (opset 17)
  pointwise    x[2,8,6,6] -> 1x1 Conv (bias) -> Relu -> 1x1 Conv (no bias)
               -> Softmax over channels (opset 13)
`same` prints whether two arrays are bitwise equal (and their shapes), and
where they differ most when they do not; `close` whether they agree within
1e-5 relative; `within A B TOL` whether A's largest difference from B is
within TOL of B's largest magnitude, and whether A differs from B at all
(half-precision runs against float32 ones). `random` writes seeded float32 values of SHAPE (7x3x8x8)."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(5)


def weight(name, *shape, scale=0.2):
    return numpy_helper.from_array(
        (RNG.standard_normal(shape) * scale).astype(np.float32), name)


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def save(nodes, x_shape, y_shape, inits, opset, path):
    graph = helper.make_graph(
        nodes, "pipeline",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def cnn(path):
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        n("Relu", ["c1"], ["r1"], name="relu1"),
        n("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        n("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        n("Relu", ["c2"], ["r2"], name="relu2"),
        n("MaxPool", ["r2"], ["p2"], name="pool2", kernel_shape=[2, 2], strides=[2, 2]),
        n("Conv", ["p2", "w3", "b3"], ["c3"], name="conv3", pads=[1, 1, 1, 1]),
        n("Relu", ["c3"], ["r3"], name="relu3"),
        n("GlobalAveragePool", ["r3"], ["g"], name="gap"),
        n("Flatten", ["g"], ["f"], name="flatten"),
        n("Gemm", ["f", "wf", "bf"], ["logits"], name="fc", transB=1),
        n("Softmax", ["logits"], ["y"], name="softmax", axis=1),
    ]
    inits = [weight("w1", 16, 3, 3, 3), weight("b1", 16),
             weight("w2", 32, 16, 3, 3), weight("b2", 32),
             weight("w3", 32, 32, 3, 3), weight("b3", 32),
             weight("wf", 10, 32), weight("bf", 10)]
    save(nodes, [2, 3, 16, 16], [2, 10], inits, 13, path)


def pointwise(path):
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], name="expand"),
        n("Relu", ["c1"], ["r1"], name="relu"),
        n("Conv", ["r1", "w2"], ["c2"], name="project"),
        n("Softmax", ["c2"], ["y"], name="softmax", axis=1),
    ]
    inits = [weight("w1", 16, 8, 1, 1), weight("b1", 16), weight("w2", 4, 16, 1, 1)]
    save(nodes, [2, 8, 6, 6], [2, 4, 6, 6], inits, 13, path)


def transformer(path):
    n = helper.make_node
    d, heads, t = 32, 2, 16
    nodes = [
        n("LayerNormalization", ["x", "g1", "be1"], ["h"], name="ln1", axis=-1),
        n("MatMul", ["h", "wq"], ["q"], name="q"),
        n("MatMul", ["h", "wk"], ["k"], name="k"),
        n("MatMul", ["h", "wv"], ["v"], name="v"),
    ]
    for z in "qkv":
        nodes += [n("Reshape", [z, "heads_shape"], [z + "r"], name=z + "_split"),
                  n("Transpose", [z + "r"], [z + "t"], name=z + "_heads",
                    perm=[0, 2, 3, 1] if z == "k" else [0, 2, 1, 3])]
    nodes += [
        n("MatMul", ["qt", "kt"], ["s"], name="scores"),
        n("Mul", ["s", "scale"], ["ss"], name="scale"),
        n("Softmax", ["ss"], ["a"], name="attention", axis=-1),
        n("MatMul", ["a", "vt"], ["o"], name="mix"),
        n("Transpose", ["o"], ["ot"], name="merge", perm=[0, 2, 1, 3]),
        n("Reshape", ["ot", "model_shape"], ["om"], name="merge_heads"),
        n("MatMul", ["om", "wo"], ["proj"], name="proj"),
        n("Add", ["x", "proj"], ["x1"], name="residual1"),
        n("LayerNormalization", ["x1", "g2", "be2"], ["h2"], name="ln2", axis=-1),
        n("MatMul", ["h2", "w1"], ["u"], name="fc1"),
        n("Div", ["u", "sqrt2"], ["ud"], name="gelu_div"),
        n("Erf", ["ud"], ["ue"], name="gelu_erf"),
        n("Add", ["ue", "one"], ["up"], name="gelu_add"),
        n("Mul", ["u", "up"], ["um"], name="gelu_mul"),
        n("Mul", ["um", "half"], ["g"], name="gelu_half"),
        n("MatMul", ["g", "w2"], ["m"], name="fc2"),
        n("Add", ["x1", "m"], ["y"], name="residual2"),
    ]
    inits = [weight("g1", d, scale=1.0), weight("be1", d),
             weight("g2", d, scale=1.0), weight("be2", d),
             weight("wq", d, d), weight("wk", d, d), weight("wv", d, d),
             weight("wo", d, d), weight("w1", d, 4 * d), weight("w2", 4 * d, d),
             const("heads_shape", [2, t, heads, d // heads]),
             const("model_shape", [2, t, d]),
             const("scale", 1.0 / np.sqrt(d // heads), np.float32),
             const("sqrt2", np.sqrt(2.0), np.float32),
             const("one", 1.0, np.float32), const("half", 0.5, np.float32)]
    save(nodes, [2, t, d], [2, t, d], inits, 17, path)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] in ("cnn", "transformer", "pointwise"):
        {"cnn": cnn, "transformer": transformer,
         "pointwise": pointwise}[sys.argv[1]](sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "random":
        # random OUT.npy 7x3x8x8: seeded float32 values of that shape.
        shape = [int(d) for d in sys.argv[3].split("x")]
        np.save(sys.argv[2], np.random.RandomState(len(shape) + shape[0])
                .randn(*shape).astype(np.float32))
    elif len(sys.argv) == 4 and sys.argv[1] == "close":
        # Same shape and within 1e-5 relative (code compiled for other
        # shapes may sum in another order).
        a, b = np.load(sys.argv[2]), np.load(sys.argv[3])
        close = a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6)
        print("%s %s" % ("close" if close else "DIFFERENT", list(a.shape)))
    elif len(sys.argv) == 5 and sys.argv[1] == "within":
        a, b = np.load(sys.argv[2]), np.load(sys.argv[3])
        error = np.abs(a.astype(np.float64) - b).max() / np.abs(b).max()
        print("%s %s within %s: %s, differs: %s" % (
            a.dtype, list(a.shape), sys.argv[4],
            "yes" if error <= float(sys.argv[4]) else "NO (%g)" % error,
            "yes" if error > 0 else "no"))
    elif len(sys.argv) == 4 and sys.argv[1] == "same":
        a, b = np.load(sys.argv[2]), np.load(sys.argv[3])
        same = a.shape == b.shape and a.tobytes() == b.tobytes()
        print("%s %s" % ("bitwise equal" if same else "DIFFERENT", list(a.shape)))
        if not same and a.shape == b.shape:
            print("max abs difference %g at %s of %d elements" % (
                np.abs(a - b).max(), np.unravel_index(np.abs(a - b).argmax(), a.shape),
                a.size))
    else:
        sys.exit(__doc__)
