#!/usr/bin/env bash
# Placer's three-dimensional planner against Piper's own (msr-fiddle/piper,
# algo.cpp; give its checkout, it is not vendored) on the same inputs, in one
# run: time per sample and planning time side by side.
#
#   bash benchmarks/placement/piper.sh PIPER_DIR [BIN_DIR]
#
# Cases: Piper's BERT-32 input (test/Inputs/workloads/piper) with 8 GiB per
# device, N = 1920 microbatches, 25 GiB/s, on 8, 64, 512 and 2048 devices,
# and BERT-64 on 2048. BERT-64 is the instance Piper's insertTransformerLayer
# builds (it copies a transformer it picks from a hash set), written out by
# the driver and read by both planners, so that both plan the same graph. PIPER_SKIP_ABOVE=K skips Piper's planner above K devices
# (it takes minutes there). Columns: transformers, devices, Placer's time per
# sample, Piper's, their ratio, Placer's seconds (wall), Piper's (CPU),
# Placer's peak RSS in MiB.
set -euo pipefail
piper=${1:?usage: piper.sh PIPER_DIR [BIN_DIR]}
bin=${2:-build/bin}
here=$(cd "$(dirname "$0")" && pwd)
input=$here/../../test/Inputs/workloads/piper/bert32a100.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -O3 -std=c++17 -I"$piper" -DPIPER_ALGO="\"$piper/algo.cpp\"" \
  "$here/piper_driver.cpp" -o "$work/piper" 2>"$work/build.log" || {
  cat "$work/build.log" >&2
  exit 1
}
skip=${PIPER_SKIP_ABOVE:-100000}
printf '%-5s %6s %14s %14s %7s %9s %9s %8s\n' layers devices placer piper \
  ratio placer_s piper_s rss_mib
"$work/piper" "$input" 8 8 1920 25 64 --dump "$work/bert64.json" 2>/dev/null
for case in "32 8" "32 64" "32 512" "32 2048" "64 2048"; do
  set -- $case
  file=$input
  [ "$1" = 64 ] && file=$work/bert64.json
  ours=$("$bin/placer-placement-bench" --parallel "$file" "$2" 8 1920 25 0)
  read -r _ _ tps rescored _ _ _ _ _ _ seconds rss <<<"$ours"
  if [ "$tps" != "$rescored" ]; then
    echo "re-scored plan differs: $tps vs $rescored" >&2
    exit 1
  fi
  if [ "$2" -le "$skip" ]; then
    theirs=$("$work/piper" "$file" "$2" 8 1920 25 0 2>/dev/null)
    read -r _ _ ptps _ pseconds <<<"$theirs"
    ratio=$(python3 -c "print(f'{$tps / $ptps:.4f}')")
  else
    ptps=-; pseconds=-; ratio=-
  fi
  printf '%-5s %6s %14s %14s %7s %9s %9s %8s\n' "$1" "$2" "$tps" "$ptps" \
    "$ratio" "$seconds" "$pseconds" "$rss"
done

# A stage whose knapsack Piper's greedy heuristic gets wrong (three layers
# on one 10-byte device; test/Inputs/workloads/piper/knapsack.json): both
# planners, then Piper's plan checked stage by stage against the exact
# choice.
small=$here/../../test/Inputs/workloads/piper/knapsack.json
gib="0.0000000093132257461547851562" # 10 bytes and 1 B/s in GiB
bps="0.00000000093132257461547851562"
ours=$("$bin/placer-placement-bench" --parallel "$small" 1 $gib 1 $bps 0)
theirs=$("$work/piper" "$small" 1 $gib 1 $bps 0 "$work/plan.json" 2>/dev/null)
echo "knapsack: placer $(echo "$ours" | awk '{print $3}') s, piper $(echo "$theirs" | awk '{print $3}') s"
"$bin/placer-placement-bench" --piper-plan "$small" 1 $gib 1 $bps "$work/plan.json"
