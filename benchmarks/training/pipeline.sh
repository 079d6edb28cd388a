#!/usr/bin/env bash
# Pipelined training benchmark (the training issue): a GPT-style decoder's
# Adam step, and a small ResNet-style CNN's momentum step (BatchNormalization
# with the batch's statistics), placed over two MPI ranks with profiled
# costs, run under
# mpirun from its artifact by the runtime-only runner, against one process,
# the simulator and PyTorch (benchmarks/training/pipeline.py). Installs
# python3-torch if missing; builds the runtime-only runner into
# build/bench-exec/runtime-build; writes build/bench-train/<case>/training.json.
# Usage: benchmarks/training/pipeline.sh [pipeline.py options]
#   (default: the decoder under --schedule gpipe, 1f1b, then 1f1b against
#   zb-h1 side by side, then the CNN)
set -euo pipefail
source "$(dirname "$0")/../execution/setup.sh"
ensure_packages "/usr/bin/python3 -c 'import torch, onnx'" python3-torch python3-onnx
runtime="$work/runtime-build"
cmake -S "$root" -B "$runtime" -G Ninja -DPLACER_RUNTIME_ONLY=ON \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$runtime" placer-run >/dev/null
out="$root/build/bench-train"
run() { # NAME OPTIONS...
  local name=$1; shift
  OMP_NUM_THREADS=1 /usr/bin/python3 "$root/benchmarks/training/pipeline.py" \
    --bin "$root/build/bin" --runtime-bin "$runtime/bin/placer-run" --torch \
    --work "$out/$name" "$@"
}
if [ $# -gt 0 ]; then
  run custom "$@"
else
  run gpipe --schedule gpipe
  run 1f1b --schedule 1f1b
  # The interleaved and zero-bubble schedules against 1F1B, timed side by
  # side.
  run schedules --schedule 1f1b,interleaved,zb-v,zb-h1 --steps 10 --rounds 7
  run cnn --model cnn --optimizer momentum --learning-rate 0.05
fi
