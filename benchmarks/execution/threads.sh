#!/usr/bin/env bash
# placer-run --threads: torchvision ResNet-50 at batch 8 (opset 17), one
# thread and two, median of 5 runs each; the outputs must be bitwise equal.
# benchmarks/README.md, "Threads".
set -euo pipefail
source "$(dirname "$0")/setup.sh"
ensure_packages "/usr/bin/python3 -c 'import torch, torchvision, onnx'" \
  python3-torch python3-torchvision python3-onnx
dir="$work/threads"
rm -rf "$dir" && mkdir -p "$dir"
OMP_NUM_THREADS=1 /usr/bin/python3 - "$dir" <<'PY'
import sys, numpy as np, torch, torchvision
out = sys.argv[1]
torch.manual_seed(0)
model = torchvision.models.resnet50(weights=None).eval()
x = torch.randn(8, 3, 224, 224)
torch.onnx.export(model, (x,), out + "/resnet50.onnx", opset_version=17,
                  input_names=["x"], output_names=["y"])
np.save(out + "/x.npy", x.numpy())
PY
bin="$root/build/bin"
"$bin/placer-translate" --import-onnx "$dir/resnet50.onnx" -o "$dir/resnet50.mlir"
echo "| threads | compile s | run s (median of 5) |"
echo "|---|---|---|"
for t in 1 2; do
  "$bin/placer-run" "$dir/resnet50.mlir" --input x="$dir/x.npy" --threads $t \
    --repeat 5 --output-dir "$dir/out$t" --cache-dir "$dir/cache" \
    --report "$dir/run$t.json" >/dev/null
  /usr/bin/python3 -c "
import json; r = json.load(open('$dir/run$t.json'))
print('| $t | %.2f | %.3f |' % (r['compile_seconds'], r['seconds_per_run']['median']))"
done
/usr/bin/python3 -c "
import numpy as np
a, b = np.load('$dir/out1/y.npy'), np.load('$dir/out2/y.npy')
print('outputs bitwise equal:', a.tobytes() == b.tobytes())" >&2
