#!/usr/bin/env bash
# Simulator vs model (the split/simulator issue): for every throughput
# workload, the DP's max-load against the simulated steady-state time per
# sample over 400 microbatches, with transfers serialized as the model
# assumes and with transfers overlapping compute.
# Usage: benchmarks/placement/simulate.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/build/bin"
[ -x "$bin/placer-opt" ] || bash "$root/scripts/build.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf "%-36s %14s %18s %18s %9s\n" workload dp_max_load serialized overlapped gain
for f in "$root"/../shared/workloads/throughput/*/*.json; do
  name="$(basename "$(dirname "$f")")/$(basename "$f" .json)"
  "$bin/placer-translate" --import-workload "$f" |
    "$bin/placer-opt" --partition-devices="report=$work/r.json" -o "$work/w.mlir" 2>/dev/null
  dp=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['max_load'])" "$work/r.json")
  per_sample() {
    "$bin/placer-opt" "$work/w.mlir" --placer-simulate="microbatches=400 $1" -o /dev/null 2>&1 |
      grep -o 'per sample [0-9.e+-]*' | cut -d' ' -f3
  }
  serial=$(per_sample "overlap=false")
  overlap=$(per_sample "overlap=true")
  awk -v n="$name" -v d="$dp" -v s="$serial" -v o="$overlap" \
    'BEGIN { printf "%-36s %14.6f %18.6f %18.6f %8.2f%%\n", n, d, s, o, 100 * (d - o) / d }'
done
