#!/usr/bin/env python3
"""Rewrites the MLP step placed for 1F1B on two devices (mpi-training.test)
into an interleaved placement with four chunks written by hand, one layer
each: fc1 (and w1, b1's updates) chunk 0, tanh chunk 1, fc2 (w2, b2) chunk
2, the loss chunk 3, chunk c on device c mod 2 (interleaved) or in a V
(zb-v: chunks 0 and 3 on device 0), as --placer-place-devices schedule=
records one (placer.chunk beside placer.device, the placement's chunks).
The cost model finds the two-layer MLP best split in two, so the placement
itself would leave chunks 2 and 3 empty.

    chunk_mlp.py PLACED.mlir [interleaved|zb-v] > CHUNKED.mlir
"""
import re
import sys

CHUNK_OF = {"fc1": 0, "w1": 0, "b1": 0, "tanh": 1, "fc2": 2, "w2": 2, "b2": 2, "loss": 3}
schedule = sys.argv[2] if len(sys.argv) > 2 else "interleaved"
device_of = {"interleaved": lambda c: c % 2, "zb-v": lambda c: c if c < 2 else 3 - c}[schedule]

lines = []
for line in open(sys.argv[1]).read().splitlines():
    node = re.search(r'graph\.node "[^"]*"\(.*name = "([^"/]*)', line)
    if node and node.group(1) in CHUNK_OF and "placer.device" in line:
        chunk = CHUNK_OF[node.group(1)]
        line = re.sub(r"placer\.device = #placer\.device<\d+>",
                      "placer.chunk = %d : i64, placer.device = #placer.device<%d>"
                      % (chunk, device_of(chunk)), line)
    lines.append(line)
text = "\n".join(lines)
placement = 'schedule = "1f1b", microbatches = 2'
if placement not in text:
    sys.exit("no 1F1B placement of 2 microbatches in " + sys.argv[1])
print(text.replace(placement, 'schedule = "%s", microbatches = 2, chunks = 2' % schedule))
