#!/usr/bin/env bash
# Three-dimensional plans on mixed clusters (issue #54's device kinds): the
# GPT-2-style decoder of tensor.sh (make_decoder.py: 12 layers, d 768, 12
# heads, context 256, batch 1) priced for training, planned with
# tensor-degrees=1,2,4 and 32 microbatches on
#   a100x8        a node of 8 A100-80GB (NVLink 300 GB/s)
#   a100x4-v100x4 a node of 4 A100-80GB, then a node of 4 V100-16GB
#                 (12.5 GB/s between the nodes)
#   v100x8        a node of 8 V100-16GB
# Prints time per sample, the stages as (kind, t, d, layers) and planning
# seconds.
#
#   bash benchmarks/placement/kinds.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$(cd "${1:-$root/build}/bin" && pwd)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cd "$work"
PYTHONPATH="$root/benchmarks/placement" /usr/bin/python3 - <<'PY'
import json
from datasheets import a100, v100, NVLINK as nvlink, NETWORK as network
nodes = {"devices_per_node": 4, "intra_node": nvlink, "inter_node": network}
for name, kinds in [("a100x8", [a100(8)]), ("a100x4-v100x4", [a100(4), v100(4)]),
                    ("v100x8", [v100(8)])]:
    json.dump({"name": name, "device_kinds": kinds,
               "links": {"default": nvlink, "hierarchy": nodes}},
              open(name + ".json", "w"))
PY
/usr/bin/python3 "$root/benchmarks/placement/make_decoder.py" decoder.onnx \
  --layers 12 --d 768 --heads 12 --seq 256 > /dev/null
"$bin/placer-translate" --import-onnx decoder.onnx --shapes-only --dim batch=1 \
  -o decoder.mlir
for cluster in a100x8 a100x4-v100x4 v100x8; do
  "$bin/placer-opt" decoder.mlir -o /dev/null 2> /dev/null \
    --placer-estimate-costs="cluster=$cluster.json training=true" \
    --placer-place-devices="microbatches=32 tensor-degrees=1,2,4 report=r.json"
  /usr/bin/python3 - r.json "$cluster" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
stages = [(s.get("kind", "-"), s["tensor_degree"], s["data_degree"], len(s["layers"]))
          for s in r["stages"]]
print("%-14s %.6g s/sample  %s  planned in %.2f s" %
      (sys.argv[2], r["time_per_sample"], stages, r["seconds"]))
PY
done
