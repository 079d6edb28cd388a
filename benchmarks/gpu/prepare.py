#!/usr/bin/env python3
"""Builds, on a build machine, what the GPU machine runs (scripts/gpu-prepare.sh).

    prepare.py --bin BUILD/bin --out DIR [--models resnet18,resnet50,...]

DIR/tests/CASE: small programs compiled for the GPU, their inputs and the
outputs the CPU code gives (test/Runtime/Gpu/run-artifacts.sh).
DIR/models/NAME: each benchmark model (models.py) exported to ONNX here,
compiled with --target=cuda; its weights.bin is left out (regenerated from
the formulas there) and weights.json says, per weight of the manifest,
which state_dict tensor it is or which bytes of extra.bin (small constants
that are no state_dict tensor). That recipe is checked here: the bytes it
gives equal the compiled weights.bin.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import models  # noqa: E402


def run(*cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode:
        raise SystemExit("%s failed:\n%s%s" % (" ".join(cmd), result.stdout, result.stderr))
    return result.stdout


def compile_gpu(bin_dir, mlir, folder, cache, extra=()):
    run(os.path.join(bin_dir, "placer-run"), mlir, "--compile-only", folder,
        "--target=cuda", "--gpu-chip=sm_90", "--cache-dir", cache, *extra)


def write_recipe(folder, state):
    """weights.json + extra.bin from the manifest; checks them against weights.bin."""
    manifest = json.load(open(os.path.join(folder, "manifest.json")))
    weights = open(os.path.join(folder, manifest.get("weights_file", "weights.bin")), "rb").read()
    recipe, extra, rebuilt = [], bytearray(), bytearray(len(weights))
    for spec in manifest["weights"]:
        offset = spec["offset"]
        size = int(np.prod(spec["shape"], dtype=np.int64)) * spec["element_bytes"]
        data = weights[offset:offset + size]
        name = spec["name"]
        if (name in state and state[name].is_floating_point()
                and list(state[name].shape) == spec["shape"]):
            value = models.tensor_bytes(name, tuple(state[name].shape), spec["element_type"])
            recipe.append({"name": name, "offset": offset, "bytes": size, "formula": name,
                           "element_type": spec["element_type"]})
        else:
            value = data
            recipe.append({"name": name, "offset": offset, "bytes": size, "extra": len(extra)})
            extra += data
        rebuilt[offset:offset + size] = value
    if bytes(rebuilt) != weights:
        bad = [r["name"] for r in recipe
               if rebuilt[r["offset"]:r["offset"] + r["bytes"]] != weights[r["offset"]:r["offset"] + r["bytes"]]]
        raise SystemExit("%s: the formulas do not give the compiled weights: %s" % (folder, bad[:5]))
    json.dump({"weights_bytes": len(weights), "weights": recipe}, open(os.path.join(folder, "weights.json"), "w"), indent=1)
    open(os.path.join(folder, "extra.bin"), "wb").write(bytes(extra))
    os.remove(os.path.join(folder, "weights.bin"))
    return len(weights), len(extra)


def export(name, onnx_path):
    """Exports benchmark model `name` (models.py) to `onnx_path`; returns it."""
    model, input_name, x = models.build(name)
    with torch.no_grad():
        torch.onnx.export(model, (x,), onnx_path, input_names=[input_name],
                          output_names=["logits"], opset_version=17,
                          do_constant_folding=False,
                          training=torch.onnx.TrainingMode.PRESERVE)
    return model


def prepare_model(bin_dir, out, name, cache, variant=""):
    """variant: "" (the whole model), "profile" (compiled with per-node
    timers), "cpuprofile" (the same for the CPU: its times on the GPU
    machine's CPU, for benchmarks/gpu/split.py) or "split" (a CPU+GPU
    split, cpu-gpu-cluster.json's roofline costs); "tf32" and
    "tf32-profile" are the first two with TF32 tensor cores allowed
    (--gpu-tf32); "bf16" and "bf16-profile" computed in bf16
    (--gpu-precision=bf16: weights stored in bf16); "-nhwc" in any of
    these: convolutions on NHWC tensors (--gpu-channels-last)."""
    folder = os.path.join(out, "models", name + ("-" + variant if variant else ""))
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    onnx_path = os.path.join(folder, "model.onnx")
    model = export(name, onnx_path)
    mlir = os.path.join(folder, "model.mlir")
    run(os.path.join(bin_dir, "placer-translate"), "--import-onnx", onnx_path, "-o", mlir)
    artifact = os.path.join(folder, "artifact")
    if variant == "split":
        split_mlir = os.path.join(folder, "split.mlir")
        run(os.path.join(bin_dir, "placer-opt"), mlir, "--partition-devices=cpus=1 cluster=" +
            os.path.join(HERE, "cpu-gpu-cluster.json"), "-o", split_mlir)
        compile_gpu(bin_dir, split_mlir, artifact, cache)
        os.remove(split_mlir)
        stages = sorted(d for d in os.listdir(artifact) if d.startswith("stage-"))
    elif variant == "cpuprofile":
        # The GPU machine's runtime has no oneDNN: the code its split's CPU
        # stages run (generated loops), timed on its CPU.
        run(os.path.join(bin_dir, "placer-run"), mlir, "--compile-only", artifact,
            "--target=cpu-portable", "--cache-dir", cache,
            "--profile", os.path.join(folder, "unused.json"))
        stages = [""]
    else:
        words = variant.split("-")
        extra = ["--gpu-tf32"] if "tf32" in words else []
        if "bf16" in words:
            extra.append("--gpu-precision=bf16")
        if "nhwc" in words:
            extra.append("--gpu-channels-last")
        if "profile" in words:
            extra += ["--profile", os.path.join(folder, "unused.json")]
        compile_gpu(bin_dir, mlir, artifact, cache, extra)
        stages = [""]
    for stage in stages:
        total, extra = write_recipe(os.path.join(artifact, stage), model.state_dict())
        print("%s %s %s: weights %d B rebuilt from formulas, %d B carried" % (name, variant, stage, total, extra))
    for f in (onnx_path, mlir):
        os.remove(f)


def prepare_test(bin_dir, out, case, mlir, inputs, cache, split=None, extra=(),
                 tolerance=None):
    """A small program: its GPU artifact, inputs and the CPU code's outputs.
    With `split` (partition-devices options), the artifact is the split
    program, one stage per rank ("ranks" says how many). `extra`: more
    compile options for the GPU; `tolerance` (file "tolerance"): how far
    the GPU's outputs may be from the CPU's, relative to the largest (a
    half-precision program rounds in other places)."""
    folder = os.path.join(out, "tests", case)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "inputs"))
    args = []
    for name, value in inputs.items():
        path = os.path.join(folder, "inputs", name + ".npy")
        np.save(path, value)
        args += ["--input", "%s=%s" % (name, path)]
    run(os.path.join(bin_dir, "placer-run"), mlir, *args, "--output-dir",
        os.path.join(folder, "expected"), "--cache-dir", cache)
    if split:
        split_mlir = os.path.join(folder, "split.mlir")
        run(os.path.join(bin_dir, "placer-opt"), mlir, "--partition-devices=" + split, "-o", split_mlir)
        compile_gpu(bin_dir, split_mlir, os.path.join(folder, "artifact"), cache)
        ranks = len(json.load(open(os.path.join(folder, "artifact", "program.json")))["rank_stages"])
        open(os.path.join(folder, "ranks"), "w").write(str(ranks))
        os.remove(split_mlir)
    else:
        compile_gpu(bin_dir, mlir, os.path.join(folder, "artifact"), cache, extra)
    if tolerance:
        open(os.path.join(folder, "tolerance"), "w").write(str(tolerance))
    print("test %s: compiled" % case)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default=",".join(models.MODELS))
    parser.add_argument("--variants", default="profile,tf32,tf32-profile,bf16,tf32-nhwc,bf16-nhwc,split",
                        help="besides each model whole (fp32): which variants to compile")
    parser.add_argument("--no-tests", action="store_true", help="only the models")
    args = parser.parse_args()
    cache = os.path.join(args.out, "cache")
    work = os.path.join(args.out, "work")
    os.makedirs(work, exist_ok=True)
    translate = os.path.join(args.bin, "placer-translate")

    if not args.no_tests:
        prepare_tests(args, cache, work, translate)
    # Each model whole and in each variant (per-node GPU times, TF32); ResNet-50 also
    # split over the GPU and a CPU core.
    variants = list(filter(None, args.variants.split(",")))
    for name in filter(None, args.models.split(",")):
        prepare_model(args.bin, args.out, name, cache)
        for variant in variants:
            if variant not in ("split", "cpuprofile"):
                prepare_model(args.bin, args.out, name, cache, variant)
    if "resnet50" in args.models and "split" in variants:
        prepare_model(args.bin, args.out, "resnet50", cache, "split")
        prepare_model(args.bin, args.out, "resnet50", cache, "cpuprofile")
        # CPU code with parallel loops links LLVM 22's libomp, which the GPU
        # machine may lack: it travels along (run.py puts it on the path).
        lib = os.path.join(args.out, "lib")
        os.makedirs(lib, exist_ok=True)
        shutil.copy(os.path.realpath("/usr/lib/llvm-22/lib/libomp.so.5"),
                    os.path.join(lib, "libomp.so.5"))
    shutil.rmtree(cache)
    shutil.rmtree(work)


def prepare_tests(args, cache, work, translate):
    # Small programs: a CNN (convolutions, pooling, Gemm), the bundled MLP
    # (products), a scalar reduction.
    run(sys.executable, os.path.join(ROOT, "test/Runtime/Inputs/pipeline_models.py"), "cnn",
        os.path.join(work, "cnn.onnx"))
    run(translate, "--import-onnx", os.path.join(work, "cnn.onnx"), "-o", os.path.join(work, "cnn.mlir"))
    rng = np.random.default_rng(7)
    cnn_input = {"x": rng.standard_normal((2, 3, 16, 16)).astype(np.float32)}
    prepare_test(args.bin, args.out, "cnn", os.path.join(work, "cnn.mlir"), cnn_input, cache)
    # Split: two GPU stages sharing the GPU, and a GPU stage beside a CPU one.
    prepare_test(args.bin, args.out, "cnn-two-gpu-stages", os.path.join(work, "cnn.mlir"),
                 cnn_input, cache, split="2")
    prepare_test(args.bin, args.out, "cnn-cpu-and-gpu", os.path.join(work, "cnn.mlir"),
                 cnn_input, cache, split="cpus=1 cluster=" + os.path.join(ROOT, "test/Runtime/Gpu/Inputs/gpu-and-core.json"))
    # 1x1 convolutions (cuBLAS products) and a pre-norm transformer block
    # (its LayerNormalizations and Softmax split over threads).
    for case, shape in (("pointwise", (2, 8, 6, 6)), ("transformer", (2, 16, 32))):
        onnx_path = os.path.join(work, case + ".onnx")
        run(sys.executable, os.path.join(ROOT, "test/Runtime/Inputs/pipeline_models.py"), case, onnx_path)
        run(translate, "--import-onnx", onnx_path, "-o", os.path.join(work, case + ".mlir"))
        prepare_test(args.bin, args.out, case, os.path.join(work, case + ".mlir"),
                     {"x": rng.standard_normal(shape).astype(np.float32)}, cache)
    run(translate, "--import-onnx", "--dim", "batch=8", os.path.join(ROOT, "examples/mlp4.onnx"),
        "-o", os.path.join(work, "mlp4.mlir"))
    prepare_test(args.bin, args.out, "mlp4", os.path.join(work, "mlp4.mlir"),
                 {"x": rng.standard_normal((8, 32)).astype(np.float32)}, cache)
    # Channels-last convolutions (--gpu-channels-last), and the CNN and the
    # transformer block in bf16 (placer-autocast, so that the CPU computes
    # the same graph; the GPU rounds each convolution before its bias).
    prepare_test(args.bin, args.out, "cnn-nhwc", os.path.join(work, "cnn.mlir"), cnn_input,
                 cache, extra=["--gpu-channels-last"])
    for case in ("cnn", "transformer"):
        half = os.path.join(work, case + ".bf16.mlir")
        run(os.path.join(args.bin, "placer-opt"), os.path.join(work, case + ".mlir"),
            "--placer-autocast", "-o", half)
        x = cnn_input if case == "cnn" else {"x": rng.standard_normal((2, 16, 32)).astype(np.float32)}
        prepare_test(args.bin, args.out, case + "-bf16", half, x, cache, tolerance=3e-2)
    prepare_test(args.bin, args.out, "cnn-bf16-nhwc", os.path.join(work, "cnn.bf16.mlir"),
                 cnn_input, cache, extra=["--gpu-channels-last"], tolerance=3e-2)


if __name__ == "__main__":
    main()
