#!/usr/bin/env python3
"""A CPU+GPU split placed with measured costs (build machine, between two
GPU runs).

    split.py --bin BUILD/bin --results DIR --out .gpu [--model resnet50]
             [--microbatches 4]

DIR holds what scripts/gpu-check.sh measured on the GPU machine:
MODEL-profile.json (seconds per node on the GPU) and MODEL-cpuprofile.json
(on one core of that machine's CPU). Both go into one profile
(DIR/MODEL-measured-profile.json, node -> {"gpu": s, "cpu": s}); the model
is placed on benchmarks/gpu/cpu-gpu-cluster.json (one GPU, one core) with
those costs, simulated for `microbatches` microbatches
(--placer-simulate), and compiled into OUT/models/MODEL-measured, with the
simulator's figures in simulated.json there. The next GPU run
(benchmarks/gpu/run.py) runs it under mpirun and compares.
"""
import argparse
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import prepare  # noqa: E402


def merge_profiles(results, model):
    merged = {}
    for kind, suffix in (("gpu", "profile"), ("cpu", "cpuprofile")):
        path = os.path.join(results, "%s-%s.json" % (model, suffix))
        for node, times in json.load(open(path)).items():
            merged.setdefault(node, {})[kind] = times[kind]
    out = os.path.join(results, model + "-measured-profile.json")
    json.dump(merged, open(out, "w"), indent=1, sort_keys=True)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--microbatches", type=int, default=4)
    args = parser.parse_args()
    profile = merge_profiles(args.results, args.model)
    folder = os.path.join(args.out, "models", args.model + "-measured")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    onnx_path = os.path.join(folder, "model.onnx")
    model = prepare.export(args.model, onnx_path)
    mlir = os.path.join(folder, "model.mlir")
    prepare.run(os.path.join(args.bin, "placer-translate"), "--import-onnx", onnx_path, "-o", mlir)
    split = os.path.join(folder, "split.mlir")
    placement = os.path.join(folder, "placement.json")
    simulation = os.path.join(folder, "simulation.json")
    prepare.run(os.path.join(args.bin, "placer-opt"), mlir,
                "--partition-devices=cpus=1 cluster=%s profile=%s report=%s" % (
                    os.path.join(HERE, "cpu-gpu-cluster.json"), profile, placement),
                "--placer-simulate=microbatches=%d report=%s" % (args.microbatches, simulation),
                "-o", split)
    cache = os.path.join(args.out, "cache")
    artifact = os.path.join(folder, "artifact")
    prepare.compile_gpu(args.bin, split, artifact, cache)
    stages = sorted(d for d in os.listdir(artifact) if d.startswith("stage-"))
    for stage in stages:
        prepare.write_recipe(os.path.join(artifact, stage), model.state_dict())
    sim = json.load(open(simulation))
    place = json.load(open(placement))
    summary = {
        "microbatches": args.microbatches,
        "ranks": len(stages),
        # Per microbatch, fill and drain included: what placer-run's
        # seconds_per_run measures for a run of `microbatches`.
        "seconds_per_run": sim["total"] / args.microbatches,
        "steady_state_seconds_per_run": sim["time_per_sample"],
        "max_load": place["max_load"],
        "stages": [{k: s[k] for k in ("kind", "load", "nodes")} for s in place["stages"]],
    }
    json.dump(summary, open(os.path.join(folder, "simulated.json"), "w"), indent=1)
    for f in (onnx_path, mlir, split):
        os.remove(f)
    shutil.rmtree(cache, ignore_errors=True)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
