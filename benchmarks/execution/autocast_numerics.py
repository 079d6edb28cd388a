#!/usr/bin/env python3
"""How far placer-autocast's half-precision code is from float32, beside
PyTorch's CPU autocast, on the GPU benchmark's models (formula weights).

    autocast_numerics.py --bin BUILD/bin [--models resnet18,mobilenet_v2,gpt2]
                         [--batch 2] [--type bf16]

Each model (benchmarks/gpu/models.py) is exported to ONNX, imported, run by
placer-run on this CPU as it is and after placer-opt --placer-autocast, and
run by PyTorch in float32 and under torch.autocast("cpu"). Prints each
output's largest difference from PyTorch's float32 output, relative to that
output's largest magnitude (the measure issue #58 bounds by 2e-2 on a GPU).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gpu"))
import models  # noqa: E402


def run(*cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode:
        raise SystemExit("%s failed:\n%s%s" % (" ".join(cmd), result.stdout, result.stderr))


def relative(a, b):
    return float(np.abs(a.astype(np.float64) - b).max() / np.abs(b).max())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--models", default="resnet18,mobilenet_v2,gpt2")
    parser.add_argument("--batch", type=int, default=2, help="images per CNN batch")
    parser.add_argument("--type", default="bf16", choices=["bf16", "f16"])
    args = parser.parse_args()
    dtype = torch.bfloat16 if args.type == "bf16" else torch.float16
    print("| model | placer-run f32 | placer-run %s (placer-autocast) | PyTorch CPU autocast %s |"
          % (args.type, args.type))
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for name in filter(None, args.models.split(",")):
            model, input_name, x = models.build(name)
            if name != "gpt2":
                x = x[:args.batch]
            onnx_path = os.path.join(work, name + ".onnx")
            with torch.no_grad():
                torch.onnx.export(model, (x,), onnx_path, input_names=[input_name],
                                  output_names=["logits"], opset_version=17,
                                  do_constant_folding=False,
                                  training=torch.onnx.TrainingMode.PRESERVE)
                want = model(x).numpy()
                try:
                    with torch.autocast("cpu", dtype=dtype):
                        theirs = model(x).float().numpy()
                except RuntimeError:  # PyTorch 1.13's CPU autocast: bf16 only
                    theirs = None
            mlir = os.path.join(work, name + ".mlir")
            half = os.path.join(work, name + ".half.mlir")
            x_path = os.path.join(work, name + ".x.npy")
            np.save(x_path, x.numpy())
            run(os.path.join(args.bin, "placer-translate"), "--import-onnx", onnx_path, "-o", mlir)
            run(os.path.join(args.bin, "placer-opt"), mlir, "--placer-autocast=type=" + args.type,
                "-o", half)
            got = {}
            for label, path in (("f32", mlir), ("half", half)):
                out = os.path.join(work, name + "." + label)
                run(os.path.join(args.bin, "placer-run"), path, "--input",
                    "%s=%s" % (input_name, x_path), "--output-dir", out,
                    "--cache-dir", os.path.join(work, "cache"))
                got[label] = np.load(os.path.join(out, "logits.npy"))
            print("| %s | %.1e | %.1e | %s |" % (
                name, relative(got["f32"], want), relative(got["half"], want),
                "%.1e" % relative(theirs, want) if theirs is not None else "-"), flush=True)


if __name__ == "__main__":
    main()
