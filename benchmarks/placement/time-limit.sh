#!/usr/bin/env bash
# How well `time-limit` bounds a whole solve (heuristic or DP warm start,
# model construction, CBC): wall time of placer-opt's latency and throughput
# MILPs on the 604-node OperatorGraphs/resnet50 workload at several limits.
# Usage: benchmarks/placement/time-limit.sh [LIMIT...]   (default: 1 5 30)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/build/bin"
workload="$root/../shared/workloads/throughput/OperatorGraphs/resnet50_inference.json"
[ -x "$bin/placer-opt" ] || bash "$root/scripts/build.sh"
limits=("$@"); [ ${#limits[@]} -gt 0 ] || limits=(1 5 30)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin/placer-translate" --import-workload "$workload" -o "$work/w.mlir"
printf "%-28s %8s %8s %-12s %12s\n" model limit wall status result
for limit in "${limits[@]}"; do
  # Two calls per accelerator: with one, the chain-of-blocks bound proves
  # the heuristic optimal and CBC stops at once, measuring nothing.
  for model in "objective=latency calls=2" "algorithm=ip contiguous=false"; do
    start=$(date +%s.%N)
    "$bin/placer-opt" "$work/w.mlir" -o /dev/null 2>/dev/null \
      --partition-devices="$model time-limit=$limit progress=0 split=false report=$work/r.json"
    end=$(date +%s.%N)
    /usr/bin/python3 - "$work/r.json" "$model" "$limit" "$start" "$end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
value = r["latency"] if "latency" in sys.argv[2] else r["max_load"]
print("%-28s %8s %8.2f %-12s %12.4f" % (sys.argv[2], sys.argv[3],
      float(sys.argv[5]) - float(sys.argv[4]), r["solver_status"], value))
PY
  done
done
