#!/usr/bin/env python3
"""Damages small valid ONNX models in every way the importer must survive.

    malformed_models.py PLACER_TRANSLATE PLACER_OPT WORK_DIR [--seed S]

Two families of inputs, all generated here (deterministic for a seed):
  - named damages of a valid model (wrong ranks for ONNX's own inference
    functions, wrong arity, attributes of the wrong kind or missing, huge or
    negative dims, short tensor data, external data leaving the folder, a
    cycle, ...), each expected to be refused with a message naming it;
  - byte-level damage of every base model: truncations, flipped and
    inserted bytes at seeded positions.
Every input is imported; what imports also goes through --partition-devices=2
and, separately, --placer-lower-graph-to-linalg. A run either succeeds (exit 0) or fails
with an 'error:' line (exit 1); anything else is a crash. A refused input
must leave no output file behind.

Prints the counts and every crash or missing message; exits non-zero on any.
"""
import argparse
import concurrent.futures
import os
import random
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def weight(name, *shape):
    rng = np.random.default_rng(len(name) + sum(shape))
    return nh.from_array(rng.standard_normal(shape).astype(np.float32), name)


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = h.make_graph(nodes, "g", inputs, outputs, list(inits))
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


def vi(name, shape, elem=T.FLOAT):
    return h.make_tensor_value_info(name, elem, shape)


def mlp():
    return model(
        [h.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
         h.make_node("Add", ["h", "b"], ["a"], name="add"),
         h.make_node("Relu", ["a"], ["r"], name="relu"),
         h.make_node("Softmax", ["r"], ["y"], name="softmax", axis=-1)],
        [vi("x", [2, 4])], [vi("y", [2, 3])], [weight("w", 4, 3), weight("b", 3)])


def cnn(**conv_attrs):
    attrs = {"pads": [1, 1, 1, 1]}
    attrs.update(conv_attrs)
    return model(
        [h.make_node("Conv", ["x", "w"], ["c"], name="conv", **attrs),
         h.make_node("MaxPool", ["c"], ["p"], name="pool", kernel_shape=[2, 2],
                     strides=[2, 2]),
         h.make_node("GlobalAveragePool", ["p"], ["y"], name="gap")],
        [vi("x", [1, 2, 6, 6])], [vi("y", [1, 3, 1, 1])], [weight("w", 3, 2, 3, 3)])


def lstm(x_shape):
    return model(
        [h.make_node("Relu", ["x"], ["r"], name="relu"),
         h.make_node("LSTM", ["r", "W", "R"], ["y"], name="lstm", hidden_size=2)],
        [vi("x", x_shape)], [vi("y", None)],
        [weight("W", 1, 8, 3), weight("R", 1, 8, 2)], opset=7)


def with_node(m, index, **changes):
    node = m.graph.node[index]
    for key, value in changes.items():
        if key == "attribute":
            del node.attribute[:]
            node.attribute.extend(value)
        else:
            del getattr(node, key)[:]
            getattr(node, key).extend(value)
    return m


def external(location):
    m = mlp()
    w = m.graph.initializer[0]
    w.ClearField("raw_data")
    w.ClearField("float_data")
    w.data_location = T.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", "48")):
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    return m


def short_data():
    m = mlp()
    m.graph.initializer[0].raw_data = b"\0" * 7
    return m


def conv_weight_rank():
    m = cnn()
    m.graph.initializer[0].CopyFrom(weight("w", 3, 2, 3))
    return m


def cycle():
    m = mlp()
    m.graph.node[0].input[0] = "r"
    return m


def contradicting_type():
    # A declared rank-0 'a' that Add computes as rank 2.
    m = mlp()
    m.graph.value_info.extend([vi("a", [])])
    return m


# name -> (model, the part of an error message each run must print)
NAMED = {
    "conv-kernel-rank": (lambda: cnn(kernel_shape=[3, 3, 3]),
                         "attribute 'kernel_shape' has 3 entries"),
    "conv-weight-rank": (conv_weight_rank,
                         "weight 'w' has rank 3 but input 'x' has rank 4"),
    "conv-group-zero": (lambda: cnn(group=0), "attribute 'group' is 0"),
    "conv-negative-pad": (lambda: cnn(pads=[1, -1, 1, 1]),
                          "entries must be non-negative"),
    "pool-zero-stride": (lambda: with_node(cnn(), 1, attribute=[
        h.make_attribute("kernel_shape", [2, 2]),
        h.make_attribute("strides", [0, 2])]), "entries must be positive"),
    "lstm-inferred-rank": (lambda: lstm([2, 3]), "LSTM needs rank 3"),
    "relu-two-outputs": (lambda: with_node(mlp(), 2, output=["r", "r2"]),
                         "has 2 outputs but Relu-14 takes 1"),
    "matmul-one-input": (lambda: with_node(mlp(), 0, input=["x"]),
                         "has 1 inputs but MatMul-13 takes 2"),
    # An empty name leaves out an optional input only: a required one left
    # out reached the lowering as graph.none.
    "softmax-empty-input": (lambda: with_node(mlp(), 3, input=[""]),
                            "required input #0 ('input') of Softmax-13 is empty"),
    "softmax-float-axis": (lambda: with_node(mlp(), 3, attribute=[
        h.make_attribute("axis", 1.5)]), "is FLOAT but Softmax-13 expects INT"),
    # The opset-8 Scan family without its body: ONNX's inference function
    # would read the missing graph (the schema check runs first).
    "scan8-without-body": (lambda: model(
        [h.make_node("Scan", ["", "x"], ["y"], name="scan", num_scan_inputs=1)],
        [vi("x", [1, 2, 3])], [vi("y", None)], opset=8),
        "misses required attribute 'body'"),
    "cast-without-to": (lambda: model(
        [h.make_node("Cast", ["x"], ["y"], name="cast")], [vi("x", [2])],
        [vi("y", [2])]), "misses required attribute 'to'"),
    "huge-dims": (lambda: model(
        [h.make_node("Relu", ["x"], ["y"], name="relu")],
        [vi("x", [1 << 30, 1 << 30])], [vi("y", None)]),
        "has a shape of more than 281474976710656 bytes"),
    "negative-dim": (lambda: model(
        [h.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2, -3])],
        [vi("y", None)]), "has negative dim -3"),
    "short-tensor-data": (short_data, "initializer 'w'"),
    "external-dotdot": (lambda: external("../w.bin"),
                        "location '../w.bin' is not inside the model's directory"),
    "external-absolute": (lambda: external("/etc/passwd"),
                          "location '/etc/passwd' is not inside the model's directory"),
    "undefined-input": (lambda: with_node(mlp(), 1, input=["h", "ghost"]),
                        "input 'ghost' is not produced"),
    "cycle": (cycle, "cycle"),
    "contradicting-type": (contradicting_type,
                           "a declared type contradicts ONNX's shape inference"),
}


def byte_damage(name, data, rng, count):
    """(name, bytes) damaged copies of one serialized model."""
    out = []
    for i in range(count):
        b = bytearray(data)
        kind = i % 3
        pos = rng.randrange(len(b))
        if kind == 0:
            b = b[:pos]
        elif kind == 1:
            for _ in range(1 + rng.randrange(4)):
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        else:
            b[pos:pos] = bytes(rng.randrange(256) for _ in range(1 + rng.randrange(8)))
        out.append(("%s-bytes-%d" % (name, i), bytes(b)))
    return out


def run(*args):
    try:
        return subprocess.run(list(args), capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None


def outcome(proc):
    """('ok' | 'error' | 'crash', stderr)."""
    if proc is None:
        return "crash", "timed out"
    err = proc.stderr.decode(errors="replace")
    if proc.returncode == 0:
        return "ok", err
    if proc.returncode == 1 and "error:" in err:
        return "error", err
    return "crash", "exit %d: %s" % (proc.returncode, err.strip()[-400:])


def check(tools, work, name, data):
    """Problems found with one input (empty when it behaved)."""
    translate, opt = tools
    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    with open(path, "wb") as f:
        f.write(data)
    mlir = os.path.join(folder, "model.mlir")
    status, err = outcome(run(translate, "--import-onnx", path, "-o", mlir))
    messages = err
    if status == "crash":
        return status, ["%s: import crashed: %s" % (name, err)], messages
    if status == "error":
        if os.path.exists(mlir):
            return status, ["%s: refused but wrote %s" % (name, mlir)], messages
        return status, [], messages
    # Each step from the imported module: both must cope with what import
    # accepted.
    problems = []
    for step in ("--partition-devices=2", "--placer-lower-graph-to-linalg"):
        out = os.path.join(folder, "after.mlir")
        s, e = outcome(run(opt, mlir, step, "-o", out))
        messages += e
        if s == "crash":
            problems.append("%s: placer-opt %s crashed: %s" % (name, step, e))
        if s != "ok" and status != "crash":
            status = s
    return status, problems, messages


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("translate")
    parser.add_argument("opt")
    parser.add_argument("work")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--per-model", type=int, default=40)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    cases = []
    for name, (build, _) in sorted(NAMED.items()):
        cases.append((name, build().SerializeToString()))
    rng = random.Random(args.seed)
    for name, build in (("mlp", mlp), ("cnn", cnn), ("lstm", lambda: lstm([2, 1, 3]))):
        cases.extend(byte_damage(name, build().SerializeToString(), rng,
                                 args.per_model))

    tools = (args.translate, args.opt)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda c: (c[0],) + check(tools, args.work, *c),
                                cases))

    problems = []
    counts = {"ok": 0, "error": 0, "crash": 0}
    for name, status, found, messages in results:
        counts[status] += 1
        problems.extend(found)
        if name in NAMED:
            expected = NAMED[name][1]
            if status != "error" or expected not in messages:
                problems.append("%s: expected an error containing %r, got %s: %s"
                                % (name, expected, status, messages.strip()[-300:]))
    print("inputs: %d (%d named damages)" % (len(results), len(NAMED)))
    print("accepted: %d" % counts["ok"])
    print("refused with an error: %d" % counts["error"])
    print("crashed: %d" % counts["crash"])
    print("problems: %d" % len(problems))
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
