#!/usr/bin/env python3
"""Exports a BERT-large-sized encoder to ONNX, twice.

    /usr/bin/python3 make_bert_large.py OUT_DIR

Writes OUT_DIR/bert_large.onnx (weights inline, about 1.3 GB) and
OUT_DIR/bert_large_ext.onnx with its weights in bert_large_ext.onnx.data.
24 layers, d_model 1024, 16 heads, ff 4096, vocab 30522, 512 positions
(about 335 M parameters), random weights; dynamic [batch, seq] inputs.
Needs Debian's python3-torch and python3-onnx.
"""
import os
import sys

import onnx
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, layers=24, d=1024, heads=16, ff=4096, vocab=30522,
                 positions=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(positions, d)
        # batch_first=False keeps torch 1.13 off its fused inference path,
        # which torch.onnx cannot export.
        layer = nn.TransformerEncoderLayer(d, heads, ff, activation="gelu")
        self.enc = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d)
        # TransformerEncoder deep-copies one layer, and torch.onnx merges
        # initializers with equal values: give every weight its own values.
        for p in self.parameters():
            nn.init.normal_(p, std=0.02)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        x = (self.tok(ids) + self.pos(positions)).transpose(0, 1)
        return self.norm(self.enc(x).transpose(0, 1))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model = Encoder().eval()
    inline = os.path.join(out, "bert_large.onnx")
    ids = torch.randint(0, 30522, (1, 128))
    with torch.no_grad():
        torch.onnx.export(model, (ids,), inline, opset_version=13,
                          input_names=["input_ids"], output_names=["hidden"],
                          dynamic_axes={"input_ids": {0: "batch", 1: "seq"},
                                        "hidden": {0: "batch", 1: "seq"}})
    m = onnx.load(inline)
    onnx.save_model(m, os.path.join(out, "bert_large_ext.onnx"),
                    save_as_external_data=True, all_tensors_to_one_file=True,
                    location="bert_large_ext.onnx.data", size_threshold=1024)
    print("wrote %s (%d bytes) and bert_large_ext.onnx" %
          (inline, os.path.getsize(inline)))


if __name__ == "__main__":
    main()
