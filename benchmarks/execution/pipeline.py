#!/usr/bin/env python3
"""Pipelined execution over MPI against the unsplit model and the simulator.

    pipeline.py --bin BUILD/bin --work DIR [--cases gpt2,resnet50]
                [--ranks 2] [--microbatches 8] [--repeat 3]

For each model (built and exported as in compare.py, batch 1 per
microbatch): profile every node on this machine (placer-run --profile,
kind "rank"), place it over `ranks` devices of a cluster that describes
this machine's MPI ranks (WORK/cluster.json: profiled op times, links of
--bandwidth and --latency), split it, run the
unsplit model and `mpirun -n RANKS` the split one on the same seeded
inputs, and compare: time per microbatch (median over runs), the speed-up,
the simulator's prediction (--placer-simulate on the same split, made by
placer-run), the per-rank compute and wait times, and whether the outputs
are bitwise equal. Results: a table on stdout and WORK/pipeline.json.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (model definitions and export)


def run(cmd, env=None):
    result = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if result.returncode:
        raise SystemExit("%s failed (%d):\n%s%s" % (
            " ".join(cmd), result.returncode, result.stdout, result.stderr))
    return result.stdout


def cluster(path, ranks, link):
    """This machine as `ranks` identical devices joined by MPI's shared
    memory; op times come from the profile, so the FLOP/s only cover ops
    it misses."""
    with open(path, "w") as f:
        json.dump({
            "name": "mpi-ranks-on-this-machine",
            "device_kinds": [{"name": "rank", "type": "accelerator", "count": ranks,
                              "peak_flops": {"default": 50e9}, "memory_bandwidth": 10e9,
                              "memory_capacity": 64 << 30}],
            "links": {"default": link},
        }, f, indent=1)


def mpi_arguments(parser, repeat):
    """The options of a benchmark that runs MPI ranks on this machine."""
    parser.add_argument("--bin", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--bandwidth", type=float, default=5e9,
                        help="link bytes/s between ranks, for the prediction")
    parser.add_argument("--latency", type=float, default=2e-6)


def mpi_setup(args):
    """The work folder, a tool's path, the compile cache, the environment
    of mpirun, and WORK/cluster.json describing the ranks."""
    os.makedirs(args.work, exist_ok=True)
    tool = lambda name: os.path.join(args.bin, name)  # noqa: E731
    cache = os.path.join(args.work, "cache")
    # Open MPI's defaults otherwise: large messages move by a single copy
    # (CMA) that the receiver makes alone; the tests switch it off for
    # containers, which makes transfers wait for both ranks (docs/Execution.md).
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cluster_json = os.path.join(args.work, "cluster.json")
    cluster(cluster_json, args.ranks, {"bandwidth": args.bandwidth, "latency": args.latency})
    return tool, cache, env, cluster_json


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    mpi_arguments(parser, repeat=3)
    parser.add_argument("--cases", default="gpt2,resnet50")
    parser.add_argument("--microbatches", type=int, default=8)
    args = parser.parse_args()
    tool, cache, env, cluster_json = mpi_setup(args)

    results = []
    print("%-9s %6s %12s %12s %8s %12s %9s  %s" % (
        "case", "ranks", "whole_s", "pipeline_s", "speedup", "simulated_s",
        "meas/sim", "bitwise"))
    for case in args.cases.split(","):
        folder = os.path.join(args.work, "pipeline-" + case)
        os.makedirs(folder, exist_ok=True)
        _, _, dims = compare.build(case, folder, 17)
        mlir = os.path.join(folder, "model.mlir")
        cmd = [tool("placer-translate"), "--import-onnx", os.path.join(folder, "model.onnx"),
               "-o", mlir]
        for dim in dims:
            cmd += ["--dim", dim]
        run(cmd)
        profile = os.path.join(folder, "profile.json")
        run([tool("placer-run"), mlir, "--profile", profile, "--profile-kind", "rank",
             "--repeat", "3", "--cache-dir", cache])
        split = os.path.join(folder, "split.mlir")
        run([tool("placer-opt"), mlir, "--partition-devices=devices=%d cluster=%s profile=%s"
             % (args.ranks, cluster_json, profile), "-o", split])

        common = ["--microbatches", str(args.microbatches), "--repeat", str(args.repeat),
                  "--cache-dir", cache]
        whole_report = os.path.join(folder, "whole.json")
        run([tool("placer-run"), mlir, "--output-dir", os.path.join(folder, "whole"),
             "--report", whole_report] + common)
        split_report = os.path.join(folder, "split.json")
        run(["mpirun", "-n", str(args.ranks), "--bind-to", "core", tool("placer-run"), split,
             "--output-dir", os.path.join(folder, "split"), "--report", split_report] + common,
            env=env)
        with open(whole_report) as f:
            whole = json.load(f)
        with open(split_report) as f:
            piped = json.load(f)
        a = np.load(whole["outputs"][0]["file"])
        b = np.load(piped["outputs"][0]["file"])
        bitwise = a.shape == b.shape and a.tobytes() == b.tobytes()
        whole_s = whole["seconds_per_run"]["median"]
        piped_s = piped["seconds_per_run"]["median"]
        simulated = piped.get("simulated", {}).get("seconds_per_run", float("nan"))
        row = {"case": case, "ranks": args.ranks, "microbatches": args.microbatches,
               "whole_seconds_per_microbatch": whole_s,
               "pipeline_seconds_per_microbatch": piped_s,
               "speedup": whole_s / piped_s,
               "simulated_seconds_per_microbatch": simulated,
               "measured_over_simulated": piped_s / simulated,
               "per_rank": piped["ranks"], "bitwise_equal": bitwise}
        results.append(row)
        print("%-9s %6d %12.4e %12.4e %8.2f %12.4e %9.2f  %s" % (
            case, args.ranks, whole_s, piped_s, whole_s / piped_s, simulated,
            piped_s / simulated, "yes" if bitwise else "NO"), flush=True)
        for r in piped["ranks"]:
            print("    rank %d: compute %.4e s, recv wait %.4e s, send wait %.4e s, "
                  "sent %d bytes per run" % (r["rank"], r["compute_seconds"],
                                             r["recv_wait_seconds"], r["send_wait_seconds"],
                                             r["bytes_sent"]))
    with open(os.path.join(args.work, "pipeline.json"), "w") as f:
        json.dump(results, f, indent=2)
    if not all(r["bitwise_equal"] for r in results):
        sys.exit("pipelined outputs differ from the unsplit model")


if __name__ == "__main__":
    main()
