#!/usr/bin/env bash
# Mainstream PyTorch exports (opsets 13 and 17) run by placer-run and
# checked against PyTorch: benchmarks/README.md, "Real models".
# Usage: benchmarks/execution/real-models.sh [--opsets 13,17] [--cases a,b]
set -euo pipefail
source "$(dirname "$0")/setup.sh"
ensure_packages "/usr/bin/python3 -c 'import torch, torchvision, onnx'" \
  python3-torch python3-torchvision python3-onnx
OMP_NUM_THREADS=1 /usr/bin/python3 "$root/benchmarks/execution/real_models.py" \
  --bin "$root/build/bin" --work "$work/real-models" "$@"
