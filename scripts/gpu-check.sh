#!/usr/bin/env bash
# The one command for a GPU machine (CUDA driver, cuBLAS, cuDNN; no LLVM or
# MLIR needed): builds the runtime there (-DPLACER_RUNTIME_ONLY=ON), checks
# the CUDA declarations against the real headers, runs the `gpu` tests and
# the GPU benchmark on what scripts/gpu-prepare.sh compiled on a build
# machine (.gpu/), and writes logs and figures to OUT (default: gpu-out/).
# Every step runs even when one before it fails; the exit status says
# whether all passed.
# Usage: scripts/gpu-check.sh [OUT]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-$root/gpu-out}}
mkdir -p "$out"
build=/tmp/placer-gpu-build
status=0
step() { # NAME COMMAND...: runs it, its log in OUT/NAME.log
  local name=$1; shift
  echo "== $name"
  if "$@" >"$out/$name.log" 2>&1; then echo "ok"; else echo "FAILED ($name)"; status=1; fi
  tail -n 40 "$out/$name.log"
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
step build bash -c "cmake -S '$root' -B $build -G Ninja -DPLACER_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release && ninja -C $build"
step declarations ninja -C $build placer-cuda-check-declarations
step gpu-tests env PLACER_GPU_ARTIFACTS="$root/.gpu" ctest --test-dir $build -L gpu --output-on-failure -V
step benchmark env PYTHONUNBUFFERED=1 python3 "$root/benchmarks/gpu/run.py" \
  --run $build/bin/placer-run --prepared "$root/.gpu" --out "$out" --torch-profile \
  --compile resnet50
exit $status
