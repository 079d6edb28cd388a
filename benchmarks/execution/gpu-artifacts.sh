#!/usr/bin/env bash
# GPU artifacts (--target=cuda --gpu-chip=sm_90) of ResNet-50 (the graph in
# ../shared/models, random weights, batch 1), MobileNet-V2 and the GPT-2-style
# decoder (exported by compare.py's build, batch 1), compiled on this machine
# (no GPU needed). Prints per model: compile time (fresh cache), the
# folder's sizes, kernels (PTX modules for sm_90), library calls, host <->
# device copies and the undefined symbols the CUDA runtime must provide.
# Usage: benchmarks/execution/gpu-artifacts.sh
set -euo pipefail
source "$(dirname "$0")/setup.sh"
# As on the build machines CI uses: no CUDA toolkit for MLIR to find (with
# one, it would link libdevice into math the PTX lacks).
unset CUDA_HOME CUDA_PATH CUDA_ROOT
ensure_packages "/usr/bin/python3 -c 'import torch, torchvision, onnx'" \
  python3-torch python3-torchvision python3-onnx
bin="$root/build/bin"
dir="$work/gpu-artifacts" && rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
cp "$root/../shared/models/resnet50.onnx" resnet50.onnx
/usr/bin/python3 - "$root" <<'PY'
import os, sys
import numpy as np, onnx
sys.path.insert(0, sys.argv[1] + "/benchmarks/execution")
import compare
model = onnx.load("resnet50.onnx", load_external_data=False)
end = 0
for tensor in model.graph.initializer:
    fields = {e.key: int(e.value) for e in tensor.external_data if e.key in ("offset", "length")}
    end = max(end, fields.get("offset", 0) + fields.get("length", 0))
np.random.RandomState(0).standard_normal(end // 4).astype(np.float32).__mul__(0.01).tofile("resnet50_ext.onnx.data")
for case in ("mobilenet_v2", "gpt2"):
    os.makedirs(case, exist_ok=True)
    compare.build(case, case, 17)
PY
"$bin/placer-translate" --import-onnx --dim batch=1 resnet50.onnx -o resnet50.mlir
"$bin/placer-translate" --import-onnx mobilenet_v2/model.onnx -o mobilenet_v2.mlir
"$bin/placer-translate" --import-onnx gpt2/model.onnx -o gpt2.mlir
for m in resnet50 mobilenet_v2 gpt2; do
  start=$(date +%s.%N)
  "$bin/placer-run" $m.mlir --compile-only art-$m --target=cuda --gpu-chip=sm_90 --cache-dir cache-$m >/dev/null
  end=$(date +%s.%N)
  so=art-$m/program.so
  # The host code's calls, counted in the lowered module (the library calls
  # them through the GOT, which objdump cannot name).
  "$bin/placer-opt" $m.mlir --placer-lower-to-nvvm -o $m.nvvm.mlir
  count() { grep -c "llvm.call @$1(" $m.nvvm.mlir || true; }
  printf "%s: compile %.2f s; manifest %s B, program.so %s B, weights.bin %s B; PTX modules for sm_90: %s; launches %s; calls: conv2d %s, matmul %s; host<->device copies %s\n" \
    $m "$(echo "$end - $start" | bc)" "$(stat -c %s art-$m/manifest.json)" "$(stat -c %s $so)" \
    "$(stat -c %s art-$m/weights.bin)" "$(strings $so | grep -c '^\.target sm_90')" \
    "$(grep -c 'gpu.launch_func' $m.nvvm.mlir)" "$(count placer_gpu_conv2d_f32)" \
    "$(count placer_gpu_matmul_f32)" "$(count mgpuMemcpy)"
  echo "  needs from the CUDA runtime: $(nm -D --undefined-only $so | awk '$2 ~ /^(mgpu|_mlir_ciface_placer_gpu)/ {print $2}' | tr '\n' ' ')"
done
