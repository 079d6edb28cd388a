#!/usr/bin/env python3
"""Builds one small ONNX model per case, runs it through placer-translate
and placer-run, and compares every output with a numpy reference.

    op_check.py BIN_DIR WORK_DIR

Prints "CASE ok <max abs error>" or "CASE FAIL ..." per case.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BIN, WORK = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def erf(x):
    # Abramowitz-Stegun 7.1.26 is too coarse; use math.erf elementwise.
    import math
    return np.vectorize(math.erf)(x.astype(np.float64)).astype(np.float32)


def conv2d(x, w, b, stride, pad, dil, group):
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    oh = (xp.shape[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (xp.shape[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, f, oh, ow), np.float64)
    fg = f // group
    for g in range(group):
        for o in range(fg):
            fo = g * fg + o
            for i in range(oh):
                for j in range(ow):
                    patch = xp[:, g * cg:(g + 1) * cg,
                               i * stride[0]:i * stride[0] + dil[0] * (kh - 1) + 1:dil[0],
                               j * stride[1]:j * stride[1] + dil[1] * (kw - 1) + 1:dil[1]]
                    out[:, fo, i, j] = (patch * w[fo]).sum(axis=(1, 2, 3))
    if b is not None:
        out += b[None, :, None, None]
    return out.astype(np.float32)


def pool(x, k, s, pad, mode, include_pad=False):
    fill = -np.inf if mode == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])),
                constant_values=fill)
    ones = np.pad(np.ones(x.shape[2:]), ((pad[0], pad[2]), (pad[1], pad[3])),
                  constant_values=1.0 if include_pad else 0.0)
    oh = (xp.shape[2] - k[0]) // s[0] + 1
    ow = (xp.shape[3] - k[1]) // s[1] + 1
    out = np.zeros(x.shape[:2] + (oh, ow), np.float32)
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            if mode == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                cnt = ones[i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]].sum()
                out[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return out


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


CASES = []


def case(name, op, inputs, attrs=None, inits=None, expected=None, opset=13,
         out_type=TensorProto.FLOAT):
    CASES.append((name, op, inputs, attrs or {}, inits or {}, expected, opset,
                  out_type))


x = f32(2, 3, 4)
y = f32(3, 4)
case("add_broadcast", "Add", {"a": x, "b": y[None, :1, :]}, expected=x + y[None, :1, :])
case("sub_mul_div", "Div", {"a": x, "b": np.abs(y) + 0.5}, expected=x / (np.abs(y) + 0.5))
case("pow", "Pow", {"a": np.abs(x) + 0.1, "b": np.float32([2.0])},
     expected=(np.abs(x) + 0.1) ** 2)
case("relu", "Relu", {"a": x}, expected=np.maximum(x, 0))
case("sigmoid", "Sigmoid", {"a": x}, expected=1 / (1 + np.exp(-x)))
case("tanh", "Tanh", {"a": x}, expected=np.tanh(x))
case("erf", "Erf", {"a": x}, expected=erf(x))
# The polynomial approximations over their whole range, saturation included.
wide = np.linspace(-12, 12, 241, dtype=np.float32).reshape(1, 241)
case("tanh_wide", "Tanh", {"a": wide}, expected=np.tanh(wide))
case("erf_wide", "Erf", {"a": wide}, expected=erf(wide))
# exp is approximated too (CPU and GPU): through a sigmoid over [-24, 24],
# and alone where its values stay small enough for the tolerance to see
# its smallest.
case("sigmoid_wide", "Sigmoid", {"a": 2 * wide}, expected=1 / (1 + np.exp(-2 * wide)))
small = np.linspace(-12, 1, 131, dtype=np.float32).reshape(1, 131)
case("exp_wide", "Exp", {"a": small}, expected=np.exp(small))
case("leaky_relu", "LeakyRelu", {"a": x}, {"alpha": 0.1},
     expected=np.where(x > 0, x, 0.1 * x))
case("clip", "Clip", {"a": x}, inits={"lo": np.float32(-0.5), "hi": np.float32(0.5)},
     expected=np.clip(x, -0.5, 0.5))
case("hard_swish", "HardSwish", {"a": x}, expected=x * np.clip(x / 6 + 0.5, 0, 1), opset=14)
case("where", "Where", {"c": x > 0, "a": x, "b": -x}, expected=np.abs(x))
case("matmul_2d", "MatMul", {"a": f32(5, 7), "b": None}, inits={"w": f32(7, 3)})
case("matmul_batched_broadcast", "MatMul", {"a": f32(2, 5, 7)}, inits={"w": f32(7, 3)})
case("matmul_batch_both", "MatMul", {"a": f32(2, 1, 5, 7), "b": f32(3, 7, 4)})
case("matmul_blocks", "MatMul", {"a": f32(19, 70), "b": f32(70, 45)}, {})
case("gemm_trans_alpha_beta", "Gemm", {"a": f32(7, 5), "b": f32(3, 7), "c": f32(3)},
     {"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0})
case("conv_pads_strides", "Conv", {"x": f32(1, 3, 9, 9), "w": f32(4, 3, 3, 3), "b": f32(4)},
     {"pads": [1, 1, 1, 1], "strides": [2, 2]})
# 1x1 convolutions are contractions without im2col; 40 columns take a
# 32-lane block and an 8-lane one.
case("conv_pointwise", "Conv", {"x": f32(2, 8, 5, 8), "w": f32(12, 8, 1, 1), "b": f32(12)},
     {})
# 34 x 36 output columns and 13 filters: register blocks and remainders.
case("conv_blocks", "Conv", {"x": f32(1, 5, 36, 38), "w": f32(13, 5, 3, 3)}, {})
case("conv_dilation", "Conv", {"x": f32(1, 2, 9, 9), "w": f32(3, 2, 3, 3)},
     {"dilations": [2, 2]})
case("conv_groups", "Conv", {"x": f32(1, 4, 6, 6), "w": f32(6, 2, 3, 3)},
     {"group": 2, "pads": [1, 1, 1, 1]})
case("conv_depthwise_same", "Conv", {"x": f32(1, 4, 7, 7), "w": f32(4, 1, 3, 3)},
     {"group": 4, "auto_pad": "SAME_UPPER"})
case("maxpool", "MaxPool", {"x": f32(1, 2, 7, 7)},
     {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]})
case("avgpool_exclude_pad", "AveragePool", {"x": f32(1, 2, 6, 6)},
     {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]})
case("avgpool_include_pad", "AveragePool", {"x": f32(1, 2, 6, 6)},
     {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1],
      "count_include_pad": 1})
case("global_avgpool", "GlobalAveragePool", {"x": f32(2, 3, 5, 5)})
case("reduce_mean_keep", "ReduceMean", {"x": x}, {"axes": [1, 2]})
case("reduce_max_nokeep", "ReduceMax", {"x": x}, {"axes": [0], "keepdims": 0})
case("softmax", "Softmax", {"x": x}, {"axis": 1})
case("log_softmax", "LogSoftmax", {"x": x})
case("layer_norm", "LayerNormalization", {"x": x, "s": f32(4), "b": f32(4)},
     {"epsilon": 1e-5}, opset=17)
case("batch_norm", "BatchNormalization",
     {"x": f32(2, 3, 4, 4), "s": f32(3), "b": f32(3), "m": f32(3),
      "v": np.abs(f32(3)) + 0.5})
case("transpose", "Transpose", {"x": x}, {"perm": [2, 0, 1]})
case("concat", "Concat", {"a": x, "b": f32(2, 1, 4)}, {"axis": 1})
case("slice", "Slice", {"x": f32(4, 10)},
     inits={"st": np.int64([1, 2]), "en": np.int64([-1, 100]),
            "ax": np.int64([0, 1]), "sp": np.int64([1, 3])})
case("gather_negative", "Gather", {"x": f32(5, 3), "i": np.int64([[0, -1], [2, 4]])},
     {"axis": 0})
# Out of range (ONNX: an error): clamped to the nearest row, never read
# outside the tensor.
case("gather_out_of_range", "Gather",
     {"x": f32(5, 3), "i": np.int64([[0, 7], [-9, 1 << 40]])}, {"axis": 0})
case("reshape", "Reshape", {"x": x}, inits={"shape": np.int64([4, -1])})
case("flatten", "Flatten", {"x": f32(2, 3, 4, 5)}, {"axis": 2})
case("unsqueeze", "Unsqueeze", {"x": y}, inits={"axes": np.int64([0, 3])})
case("expand", "Expand", {"x": f32(3, 1)}, inits={"shape": np.int64([2, 3, 4])})
case("pad", "Pad", {"x": f32(2, 3)}, inits={"pads": np.int64([0, 1, 1, 2]),
                                               "v": np.float32(7.0)})
# Backward slices: reversed rows, every second column from the end.
xs = f32(4, 10)
case("slice_negative_steps", "Slice", {"x": xs},
     inits={"st": np.int64([-1, 100]), "en": np.int64([-100, 0]),
            "ax": np.int64([0, 1]), "sp": np.int64([-1, -2])},
     expected=xs[::-1, 9:0:-2])
xp = f32(3, 4)
case("pad_edge", "Pad", {"x": xp}, {"mode": "edge"}, inits={"pads": np.int64([1, 2, 2, 3])},
     expected=np.pad(xp, ((1, 2), (2, 3)), mode="edge"))
case("pad_reflect", "Pad", {"x": xp}, {"mode": "reflect"}, inits={"pads": np.int64([2, 1, 1, 3])},
     expected=np.pad(xp, ((2, 1), (1, 3)), mode="reflect"))
# 1-D windows run as 2-D ones of height 1.
x1, w1 = f32(2, 4, 11), f32(6, 2, 3)
case("conv1d", "Conv", {"x": x1, "w": w1, "b": f32(6)},
     {"pads": [2, 1], "strides": [2], "dilations": [2], "group": 2},
     expected=None)
case("maxpool1d", "MaxPool", {"x": x1}, {"kernel_shape": [3], "strides": [2], "pads": [1, 1]},
     expected=pool(x1[:, :, None, :], [1, 3], [1, 2], [0, 1, 0, 1], "max")[:, :, 0, :])
case("avgpool1d", "AveragePool", {"x": x1}, {"kernel_shape": [4], "strides": [3], "pads": [1, 2]},
     expected=pool(x1[:, :, None, :], [1, 4], [1, 3], [0, 1, 0, 2], "avg")[:, :, 0, :])
case("cast_to_int", "Cast", {"x": x * 10}, {"to": TensorProto.INT64},
     out_type=TensorProto.INT64)


def reference(name, op, feeds, attrs):
    """The numpy result of a case that gave none up front."""
    a = list(feeds.values())
    if op == "MatMul":
        return np.matmul(a[0], a[1])
    if op == "Gemm":
        A = a[0].T if attrs.get("transA") else a[0]
        B = a[1].T if attrs.get("transB") else a[1]
        return attrs.get("alpha", 1.0) * A @ B + attrs.get("beta", 1.0) * a[2]
    if op == "Conv" and a[0].ndim == 3:
        pads, b = attrs["pads"], a[2] if len(a) > 2 else None
        return conv2d(a[0][:, :, None, :], a[1][:, :, None, :], b, [1, attrs["strides"][0]],
                      [0, pads[0], 0, pads[1]], [1, attrs["dilations"][0]],
                      attrs.get("group", 1))[:, :, 0, :]
    if op == "Conv":
        w = a[1]
        k = w.shape[2:]
        pads = attrs.get("pads", [0, 0, 0, 0])
        if attrs.get("auto_pad") == "SAME_UPPER":
            tot = [kk - 1 for kk in k]
            pads = [tot[0] // 2, tot[1] // 2, tot[0] - tot[0] // 2, tot[1] - tot[1] // 2]
        return conv2d(a[0], w, a[2] if len(a) > 2 else None,
                      attrs.get("strides", [1, 1]), pads,
                      attrs.get("dilations", [1, 1]), attrs.get("group", 1))
    if op == "MaxPool":
        return pool(a[0], attrs["kernel_shape"], attrs["strides"], attrs["pads"], "max")
    if op == "AveragePool":
        return pool(a[0], attrs["kernel_shape"], attrs["strides"], attrs["pads"],
                    "avg", attrs.get("count_include_pad", 0) == 1)
    if op == "GlobalAveragePool":
        return a[0].mean(axis=(2, 3), keepdims=True)
    if op == "ReduceMean":
        return a[0].mean(axis=tuple(attrs["axes"]), keepdims=True)
    if op == "ReduceMax":
        return a[0].max(axis=tuple(attrs["axes"]), keepdims=bool(attrs.get("keepdims", 1)))
    if op == "Softmax":
        return softmax(a[0], attrs.get("axis", -1))
    if op == "LogSoftmax":
        return np.log(softmax(a[0], attrs.get("axis", -1)))
    if op == "LayerNormalization":
        m = a[0].mean(-1, keepdims=True)
        v = ((a[0] - m) ** 2).mean(-1, keepdims=True)
        return (a[0] - m) / np.sqrt(v + attrs["epsilon"]) * a[1] + a[2]
    if op == "BatchNormalization":
        c = lambda t: t[None, :, None, None]
        return (a[0] - c(a[3])) / np.sqrt(c(a[4]) + 1e-5) * c(a[1]) + c(a[2])
    if op == "Transpose":
        return a[0].transpose(attrs["perm"])
    if op == "Concat":
        return np.concatenate(a, axis=attrs["axis"])
    if op == "Slice":
        return a[0][1:-1, 2::3]
    if op == "Gather":
        n = a[0].shape[0]
        return np.take(a[0], np.where(a[1] < 0, a[1] + n, a[1]), axis=0,
                       mode="clip")
    if op == "Reshape":
        return a[0].reshape(4, -1)
    if op == "Flatten":
        return a[0].reshape(6, 20)
    if op == "Unsqueeze":
        return a[0][None, :, :, None]
    if op == "Expand":
        return np.broadcast_to(a[0], (2, 3, 4))
    if op == "Pad":
        return np.pad(a[0], ((0, 1), (1, 2)), constant_values=7.0)
    if op == "Cast":
        return a[0].astype(np.int64)
    raise ValueError(op)


def run_case(name, op, inputs, attrs, inits, expected, opset, out_type):
    folder = os.path.join(WORK, name)
    os.makedirs(folder, exist_ok=True)
    feeds = {k: v for k, v in inputs.items() if v is not None}
    graph_inputs, node_inputs, files = [], [], []
    all_values = {}
    for key, value in feeds.items():
        dtype = TensorProto.BOOL if value.dtype == bool else (
            TensorProto.INT64 if value.dtype == np.int64 else TensorProto.FLOAT)
        graph_inputs.append(helper.make_tensor_value_info(key, dtype, value.shape))
        node_inputs.append(key)
        np.save(os.path.join(folder, key + ".npy"), value)
        files += ["--input", "%s=%s" % (key, os.path.join(folder, key + ".npy"))]
        all_values[key] = value
    initializers = []
    for key, value in inits.items():
        initializers.append(numpy_helper.from_array(np.asarray(value), key))
        node_inputs.append(key)
        all_values[key] = np.asarray(value)
    node = helper.make_node(op, node_inputs, ["out"], name=name, **attrs)
    out_info = helper.make_tensor_value_info("out", out_type, None)
    graph = helper.make_graph([node], name, graph_inputs, [out_info], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model = onnx.shape_inference.infer_shapes(model)
    path = os.path.join(folder, "model.onnx")
    onnx.save(model, path)
    mlir = os.path.join(folder, "model.mlir")
    subprocess.run([os.path.join(BIN, "placer-translate"), "--import-onnx", path,
                    "-o", mlir], check=True)
    subprocess.run([os.path.join(BIN, "placer-run"), mlir, "--output-dir", folder,
                    "--cache-dir", os.path.join(WORK, "cache")] + files, check=True)
    got = np.load(os.path.join(folder, "out.npy"))
    if expected is None:
        expected = reference(name, op, {k: all_values[k] for k in node_inputs},
                             attrs)
    expected = np.asarray(expected)
    if got.shape != expected.shape:
        return "%s FAIL shape %s, expected %s" % (name, got.shape, expected.shape)
    err = float(np.max(np.abs(got.astype(np.float64) - expected.astype(np.float64)))) if got.size else 0.0
    tol = 1e-4 * max(1.0, float(np.max(np.abs(expected)))) if expected.size else 0
    return "%s %s %.1e" % (name, "ok" if err <= tol else "FAIL", err)


failures = 0
for c in CASES:
    line = run_case(*c)
    failures += "FAIL" in line
    print(line, flush=True)
sys.exit(1 if failures else 0)
