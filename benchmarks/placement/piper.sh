#!/usr/bin/env bash
# Placer's three-dimensional planner against Piper's own (msr-fiddle/piper,
# algo.cpp; give its checkout, it is not vendored) on the same inputs, in one
# run: time per sample and planning time side by side.
#
#   bash benchmarks/placement/piper.sh PIPER_DIR [BIN_DIR]
#
# Cases: Piper's BERT-32 input (test/Inputs/workloads/piper) with 8 GiB per
# device, N = 1920 microbatches, 25 GiB/s, on 8, 64, 512 and 2048 devices,
# and BERT-64 (transformer layers repeated as Piper's insertTransformerLayer
# does) on 2048. PIPER_SKIP_ABOVE=K skips Piper's planner above K devices
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
for case in "32 8" "32 64" "32 512" "32 2048" "64 2048"; do
  set -- $case
  ours=$("$bin/placer-placement-bench" --parallel "$input" "$2" 8 1920 25 "$1")
  read -r _ _ tps rescored _ _ _ _ _ _ seconds rss <<<"$ours"
  if [ "$tps" != "$rescored" ]; then
    echo "re-scored plan differs: $tps vs $rescored" >&2
    exit 1
  fi
  if [ "$2" -le "$skip" ]; then
    theirs=$("$work/piper" "$input" "$2" 8 1920 25 "$1" 2>/dev/null)
    read -r _ _ ptps _ pseconds <<<"$theirs"
    ratio=$(python3 -c "print(f'{$tps / $ptps:.4f}')")
  else
    ptps=-; pseconds=-; ratio=-
  fi
  printf '%-5s %6s %14s %14s %7s %9s %9s %8s\n' "$1" "$2" "$tps" "$ptps" \
    "$ratio" "$seconds" "$pseconds" "$rss"
done
