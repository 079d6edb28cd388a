#!/usr/bin/env python3
"""Mainstream PyTorch models exported to ONNX and run by placer-run, each
checked against PyTorch (max |a - b| / max |b| <= 1e-4).

    real_models.py --bin BUILD/bin --work DIR [--opsets 13,17] [--cases a,b]

Cases: torchvision's families (vision transformer, window attention,
ConvNeXt, EfficientNet, RegNet, ShuffleNet, SqueezeNet, GoogLeNet), an
LSTM and a GRU language model, a segmentation head (ConvTranspose and
Resize), a causal decoder (Trilu) and dynamic-batch exports (imported with
the batch symbolic: one compiled program runs a batch of 3 and of 1).
Seeded random weights, batch 1 unless said.
Prints one Markdown row per case and opset: the result, or the first error.
"""
import argparse
import os
import subprocess
import time

import numpy as np
import torch
import torch.nn.functional as F
import torchvision
from torch import nn


class LanguageModel(nn.Module):
    """Embedding, a 2-layer LSTM or GRU, a projection to the vocabulary."""

    def __init__(self, cell, vocab=1000, d=128):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.rnn = cell(d, d, num_layers=2, batch_first=True)
        self.head = nn.Linear(d, vocab)

    def forward(self, tokens):
        y, _ = self.rnn(self.embed(tokens))
        return self.head(y)


class SegmentationHead(nn.Module):
    """A small encoder, ConvTranspose upsampling and a bilinear Resize back
    to the input size (FCN-style)."""

    def __init__(self, classes=5):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1)
        self.classify = nn.Conv2d(16, classes, 1)

    def forward(self, x):
        y = self.classify(F.relu(self.up(self.encoder(x))))
        return F.interpolate(y, size=x.shape[-2:], mode="bilinear",
                             align_corners=False)


class CausalDecoder(nn.Module):
    """Two pre-norm decoder layers whose causal mask is torch.triu (Trilu)."""

    def __init__(self, vocab=512, d=64, heads=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.layers = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(d, vocab)

    def forward(self, tokens):
        t = tokens.shape[1]
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        return self.head(self.layers(self.embed(tokens), mask=mask))


def vision(name, size=224, **kwargs):
    def build():
        return getattr(torchvision.models, name)(weights=None, **kwargs)
    return build, lambda: torch.randn(1, 3, size, size)


def tokens(batch=1, length=16, vocab=1000):
    return lambda: torch.randint(0, vocab, (batch, length))


CASES = {
    "vit_b_16": vision("vit_b_16"),
    "swin_t": vision("swin_t"),
    "convnext_tiny": vision("convnext_tiny"),
    "efficientnet_b0": vision("efficientnet_b0"),
    "regnet_y_400mf": vision("regnet_y_400mf"),
    "shufflenet_v2_x1_0": vision("shufflenet_v2_x1_0"),
    "squeezenet1_1": vision("squeezenet1_1"),
    "googlenet": vision("googlenet", aux_logits=False, init_weights=True),
    "lstm_lm": (lambda: LanguageModel(nn.LSTM), tokens()),
    "gru_lm": (lambda: LanguageModel(nn.GRU), tokens()),
    "segmentation_head": (SegmentationHead, lambda: torch.randn(1, 3, 64, 64)),
    "causal_decoder": (CausalDecoder, tokens(vocab=512)),
    # Exported with a symbolic batch, run at batch 3 and 1.
    "resnet18_dynamic_batch": (lambda: torchvision.models.resnet18(weights=None),
                               lambda: torch.randn(3, 3, 224, 224)),
    "lstm_lm_dynamic_batch": (lambda: LanguageModel(nn.LSTM), tokens(batch=3)),
}


def run_case(args, name, opset):
    torch.manual_seed(0)
    build, make_input = CASES[name]
    model = build().eval()
    # Zero-initialized layers (ViT's head, ...) would make every output 0
    # and any comparison vacuous: give them small random values.
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.numel() and float(parameter.abs().max()) == 0:
                nn.init.normal_(parameter, std=0.02)
    x = make_input()
    work = os.path.join(args.work, "%s-%d" % (name, opset))
    os.makedirs(work, exist_ok=True)
    onnx_path = os.path.join(work, "model.onnx")
    dynamic = name.endswith("_dynamic_batch")
    torch.onnx.export(model, (x,), onnx_path, opset_version=opset,
                      input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}
                      if dynamic else None)
    mlir = os.path.join(work, "model.mlir")
    proc = subprocess.run([os.path.join(args.bin, "placer-translate"),
                           "--import-onnx", onnx_path, "-o", mlir],
                          capture_output=True, text=True)
    if proc.returncode:
        return "import: " + proc.stderr.strip().splitlines()[-1][:200]
    # A dynamic batch stays symbolic: one compiled program runs the
    # batch of 3 and a batch of 1 (the second run finds it in the cache).
    batches = [x, x[:1]] if dynamic else [x]
    results = []
    for batch in batches:
        result = run_batch(args, model, work, mlir, batch)
        if not result.startswith("ok"):
            return result
        results.append(result)
    if dynamic:
        return "%s; batch 1 from the same program: %s" % (
            results[0], results[1].split(" (")[0])
    return results[0]


def run_batch(args, model, work, mlir, x):
    """Runs the imported model on `x` and compares with PyTorch."""
    with torch.no_grad():
        expected = model(x).numpy()
    np.save(os.path.join(work, "x.npy"), x.numpy())
    start = time.time()
    proc = subprocess.run(
        [os.path.join(args.bin, "placer-run"), mlir, "--input",
         "x=" + os.path.join(work, "x.npy"), "--output-dir", work,
         "--cache-dir", os.path.join(args.work, "cache")],
        capture_output=True, text=True)
    seconds = time.time() - start
    if proc.returncode:
        errors = [l for l in proc.stderr.splitlines() if "error" in l]
        return "run: " + (errors[0] if errors else proc.stderr.strip()[-200:])[:300]
    actual = np.load(os.path.join(work, "y.npy"))
    if actual.shape != expected.shape:
        return "shape %s, expected %s" % (actual.shape, expected.shape)
    scale = float(np.max(np.abs(expected)))
    if scale == 0:
        return "vacuous: the reference output is all zeros"
    rel = float(np.max(np.abs(actual - expected)) / scale)
    verdict = "ok" if rel <= 1e-4 else "DIFFERS"
    return "%s: max_rel %.1e (compile + run %.1f s)" % (verdict, rel, seconds)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--opsets", default="13,17")
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    torch.set_num_threads(1)
    print("| model | opset | result |")
    print("|---|---|---|")
    for name in args.cases.split(","):
        for opset in (int(o) for o in args.opsets.split(",")):
            if name == "causal_decoder" and opset < 14:
                opset = 14  # PyTorch exports triu (Trilu) from opset 14
            try:
                result = run_case(args, name, opset)
            except Exception as error:  # an export PyTorch refuses
                result = "export: %s" % str(error).splitlines()[0][:200]
            print("| %s | %d | %s |" % (name, opset, result), flush=True)


if __name__ == "__main__":
    main()
