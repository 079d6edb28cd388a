#!/usr/bin/env python3
"""Tensor-parallel execution over MPI: one sample's latency on one rank
against a tensor-parallel group of two, and the planner's prediction.

    tensor_parallel.py --bin BUILD/bin --work DIR [--d 1024] [--heads 16]
                       [--layers 4] [--repeat 9] [--ranks 2]

The model is compare.py's GPT-2-style decoder (vocabulary 8,192, context
128) at hidden size `d`, seeded random weights, exported by PyTorch. Every
node is profiled on this machine (placer-run --profile, kind "rank"); the
decoder is placed with tensor-degrees=RANKS on RANKS devices of a cluster
describing this machine's MPI ranks (profiled op times, links of
--bandwidth and --latency, as pipeline.py's): the three-dimensional planner
predicts the time per sample from the profile and the collectives' link
model. With --objective latency (the default) it plans one sample's latency
over degrees 1 and RANKS and chooses the degree itself (the table says
which); with throughput, tensor-degrees=RANKS at one microbatch. Then the unsplit model runs on one rank and the split one under
`mpirun -n RANKS`, one sample per run (batch 1, one microbatch); medians
over --repeat runs. Outputs are compared with PyTorch's. Results: a table
on stdout and WORK/tensor_parallel.json.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (the decoder and its export)
import pipeline  # noqa: E402  (this machine as a cluster of ranks)


run = pipeline.run


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    pipeline.mpi_arguments(parser, repeat=9)
    parser.add_argument("--d", type=int, default=1024)
    parser.add_argument("--objective", choices=["latency", "throughput"], default="latency")
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--layers", type=int, default=4)
    args = parser.parse_args()
    import torch
    tool, cache, env, cluster_json = pipeline.mpi_setup(args)

    torch.manual_seed(0)
    model = compare.Decoder(d=args.d, heads=args.heads, layers=args.layers).eval()
    ids = torch.randint(0, 8192, (1, 128))
    onnx_path = os.path.join(args.work, "decoder.onnx")
    with torch.inference_mode():
        torch.onnx.export(model, (ids,), onnx_path, input_names=["input_ids"],
                          output_names=["logits"], opset_version=17,
                          do_constant_folding=True)
        reference = model(ids).numpy()
    ids_npy = os.path.join(args.work, "ids.npy")
    np.save(ids_npy, ids.numpy())
    mlir = os.path.join(args.work, "decoder.mlir")
    run([tool("placer-translate"), "--import-onnx", onnx_path, "-o", mlir])
    profile = os.path.join(args.work, "profile.json")
    run([tool("placer-run"), mlir, "--profile", profile, "--profile-kind", "rank",
         "--repeat", "3", "--cache-dir", cache])
    split = os.path.join(args.work, "tensor.mlir")
    plan_json = os.path.join(args.work, "plan.json")
    degrees = ("1,%d" % args.ranks) if args.objective == "latency" else str(args.ranks)
    run([tool("placer-opt"), mlir,
         "--partition-devices=devices=%d tensor-degrees=%s objective=%s microbatches=1 "
         "cluster=%s profile=%s report=%s" % (args.ranks, degrees, args.objective,
                                              cluster_json, profile, plan_json),
         "-o", split])
    with open(plan_json) as f:
        plan = json.load(f)

    common = ["--input", "input_ids=" + ids_npy, "--repeat", str(args.repeat),
              "--cache-dir", cache]
    whole_report = os.path.join(args.work, "whole.json")
    run([tool("placer-run"), mlir, "--output-dir", os.path.join(args.work, "whole"),
         "--report", whole_report] + common)
    split_report = os.path.join(args.work, "split.json")
    run(["mpirun", "-n", str(args.ranks), "--bind-to", "core", tool("placer-run"), split,
         "--output-dir", os.path.join(args.work, "split"), "--report", split_report] + common,
        env=env)
    with open(whole_report) as f:
        whole = json.load(f)
    with open(split_report) as f:
        split_run = json.load(f)
    logits = {name: np.load(report["outputs"][0]["file"])
              for name, report in (("whole", whole), ("tensor", split_run))}
    scale = float(np.abs(reference).max())
    errors = {name: float(np.abs(value - reference).max()) / scale
              for name, value in logits.items()}
    whole_s = whole["seconds_per_run"]["median"]
    tensor_s = split_run["seconds_per_run"]["median"]
    predicted = plan["latency"] if args.objective == "latency" else plan["time_per_sample"]
    stages = [(s["tensor_degree"], s["data_degree"]) for s in plan["stages"]]
    row = {"d": args.d, "heads": args.heads, "layers": args.layers, "ranks": args.ranks,
           "objective": args.objective,
           "plan_stages_tensor_data": stages,
           "whole_seconds": whole_s, "tensor_seconds": tensor_s,
           "tensor_over_whole": tensor_s / whole_s,
           "predicted_seconds": predicted, "measured_over_predicted": tensor_s / predicted,
           "max_rel_error_vs_torch": errors,
           "per_rank": split_run["ranks"]}
    print("plan (%s): stages (t, d) %s" % (args.objective, stages))
    print("%6s %6s %12s %12s %8s %12s %9s  %s" % (
        "d", "ranks", "whole_s", "tensor_s", "ratio", "predicted_s", "meas/pred",
        "error vs torch (whole, tensor)"))
    print("%6d %6d %12.4e %12.4e %8.3f %12.4e %9.3f  %.1e, %.1e" % (
        args.d, args.ranks, whole_s, tensor_s, tensor_s / whole_s, predicted,
        tensor_s / predicted, errors["whole"], errors["tensor"]))
    for r in split_run["ranks"]:
        print("    rank %d: compute %.4e s, recv wait %.4e s, sent %d bytes per run" % (
            r["rank"], r["compute_seconds"], r["recv_wait_seconds"], r["bytes_sent"]))
    with open(os.path.join(args.work, "tensor_parallel.json"), "w") as f:
        json.dump(row, f, indent=2)


if __name__ == "__main__":
    main()
