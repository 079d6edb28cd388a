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
    """ONNX Conv, one group: strides, pads [top, left, bottom, right],
    dilations."""
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


def evaluate(nodes, values):
    for op, inputs, output, attrs in nodes:
        a = [values[i] for i in inputs]
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
        else:
            raise SystemExit("no NumPy semantics for " + op)
        values[output] = r
    return values


# --- One case: a graph, its gradients by placer and by differences ----------

def build_model(name, x, weights, nodes, output):
    inits = [numpy_helper.from_array(v, n) for n, v in weights.items()]
    onnx_nodes = []
    for op, inputs, out, attrs in nodes:
        ins = list(inputs)
        if op == "Reshape":  # its shape as an int64 initializer
            shape_name = out + "_shape"
            inits.append(numpy_helper.from_array(np.array(attrs["shape"], np.int64), shape_name))
            ins = [inputs[0], shape_name]
        onnx_attrs = {k: v for k, v in attrs.items() if k != "shape"}
        onnx_nodes.append(helper.make_node(op, ins, [out], name=out, **onnx_attrs))
    y_shape = evaluate(fixup(nodes), dict(x=x, **weights, **shapes(nodes)))[output].shape
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


def check(name, x, weights, nodes, output):
    model, y_shape = build_model(name, x, weights, nodes, output)
    labels = rng.standard_normal(y_shape)
    result = step(name, model, x, labels, "loss=mse optimizer=sgd learning-rate=1")
    nodes = fixup(nodes)

    def loss(ws):
        y = evaluate(nodes, dict(x=x, **ws, **shapes(nodes)))[output]
        return np.mean((y - labels) ** 2)

    worst = abs(float(result("loss")) - loss(weights)) / abs(loss(weights))
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
# A weight read twice: the adjoints of both reads add up.
check("shared_weight", x, {"w": r(4, 4)},
      [("MatMul", ["x", "w"], "h", {}), ("MatMul", ["h", "w"], "y", {})], "y")

# Optimizers and cross-entropy: one step against their definitions, on the
# gradients of an sgd step with learning rate 1 (checked above).
model, y_shape = build_model("optimizers", x, {"w": r(4, 5), "b": r(5)},
                             [("Gemm", ["x", "w", "b"], "y", {})], "y")
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
