#!/usr/bin/env python3
"""Imports every model of Debian's libonnx-testdata and reports the outcome.

    testdata_sweep.py PLACER_TRANSLATE TESTDATA_DIR WORK_DIR [--min-percent P]

A model either imports (exit 0), is rejected with a diagnostic (exit 1 and an
'error:' line), or crashes (anything else). Each imported model is also
exported and imported again, which must give identical text. Prints a
summary, every model that did not import or round-trip with its first error,
and exits non-zero on any crash or round-trip difference, or when fewer than P
percent import.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys


def find_models(root):
    models = []
    for dirpath, _, files in os.walk(root):
        if "model.onnx" in files:
            models.append(os.path.join(dirpath, "model.onnx"))
    return sorted(models)


def run(tool, *args):
    return subprocess.run([tool, *args], capture_output=True, timeout=120)


def classify(proc):
    """'ok', or ('rejected' | 'crash', detail) for a failed run."""
    stderr = proc.stderr.decode(errors="replace")
    errors = [l for l in stderr.splitlines() if "error:" in l]
    if proc.returncode == 0:
        return "ok", ""
    if proc.returncode == 1 and errors:
        return "rejected", errors[0]
    return "crash", "exit %d: %s" % (proc.returncode, stderr.strip()[-300:])


def import_one(tool, work, model, index):
    first = run(tool, "--import-onnx", model)
    status, detail = classify(first)
    if status != "ok":
        return model, status, detail
    mlir = os.path.join(work, "%d.mlir" % index)
    exported = os.path.join(work, "%d.onnx" % index)
    with open(mlir, "wb") as f:
        f.write(first.stdout)
    for proc in (run(tool, "--export-onnx", mlir, "-o", exported),):
        status, detail = classify(proc)
        if status != "ok":
            return model, "crash" if status == "crash" else "roundtrip", detail
    second = run(tool, "--import-onnx", exported)
    if second.returncode != 0 or second.stdout != first.stdout:
        return model, "roundtrip", "re-import differs"
    return model, "ok", ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tool")
    parser.add_argument("root")
    parser.add_argument("work")
    parser.add_argument("--min-percent", type=float, default=98.0)
    args = parser.parse_args()

    models = find_models(args.root)
    os.makedirs(args.work, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(
            lambda im: import_one(args.tool, args.work, im[1], im[0]),
            enumerate(models)))

    counts = {"ok": 0, "rejected": 0, "crash": 0, "roundtrip": 0}
    for _, status, _ in results:
        counts[status] += 1
    total = len(results)
    print("models: %d" % total)
    imported = counts["ok"] + counts["roundtrip"]
    percent = 100.0 * imported / total if total else 0.0
    print("imported: %d (%.1f%%)" % (imported, percent))
    print("rejected: %d" % counts["rejected"])
    print("crashed: %d" % counts["crash"])
    print("round-trip differences: %d" % counts["roundtrip"])
    for model, status, detail in results:
        if status != "ok":
            name = os.path.relpath(os.path.dirname(model), args.root)
            print("%s %s: %s" % (status, name, detail))
    if counts["crash"] or counts["roundtrip"] or percent < args.min_percent:
        sys.exit(1)


if __name__ == "__main__":
    main()
