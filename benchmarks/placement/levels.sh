#!/usr/bin/env bash
# Max load of a 4-device placement (default cluster, split=false) of the same
# model at the graph level and after --placer-lower-graph-to-linalg, placed
# in the same pipeline (locations name the nodes) and from the printed linalg
# module (no debug info: each op at its own line, as the stock mlir-opt-22
# plugin gets a file): ResNet-50 and BERT-12 (../shared/models, shapes only),
# a GPT-2-style decoder (make_decoder.py, 12 layers, d 768, seq 256) and
# torchvision's CNNs (exported by ../execution/compare.py, batch 1, shapes
# only).
#
#   levels.sh [BIN...]     # default: build/bin; several: side by side
#
# Prints linalg / graph for each model, level and build.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bins=("$@"); [ ${#bins[@]} -eq 0 ] && bins=("$root/build/bin")
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
first="${bins[0]}"
"$first/placer-translate" --import-onnx "$root/../shared/models/resnet50.onnx" \
  --shapes-only --dim batch=1 -o "$work/resnet50.mlir"
"$first/placer-translate" --import-onnx "$root/../shared/models/bert12_d1024.onnx" \
  --shapes-only --dim batch=1 --dim seq=128 -o "$work/bert12.mlir"
/usr/bin/python3 "$root/benchmarks/placement/make_decoder.py" "$work/decoder.onnx" \
  --layers 12 --d 768 --heads 12 --seq 256 > /dev/null
"$first/placer-translate" --import-onnx "$work/decoder.onnx" --shapes-only \
  --dim batch=1 -o "$work/decoder.mlir"
vision=(resnet18 mobilenet_v2 mobilenet_v3_small densenet121 vgg16 inception_v3)
for model in "${vision[@]}"; do
  /usr/bin/python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import compare; compare.build(sys.argv[2], sys.argv[3], 17)" \
    "$root/benchmarks/execution" "$model" "$work" 2> /dev/null
  "$first/placer-translate" --import-onnx "$work/model.onnx" --shapes-only -o "$work/$model.mlir"
done
maxload() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['max_load'])" "$1"; }
place() { # BIN IN OUT.json [PASSES...]
  local bin="$1" in="$2" out="$3"; shift 3
  "$bin/placer-opt" "$in" "$@" --partition-devices="devices=4 split=false report=$out" \
    -o /dev/null 2>/dev/null
}
for bin in "${bins[@]}"; do
  for model in resnet50 bert12 decoder "${vision[@]}"; do
    "$bin/placer-opt" "$work/$model.mlir" --placer-lower-graph-to-linalg -o "$work/$model.linalg.mlir"
    place "$bin" "$work/$model.mlir" "$work/g.json"
    place "$bin" "$work/$model.mlir" "$work/s.json" --placer-lower-graph-to-linalg
    place "$bin" "$work/$model.linalg.mlir" "$work/p.json"
    g=$(maxload "$work/g.json"); s=$(maxload "$work/s.json"); p=$(maxload "$work/p.json")
    printf '%-40s %-18s graph %.4e  same pipeline %.3f  printed %.3f\n' "$bin" "$model" \
      "$g" "$(echo "$s / $g" | bc -l)" "$(echo "$p / $g" | bc -l)"
  done
done
