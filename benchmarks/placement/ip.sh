#!/usr/bin/env bash
# Integer programs (the MILP issue): the throughput MILP with CBC on the
# shared workloads, non-contiguous and contiguous, warm-started from the DP,
# against the DP's contiguous optimum. Time limit per solve: $1 s (600).
# Usage: benchmarks/placement/ip.sh [SECONDS] [WORKLOAD.json...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/build/bin"
[ -x "$bin/placer-opt" ] || bash "$root/scripts/build.sh"
limit="${1:-600}"; shift || true
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$root"/../shared/workloads/throughput/*/*.json)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf "%-36s %12s %-24s %-24s\n" workload dp "ip (status, s)" "ip contiguous (status, s)"
for f in "${files[@]}"; do
  name="$(basename "$(dirname "$f")")/$(basename "$f" .json)"
  "$bin/placer-translate" --import-workload "$f" -o "$work/w.mlir"
  run() {
    "$bin/placer-opt" "$work/w.mlir" --partition-devices="split=false $1 report=$work/r.json" \
      -o /dev/null 2>/dev/null
    /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('%.6f %s %.0f' % (r['max_load'], r.get('solver_status', 'optimal' if r['optimal'] else '-'), r['solver_seconds']))" "$work/r.json"
  }
  dp=$(run "algorithm=dp" | cut -d' ' -f1)
  ip=$(run "algorithm=ip contiguous=false time-limit=$limit")
  cip=$(run "algorithm=ip contiguous=true time-limit=$limit")
  printf "%-36s %12s %-24s %-24s\n" "$name" "$dp" "$ip" "$cip"
done
