#!/usr/bin/env bash
# Pipelined execution benchmark (the MPI issue): each model profiled on this
# machine, placed over N MPI ranks, split, and run with mpirun against the
# unsplit model and the simulator's prediction. Installs python3-torch and
# python3-torchvision (model export) if missing; writes
# build/bench-exec/pipeline.json.
# Usage: benchmarks/execution/pipeline.sh [--cases a,b] [--ranks N]
#        [--microbatches M] [--repeat R]
set -euo pipefail
source "$(dirname "$0")/setup.sh"
ensure_packages "/usr/bin/python3 -c 'import torch, torchvision, onnx'" \
  python3-torch python3-torchvision python3-onnx
OMP_NUM_THREADS=1 /usr/bin/python3 "$root/benchmarks/execution/pipeline.py" \
  --bin "$root/build/bin" --work "$work" "$@"
