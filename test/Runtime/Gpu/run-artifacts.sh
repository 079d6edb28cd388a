#!/usr/bin/env bash
# GPU artifacts against the outputs they must give: every folder under
# $PLACER_GPU_ARTIFACTS/tests (scripts/gpu-prepare.sh writes them on a build
# machine) holds an artifact compiled with --target=cuda, its inputs
# (inputs/NAME.npy) and the outputs the CPU code gave (expected/NAME.npy);
# a split program (a file "ranks" says how many) runs under mpirun.
# Each runs here and must agree within 1e-4 of the largest expected value,
# or within what its file "tolerance" says (half-precision programs).
# Exits 77 (skipped) without prepared artifacts or without a GPU.
# Usage: run-artifacts.sh PLACER_RUN
set -euo pipefail
run=$1
dir=${PLACER_GPU_ARTIFACTS:-}
if [[ -z "$dir" || ! -d "$dir/tests" ]]; then
  echo "skipped: no prepared GPU artifacts (PLACER_GPU_ARTIFACTS=$dir; scripts/gpu-prepare.sh writes them)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
for case in "$dir"/tests/*/; do
  name=$(basename "$case")
  # A split program runs one stage per rank.
  launcher=()
  if [[ -f "$case"ranks ]]; then
    launcher=(mpirun --allow-run-as-root --oversubscribe -n "$(cat "$case"ranks)")
  fi
  inputs=()
  for file in "$case"inputs/*.npy; do
    inputs+=(--input "$(basename "$file" .npy)=$file")
  done
  if ! out=$("${launcher[@]}" "$run" "$case"artifact "${inputs[@]}" --output-dir "$work/$name" 2>&1); then
    if grep -q "no CUDA driver\|sees no GPU" <<<"$out"; then
      echo "skipped: $out"
      exit 77
    fi
    echo "FAIL: $name: $out"
    failures=$((failures + 1))
    continue
  fi
  tolerance=1e-4
  if [[ -f "$case"tolerance ]]; then
    tolerance=$(cat "$case"tolerance)
  fi
  if python3 - "$case"expected "$work/$name" "$name" "$tolerance" <<'PY'; then :; else failures=$((failures + 1)); fi
import os, sys
import numpy as np
expected_dir, got_dir, name, tolerance = sys.argv[1:]
worst = 0.0
for file in sorted(os.listdir(expected_dir)):
    want = np.load(os.path.join(expected_dir, file))
    got = np.load(os.path.join(got_dir, file))
    assert got.shape == want.shape, (file, got.shape, want.shape)
    scale = max(float(np.abs(want).max()), 1e-30)
    worst = max(worst, float(np.abs(got.astype(np.float64) - want).max()) / scale)
ok = worst <= float(tolerance)
print("%s: %s, relative error %.2e (<= %s)" % ("ok" if ok else "FAIL", name, worst, tolerance))
sys.exit(0 if ok else 1)
PY
done
echo "$failures failures"
[[ $failures -eq 0 ]]
