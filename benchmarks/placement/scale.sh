#!/usr/bin/env bash
# Scale of the DP over ideals (issue #16): generated graphs of 5,000,
# 20,000 and 50,000 operators (placement_bench.cpp's --generate: residual
# chains, 2- and 4-branch towers, transformer stacks; seeded, so every run
# sees the same graphs) on 4 and 8 accelerators. One fresh process per case
# (peak RSS is its own), each stopped after LIMIT seconds. Prints shape,
# nodes, accelerators, ideals, DP seconds, max load, lower bound, gap,
# status (optimal, linearized or -) and peak RSS in MiB.
#
#   bash benchmarks/placement/scale.sh [BUILD_DIR] [LIMIT] [SIZES...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bench="$(cd "${1:-$root/build}/bin" && pwd)/placer-placement-bench"
limit="${2:-600}"
shift 2 2>/dev/null || shift $# 
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(5000 20000 50000)

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
