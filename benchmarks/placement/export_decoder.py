#!/usr/bin/env python3
"""Exports a deep GPT-2-style decoder with torch.onnx.export, for the scale
benchmark (issue #16): the same Block and Decoder as the execution
benchmark (benchmarks/execution/compare.py), many layers deep.

    /usr/bin/python3 export_decoder.py OUT.onnx [--layers 96] [--d 128]
                                       [--heads 4] [--context 128]

Weights are seeded random and written into the file (d 128 keeps 192
layers near 150 MB); the graph is what placement sees: every op torch
emits, with its shapes.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "execution"))
from compare import Decoder  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=96)
    parser.add_argument("--d", type=int, default=128)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--context", type=int, default=128)
    parser.add_argument("--vocab", type=int, default=8192)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Decoder(vocab=args.vocab, context=args.context, d=args.d,
                    heads=args.heads, layers=args.layers).eval()
    ids = torch.randint(0, args.vocab, (1, args.context))
    with torch.inference_mode():
        torch.onnx.export(model, (ids,), args.out, input_names=["input_ids"],
                          output_names=["logits"], opset_version=17,
                          do_constant_folding=True)


if __name__ == "__main__":
    main()
