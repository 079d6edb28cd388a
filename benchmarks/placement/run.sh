#!/usr/bin/env bash
# Placement benchmark (the DP issue): every throughput workload of
# ../shared/workloads, then fork-join graphs of about 40,000 ideals. Each case
# runs in a fresh process; peak RSS is the process's own.
# Usage: benchmarks/placement/run.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bench="$root/build/bin/placer-placement-bench"
[ -x "$bench" ] || bash "$root/scripts/build.sh"
shared="$root/../shared/workloads/throughput"

printf "%-36s %6s %9s %9s %14s %14s %14s %9s\n" case nodes ideals dp_sec \
  dp_max_load pipedream lower_bound rss_MiB
for f in "$shared"/LayerGraphs/*.json "$shared"/OperatorGraphs/*.json; do
  "$bench" "$f"
done
# (length + 1)^branches ideals: 2 x 200 -> 40,403; 3 x 33 -> 39,306.
"$bench" --synthetic 2 200
"$bench" --synthetic 3 33
"$bench" --synthetic 4 13
