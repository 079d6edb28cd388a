#!/usr/bin/env python3
"""placer-run against PyTorch and onnxruntime-node, each on the same number
of threads (one unless --threads): the outputs' errors, the time per run and each runner's peak resident memory,
on ResNet-50 (torchvision, seeded random weights), a GPT-2-style decoder
and the bundled example.

    compare.py --bin BUILD/bin --ort NODE_PREFIX --work DIR
               [--cases resnet50,gpt2,mlp4] [--opset 17] [--repeat 20]
               [--batch 1] [--threads 1]

Other cases: resnet18, vgg16, mobilenet_v2, mobilenet_v3_small,
mobilenet_v3_large, densenet121, inception_v3, efficientnet_b0,
convnext_tiny, regnet_y_400mf, shufflenet_v2_x1_0, vit_b_16
(torchvision, seeded random weights); `--cases cnns` is every
torchvision case (the wide comparison of benchmarks/README.md).
`--threads N` gives placer-run, PyTorch and ORT's intra-op pool N threads.
`--batch N` runs the torchvision models on N images and the decoder on N
sequences (the example keeps its batch of 8); WORK/CASE-bN then holds the
case's files.

Peak memory is each process's maximum resident set (getrusage through
os.wait4): placer-run running the model's compiled artifact (--compile-only,
then one run of the artifact by the --runtime-bin runner, which links no
compiler: what a deployment runs) and the node process that times ORT,
whose V8 heap is counted too.

Each model is built in PyTorch, exported with torch.onnx.export (the
example is read from examples/mlp4.onnx and rebuilt in PyTorch from its
weights), imported with placer-translate, compiled and run with placer-run,
and run with onnxruntime-node (ort_run.js). Errors are against PyTorch:
max_abs = max |a - b|, max_rel = max_abs / max |b|. Times are the median
seconds per run after one warm-up run, the fastest of `--rounds` (3)
rounds that time placer-run and ORT in turn. Results go to stdout (a table)
and WORK/results.json.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# --- Models -----------------------------------------------------------------

class Block(nn.Module):
    """A GPT-2 block: pre-norm causal self-attention and a tanh-GELU MLP."""

    def __init__(self, d, heads, context):
        super().__init__()
        self.heads, self.scale = heads, 1.0 / math.sqrt(d // heads)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.register_buffer("mask", torch.tril(torch.ones(context, context)).bool())

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        shape = (b, t, self.heads, d // self.heads)
        q, k, v = (z.view(shape).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * self.scale
        att = att.masked_fill(~self.mask[:t, :t], float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class Decoder(nn.Module):
    def __init__(self, vocab=8192, context=128, d=768, heads=12, layers=4):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(context, d)
        self.blocks = nn.ModuleList(Block(d, heads, context) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.wte(ids) + self.wpe(positions)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


class Mlp4(nn.Module):
    """examples/mlp4.onnx, rebuilt from its weights."""

    def __init__(self, path):
        super().__init__()
        w = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy())
             for t in onnx.load(path).graph.initializer}
        self.w = [[w["block%d.%s" % (i, n)] for n in ("w1", "b1", "w2", "b2")]
                  for i in range(4)]

    def forward(self, x):
        for w1, b1, w2, b2 in self.w:
            x = x + (torch.relu(x @ w1 + b1) @ w2 + b2)
        return x


# torchvision classifiers the benchmark knows, with their constructor options.
TORCHVISION = {
    "resnet50": {}, "resnet18": {}, "vgg16": {}, "mobilenet_v2": {},
    "mobilenet_v3_small": {}, "mobilenet_v3_large": {}, "densenet121": {},
    "inception_v3": {"aux_logits": False, "init_weights": True},
    "efficientnet_b0": {}, "convnext_tiny": {}, "regnet_y_400mf": {},
    "shufflenet_v2_x1_0": {}, "vit_b_16": {},
}
# The wide comparison (issue #59): the models users bring, beyond our own.
WIDE = ["resnet50", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0",
        "convnext_tiny", "regnet_y_400mf", "shufflenet_v2_x1_0", "vit_b_16"]


def build(case, folder, opset, batch=1):
    """The PyTorch model, its inputs, and the ONNX file placer and ORT run."""
    torch.manual_seed(0)
    onnx_path = os.path.join(folder, "model.onnx")
    if case == "mlp4":
        source = os.path.join(ROOT, "examples", "mlp4.onnx")
        x = torch.from_numpy(np.random.default_rng(11).standard_normal((8, 32)).astype(np.float32))
        with open(source, "rb") as src, open(onnx_path, "wb") as dst:
            dst.write(src.read())
        return Mlp4(source).eval(), {"x": x}, ["batch=8"]
    if case in TORCHVISION:
        import torchvision
        model = getattr(torchvision.models, case)(weights=None, **TORCHVISION[case]).eval()
        if case == "vit_b_16":
            # torchvision starts ViT's head at zero: every logit would be 0
            # and the errors would check nothing.
            torch.nn.init.normal_(model.heads.head.weight, std=0.02)
        side = 299 if case.startswith("inception") else 224
        inputs = {"input": torch.rand(batch, 3, side, side)}
    elif case == "gpt2":
        model = Decoder().eval()
        inputs = {"input_ids": torch.randint(0, 8192, (batch, 128))}
    else:
        raise SystemExit("unknown case " + case)
    # Exported with gradients on: in inference mode PyTorch takes its fused
    # attention kernel (_native_multi_head_attention), which has no ONNX
    # export.
    export_mode = torch.enable_grad if case == "vit_b_16" else torch.inference_mode
    with export_mode():
        torch.onnx.export(model, tuple(inputs.values()), onnx_path,
                          input_names=list(inputs), output_names=["logits"],
                          opset_version=opset, do_constant_folding=True)
    return model, inputs, []


# --- Runners ----------------------------------------------------------------

# Measures the peak resident memory of the command in argv[2:] into the file
# argv[1]. A process forked from this benchmark would start from its own
# resident set (Linux keeps the largest across fork and exec), so the
# command is the child of this small interpreter instead.
PEAK_RSS = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss * 1024))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run(cmd, env=None):
    """Runs `cmd`; its output and its peak resident memory in bytes."""
    with tempfile.NamedTemporaryFile("r") as peak:
        result = subprocess.run([sys.executable, "-c", PEAK_RSS, peak.name] + cmd,
                                capture_output=True, text=True, env=env)
        if result.returncode:
            raise SystemExit("%s failed (%d):\n%s%s" % (
                " ".join(cmd), result.returncode, result.stdout, result.stderr))
        return result.stdout, int(peak.read())


def time_torch(model, inputs, repeat):
    with torch.inference_mode():
        args = tuple(inputs.values())
        out = model(*args)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            model(*args)
            times.append(time.perf_counter() - start)
    return out.numpy(), float(np.median(times))


def time_placer(args, folder, inputs, dims):
    mlir = os.path.join(folder, "model.mlir")
    cmd = [os.path.join(args.bin, "placer-translate"), "--import-onnx",
           os.path.join(folder, "model.onnx"), "-o", mlir]
    for dim in dims:
        cmd += ["--dim", dim]
    run(cmd)
    files = []
    for name, value in inputs.items():
        path = os.path.join(folder, name + ".npy")
        np.save(path, value.numpy())
        files += ["--input", "%s=%s" % (name, path)]
    report = os.path.join(folder, "placer.json")
    out_dir = os.path.join(folder, "placer-out")
    command = [os.path.join(args.bin, "placer-run"), mlir, "--output-dir", out_dir,
               "--cache-dir", os.path.join(args.work, "cache")] + files
    command += ["--threads", str(args.threads), "--repeat", str(args.repeat), "--report", report]

    def again():
        run(command)
        with open(report) as f:
            return json.load(f)

    rep = again()
    output = np.load(rep["outputs"][0]["file"])
    # Memory as deployed: the compiled artifact (program.so, weights.bin)
    # run without the compiler, as ORT runs its .onnx; a run from the .mlir
    # also holds the parsed module and runs the lowering to find its cache
    # entry.
    artifact = os.path.join(folder, "artifact")
    run([os.path.join(args.bin, "placer-run"), mlir, "--compile-only", artifact,
         "--cache-dir", os.path.join(args.work, "cache")])
    _, peak = run([os.path.join(args.runtime_bin or args.bin, "placer-run"), artifact,
                   "--output-dir", out_dir, "--repeat", "1", "--threads", str(args.threads)] + files)
    return output, rep["seconds_per_run"]["median"], peak, \
        lambda: again()["seconds_per_run"]["median"]


def time_ort(args, folder, inputs):
    listing = []
    for name, value in inputs.items():
        array = value.numpy()
        file = name + ".bin"
        array.tofile(os.path.join(folder, file))
        listing.append({"name": name, "dtype": str(array.dtype),
                        "shape": list(array.shape), "file": file})
    with open(os.path.join(folder, "inputs.json"), "w") as f:
        json.dump(listing, f)
    env = dict(os.environ, NODE_PATH=os.path.join(args.ort, "node_modules"))
    command = ["node", os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort_run.js"),
               os.path.join(folder, "model.onnx"), folder, str(args.repeat), str(args.threads)]

    def again():
        _, peak = run(command, env=env)
        with open(os.path.join(folder, "ort.json")) as f:
            return json.load(f), peak

    rep, peak = again()
    first = rep["outputs"][0]
    output = np.fromfile(os.path.join(folder, first["file"]),
                         dtype=np.float32).reshape(first["shape"])
    return output, rep["seconds_per_run"]["median"], rep["version"], peak, \
        lambda: again()[0]["seconds_per_run"]["median"]


def errors(got, reference):
    got, reference = got.astype(np.float64), reference.astype(np.float64)
    if got.shape != reference.shape:
        return {"max_abs": float("inf"), "max_rel": float("inf")}
    diff = float(np.max(np.abs(got - reference)))
    return {"max_abs": diff, "max_rel": diff / max(float(np.max(np.abs(reference))), 1e-30)}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--runtime-bin",
                        help="the runtime-only build's bin (runs the artifacts whose "
                             "memory is measured; default: --bin)")
    parser.add_argument("--ort", required=True, help="folder holding node_modules/onnxruntime-node")
    parser.add_argument("--work", required=True)
    parser.add_argument("--cases", default="resnet50,gpt2,mlp4")
    parser.add_argument("--opset", type=int, default=17)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--torch-repeat", type=int, default=0,
                        help="PyTorch's timed runs (default: --repeat; the reference "
                             "output needs none, and Debian's PyTorch is slow at batch 8)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="times placer-run and ORT in turn this many times; "
                             "each runner's fastest median counts")
    args = parser.parse_args()
    if args.cases == "cnns":
        args.cases = ",".join(WIDE)
    torch.set_num_threads(args.threads)
    os.makedirs(args.work, exist_ok=True)

    results = []
    print("%-9s %12s %12s %12s %9s %9s %10s %10s %10s %10s %9s %9s" % (
        "case", "placer_s", "torch_s", "ort_s", "vs_torch", "vs_ort",
        "abs_torch", "rel_torch", "abs_ort", "rel_ort", "placer_MB", "ort_MB"))
    for case in args.cases.split(","):
        folder = os.path.join(args.work, case + ("-b%d" % args.batch if args.batch != 1 else "")
                              + ("-t%d" % args.threads if args.threads != 1 else ""))
        os.makedirs(folder, exist_ok=True)
        model, inputs, dims = build(case, folder, args.opset, args.batch)
        reference, torch_s = time_torch(model, inputs, args.torch_repeat or args.repeat)
        placer_out, placer_s, placer_peak, placer_again = time_placer(args, folder, inputs, dims)
        ort_out, ort_s, ort_version, ort_peak, ort_again = time_ort(args, folder, inputs)
        # Rounds alternate the two runners: a machine whose speed drifts
        # (a shared VM's, up to 3x over a day) then slows both alike, and
        # each runner's fastest round is the least disturbed.
        rounds = {"placer": [placer_s], "ort": [ort_s]}
        for _ in range(args.rounds - 1):
            rounds["placer"].append(placer_again())
            rounds["ort"].append(ort_again())
        placer_s, ort_s = min(rounds["placer"]), min(rounds["ort"])
        row = {
            "case": case, "opset": args.opset if case != "mlp4" else 13,
            "batch": args.batch if case != "mlp4" else 8, "threads": args.threads,
            "seconds_per_run": {"placer": placer_s, "torch": torch_s, "ort": ort_s},
            "rounds": rounds,
            "time_ratio": {"placer_over_torch": placer_s / torch_s,
                           "placer_over_ort": placer_s / ort_s},
            "peak_resident_bytes": {"placer": placer_peak, "ort": ort_peak},
            "placer_vs_torch": errors(placer_out, reference),
            "placer_vs_ort": errors(placer_out, ort_out),
            "ort_vs_torch": errors(ort_out, reference),
            "versions": {"torch": torch.__version__, "onnxruntime-node": ort_version},
        }
        results.append(row)
        print("%-9s %12.4e %12.4e %12.4e %9.2f %9.2f %10.1e %10.1e %10.1e %10.1e %9.1f %9.1f" % (
            case, placer_s, torch_s, ort_s, placer_s / torch_s, placer_s / ort_s,
            row["placer_vs_torch"]["max_abs"], row["placer_vs_torch"]["max_rel"],
            row["placer_vs_ort"]["max_abs"], row["placer_vs_ort"]["max_rel"],
            placer_peak / 2**20, ort_peak / 2**20), flush=True)
    results_name = "results%s%s.json" % ("-b%d" % args.batch if args.batch != 1 else "",
                                         "-t%d" % args.threads if args.threads != 1 else "")
    with open(os.path.join(args.work, results_name), "w") as f:
        json.dump(results, f, indent=2)
    bad = [r["case"] for r in results
           if r["placer_vs_torch"]["max_rel"] > 1e-4 or r["placer_vs_ort"]["max_rel"] > 1e-4]
    if bad:
        print("relative error above 1e-4: " + ", ".join(bad))
        sys.exit(1)


if __name__ == "__main__":
    main()
