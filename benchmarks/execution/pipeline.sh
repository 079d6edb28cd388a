#!/usr/bin/env bash
# Pipelined execution benchmark (the MPI issue): each model profiled on this
# machine, placed over N MPI ranks, split, and run with mpirun against the
# unsplit model and the simulator's prediction. Installs python3-torch and
# python3-torchvision (model export) if missing; writes
# build/bench-exec/pipeline.json.
# Usage: benchmarks/execution/pipeline.sh [--cases a,b] [--ranks N]
#        [--microbatches M] [--repeat R]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$root/build/bench-exec"
[ -x "$root/build/bin/placer-run" ] || bash "$root/scripts/build.sh"
if ! /usr/bin/python3 -c "import torch, torchvision, onnx" 2>/dev/null; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
    python3-torch python3-torchvision python3-onnx
fi
mkdir -p "$work"
OMP_NUM_THREADS=1 /usr/bin/python3 "$root/benchmarks/execution/pipeline.py" \
  --bin "$root/build/bin" --work "$work" "$@"
