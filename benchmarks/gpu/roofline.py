#!/usr/bin/env python3
"""The cost model's GPU roofline against measured GPU times (no GPU needed).

    roofline.py --bin BUILD/bin --results benchmarks/gpu/results/DATE-DEVICE

For each model of a GPU benchmark run: exports it as prepare.py does,
estimates every node with --placer-estimate-costs="cluster=h100-sxm" (the
datasheet roofline) and prints, per op type, the roofline beside the times
measured there (placer-run --profile: CUDA events on the stream, each node
from the end of the one before it; docs/Execution.md), and the whole model:
roofline, the profile-based estimate (the same pass with profile=) and its
ratio to placer-run's unprofiled time, and PyTorch eager.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import prepare  # noqa: E402


def estimate(bin_dir, mlir, options):
    with tempfile.NamedTemporaryFile(suffix=".json") as dump:
        subprocess.run([os.path.join(bin_dir, "placer-opt"), mlir,
                        "--placer-estimate-costs=cluster=h100-sxm dump=%s %s" % (dump.name, options),
                        "-o", os.devnull], check=True, capture_output=True)
        return json.load(open(dump.name))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    results = json.load(open(os.path.join(args.results, "gpu-results.json")))
    print("Device: %s; roofline: the h100-sxm preset\n" % results["device"])
    print("| model | op type | nodes | roofline | measured (profiled) | measured / roofline |")
    print("|---|---|---|---|---|---|")
    totals = []
    with tempfile.TemporaryDirectory() as work:
        for name, entry in results["models"].items():
            profile_path = os.path.join(args.results, name + "-profile.json")
            if "-" in name or not os.path.exists(profile_path):
                continue
            onnx_path, mlir = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".mlir")
            prepare.export(name, onnx_path)
            subprocess.run([os.path.join(args.bin, "placer-translate"), "--import-onnx", onnx_path,
                            "-o", mlir], check=True, capture_output=True)
            roofline = estimate(args.bin, mlir, "")
            profiled = estimate(args.bin, mlir, "profile=" + profile_path)
            measured = json.load(open(profile_path))
            by_type = collections.defaultdict(lambda: [0, 0.0, 0.0])
            for op in roofline["ops"]:
                row = by_type[op.get("op_type", "?")]
                row[0] += 1
                row[1] += op["time"]["gpu"]
                row[2] += measured.get(op.get("name", ""), {}).get("gpu", 0.0)
            for op_type, (count, est, got) in sorted(by_type.items(), key=lambda kv: -kv[1][2]):
                if got < 1e-5 and est < 1e-5:
                    continue
                print("| %s | %s | %d | %.3f ms | %.3f ms | %s |" % (
                    name, op_type, count, est * 1e3, got * 1e3,
                    "%.1fx" % (got / est) if est > 0 else "-"))
            totals.append((name, roofline["totals"]["time"]["gpu"], profiled["totals"]["time"]["gpu"],
                           entry.get("placer_seconds"), entry.get("torch_seconds")))
    print("\n| model | roofline | with the profile | placer-run (unprofiled) | profile / run "
          "| roofline / run | PyTorch eager |")
    print("|---|---|---|---|---|---|---|")
    for name, est, prof, placer, torch_s in totals:
        print("| %s | %.2f ms | %.2f ms | %.2f ms | %.2f | %.2f | %.2f ms |" % (
            name, est * 1e3, prof * 1e3, placer * 1e3, prof / placer, est / placer,
            torch_s * 1e3))


if __name__ == "__main__":
    main()
