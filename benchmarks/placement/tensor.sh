#!/usr/bin/env bash
# Tensor x data x pipeline plans of an ONNX model (issue #55's first part):
# the GPT-2-style decoder of levels.sh (make_decoder.py: 12 layers, d 768,
# 12 heads, context 256, batch 1), costed on the default cluster (A100
# 80 GB), planned on 8 devices with 32 microbatches by
# --placer-place-devices with tensor-degrees=1 (the pipeline DP) and
# tensor-degrees=1,2,4,8 (configurations derived per degree, the
# three-dimensional planner), for inference and priced for training, under
# memory limits from roomy to tight. Prints objective, memory, degrees, time
# per sample, the plan's stages as (t, d, layers), planning seconds, ideals
# and candidate stages, and what the plan would be without tensor
# parallelism.
#
#   bash benchmarks/placement/tensor.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$(cd "${1:-$root/build}/bin" && pwd)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$root/benchmarks/placement/make_decoder.py" "$work/decoder.onnx" \
  --layers 12 --d 768 --heads 12 --seq 256 > /dev/null
"$bin/placer-translate" --import-onnx "$work/decoder.onnx" --shapes-only \
  --dim batch=1 -o "$work/decoder.mlir"
for training in false true; do
  for memory in 0 1000000000 300000000 200000000; do
    for degrees in 1 1,2,4,8; do
      if ! "$bin/placer-opt" "$work/decoder.mlir" -o /dev/null 2> "$work/err.txt" \
          --placer-estimate-costs="training=$training" \
          --placer-place-devices="devices=8 microbatches=32 memory=$memory tensor-degrees=$degrees report=$work/r.json"; then
        printf 'training=%-5s memory=%-10s degrees=%-8s %s\n' "$training" "$memory" "$degrees" \
          "$(grep -o 'error: .*' "$work/err.txt" | head -1 | cut -c1-90)"
        continue
      fi
      /usr/bin/python3 - "$work/r.json" "$training" "$memory" "$degrees" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
training, memory, degrees = sys.argv[2:]
head = "training=%-5s memory=%-10s degrees=%-8s" % (training, memory, degrees)
if r["algorithm"] == "parallel":
    stages = [(s["tensor_degree"], s["data_degree"], len(s["layers"])) for s in r["stages"]]
    why = r.get("without_tensor_parallelism")
    note = ""
    if why:
        note = "; without t > 1: " + ("%.6e" % why["time_per_sample"] if "time_per_sample" in why
                                      else why["error"][:36])
    print("%s %.6e s/sample %s %.2f s, %d ideals, %d pairs%s" % (
        head, r["time_per_sample"], stages, r["seconds"], r["ideals"], r["pairs"], note))
else:  # the pipeline DP
    stages = [(1, s["replicas"], s["nodes"]) for s in r["stages"]]
    print("%s %.6e s/sample %s %.2f s (dp), %d ideals" % (
        head, r["max_load"], stages, r["solver_seconds"], r["num_ideals"]))
PY
    done
  done
done
