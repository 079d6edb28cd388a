#!/usr/bin/env python3
"""mlp4_check.py write-input FILE [MICROBATCHES] | check OUTPUT.npy INPUT.npy
MODEL.onnx | same A.npy B.npy: the bundled example's input (one [8, 32]
batch, or that many stacked as [M, 8, 32]), its numpy reference, and a
bitwise comparison of two runs."""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

cmd = sys.argv[1]
if cmd == "write-input":
    shape = (8, 32) if len(sys.argv) < 4 else (int(sys.argv[3]), 8, 32)
    np.save(sys.argv[2], np.random.default_rng(11).standard_normal(shape).astype(np.float32))
elif cmd == "check":
    y, x = np.load(sys.argv[2]), np.load(sys.argv[3])
    w = {t.name: numpy_helper.to_array(t) for t in onnx.load(sys.argv[4]).graph.initializer}
    for i in range(4):
        p = "block%d." % i
        h = np.maximum(x @ w[p + "w1"] + w[p + "b1"], 0)
        x = x + (h @ w[p + "w2"] + w[p + "b2"])
    err = float(np.max(np.abs(y - x)))
    print("max abs error %.1e: %s" % (err, "ok" if err <= 1e-5 else "FAIL"))
elif cmd == "same":
    a, b = np.load(sys.argv[2]), np.load(sys.argv[3])
    print("bitwise equal" if a.tobytes() == b.tobytes() else "DIFFERENT")
