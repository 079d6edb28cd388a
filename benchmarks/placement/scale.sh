#!/usr/bin/env bash
# Scale of the DP over ideals (issues #16, #54): generated graphs of 5,000,
# 20,000, 50,000 and 200,000 operators (placement_bench.cpp's --generate: residual
# chains, 2- and 4-branch towers, transformer stacks; seeded, so every run
# sees the same graphs) on 4 and 8 accelerators, then GPT-2-style decoders
# of 96 and 192 layers exported by torch.onnx.export (export_decoder.py,
# cached in $WORK, default /tmp/placer-scale; d 128, context 128), placed by
# placer-opt on 4 and 8 A100s. One fresh process per case (peak RSS is its
# own), each stopped after LIMIT seconds. Prints shape, nodes, accelerators,
# ideals, DP seconds, max load, lower bound, gap, status (optimal: proven;
# refined: past the ideal limit) and peak RSS in MiB.
#
#   bash benchmarks/placement/scale.sh [BUILD_DIR] [LIMIT] [SIZES...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bench="$(cd "${1:-$root/build}/bin" && pwd)/placer-placement-bench"
limit="${2:-600}"
shift 2 2>/dev/null || shift $# 
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(5000 20000 50000 200000)

printf "%-12s %6s %3s %9s %9s %14s %14s %9s %-9s %9s\n" shape nodes k ideals \
  dp_sec max_load lower_bound gap status rss_MiB
for nodes in "${sizes[@]}"; do
  for shape in skip branches2 branches4 transformer; do
    for k in 4 8; do
      timeout "$limit" "$bench" --generate "$shape" "$nodes" "$k" ||
        printf "%-12s %6s %3s   (no answer within %s s)\n" "$shape" "$nodes" "$k" "$limit"
    done
  done
done

# Decoders exported by PyTorch (python3-torch, as the execution benchmark).
work="${WORK:-/tmp/placer-scale}"
mkdir -p "$work"
bin="$(dirname "$bench")"
for layers in 96 192; do
  model="$work/decoder$layers"
  [ -f "$model.onnx" ] || /usr/bin/python3 "$root/benchmarks/placement/export_decoder.py" \
    "$model.onnx" --layers "$layers"
  [ -f "$model.mlir" ] || "$bin/placer-translate" --import-onnx "$model.onnx" -o "$model.mlir"
  for k in 4 8; do
    /usr/bin/time -f "%M" -o "$work/rss.txt" timeout "$limit" "$bin/placer-opt" \
      "$model.mlir" -o /dev/null 2>/dev/null \
      --partition-devices="cluster=a100-80gb devices=$k split=false report=$work/r.json"
    /usr/bin/python3 - "decoder$layers" "$k" "$(cat "$work/rss.txt")" "$work/r.json" <<'PY'
import json, sys
name, k, rss, path = sys.argv[1:]
r = json.load(open(path))
status = "optimal" if r["optimal"] else "refined" if r["coarsened"] else "-"
print("%-12s %6d %3s %9d %9.3f %14.6g %14.6g %8.4f%% %-9s %9.1f" % (
    name, len(r["assignment"]), k, r["num_ideals"], r["solver_seconds"],
    r["max_load"], r["lower_bound"], 100 * r["gap"], status, int(rss) / 1024))
PY
  done
done
