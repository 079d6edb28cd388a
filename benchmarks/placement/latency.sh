#!/usr/bin/env bash
# Single-sample latency (the MILP issue): on every workload of
# ../shared/workloads/latency, the latency of the MILP's placement (CBC,
# warm-started from the heuristic, $1 s per solve, $2 calls per accelerator),
# the heuristic's, the throughput DP's split and the human expert's split
# (where ../shared/workloads/human-experts has one; an expert split that uses
# more accelerators than the workload allows is scored with that many).
# Usage: benchmarks/placement/latency.sh [SECONDS] [CALLS] [WORKLOAD.json...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/build/bin"
shared="$root/../shared/workloads"
[ -x "$bin/placer-opt" ] || bash "$root/scripts/build.sh"
limit="${1:-600}"; shift || true
calls="${1:-1}"; shift || true
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$shared"/latency/*/*.json)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Prints "latency status seconds" from a placement report.
summary() {
  /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('%.6f %s %.1f' % (r['latency'], r.get('solver_status', '-'), r['solver_seconds']))" "$1"
}
place() { # MLIR OPTIONS
  "$bin/placer-opt" "$1" --partition-devices="objective=latency split=false $2 report=$work/r.json" \
    -o /dev/null 2>/dev/null
  summary "$work/r.json"
}

printf "%-36s %-28s %-22s %-12s %-12s %-10s\n" workload "ip (status, s)" "greedy (s)" dp-split expert "lower bound"
for f in "${files[@]}"; do
  name="$(basename "$(dirname "$f")")/$(basename "$f" .json)"
  "$bin/placer-translate" --import-workload "$f" -o "$work/w.mlir"
  ip=$(place "$work/w.mlir" "algorithm=ip calls=$calls time-limit=$limit progress=60")
  greedy=$(place "$work/w.mlir" "algorithm=greedy calls=$calls" | cut -d' ' -f1,3)
  dp=$(place "$work/w.mlir" "algorithm=dp" | cut -d' ' -f1)
  bound=$(/usr/bin/python3 -c "import json; print('%.6f' % json.load(open('$work/r.json'))['lower_bound'])")
  expert=-
  split="$shared/human-experts/$(basename "$f" .json)_expert.json"
  if [ -f "$split" ]; then
    /usr/bin/python3 - "$f" "$split" "$work/expert.json" <<'PY'
import json, sys
workload, split = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
workload["maxFPGAs"] = max(workload["maxFPGAs"], len(split["fpgas"]))
json.dump(workload, open(sys.argv[3], "w"))
PY
    "$bin/placer-translate" --import-workload "$work/expert.json" -o "$work/e.mlir"
    expert=$(place "$work/e.mlir" "algorithm=split-file split-in=$split" | cut -d' ' -f1 || echo infeasible)
  fi
  printf "%-36s %-28s %-22s %-12s %-12s %-10s\n" "$name" "$ip" "$greedy" "$dp" "$expert" "$bound"
done
