#!/usr/bin/env bash
# The main job on the bundled example: install, build, then import
# examples/mlp4.onnx, summarise what was imported, estimate per-op costs on
# an A100 node, find the optimal pipelined split over 4 GPUs into one program
# per GPU, simulate the pipeline, draw the graph and the timeline, write one
# ONNX model per GPU, and check that the ONNX round trip is exact. Outputs
# land in build/demo/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${PLACER_BUILD_DIR:-$root/build}"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"

bin="$build/bin"
out="$build/demo"
mkdir -p "$out"
model="$root/examples/mlp4.onnx"

echo
echo "== 1. import $model (batch bound to 8)"
"$bin/placer-translate" --import-onnx "$model" --dim batch=8 -o "$out/mlp4.mlir"
echo "wrote $out/mlp4.mlir:"
echo "   $(grep -c 'graph.node' "$out/mlp4.mlir") nodes, $(grep -c 'graph.constant' "$out/mlp4.mlir") constants"
echo "   op types: $(grep -o 'graph.node "[A-Za-z]*"' "$out/mlp4.mlir" | sed 's/graph.node //; s/"//g' | sort | uniq -c | awk '{printf "%s x%s  ", $2, $1}')"
echo "   signature: $(grep -o 'func.func @main_graph.*) attributes' "$out/mlp4.mlir" | sed 's/ attributes$//')"
echo "first block:"
grep -m 6 'graph.node' "$out/mlp4.mlir" | sed 's/ attributes {.*} :/ :/; s/^ */   /'

echo
echo "== 2. estimate costs on an A100-80GB node (roofline; see docs/CostModel.md)"
"$bin/placer-opt" "$out/mlp4.mlir" \
  --placer-estimate-costs="cluster=a100-80gb dump=$out/mlp4.costs.json" \
  --placer-print-costs -o "$out/mlp4.costs.mlir"
echo "wrote $out/mlp4.costs.mlir (ops annotated with placer.cost) and $out/mlp4.costs.json"

echo
echo "== 3. optimal pipelined split over 4 GPUs, one program per GPU (--partition-devices=4)"
"$bin/placer-opt" "$out/mlp4.mlir" \
  --partition-devices="devices=4 report=$out/mlp4.placement.json" \
  -o "$out/mlp4.placed.mlir" 2>&1 | grep -o 'remark: .*' || true
/usr/bin/python3 - "$out/mlp4.placement.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("max load %.3g s/sample (lower bound %.3g), optimal: %s" %
      (r["max_load"], r["lower_bound"], r["optimal"]))
stages = {}
for name, device in r["assignment"].items():
    stages.setdefault(device, []).append(name)
for d in r["devices"]:
    names = stages.get(d["device"], [])
    print("  gpu %d: load %.3g s, %d ops: %s" % (d["device"], d["load"],
          len(names), ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")))
PY
echo "wrote $out/mlp4.placement.json and $out/mlp4.placed.mlir: one function per GPU,"
echo "   $(grep -c 'dist.send' "$out/mlp4.placed.mlir") send/recv pairs, wired by: $(grep -o 'dist.program .*' "$out/mlp4.placed.mlir" | cut -c1-100)..."

echo
echo "== 4. simulate 32 microbatches through the pipeline; pictures"
"$bin/placer-opt" "$out/mlp4.placed.mlir" \
  --placer-simulate="microbatches=32 timeline=$out/mlp4.timeline.svg" \
  --placer-export-dot="file=$out/mlp4.dot" -o /dev/null 2>&1 | grep -o 'remark: .*' || true
dot -Tsvg "$out/mlp4.dot" -o "$out/mlp4.graph.svg"
echo "pictures: $out/mlp4.graph.svg (one colour per GPU, cut edges red),"
echo "          $out/mlp4.timeline.svg (one row per GPU, bars per microbatch)"
"$bin/placer-translate" --export-onnx-stages "$out/stages" "$out/mlp4.placed.mlir"
echo "per-GPU ONNX models and their wiring: $(ls "$out/stages" | tr '\n' ' ')"

echo
echo "== 5. export back to ONNX and re-import"
"$bin/placer-translate" --export-onnx "$out/mlp4.mlir" -o "$out/mlp4.exported.onnx"
# The batch dim was bound on import, so the export is static already.
"$bin/placer-translate" --import-onnx "$out/mlp4.exported.onnx" -o "$out/mlp4.reimported.mlir"
if cmp -s "$out/mlp4.mlir" "$out/mlp4.reimported.mlir"; then
  echo "round trip exact: $out/mlp4.exported.onnx re-imports to identical IR"
else
  echo "round trip differs:" >&2
  diff "$out/mlp4.mlir" "$out/mlp4.reimported.mlir" >&2 || true
  exit 1
fi

echo
echo "== 6. compile and run natively: whole model and 4-GPU split, checked"
check="$root/test/Runtime/Inputs/mlp4_check.py"
/usr/bin/python3 "$check" write-input "$out/x.npy"
"$bin/placer-run" "$out/mlp4.mlir" --input x="$out/x.npy" \
  --output-dir "$out/run" --cache-dir "$out/cache" --repeat 100
/usr/bin/python3 "$check" check "$out/run/y.npy" "$out/x.npy" "$root/examples/mlp4.onnx"
"$bin/placer-run" "$out/mlp4.placed.mlir" --input x="$out/x.npy" \
  --output-dir "$out/run-split" --cache-dir "$out/cache"
echo "split vs whole: $(/usr/bin/python3 "$check" same "$out/run/y.npy" "$out/run-split/y.npy")"

echo
echo "== 7. run the split for real: 4 MPI ranks, 16 microbatches streamed"
# As root, Open MPI needs these two; 4 ranks may exceed the cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
/usr/bin/python3 "$check" write-input "$out/x16.npy" 16
"$bin/placer-run" "$out/mlp4.mlir" --input x="$out/x16.npy" --microbatches 16 \
  --output-dir "$out/run16" --cache-dir "$out/cache"
timeout 300 mpirun -n 4 --oversubscribe "$bin/placer-run" "$out/mlp4.placed.mlir" \
  --input x="$out/x16.npy" --microbatches 16 --repeat 10 \
  --output-dir "$out/run-mpi" --report "$out/run-mpi.json" --cache-dir "$out/cache"
echo "4 ranks vs whole model: $(/usr/bin/python3 "$check" same "$out/run16/y.npy" "$out/run-mpi/y.npy")"
