#!/usr/bin/env python3
"""Runs the ONNX backend node tests through placer-translate and placer-run.

    onnx_node_tests.py PLACER_TRANSLATE PLACER_RUN NODE_DIR WORK_DIR
        [--known FILE] [--min-pass N] [--only REGEX] [--jobs N]

Every test folder of NODE_DIR (model.onnx + test_data_set_*/{input,output}_*.pb)
is imported, compiled and run on each of its data sets; every output must keep
its expected shape and dtype and match within rtol 1e-3, atol 1e-5 (floats,
NaN equal to NaN) or exactly (integers, booleans).

A test that does not pass is 'refused' (a diagnostic and exit 1 from a tool),
'wrong' (an output differs), or a 'crash' / 'timeout'. The --known file lists
every test expected not to pass, one per line: 'NAME: reason'. The script exits
non-zero on any crash or timeout, on a failure the file does not list, on a
listed test that passes (the list must stay exact), or when fewer than N pass.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

TIMEOUT_S = 120


def file_name_for(name):
    """placer-run's output file name for a graph output (Launch.cpp)."""
    out = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    if not out or out[0] == ".":
        out = "_" + out
    return out + ".npy"


def read_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def first_error(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return stderr.strip()[-300:]


def classify(proc):
    """None when the tool succeeded, else (status, detail)."""
    if proc.returncode == 0:
        return None
    stderr = proc.stderr.decode(errors="replace")
    if proc.returncode == 1 and "error:" in stderr:
        return "refused", first_error(stderr)
    return "crash", "exit %d: %s" % (proc.returncode, stderr.strip()[-300:])


def bfloat16_to_float(bits):
    """bfloat16 values held as their uint16 bits (ONNX's numpy_helper and
    placer-run's convention) as float32."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def compare(name, expected, actual, bfloat16=False):
    """None when equal enough, else what differs. bfloat16 outputs (uint16
    bits on both sides) compare as floats within one bfloat16 ulp, 2^-7
    relative: ONNX 1.12's reference casts to bfloat16 by truncation, Placer
    rounds to nearest even as PyTorch and onnxruntime do."""
    if bfloat16 and expected.dtype == np.uint16 and actual.dtype == np.uint16:
        if actual.shape != expected.shape:
            return "%s: shape %s, expected %s" % (name, actual.shape, expected.shape)
        a = bfloat16_to_float(actual).astype(np.float64)
        e = bfloat16_to_float(expected).astype(np.float64)
        ok = np.isclose(a, e, rtol=2.0 ** -7, atol=1e-5, equal_nan=True)
        if not ok.all():
            worst = np.argmax(~ok)
            return "%s: %d of %d bfloat16 values differ (e.g. %r vs %r)" % (
                name, int((~ok).sum()), ok.size, a.flat[worst], e.flat[worst])
        return None
    if actual.shape != expected.shape:
        return "%s: shape %s, expected %s" % (name, actual.shape, expected.shape)
    if expected.dtype.kind in "fc":
        if actual.dtype != expected.dtype:
            return "%s: dtype %s, expected %s" % (name, actual.dtype,
                                                 expected.dtype)
        a = actual.astype(np.float64)
        e = expected.astype(np.float64)
        ok = np.isclose(a, e, rtol=1e-3, atol=1e-5, equal_nan=True)
        if not ok.all():
            worst = np.argmax(~ok)
            return "%s: %d of %d values differ (e.g. %r vs %r)" % (
                name, int((~ok).sum()), ok.size, a.flat[worst], e.flat[worst])
        return None
    if actual.dtype != expected.dtype:
        return "%s: dtype %s, expected %s" % (name, actual.dtype, expected.dtype)
    if not np.array_equal(actual, expected):
        return "%s: values differ" % name
    return None


def run_test(tools, test_dir, work):
    """(status, detail) with status 'pass', 'refused', 'wrong', 'crash' or
    'timeout'."""
    translate, runner = tools
    os.makedirs(work, exist_ok=True)
    model_path = os.path.join(test_dir, "model.onnx")
    mlir = os.path.join(work, "model.mlir")
    try:
        proc = subprocess.run([translate, "--import-onnx", model_path, "-o", mlir],
                              capture_output=True, timeout=TIMEOUT_S)
        failed = classify(proc)
        if failed:
            return failed
        model = onnx.load(model_path)
        for value in list(model.graph.input) + list(model.graph.output):
            if not value.type.HasField("tensor_type"):
                # placer-run's inputs and outputs are .npy arrays: it must
                # refuse the model with one clear error, never crash on it.
                proc = subprocess.run(
                    [runner, mlir, "--output-dir", os.path.join(work, "out"),
                     "--cache-dir", os.path.join(work, "cache")],
                    capture_output=True, timeout=TIMEOUT_S)
                failed = classify(proc)
                if failed and failed[0] != "refused":
                    return failed
                return "refused", "%s is a %s, not a tensor" % (
                    value.name, value.type.WhichOneof("value"))
        initializers = {i.name for i in model.graph.initializer}
        inputs = [i.name for i in model.graph.input if i.name not in initializers]
        outputs = [o.name for o in model.graph.output]
        bfloat16_outputs = {o.name for o in model.graph.output
                            if o.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16}
        sets = sorted(d for d in os.listdir(test_dir)
                      if d.startswith("test_data_set_"))
        for data_set in sets:
            data_dir = os.path.join(test_dir, data_set)
            out_dir = os.path.join(work, data_set)
            args = [runner, mlir, "--output-dir", out_dir,
                    "--cache-dir", os.path.join(work, "cache")]
            for i, name in enumerate(inputs):
                pb = os.path.join(data_dir, "input_%d.pb" % i)
                if not os.path.exists(pb):
                    continue  # an optional input left out
                npy = os.path.join(work, "%s.input_%d.npy" % (data_set, i))
                np.save(npy, read_tensor(pb))
                args += ["--input", "%s=%s" % (name, npy)]
            proc = subprocess.run(args, capture_output=True, timeout=TIMEOUT_S)
            failed = classify(proc)
            if failed:
                return failed
            for i, name in enumerate(outputs):
                pb = os.path.join(data_dir, "output_%d.pb" % i)
                if not os.path.exists(pb):
                    continue
                actual = os.path.join(out_dir, file_name_for(name))
                if not os.path.exists(actual):
                    return "wrong", "%s: no output written" % name
                diff = compare(name, read_tensor(pb), np.load(actual),
                               bfloat16=name in bfloat16_outputs)
                if diff:
                    return "wrong", diff
    except subprocess.TimeoutExpired:
        return "timeout", "over %d s" % TIMEOUT_S
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return "pass", ""


def read_known(path):
    known = {}
    if not path:
        return known
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, reason = line.partition(":")
            if not sep or not reason.strip():
                sys.exit("%s:%d: expected 'NAME: reason'" % (path, number))
            known[name.strip()] = reason.strip()
    return known


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("translate")
    parser.add_argument("runner")
    parser.add_argument("root")
    parser.add_argument("work")
    parser.add_argument("--known")
    parser.add_argument("--min-pass", type=int, default=0)
    parser.add_argument("--only")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--verbose", action="store_true",
                        help="print every test that does not pass")
    args = parser.parse_args()

    tests = sorted(d for d in os.listdir(args.root)
                   if os.path.exists(os.path.join(args.root, d, "model.onnx")))
    if args.only:
        tests = [t for t in tests if re.search(args.only, t)]
    known = read_known(args.known)
    os.makedirs(args.work, exist_ok=True)
    tools = (args.translate, args.runner)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(
            lambda t: run_test(tools, os.path.join(args.root, t),
                               os.path.join(args.work, t)), tests))

    counts = {}
    for status, _ in results:
        counts[status] = counts.get(status, 0) + 1
    print("tests: %d" % len(tests))
    for status in ("pass", "refused", "wrong", "crash", "timeout"):
        print("%s: %d" % (status, counts.get(status, 0)))

    problems = []
    for test, (status, detail) in zip(tests, results):
        if args.verbose and status != "pass":
            print("%s %s: %s" % (status, test, detail))
        if status in ("crash", "timeout"):
            problems.append("%s %s: %s" % (status, test, detail))
        elif status != "pass" and test not in known and args.known:
            problems.append("unlisted %s %s: %s" % (status, test, detail))
        elif status == "pass" and test in known:
            problems.append("passes but is listed: %s" % test)
    if args.known and not args.only:
        for test in sorted(set(known) - set(tests)):
            problems.append("listed but not a test: %s" % test)
    for problem in problems:
        print(problem)
    passed = counts.get("pass", 0)
    if problems or passed < args.min_pass:
        print("FAILED (%d pass, at least %d needed)" % (passed, args.min_pass))
        sys.exit(1)


if __name__ == "__main__":
    main()
