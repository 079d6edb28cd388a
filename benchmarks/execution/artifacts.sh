#!/usr/bin/env bash
# Artifacts of ResNet-50 (torchvision's graph from ../shared/models, given
# random weights since its weight file is not shipped, batch 1): compile
# once with --compile-only, then run the folder. Prints the folder's sizes,
# the compile time (fresh cache), the artifact's process wall time (load +
# one run) and the one-step run's (cached code), and whether their outputs
# are bitwise equal.
# Usage: benchmarks/execution/artifacts.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/build/bin"
[ -x "$bin/placer-run" ] || bash "$root/scripts/build.sh"
work="$root/build/bench-artifacts"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cp "$root/../shared/models/resnet50.onnx" .
/usr/bin/python3 - <<'PY'
import numpy as np, onnx
model = onnx.load("resnet50.onnx", load_external_data=False)
end = 0
for tensor in model.graph.initializer:
    fields = {e.key: int(e.value) for e in tensor.external_data if e.key in ("offset", "length")}
    end = max(end, fields.get("offset", 0) + fields.get("length", 0))
values = np.random.RandomState(0).standard_normal(end // 4).astype(np.float32) * 0.01
open("resnet50_ext.onnx.data", "wb").write(values.tobytes())
PY
"$bin/placer-translate" --import-onnx --dim batch=1 resnet50.onnx -o r50.mlir
seconds() { /usr/bin/time -f "%e" "$@" 2>&1 >/dev/null | tail -1; }
echo "compile-only (fresh cache): $(seconds "$bin/placer-run" r50.mlir --compile-only art --cache-dir cache) s"
printf "artifact: manifest.json %s B, program.so %s B, weights.bin %s B\n" \
  "$(stat -c %s art/manifest.json)" "$(stat -c %s art/program.so)" "$(stat -c %s art/weights.bin)"
"$bin/placer-run" r50.mlir --output-dir one --cache-dir cache >/dev/null  # warm the cache
for i in 1 2 3; do
  echo "run the artifact (load + 1 run): $(seconds "$bin/placer-run" art --output-dir out) s;" \
       "one-step (parse, lower, cached code, 1 run): $(seconds "$bin/placer-run" r50.mlir --output-dir one --cache-dir cache) s"
done
cmp out/*.npy one/*.npy && echo "outputs bitwise equal"
