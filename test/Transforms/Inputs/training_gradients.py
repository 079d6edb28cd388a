#!/usr/bin/env python3
"""Checks --placer-build-training against finite differences in float64
and its optimizers against their definitions.

    training_gradients.py BIN_DIR WORK_DIR

For each vector-Jacobian rule: a small float64 ONNX graph that uses the op
on trained weights, built with onnx.helper; the training step with
loss=mse, optimizer=sgd, learning-rate=1 is run by placer-run, so each
weight's gradient is W - W'. A NumPy float64 forward pass of the same graph
gives the loss; central differences of it (step 1e-6) must match every
gradient element within 1e-6 relative to the largest. Then one step of
momentum and of Adam, and cross-entropy, against NumPy's own arithmetic
on the gradients. Prints one line per case; exits 1 on a mismatch.
"""
import math
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BIN, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
rng = np.random.default_rng(7)
failed = []


def run(*cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode:
        sys.exit("%s failed:\n%s%s" % (" ".join(cmd), result.stdout, result.stderr))


# --- NumPy forward semantics of the ops under test --------------------------

def softmax(v, axis):
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def conv2d(x, w, attrs):
    """ONNX Conv: strides, pads [top, left, bottom, right], dilations,
    groups."""
    groups = attrs.get("group", 1)
    if groups > 1:
        xs = np.split(x, groups, axis=1)
        ws = np.split(w, groups, axis=0)
        one = dict(attrs, group=1)
        return np.concatenate([conv2d(a, b, one) for a, b in zip(xs, ws)], axis=1)
    s = attrs.get("strides", [1, 1])
    d = attrs.get("dilations", [1, 1])
    p = attrs.get("pads", [0, 0, 0, 0])
    x = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    oh = (h - d[0] * (kh - 1) - 1) // s[0] + 1
    ow = (wd - d[1] * (kw - 1) - 1) // s[1] + 1
    out = np.zeros((n, f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i * d[0]:i * d[0] + s[0] * (oh - 1) + 1:s[0],
                      j * d[1]:j * d[1] + s[1] * (ow - 1) + 1:s[1]]
            out += np.einsum("nchw,fc->nfhw", patch, w[:, :, i, j])
    return out


def max_pool(v, kernel, strides, pads):
    """ONNX MaxPool over 2-D windows; padding never wins."""
    v = np.pad(v, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])),
               constant_values=-np.inf)
    oh = (v.shape[2] - kernel[0]) // strides[0] + 1
    ow = (v.shape[3] - kernel[1]) // strides[1] + 1
    out = np.full(v.shape[:2] + (oh, ow), -np.inf)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            out = np.maximum(out, v[:, :, i:i + strides[0] * (oh - 1) + 1:strides[0],
                                    j:j + strides[1] * (ow - 1) + 1:strides[1]])
    return out


def layer_norm(v, scale, bias, axis, epsilon):
    axes = tuple(range(axis % v.ndim, v.ndim))
    centred = v - v.mean(axis=axes, keepdims=True)
    variance = (centred ** 2).mean(axis=axes, keepdims=True)
    return centred / np.sqrt(variance + epsilon) * scale + bias


def onnx_slice(v, starts, ends, axes):
    index = [slice(None)] * v.ndim
    for start, end, axis in zip(starts, ends, axes):
        index[axis] = slice(start, end)
    return v[tuple(index)]


def batch_statistics(v):
    """A BatchNormalization input's mean and biased variance per channel,
    shaped to broadcast."""
    axes = (0,) + tuple(range(2, v.ndim))
    return v.mean(axis=axes, keepdims=True), v.var(axis=axes, keepdims=True)


def evaluate(nodes, values, batch_stats=False):
    for op, inputs, output, attrs in nodes:
        a = [values[i] if i else None for i in inputs]
        if op == "Gemm":
            lhs = a[0].T if attrs.get("transA") else a[0]
            rhs = a[1].T if attrs.get("transB") else a[1]
            r = attrs.get("alpha", 1.0) * lhs @ rhs
            if len(a) > 2:
                r = r + attrs.get("beta", 1.0) * a[2]
        elif op == "MatMul":
            r = a[0] @ a[1]
        elif op in ("Add", "Sub", "Mul", "Div"):
            r = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
                 "Div": np.divide}[op](a[0], a[1])
        elif op == "Relu":
            r = np.maximum(a[0], 0)
        elif op == "Sigmoid":
            r = 1 / (1 + np.exp(-a[0]))
        elif op == "Tanh":
            r = np.tanh(a[0])
        elif op == "Identity":
            r = a[0]
        elif op == "Reshape":
            r = a[0].reshape(a[1])
        elif op == "Flatten":
            r = a[0].reshape(a[0].shape[0], -1)
        elif op == "Transpose":
            r = np.transpose(a[0], attrs["perm"])
        elif op == "Softmax":
            r = softmax(a[0], attrs.get("axis", -1))
        elif op == "Conv":
            r = conv2d(a[0], a[1], attrs)
            if len(a) > 2:
                r = r + a[2][None, :, None, None]
        elif op == "GlobalAveragePool":
            r = a[0].mean(axis=(2, 3), keepdims=True)
        elif op in ("Neg", "Exp", "Sqrt"):
            r = {"Neg": np.negative, "Exp": np.exp, "Sqrt": np.sqrt}[op](a[0])
        elif op == "Erf":
            r = np.vectorize(math.erf)(a[0])
        elif op == "Pow":
            r = a[0] ** a[1]
        elif op == "Where":
            r = np.where(a[0], a[1], a[2])
        elif op == "Expand":
            r = a[0] * np.ones(a[1])
        elif op in ("ReduceSum", "ReduceMean"):
            axes = tuple(a[1]) if len(a) > 1 else tuple(attrs["axes"])
            r = (np.sum if op == "ReduceSum" else np.mean)(
                a[0], axis=axes, keepdims=bool(attrs.get("keepdims", 1)))
        elif op == "LayerNormalization":
            r = layer_norm(a[0], a[1], a[2], attrs.get("axis", -1), attrs.get("epsilon", 1e-5))
        elif op == "BatchNormalization":
            shape = (1, -1) + (1,) * (a[0].ndim - 2)
            mean, var = (batch_statistics(a[0]) if batch_stats else
                         (a[3].reshape(shape), a[4].reshape(shape)))
            r = ((a[0] - mean) / np.sqrt(var + attrs.get("epsilon", 1e-5))
                 * a[1].reshape(shape) + a[2].reshape(shape))
        elif op == "AveragePool":
            k, st = attrs["kernel_shape"], attrs.get("strides", [1, 1])
            p = attrs.get("pads", [0, 0, 0, 0])
            padded = np.pad(a[0], ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
            inside = np.pad(np.ones(a[0].shape[2:]), ((p[0], p[2]), (p[1], p[3])))
            oh = (padded.shape[2] - k[0]) // st[0] + 1
            ow = (padded.shape[3] - k[1]) // st[1] + 1
            total = np.zeros(a[0].shape[:2] + (oh, ow))
            count = np.zeros((oh, ow))
            for i in range(k[0]):
                for j in range(k[1]):
                    rows = slice(i, i + st[0] * (oh - 1) + 1, st[0])
                    cols = slice(j, j + st[1] * (ow - 1) + 1, st[1])
                    total += padded[:, :, rows, cols]
                    count += inside[rows, cols]
            r = total / (k[0] * k[1] if attrs.get("count_include_pad") else count)
        elif op == "MaxPool":
            r = max_pool(a[0], attrs["kernel_shape"], attrs.get("strides", [1, 1]),
                         attrs.get("pads", [0, 0, 0, 0]))
        elif op == "Gather":
            r = np.take(a[0], a[1], axis=0)
        elif op == "Slice":
            r = onnx_slice(a[0], a[1], a[2], a[3])
        elif op == "Concat":
            r = np.concatenate(a, axis=attrs["axis"])
        elif op == "Split":
            r = np.split(a[0], np.cumsum(a[1])[:-1], axis=attrs.get("axis", 0))
        else:
            raise SystemExit("no NumPy semantics for " + op)
        if isinstance(output, list):
            values.update(zip(output, r))
        else:
            values[output] = r
    return values


# --- One case: a graph, its gradients by placer and by differences ----------

def build_model(name, x, weights, nodes, output, consts):
    """consts: initializers that are not trained (indices, masks, axes,
    scalars), by name."""
    inits = [numpy_helper.from_array(v, n) for n, v in weights.items()]
    inits += [numpy_helper.from_array(v, n) for n, v in consts.items()]
    onnx_nodes = []
    for op, inputs, out, attrs in nodes:
        ins = list(inputs)
        if op == "Reshape":  # its shape as an int64 initializer
            shape_name = out + "_shape"
            inits.append(numpy_helper.from_array(np.array(attrs["shape"], np.int64), shape_name))
            ins = [inputs[0], shape_name]
        onnx_attrs = {k: v for k, v in attrs.items() if k != "shape"}
        outs = out if isinstance(out, list) else [out]
        onnx_nodes.append(helper.make_node(op, ins, outs, name=outs[0], **onnx_attrs))
    y_shape = evaluate(fixup(nodes), dict(x=x, **weights, **consts, **shapes(nodes)))[output].shape
    graph = helper.make_graph(
        onnx_nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.DOUBLE, x.shape)],
        [helper.make_tensor_value_info(output, TensorProto.DOUBLE, y_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = os.path.join(WORK, name + ".onnx")
    onnx.save(model, path)
    return path, y_shape


def shapes(nodes):
    return {out + "_shape": np.array(attrs["shape"]) for op, _, out, attrs in nodes if op == "Reshape"}


def fixup(nodes):
    # Reshape reads its shape input in NumPy too.
    return [(op, list(ins) + ([out + "_shape"] if op == "Reshape" else []), out, attrs)
            for op, ins, out, attrs in nodes]


def step(name, model, x, labels, options):
    mlir, train = (os.path.join(WORK, name + s) for s in (".mlir", ".train.mlir"))
    run(BIN + "/placer-translate", "--import-onnx", model, "-o", mlir)
    run(BIN + "/placer-opt", mlir, "--placer-build-training=" + options, "-o", train)
    np.save(os.path.join(WORK, "x.npy"), x)
    np.save(os.path.join(WORK, "labels.npy"), labels)
    out = os.path.join(WORK, name + "-out")
    run(BIN + "/placer-run", train, "--input", "x=" + os.path.join(WORK, "x.npy"),
        "--input", "labels=" + os.path.join(WORK, "labels.npy"), "--output-dir", out,
        "--cache-dir", os.path.join(WORK, "cache"))
    return lambda n: np.load(os.path.join(out, n + ".npy"))


def check(name, x, weights, nodes, output, consts={}, batch_stats=False):
    """batch_stats: BatchNormalization by the batch's statistics
    (batch-norm=batch), whose running statistics the step then updates as
    PyTorch's train() does (momentum 0.1 in its terms, unbiased variance)."""
    model, y_shape = build_model(name, x, weights, nodes, output, consts)
    labels = rng.standard_normal(y_shape)
    result = step(name, model, x, labels, "loss=mse optimizer=sgd learning-rate=1" +
                  (" batch-norm=batch" if batch_stats else ""))
    nodes = fixup(nodes)

    def loss(ws):
        y = evaluate(nodes, dict(x=x, **ws, **consts, **shapes(nodes)), batch_stats)[output]
        return np.mean((y - labels) ** 2)

    worst = abs(float(result("loss")) - loss(weights)) / abs(loss(weights))
    if batch_stats:
        values = evaluate(nodes, dict(x=x, **weights, **consts, **shapes(nodes)), True)
        for op, inputs, _, attrs in nodes:
            if op != "BatchNormalization":
                continue
            mean, var = batch_statistics(values[inputs[0]])
            n = values[inputs[0]].size / mean.size
            m = attrs.get("momentum", 0.9)
            for running, batch in ((inputs[3], mean), (inputs[4], var * n / (n - 1))):
                want = consts[running] * m + batch.reshape(-1) * (1 - m)
                worst = max(worst, np.abs(result(running) - want).max() / np.abs(want).max())
    for n, w in weights.items():
        grad = w - result(n)
        numeric = np.zeros_like(w)
        for i in np.ndindex(w.shape):
            up, down = dict(weights), dict(weights)
            up[n], down[n] = w.copy(), w.copy()
            up[n][i] += 1e-6
            down[n][i] -= 1e-6
            numeric[i] = (loss(up) - loss(down)) / 2e-6
        worst = max(worst, np.abs(grad - numeric).max() / max(np.abs(numeric).max(), 1e-12))
    status = "ok" if worst < 1e-6 else "MISMATCH"
    if worst >= 1e-6:
        failed.append(name)
    print("%-22s %s (max relative error %.1e)" % (name, status, worst))


def r(*shape):
    return rng.standard_normal(shape)


x = r(3, 4)
check("gemm", x, {"w": r(5, 4), "b": r(5)},
      [("Gemm", ["x", "w", "b"], "y", {"transB": 1, "alpha": 0.5, "beta": 2.0})], "y")
check("gemm_trans_a", x, {"w": r(3, 5)},
      [("Gemm", ["w", "x"], "y", {"transA": 1})], "y")
check("matmul_batched", r(2, 3, 4), {"w": r(4, 5)},
      [("MatMul", ["x", "w"], "y", {})], "y")
check("matmul_batch_both", r(2, 3, 4), {"w": r(2, 4, 5)},
      [("MatMul", ["x", "w"], "y", {})], "y")
check("broadcast_add_sub", x, {"b": r(4), "c": r(3, 1)},
      [("Add", ["x", "b"], "h", {}), ("Sub", ["c", "h"], "y", {})], "y")
check("broadcast_mul_div", x, {"s": r(1, 4), "d": np.abs(r(3, 1)) + 1},
      [("Mul", ["x", "s"], "h", {}), ("Div", ["h", "d"], "y", {})], "y")
check("activations", x, {"w": r(4, 6)},
      [("MatMul", ["x", "w"], "h", {}), ("Relu", ["h"], "a", {}),
       ("Sigmoid", ["a"], "s", {}), ("Tanh", ["h"], "t", {}),
       ("Add", ["s", "t"], "y", {})], "y")
check("shapes", r(2, 3, 4), {"w": r(12, 5)},
      [("Flatten", ["x"], "f", {"axis": 1}), ("MatMul", ["f", "w"], "h", {}),
       ("Reshape", ["h"], "p", {"shape": [5, 2]}), ("Transpose", ["p"], "q", {"perm": [1, 0]}),
       ("Identity", ["q"], "y", {})], "y")
check("softmax", x, {"w": r(4, 6)},
      [("MatMul", ["x", "w"], "h", {}), ("Softmax", ["h"], "y", {"axis": 1})], "y")
# Convolutions: padding, a stride whose last window leaves input rows
# unread (the weight's adjoint is cropped), dilation; a small residual CNN
# with a global average pool.
check("conv_padded", r(2, 3, 5, 5), {"w": r(4, 3, 3, 3), "b": r(4)},
      [("Conv", ["x", "w", "b"], "y", {"pads": [1, 1, 1, 1]})], "y")
check("conv_strided", r(1, 2, 6, 7), {"w": r(3, 2, 3, 2)},
      [("Conv", ["x", "w"], "y", {"strides": [2, 3], "pads": [1, 0, 0, 1]})], "y")
check("conv_dilated", r(1, 2, 7, 7), {"w": r(2, 2, 2, 3)},
      [("Conv", ["x", "w"], "y", {"dilations": [2, 1], "pads": [0, 1, 1, 1]})], "y")
check("residual_cnn", r(2, 2, 4, 4), {"w1": r(2, 2, 3, 3), "b1": r(2), "w2": r(2, 2, 1, 1),
                                     "fc": r(2, 3)},
      [("Conv", ["x", "w1", "b1"], "h", {"pads": [1, 1, 1, 1]}), ("Relu", ["h"], "a", {}),
       ("Conv", ["a", "w2"], "c", {}), ("Add", ["c", "x"], "s", {}),
       ("GlobalAveragePool", ["s"], "g", {}), ("Flatten", ["g"], "f", {"axis": 1}),
       ("MatMul", ["f", "fc"], "y", {})], "y")
# Grouped convolutions: two groups of two channels and two filters (the
# weight's adjoint repeats each group's filters), and a depthwise one
# (MobileNet's), strided and dilated.
check("conv_grouped", r(2, 4, 6, 6), {"w": r(4, 2, 3, 3), "b": r(4)},
      [("Conv", ["x", "w", "b"], "y", {"group": 2, "strides": [2, 2], "pads": [1, 1, 1, 1]})], "y")
check("conv_depthwise", r(2, 3, 7, 7), {"w": r(3, 1, 3, 3)},
      [("Conv", ["x", "w"], "y", {"group": 3, "dilations": [2, 1], "pads": [1, 1, 0, 1]})], "y")
# A weight read twice: the adjoints of both reads add up.
check("shared_weight", x, {"w": r(4, 4)},
      [("MatMul", ["x", "w"], "h", {}), ("MatMul", ["h", "w"], "y", {})], "y")

# The decoder's ops: GELU's Erf form and its parts, powers and roots,
# reductions, LayerNormalization, Where with a mask, Expand, embeddings
# (Gather, a row picked twice), Slice, Concat, Split with an unused part.
def scalar(v):
    return np.array(v, np.float64)


def ints(*v):
    return np.array(v, np.int64)


check("gelu_erf", x, {"w": r(4, 5)},
      [("MatMul", ["x", "w"], "h", {}), ("Div", ["h", "sqrt2"], "s", {}),
       ("Erf", ["s"], "e", {}), ("Add", ["e", "one"], "a", {}),
       ("Mul", ["h", "a"], "m", {}), ("Mul", ["m", "half"], "y", {})], "y",
      {"sqrt2": scalar(math.sqrt(2)), "one": scalar(1), "half": scalar(0.5)})
check("pow_exp_sqrt", x, {"w": r(4, 5)},
      [("MatMul", ["x", "w"], "h", {}), ("Pow", ["h", "two"], "p", {}),
       ("Neg", ["p"], "n", {}), ("Exp", ["n"], "e", {}), ("Add", ["e", "one"], "a", {}),
       ("Sqrt", ["a"], "y", {})], "y", {"two": scalar(2), "one": scalar(1)})
check("reductions", x, {"w": r(4, 5)},
      [("MatMul", ["x", "w"], "h", {}), ("ReduceSum", ["h", "axis1"], "s", {"keepdims": 1}),
       ("ReduceMean", ["h"], "m", {"axes": [0], "keepdims": 0}),
       ("Mul", ["h", "s"], "p", {}), ("Add", ["p", "m"], "y", {})], "y",
      {"axis1": ints(1)})
check("layer_norm", r(2, 3, 4), {"w": r(4, 4), "g": r(3, 4), "b": r(3, 4)},
      [("MatMul", ["x", "w"], "h", {}),
       ("LayerNormalization", ["h", "g", "b"], "y", {"axis": 1, "epsilon": 1e-3})], "y")
check("where_expand", x, {"w": r(4, 5), "b": r(1, 5)},
      [("MatMul", ["x", "w"], "h", {}), ("Expand", ["b", "shape"], "e", {}),
       ("Where", ["mask", "h", "e"], "y", {})], "y",
      {"shape": ints(3, 5), "mask": rng.random((3, 5)) > 0.5})
check("embedding_slices", r(2, 3, 4), {"emb": r(6, 4), "w": r(4, 5)},
      [("Gather", ["emb", "tokens"], "e", {}), ("Add", ["e", "x"], "s", {}),
       ("Slice", ["s", "one", "three", "axis1"], "a", {}),
       ("Slice", ["s", "zero", "one", "axis1"], "b", {}),
       ("Concat", ["a", "b"], "c", {"axis": 1}), ("MatMul", ["c", "w"], "y", {})], "y",
      {"tokens": ints([4, 1, 4], [0, 5, 1]), "zero": ints(0), "one": ints(1),
       "three": ints(3), "axis1": ints(1)})
check("split", x, {"w": r(4, 6), "w2": r(3, 2)},
      [("MatMul", ["x", "w"], "h", {}), ("Split", ["h", "sizes"], ["p", "u", "q"], {"axis": 1}),
       ("MatMul", ["q", "w2"], "z", {}), ("Add", ["p", "z"], "y", {})], "y",
      {"sizes": ints(2, 1, 3)})
# A ResNet stem: convolution, BatchNormalization with its statistics as
# given (not trained), ReLU, an overlapping 3x3 stride-2 MaxPool (an
# element can be the maximum of two windows), pooling and a classifier.
check("cnn_stem", r(2, 2, 7, 7), {"w": r(3, 2, 3, 3), "g": r(3), "b": r(3), "fc": r(3, 4)},
      [("Conv", ["x", "w"], "c", {"pads": [1, 1, 1, 1]}),
       ("BatchNormalization", ["c", "g", "b", "mean", "var"], "n", {"epsilon": 1e-3}),
       ("Relu", ["n"], "a", {}),
       ("MaxPool", ["a"], "p", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
       ("GlobalAveragePool", ["p"], "gp", {}), ("Flatten", ["gp"], "f", {"axis": 1}),
       ("MatMul", ["f", "fc"], "y", {})], "y",
      {"mean": r(3), "var": np.abs(r(3)) + 0.5})
# The same stem trained with the batch's statistics (batch-norm=batch, as
# PyTorch's train()): the gradient flows through the mean and variance, and
# the step updates the running statistics (momentum 0.8 here).
check("cnn_stem_batch_stats", r(2, 2, 7, 7), {"w": r(3, 2, 3, 3), "g": r(3), "b": r(3), "fc": r(3, 4)},
      [("Conv", ["x", "w"], "c", {"pads": [1, 1, 1, 1]}),
       ("BatchNormalization", ["c", "g", "b", "mean", "var"], "n", {"epsilon": 1e-3, "momentum": 0.8}),
       ("Relu", ["n"], "a", {}),
       ("MaxPool", ["a"], "p", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
       ("GlobalAveragePool", ["p"], "gp", {}), ("Flatten", ["gp"], "f", {"axis": 1}),
       ("MatMul", ["f", "fc"], "y", {})], "y",
      {"mean": r(3), "var": np.abs(r(3)) + 0.5}, batch_stats=True)
# Average pools: padded windows counted with and without the padding, a
# stride that leaves a row unread.
check("average_pool", r(2, 2, 6, 5), {"w": r(2, 2, 1, 1)},
      [("Conv", ["x", "w"], "c", {}),
       ("AveragePool", ["c"], "p", {"kernel_shape": [3, 3], "strides": [2, 2],
                                    "pads": [1, 1, 1, 1]}),
       ("AveragePool", ["c"], "q", {"kernel_shape": [3, 2], "pads": [1, 0, 1, 1],
                                    "count_include_pad": 1}),
       ("Flatten", ["p"], "pf", {"axis": 1}), ("Flatten", ["q"], "qf", {"axis": 1}),
       ("Concat", ["pf", "qf"], "y", {"axis": 1})], "y")
# A GPT-style decoder block, tied embeddings: token and position
# embeddings, LayerNormalization, one causal attention head (Split of a
# fused projection, a masked Softmax), a GELU feed-forward, residuals, the
# final norm and logits through the transposed token embedding.
D, T, V = 8, 4, 10
check("decoder", r(2, T, D) * 0.1,
      {"wte": r(V, D), "wpe": r(T, D), "g1": r(D), "b1": r(D), "wqkv": r(D, 3 * D) * 0.3,
       "wo": r(D, D) * 0.3, "g2": r(D), "b2": r(D), "w1": r(D, 2 * D) * 0.3,
       "w2": r(2 * D, D) * 0.3, "gf": r(D), "bf": r(D)},
      [("Gather", ["wte", "tokens"], "te", {}), ("Gather", ["wpe", "positions"], "pe", {}),
       ("Add", ["te", "pe"], "e", {}), ("Add", ["e", "x"], "h0", {}),
       ("LayerNormalization", ["h0", "g1", "b1"], "n1", {}),
       ("MatMul", ["n1", "wqkv"], "qkv", {}),
       ("Split", ["qkv", "thirds"], ["q", "k", "v"], {"axis": 2}),
       ("Transpose", ["k"], "kt", {"perm": [0, 2, 1]}), ("MatMul", ["q", "kt"], "sc", {}),
       ("Div", ["sc", "root"], "scaled", {}), ("Where", ["causal", "scaled", "masked"], "ms", {}),
       ("Softmax", ["ms"], "p", {"axis": -1}), ("MatMul", ["p", "v"], "att", {}),
       ("MatMul", ["att", "wo"], "proj", {}), ("Add", ["h0", "proj"], "h1", {}),
       ("LayerNormalization", ["h1", "g2", "b2"], "n2", {}),
       ("MatMul", ["n2", "w1"], "f", {}), ("Div", ["f", "sqrt2"], "fs", {}),
       ("Erf", ["fs"], "fe", {}), ("Add", ["fe", "one"], "fa", {}),
       ("Mul", ["f", "fa"], "fm", {}), ("Mul", ["fm", "half"], "gelu", {}),
       ("MatMul", ["gelu", "w2"], "ff", {}), ("Add", ["h1", "ff"], "h2", {}),
       ("LayerNormalization", ["h2", "gf", "bf"], "nf", {}),
       ("Transpose", ["wte"], "wt", {"perm": [1, 0]}), ("MatMul", ["nf", "wt"], "y", {})], "y",
      {"tokens": ints([3, 1, 4, 1], [5, 9, 2, 6]), "positions": ints(0, 1, 2, 3),
       "thirds": ints(D, D, D), "root": scalar(math.sqrt(D)),
       "causal": np.tril(np.ones((T, T), bool)), "masked": scalar(-1e4),
       "sqrt2": scalar(math.sqrt(2)), "one": scalar(1), "half": scalar(0.5)})

# Optimizers and cross-entropy: one step against their definitions, on the
# gradients of an sgd step with learning rate 1 (checked above).
model, y_shape = build_model("optimizers", x, {"w": r(4, 5), "b": r(5)},
                             [("Gemm", ["x", "w", "b"], "y", {})], "y", {})
labels = rng.standard_normal(y_shape)
base = step("opt_sgd", model, x, labels, "loss=mse optimizer=sgd learning-rate=1")
w0 = {n: numpy_helper.to_array(t) for n, t in
      ((i.name, i) for i in onnx.load(model).graph.initializer)}
grads = {n: w0[n] - base(n) for n in w0}
mom = step("opt_momentum", model, x, labels,
           "loss=mse optimizer=momentum learning-rate=0.1 momentum=0.5")
adam = step("opt_adam", model, x, labels,
            "loss=mse optimizer=adam learning-rate=0.1 beta1=0.8 beta2=0.9 epsilon=1e-3")
worst = 0.0
for n in w0:
    g = grads[n]
    # First step, state at zero: velocity g; m = (1 - b1) g, v = (1 - b2) g^2.
    worst = max(worst, np.abs(mom(n) - (w0[n] - 0.1 * g)).max(),
                np.abs(mom(n + ".momentum") - g).max())
    m_hat, v_hat = (0.2 * g) / 0.2, (0.1 * g * g) / 0.1
    worst = max(worst, np.abs(adam(n) - (w0[n] - 0.1 * m_hat / (np.sqrt(v_hat) + 1e-3))).max(),
                np.abs(adam(n + ".adam_m") - 0.2 * g).max(),
                np.abs(adam(n + ".adam_v") - 0.1 * g * g).max())
worst = max(worst, abs(float(adam("adam.step")) - 1.0))
print("%-22s %s (max error %.1e)" % ("momentum_adam", "ok" if worst < 1e-9 else "MISMATCH", worst))
if worst >= 1e-9:
    failed.append("momentum_adam")

# Cross-entropy: mean negative log-likelihood of the softmax, its gradient
# (softmax - one-hot) / batch through the Gemm.
classes = rng.integers(0, 5, 3).astype(np.int64)
ce = step("opt_ce", model, x, classes, "loss=cross-entropy optimizer=sgd learning-rate=1")
logits = x @ w0["w"] + w0["b"]
p = softmax(logits, 1)
want_loss = -np.mean(np.log(p[np.arange(3), classes]))
d = (p - np.eye(5)[classes]) / 3
worst = max(abs(float(ce("loss")) - want_loss),
            np.abs((w0["w"] - ce("w")) - x.T @ d).max(),
            np.abs((w0["b"] - ce("b")) - d.sum(0)).max())
print("%-22s %s (max error %.1e)" % ("cross_entropy", "ok" if worst < 1e-9 else "MISMATCH", worst))
if worst >= 1e-9:
    failed.append("cross_entropy")

if failed:
    sys.exit("gradient mismatches: " + ", ".join(failed))
print("all gradients match")
