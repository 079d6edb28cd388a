#!/usr/bin/env bash
# The front end's time on ResNet-50 (../shared/models/resnet50.onnx, shapes
# only, batch 1) with two builds side by side, runs interleaved: costs
# (--placer-estimate-costs), the lowering to linalg
# (--placer-lower-graph-to-linalg: every per-op lookup of the op registry)
# and both. For changes to the op registry, whose lookups these passes make
# once per node.
#
#   registry-overhead.sh OLD_BIN NEW_BIN [RUNS]
#
# Prints the median seconds of each step for each build and new/old.
set -euo pipefail
old="$1"; new="$2"; runs="${3:-7}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
model="$root/../shared/models/resnet50.onnx"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
"$new/placer-translate" --import-onnx "$model" --shapes-only --dim batch=1 -o "$work/r50.mlir"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_one() { # BIN PASSES...
  local bin="$1"; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$bin/placer-opt" "$work/r50.mlir" "$@" -o /dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
for step in "--placer-estimate-costs" "--placer-lower-graph-to-linalg" \
            "--placer-estimate-costs --placer-lower-graph-to-linalg"; do
  : > "$work/old"; : > "$work/new"
  for _ in $(seq "$runs"); do
    # shellcheck disable=SC2086
    time_one "$old" $step >> "$work/old"
    # shellcheck disable=SC2086
    time_one "$new" $step >> "$work/new"
  done
  o=$(median < "$work/old"); n=$(median < "$work/new")
  printf '%-55s old %.3f s  new %.3f s  new/old %.3f\n' "$step" "$o" "$n" \
    "$(echo "$n / $o" | bc -l)"
done
