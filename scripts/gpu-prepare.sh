#!/usr/bin/env bash
# On a build machine (no GPU needed): compiles what scripts/gpu-check.sh
# runs on a GPU machine into .gpu/ (ignored by git; a device call carries
# it): small test programs with expected outputs, and the GPU benchmark's
# models (benchmarks/gpu/prepare.py) without their weights, which the GPU
# machine writes from the same formulas.
# Usage: scripts/gpu-prepare.sh [BUILD_DIR] (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
# As on CI's machines: MLIR must not find a CUDA toolkit (libdevice).
unset CUDA_HOME CUDA_PATH CUDA_ROOT
rm -rf "$root/.gpu"
/usr/bin/python3 "$root/benchmarks/gpu/prepare.py" --bin "$build/bin" --out "$root/.gpu"
du -sh "$root/.gpu"
