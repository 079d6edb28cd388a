#!/usr/bin/env bash
# Execution benchmark (the compile-and-run issue): placer-run against PyTorch
# (Debian python3-torch) and onnxruntime-node, single-threaded unless
# --threads, on ResNet-50, a GPT-2-style decoder and the bundled example
# (--cases cnns: eight torchvision models). Installs what it needs
# (python3-torch and python3-torchvision only for this script; onnxruntime-
# node from npm with its bundled CPU library) and writes
# build/bench-exec/results.json.
# Usage: benchmarks/execution/run.sh [--opset 13|17] [--repeat N] [--cases a,b]
set -euo pipefail
source "$(dirname "$0")/setup.sh"
ensure_packages "/usr/bin/python3 -c 'import torch, torchvision, onnx' && command -v npm" \
  python3-torch python3-torchvision python3-onnx nodejs npm
mkdir -p "$work/ort"
if [ ! -d "$work/ort/node_modules/onnxruntime-node" ]; then
  (cd "$work/ort" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund \
     --prefix . onnxruntime-node@1.30.0 >/dev/null)
fi

# The runner a deployment runs compiled artifacts with: the runtime-only
# build (-DPLACER_RUNTIME_ONLY=ON), which links no compiler; its peak
# memory is the one compared with ORT's.
runtime="$work/runtime-build"
if [ ! -x "$runtime/bin/placer-run" ] || [ "$root/build/bin/placer-run" -nt "$runtime/bin/placer-run" ]; then
  cmake -G Ninja -S "$root" -B "$runtime" -DPLACER_RUNTIME_ONLY=ON \
    -DCMAKE_BUILD_TYPE=Release > "$runtime.configure.log"
  ninja -C "$runtime" placer-run > "$runtime.build.log"
fi

# One thread everywhere unless --threads N: the script gives PyTorch, ORT's
# intra-op pool and placer-run (its OpenMP threads) the same number.
OMP_NUM_THREADS=1 /usr/bin/python3 "$root/benchmarks/execution/compare.py" \
  --bin "$root/build/bin" --runtime-bin "$runtime/bin" --ort "$work/ort" \
  --work "$work" "$@"
