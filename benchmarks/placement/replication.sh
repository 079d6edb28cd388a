#!/usr/bin/env bash
# Stage replication (issue #14, first part): every throughput inference
# workload of ../shared/workloads placed by the DP with and without
# replication=true, with its default devices; max load, devices per stage
# and solver seconds. (Training workloads write their backward ops out and
# give no gradient sizes: replication is refused for them.)
# Usage: benchmarks/placement/replication.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$(cd "${1:-$root/build}/bin" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf "%-36s %-12s %14s %-24s %s\n" workload replication max_load "devices per stage" solve_s
for f in "$root"/../shared/workloads/throughput/*/*_inference.json; do
  name="$(basename "$(dirname "$f")")/$(basename "$f" .json)"
  "$bin/placer-translate" --import-workload "$f" -o "$work/w.mlir"
  for replication in false true; do
    "$bin/placer-opt" "$work/w.mlir" -o /dev/null 2>/dev/null \
      --placer-place-devices="replication=$replication report=$work/r.json"
    /usr/bin/python3 - "$name" "$replication" "$work/r.json" <<'PY'
import json, sys
name, replication, path = sys.argv[1:]
r = json.load(open(path))
stages = [str(d.get("replicas", 1)) for d in r["devices"] if d["nodes"]]
print("%-36s %-12s %14.6f %-24s %.3f" % (name, replication, r["max_load"],
                                         " ".join(stages), r["solver_seconds"]))
PY
  done
done
