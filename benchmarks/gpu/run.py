#!/usr/bin/env python3
"""The GPU benchmark, on the GPU machine (scripts/gpu-check.sh runs it).

    run.py --run RUNTIME/bin/placer-run --prepared DIR --out OUT [--repeat 30]

For each model DIR/models/NAME (benchmarks/gpu/prepare.py): writes the
artifact's weights.bin from the formulas (models.py) and extra.bin, runs it
with placer-run (median seconds per run after a warm-up: the program
copies its input to the GPU and its output back), builds the same model in
PyTorch on the GPU (TF32 off in both, cuDNN benchmark mode) and times it
with CUDA events, median of `repeat` after 8 warm-ups, with the input on the
GPU already and, for comparison, with the copies in and out too. Writes
OUT/gpu-results.json and prints a table. Variants: NAME-profile and
NAME-cpuprofile write per-node profiles (GPU; one CPU core) to OUT;
NAME-tf32 (compiled with --gpu-tf32) is timed against PyTorch with TF32
on, beside PyTorch under bf16 autocast and, for --compile MODELS,
torch.compile with TF32 (NAME-tf32-profile: its per-node profile);
NAME-bf16 (compiled with --gpu-precision=bf16) against PyTorch eager under
bf16 autocast, both outputs' errors against strict fp32 reported; a
"-nhwc" variant (--gpu-channels-last) against the same PyTorch run as
without it;
NAME-split runs a CPU+GPU split under mpirun; NAME-measured (made by
benchmarks/gpu/split.py from those profiles) runs its microbatches
pipelined and compares with the simulator's time (simulated.json).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import models  # noqa: E402


def write_weights(artifact):
    recipe = json.load(open(os.path.join(artifact, "weights.json")))
    extra = open(os.path.join(artifact, "extra.bin"), "rb").read()
    # The manifest has each weight's shape; the formulas need it.
    manifest = json.load(open(os.path.join(artifact, "manifest.json")))
    shapes = {spec["name"]: tuple(spec["shape"]) for spec in manifest["weights"]}
    data = bytearray(recipe["weights_bytes"])
    for w in recipe["weights"]:
        if "formula" in w:
            value = models.tensor_bytes(w["formula"], shapes[w["name"]],
                                        w.get("element_type", "f32"))
        else:
            value = extra[w["extra"]:w["extra"] + w["bytes"]]
        data[w["offset"]:w["offset"] + w["bytes"]] = value
    open(os.path.join(artifact, "weights.bin"), "wb").write(bytes(data))


def time_cuda(fn, repeat):
    for _ in range(8):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return float(np.median(times))


def set_tf32(on):
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on


def relative_error(got, want):
    return float(np.abs(got.astype(np.float64) - want).max() / np.abs(want).max())


def torch_anchors(model, x, want, repeat, compiled):
    """What users run on tensor cores, timed as the eager run is: bf16
    autocast (its error against fp32 too) and, if `compiled`,
    torch.compile with TF32 on (the caller's setting)."""
    anchors = {}
    with torch.autocast("cuda", dtype=torch.bfloat16):
        anchors["torch_bf16_autocast_seconds"] = time_cuda(lambda: model(x), repeat)
        anchors["torch_bf16_autocast_rel_error"] = relative_error(model(x).float().cpu().numpy(), want)
    if compiled:
        start = time.time()
        fast = torch.compile(model)
        fast(x)
        anchors["torch_compile_first_call_seconds"] = time.time() - start
        anchors["torch_compile_tf32_seconds"] = time_cuda(lambda: fast(x), repeat)
    return anchors


def torch_op_times(model, x):
    """PyTorch's GPU time per operator type for one run (torch.profiler),
    milliseconds: what each op family costs there, beside placer's
    profile."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        model(x)
        torch.cuda.synchronize()
    times = {}
    for event in prof.key_averages():
        if event.device_time_total > 0:
            times[event.key] = event.device_time_total / 1e3
    return dict(sorted(times.items(), key=lambda kv: -kv[1])[:25])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", required=True)
    parser.add_argument("--prepared", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--models", default="")
    parser.add_argument("--torch-profile", action="store_true",
                        help="also write PyTorch's GPU time per operator")
    parser.add_argument("--compile", default="",
                        help="models (comma-separated) whose TF32 variant is also "
                             "timed under torch.compile")
    args = parser.parse_args()
    set_tf32(False)
    torch.backends.cudnn.benchmark = True
    device = torch.cuda.get_device_name(0)
    results = {"device": device, "torch": torch.__version__, "models": {}}
    names = [n for n in (args.models.split(",") if args.models else sorted(os.listdir(os.path.join(args.prepared, "models"))))]
    for name in names:
        folder = os.path.join(args.prepared, "models", name)
        artifact = os.path.join(folder, "artifact")
        base, _, variant = name.partition("-")
        words = set(variant.split("-")) - {""}
        tf32 = "tf32" in words
        bf16 = "bf16" in words
        entry = {}
        try:
            stages = sorted(d for d in os.listdir(artifact) if d.startswith("stage-")) or [""]
            for stage in stages:
                write_weights(os.path.join(artifact, stage))
            model, input_name, x = models.build(base)
            x_path = os.path.join(folder, "input.npy")
            np.save(x_path, x.numpy())
            out_dir = os.path.join(folder, "out")
            report = os.path.join(folder, "report.json")
            command = [args.run, artifact, "--input", "%s=%s" % (input_name, x_path),
                       "--output-dir", out_dir, "--report", report]
            env = dict(os.environ)
            mpirun = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", str(len(stages))]
            if "profile" in words:
                # Per-node GPU times, as --placer-estimate-costs reads them.
                command += ["--profile", os.path.join(args.out, name + ".json"),
                            "--profile-kind", "gpu", "--repeat", "5"]
            elif variant == "cpuprofile":
                # The same on one core, as a GPU split's CPU stage runs.
                command += ["--profile", os.path.join(args.out, name + ".json"),
                            "--profile-kind", "cpu", "--repeat", "1", "--threads", "1"]
                env["LD_LIBRARY_PATH"] = os.path.join(args.prepared, "lib")
            elif variant == "split":
                command = mpirun + command + ["--repeat", "5"]
            elif variant == "measured":
                # benchmarks/gpu/split.py's placement: `microbatches` copies
                # of the input pipelined through the stages.
                simulated = json.load(open(os.path.join(folder, "simulated.json")))
                batches = simulated["microbatches"]
                np.save(x_path, np.concatenate([x.numpy()] * batches))
                command = mpirun + command + ["--microbatches", str(batches), "--repeat", "5"]
                entry["simulated"] = simulated
            else:
                command += ["--repeat", str(args.repeat)]
                # cuDNN's candidates and choice per convolution shape.
                env["PLACER_CUDA_LOG"] = "1"
            start = time.time()
            proc = subprocess.run(command, capture_output=True, text=True, env=env)
            log = [l for l in proc.stderr.splitlines() if l.startswith("placer_gpu_")]
            if log:
                with open(os.path.join(args.out, name + "-cuda-log.txt"), "w") as f:
                    f.write("\n".join(log) + "\n")
            stderr = "\n".join(l for l in proc.stderr.splitlines() if not l.startswith("placer_gpu_"))
            entry["output"] = (proc.stdout + stderr)[-3000:]
            entry["placer_wall_seconds"] = time.time() - start
            if proc.returncode:
                entry["error"] = (proc.stdout + stderr)[-2000:]
                raise RuntimeError(entry["error"])
            rep = json.load(open(report))
            entry["report"] = rep
            if words & {"profile", "cpuprofile"}:
                results["models"][name] = entry
                continue
            entry["placer_seconds"] = rep["seconds_per_run"]["median"]
            if variant == "measured":
                entry["measured_over_simulated"] = (entry["placer_seconds"] /
                                                    entry["simulated"]["seconds_per_run"])
            # A pipelined run's outputs are its microbatches' stacked: the
            # first is the input's.
            got = np.load(os.path.join(out_dir, "logits.npy"))[:x.shape[0]]
            model = model.cuda()
            xg = x.cuda()
            with torch.no_grad():
                # The reference is strict fp32 whatever the variant.
                want = model(xg).float().cpu().numpy()
                set_tf32(tf32)
                # A bf16 artifact against what PyTorch users run in bf16.
                with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
                    entry["torch_seconds"] = time_cuda(lambda: model(xg), args.repeat)
                    entry["torch_with_copies_seconds"] = time_cuda(
                        lambda: model(x.cuda()).cpu(), args.repeat)
                    if bf16:
                        entry["torch_rel_error"] = relative_error(
                            model(xg).float().cpu().numpy(), want)
                if (variant == "" or words == {"tf32"}) and args.torch_profile:
                    entry["torch_profile"] = torch_op_times(model, xg)
                if words == {"tf32"}:
                    entry.update(torch_anchors(model, xg, want, args.repeat,
                                               base in args.compile.split(",")))
                set_tf32(False)
            entry["max_rel_error"] = relative_error(got, want)
            entry["ratio"] = entry["placer_seconds"] / entry["torch_seconds"]
            entry["ratio_with_copies"] = entry["placer_seconds"] / entry["torch_with_copies_seconds"]
            del model, xg
            torch.cuda.empty_cache()
        except Exception as e:  # one model's failure must not hide the others'
            entry.setdefault("error", repr(e)[-2000:])
        results["models"][name] = entry
        print(name, json.dumps(entry), flush=True)
    os.makedirs(args.out, exist_ok=True)
    json.dump(results, open(os.path.join(args.out, "gpu-results.json"), "w"), indent=1)
    print("\n%s, PyTorch %s; TF32 off but in the -tf32 rows" % (device, torch.__version__))
    print("| model | placer-run | PyTorch eager | ratio | PyTorch with copies | ratio | max rel error |")
    print("|---|---|---|---|---|---|---|")
    for name, e in results["models"].items():
        if "error" in e:
            print("| %s | error: %s |" % (name, e["error"].splitlines()[-1] if e["error"] else ""))
            continue
        if "placer_seconds" not in e:
            print("| %s | profiled: %s |" % (name, os.path.join(args.out, name + ".json")))
            continue
        print("| %s | %.2f ms | %.2f ms | %.2fx | %.2f ms | %.2fx | %.1e |" % (
            name, e["placer_seconds"] * 1e3, e["torch_seconds"] * 1e3, e["ratio"],
            e["torch_with_copies_seconds"] * 1e3, e["ratio_with_copies"], e["max_rel_error"]))
    for name, e in results["models"].items():
        if "torch_bf16_autocast_seconds" in e:
            print("%s: PyTorch bf16 autocast %.2f ms (placer-run TF32 / that = %.2fx, its error %.1e)%s" % (
                name, e["torch_bf16_autocast_seconds"] * 1e3,
                e["placer_seconds"] / e["torch_bf16_autocast_seconds"], e["torch_bf16_autocast_rel_error"],
                "; torch.compile TF32 %.2f ms (placer-run / that = %.2fx)" % (
                    e["torch_compile_tf32_seconds"] * 1e3, e["placer_seconds"] / e["torch_compile_tf32_seconds"])
                if "torch_compile_tf32_seconds" in e else ""))
        if "measured_over_simulated" in e:
            print("%s: %d microbatches over %d ranks, %.2f ms per microbatch measured, "
                  "%.2f ms simulated: measured / simulated = %.2f" % (
                      name, e["simulated"]["microbatches"], e["simulated"]["ranks"],
                      e["placer_seconds"] * 1e3, e["simulated"]["seconds_per_run"] * 1e3,
                      e["measured_over_simulated"]))


if __name__ == "__main__":
    main()
