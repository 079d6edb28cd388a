#!/usr/bin/env python3
"""Writes a two-layer float32 MLP (ONNX), a batch and labels, and checks
what `placer-run --train-steps` wrote against NumPy's own training loop.

    train_steps.py make DIR               # DIR/mlp.onnx, mlp4.onnx, x.npy, labels.npy
                                          # DIR/tied4.onnx, labels_tied.npy
    train_steps.py check DIR OPT S [tied] # DIR/out/loss.npy, DIR/weights/*.npy
    train_steps.py onnx DIR FILE          # FILE's initializers are DIR/weights/*.npy
    train_steps.py deep DIR               # DIR/deep4.onnx, x_deep.npy, labels_deep.npy

mlp.onnx takes the batch of 8, mlp4.onnx a microbatch of 4 (the same
weights). tied4.onnx is an autoencoder whose two layers share one weight
(y = tanh(x W + b1) W^T + b2: a weight tied across stages once split). OPT is sgd or momentum (learning rate 0.1, momentum 0.9) or adam
(learning rate 0.1, PyTorch's defaults otherwise), mean squared error over
the whole batch; prints the largest relative error of the losses and of the
weights. deep4.onnx is four 64-wide layers (Gemm and Tanh) on a microbatch
of 4, for a batch of 8: work enough per layer that a placement for
interleaved 1F1B on two devices gives each layer a chunk of its own.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

mode, folder = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(3)
W1, B1 = rng.standard_normal((4, 6)).astype(np.float32) * 0.5, np.zeros(6, np.float32) + 0.1
W2, B2 = rng.standard_normal((6, 2)).astype(np.float32) * 0.5, np.zeros(2, np.float32) - 0.1
X = rng.standard_normal((8, 4)).astype(np.float32)
LABELS = rng.standard_normal((8, 2)).astype(np.float32)
TIED_W = rng.standard_normal((4, 4)).astype(np.float32) * 0.5
TIED_LABELS = rng.standard_normal((8, 4)).astype(np.float32)

if mode == "make":
    os.makedirs(folder, exist_ok=True)
    inits = [numpy_helper.from_array(v, n) for n, v in
             (("w1", W1), ("b1", B1), ("w2", W2), ("b2", B2))]
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1"),
             helper.make_node("Tanh", ["h"], ["a"], name="tanh"),
             helper.make_node("Gemm", ["a", "w2", "b2"], ["y"], name="fc2")]
    for batch, name in ((8, "mlp.onnx"), (4, "mlp4.onnx")):
        graph = helper.make_graph(
            nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 4])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 2])], inits)
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                  os.path.join(folder, name))
    tied = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w", "b1"], ["h"], name="encode"),
         helper.make_node("Tanh", ["h"], ["a"], name="tanh"),
         helper.make_node("Gemm", ["a", "w", "b2"], ["y"], name="decode", transB=1)],
        "tied", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 4])],
        [numpy_helper.from_array(v, n) for n, v in (("w", TIED_W), ("b1", B1[:4]), ("b2", B1[:4]))])
    onnx.save(helper.make_model(tied, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(folder, "tied4.onnx"))
    np.save(os.path.join(folder, "labels_tied.npy"), TIED_LABELS)
    np.save(os.path.join(folder, "x.npy"), X)
    np.save(os.path.join(folder, "labels.npy"), LABELS)
    np.save(os.path.join(folder, "labels_f64.npy"), LABELS.astype(np.float64))
    sys.exit(0)

if mode == "deep":
    os.makedirs(folder, exist_ok=True)
    width, layers, inits, nodes, x = 64, 4, [], [], "x"
    for i in range(layers):
        w = rng.standard_normal((width, width)).astype(np.float32) / np.sqrt(width)
        inits += [numpy_helper.from_array(w, "w%d" % i),
                  numpy_helper.from_array(np.zeros(width, np.float32), "b%d" % i)]
        nodes += [helper.make_node("Gemm", [x, "w%d" % i, "b%d" % i], ["h%d" % i],
                                   name="fc%d" % i),
                  helper.make_node("Tanh", ["h%d" % i], ["a%d" % i], name="tanh%d" % i)]
        x = "a%d" % i
    graph = helper.make_graph(
        nodes, "deep", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, width])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [4, width])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(folder, "deep4.onnx"))
    np.save(os.path.join(folder, "x_deep.npy"),
            rng.standard_normal((8, width)).astype(np.float32))
    np.save(os.path.join(folder, "labels_deep.npy"),
            rng.standard_normal((8, width)).astype(np.float32) * 0.5)
    sys.exit(0)

if mode == "onnx":
    model = onnx.load(sys.argv[3])
    onnx.checker.check_model(model)
    for init in model.graph.initializer:
        saved = np.load(os.path.join(folder, "weights", init.name + ".npy"))
        value = numpy_helper.to_array(init)
        print("%s %s" % (init.name, "as trained" if value.dtype == saved.dtype and
                         value.shape == saved.shape and value.tobytes() == saved.tobytes()
                         else "DIFFERENT"))
    sys.exit(0)

optimizer, steps = sys.argv[3], int(sys.argv[4])
model = sys.argv[5] if len(sys.argv) > 5 else "mlp"
if model == "tied":
    initial, LABELS = (("w", TIED_W), ("b1", B1[:4]), ("b2", B1[:4])), TIED_LABELS
else:
    initial = (("w1", W1), ("b1", B1), ("w2", W2), ("b2", B2))
w = {n: v.astype(np.float64) for n, v in initial}
velocity = {n: np.zeros_like(v) for n, v in w.items()}
moment1 = {n: np.zeros_like(v) for n, v in w.items()}
moment2 = {n: np.zeros_like(v) for n, v in w.items()}
x, labels, losses = X.astype(np.float64), LABELS.astype(np.float64), []
for _ in range(steps):
    w1, w2 = (w["w"], w["w"].T) if model == "tied" else (w["w1"], w["w2"])
    h = x @ w1 + w["b1"]
    a = np.tanh(h)
    y = a @ w2 + w["b2"]
    losses.append(np.mean((y - labels) ** 2))
    dy = 2 * (y - labels) / y.size
    da = dy @ w2.T
    dh = da * (1 - a * a)
    grads = {"w2": a.T @ dy, "b2": dy.sum(0), "w1": x.T @ dh, "b1": dh.sum(0)}
    if model == "tied":
        grads["w"] = grads.pop("w1") + grads.pop("w2").T
    t = len(losses)
    for n, g in grads.items():
        if optimizer == "momentum":
            velocity[n] = 0.9 * velocity[n] + g
            g = velocity[n]
        elif optimizer == "adam":
            moment1[n] = 0.9 * moment1[n] + 0.1 * g
            moment2[n] = 0.999 * moment2[n] + 0.001 * g * g
            g = (moment1[n] / (1 - 0.9 ** t)) / (np.sqrt(moment2[n] / (1 - 0.999 ** t)) + 1e-8)
        w[n] = w[n] - 0.1 * g
got = np.load(os.path.join(folder, "out", "loss.npy"))
worst = np.abs(got - losses).max() / max(losses)
for n, v in w.items():
    worst = max(worst, np.abs(np.load(os.path.join(folder, "weights", n + ".npy")) - v).max()
                / np.abs(v).max())
print("%s: %d losses from %.4f to %.4f, max relative error %s" % (
    optimizer, len(got), got[0], got[-1], "below 1e-5" if worst < 1e-5 else "%.1e" % worst))
