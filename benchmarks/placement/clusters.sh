#!/usr/bin/env bash
# Placement on real clusters (issue #14): BERT-12 (../shared/models,
# d 1024, 8 sequences of 512 per microbatch) and a GPT-2-style 48-layer
# decoder (make_decoder.py: d 1600, 25 heads, seq 1024, 1 sequence per
# microbatch), trained with 1F1B over 8 microbatches and Adam, on
#   a100-1x8       one node of 8 A100-80GB on NVLink (300 GB/s)
#   a100-2x8/4x8   2 or 4 such nodes joined by 100 Gb/s (12.5 GB/s)
#   a100x4-v100x4  a node of 4 A100-80GB and a node of 4 V100-16GB
#                  (V100s on 150 GB/s NVLink), 12.5 GB/s between them.
# For each: the DP and the PipeDream-style baseline (a DP over a
# topological chain), with and without replication=true, and the DP blind
# to the links (links=flat; its split scored on the cluster's links). Time
# per sample = max load / microbatch size (s), and the simulator's for one
# iteration of the split program (fill, drain and all-reduce included);
# stages: how many, then runs of equal ones ("6x1": six stages on one
# device each, "[3]": a stage on three devices), with their kind when not
# a100; solver seconds.
#
#   bash benchmarks/placement/clusters.sh [BUILD_DIR] [WORK_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$(cd "${1:-$root/build}/bin" && pwd)"
work="${2:-$(mktemp -d)}"
mkdir -p "$work"
cd "$work"

PYTHONPATH="$root/benchmarks/placement" /usr/bin/python3 - <<'PY'
import json
from datasheets import a100, v100, NVLINK as nvlink, NETWORK as network
for nodes in (1, 2, 4):
    links = {"default": nvlink}
    if nodes > 1:
        links["hierarchy"] = {"devices_per_node": 8, "intra_node": nvlink,
                              "inter_node": network}
    json.dump({"name": "a100-%dx8" % nodes, "device_kinds": [a100(8 * nodes)],
               "links": links}, open("a100-%dx8.json" % nodes, "w"))
json.dump({"name": "a100x4-v100x4", "device_kinds": [a100(4), v100(4)],
           "links": {"default": nvlink,
                     "hierarchy": {"devices_per_node": 4, "intra_node": nvlink,
                                   "inter_node": network},
                     "kind_pairs": [{"kinds": ["v100", "v100"],
                                     "bandwidth": 150e9, "latency": 5e-6}]}},
          open("a100x4-v100x4.json", "w"))
PY

[ -f bert.mlir ] || "$bin/placer-translate" --import-onnx \
  "$root/../shared/models/bert12_d1024.onnx" --shapes-only \
  --dim batch=8 --dim seq=512 -o bert.mlir
[ -f gpt48.onnx ] || (cd / && /usr/bin/python3 \
  "$root/benchmarks/placement/make_decoder.py" "$work/gpt48.onnx" --layers 48)
[ -f gpt48.mlir ] || "$bin/placer-translate" --import-onnx gpt48.onnx \
  --shapes-only --dim batch=1 -o gpt48.mlir

printf '%-6s %-14s %-14s %-10s %-10s %-44s %s\n' model cluster variant \
  s/sample simulated "stages" "solve s"
for model in bert:8 gpt48:1; do
  name=${model%:*}
  batch=${model#*:}
  for cluster in a100-1x8 a100-2x8 a100-4x8 a100x4-v100x4; do
    for variant in dp dp+rep flat flat+rep pipedream pipedream+rep; do
      algorithm=${variant%+rep}
      links=cluster
      [ "$algorithm" = flat ] && algorithm=dp links=flat
      replication=false
      [ "$variant" = "${variant%+rep}" ] || replication=true
      if "$bin/placer-opt" "$name.mlir" -o /dev/null 2>err.txt \
          --partition-devices="cluster=$cluster.json training=true schedule=1f1b microbatches=8 algorithm=$algorithm links=$links replication=$replication report=r.json" \
          --placer-simulate="report=s.json"; then
        /usr/bin/python3 - "$name" "$cluster" "$variant" "$batch" <<'PY'
import json, sys
name, cluster, variant, batch = sys.argv[1:]
r = json.load(open("r.json"))
simulated = json.load(open("s.json"))["time_per_sample"] / int(batch)
stages, previous = [], None
for s in r["stages"]:
    item = (s["replicas"], s["kind"])
    if previous and previous[0] == item:
        previous[1] += 1
    else:
        previous = [item, 1]
        stages.append(previous)
text = " ".join("%s%s%s" % ("%dx" % n if n > 1 else "",
                            "[%d]" % r if r > 1 else "1", "" if k == "a100"
                            else " " + k) for (r, k), n in stages)
print("%-6s %-14s %-14s %-10.6f %-10.6f %-44s %.2f" % (
    name, cluster, variant, r["max_load"] / int(batch), simulated,
    "%d: %s" % (len(r["stages"]), text), r["solver_seconds"]))
PY
      else
        printf '%-6s %-14s %-14s %s\n' "$name" "$cluster" "$variant" \
          "$(grep -o 'error: .*' err.txt | head -c 120)"
      fi
    done
  done
done
