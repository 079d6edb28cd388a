#!/usr/bin/env bash
# One program for every batch: torchvision ResNet-18 exported with a symbolic
# batch, imported unbound (compiled once) and bound (--dim, one program per
# size), each run at batch 1 and 7: compile and run seconds, and whether
# the outputs agree. benchmarks/README.md, "Dynamic shapes".
set -euo pipefail
source "$(dirname "$0")/setup.sh"
ensure_packages "/usr/bin/python3 -c 'import torch, torchvision, onnx'" \
  python3-torch python3-torchvision python3-onnx
dir="$work/dynamic-shapes"
rm -rf "$dir" && mkdir -p "$dir"
OMP_NUM_THREADS=1 /usr/bin/python3 - "$dir" <<'PY'
import sys, numpy as np, torch, torchvision
out = sys.argv[1]
torch.manual_seed(0)
model = torchvision.models.resnet18(weights=None).eval()
torch.onnx.export(model, (torch.randn(2, 3, 224, 224),), out + "/resnet18.onnx",
                  opset_version=17, input_names=["x"], output_names=["y"],
                  dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
for b in (1, 7):
    np.save("%s/x%d.npy" % (out, b),
            np.random.RandomState(b).randn(b, 3, 224, 224).astype(np.float32))
PY
bin="$root/build/bin"
"$bin/placer-translate" --import-onnx "$dir/resnet18.onnx" -o "$dir/dynamic.mlir" 2>/dev/null
for b in 1 7; do
  "$bin/placer-translate" --import-onnx "$dir/resnet18.onnx" --dim batch=$b \
    -o "$dir/static$b.mlir"
done
echo "| module | batch | cached | compile s | run s (median of 5) |"
echo "|---|---|---|---|---|"
for b in 1 7; do
  for m in dynamic static$b; do
    "$bin/placer-run" "$dir/$m.mlir" --input x="$dir/x$b.npy" --repeat 5 \
      --output-dir "$dir/$m-$b" --cache-dir "$dir/cache" \
      --report "$dir/$m-$b.json" >/dev/null
    /usr/bin/python3 -c "
import json; r = json.load(open('$dir/$m-$b.json'))
print('| $m | $b | %s | %.2f | %.3f |' % (r['cached'], r['compile_seconds'],
      r['seconds_per_run']['median']))"
  done
  /usr/bin/python3 -c "
import numpy as np
a, s = np.load('$dir/dynamic-$b/y.npy'), np.load('$dir/static$b-$b/y.npy')
print('batch $b: dynamic vs static max |diff| %.1e' % np.abs(a - s).max())" >&2
done
