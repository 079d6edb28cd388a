#!/usr/bin/env bash
# LLaMA-style decode steps with KV caches (issue #57), shapes only: a 70B
# (LLaMA-2-70B's shapes) on one H100 (refused at once) and on 8, a 405B
# (LLaMA-3.1-405B's) on 16 and 64 H100s, 8 sequences of 4096 tokens each;
# then the same with tensor-parallel choices (tensor-degrees=1,2,4,8, the
# three-dimensional planner over segments). Prints each step's seconds and
# peak RSS, each pipeline placement's largest device memory, its weights
# and KV caches summed over the devices, and each three-dimensional plan's
# stages (t, d, operators, KV cache a device) and time.
#
#   bash benchmarks/placement/llm.sh [BUILD_DIR] [WORK_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$root/build}/bin
work=${2:-/tmp/placer-llm}
mkdir -p "$work"
timed() { /usr/bin/time -f "  %e s, peak RSS %M KB" "$@"; }
report() {
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["devices"]
print("  largest device %.1f GB of %.1f; weights %d B, KV caches %d B in all"
      % (max(x["memory"] for x in d) / 1e9, r["memory_limit"] / 1e9,
         sum(x["weights"] for x in d), sum(x["kv_cache"] for x in d)))
PY
}
plan3d() {
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
key = "latency" if "latency" in r else "time_per_sample"
print("  %s %.4g s over %s segments; stages (t, d, operators, KV cache GB a device):"
      % (key, r[key], r.get("segments", "no")),
      [(s["tensor_degree"], s["data_degree"], len(s["layers"]),
        round(s.get("kv_cache", 0) / 1e9, 3)) for s in r["stages"]])
print("  KV caches over the devices %d B" % sum(
    s.get("kv_cache", 0) * s["tensor_degree"] * s["data_degree"] for s in r["stages"]))
PY
}
/usr/bin/python3 "$root/benchmarks/placement/make_llama.py" "$work/llama70.onnx"
/usr/bin/python3 "$root/benchmarks/placement/make_llama.py" "$work/llama405.onnx" \
  --layers 126 --d 16384 --heads 128 --kv-heads 8 --ff 53248 --vocab 128256
for model in llama70 llama405; do
  echo "$model: import"
  timed "$bin/placer-translate" --import-onnx "$work/$model.onnx" --shapes-only \
    --dim batch=8 --dim past=4095 -o "$work/$model.mlir"
done
echo "llama70 on 1 H100 (expected: an error naming what it needs)"
timed "$bin/placer-opt" "$work/llama70.mlir" --placer-estimate-costs=cluster=h100-sxm \
  --placer-place-devices=devices=1 -o /dev/null 2>&1 | grep -v '^module' || true
echo "llama70 on 8 H100s"
timed "$bin/placer-opt" "$work/llama70.mlir" --placer-estimate-costs=cluster=h100-sxm \
  --placer-place-devices="devices=8 report=$work/llama70-8.json" -o /dev/null 2>&1
report "$work/llama70-8.json"
for n in 16 64; do
  echo "llama405 on $n H100s"
  timed "$bin/placer-opt" "$work/llama405.mlir" \
    --placer-estimate-costs=cluster="$root/benchmarks/placement/h100x64.json" \
    --placer-place-devices="devices=$n report=$work/llama405-$n.json" -o /dev/null 2>&1
  report "$work/llama405-$n.json"
done
echo "llama70 on 8 H100s, tensor-degrees=1,2,4,8"
timed "$bin/placer-opt" "$work/llama70.mlir" --placer-estimate-costs=cluster=h100-sxm \
  --placer-place-devices="devices=8 tensor-degrees=1,2,4,8 report=$work/llama70-8t.json" -o /dev/null 2>&1
plan3d "$work/llama70-8t.json"
echo "llama70 on 8 H100s, tensor-degrees=1,2,4,8 objective=latency (time per output token)"
timed "$bin/placer-opt" "$work/llama70.mlir" --placer-estimate-costs=cluster=h100-sxm \
  --placer-place-devices="devices=8 tensor-degrees=1,2,4,8 objective=latency report=$work/llama70-8l.json" -o /dev/null 2>&1
plan3d "$work/llama70-8l.json"
for n in 16 64; do
  echo "llama405 on $n H100s, tensor-degrees=1,2,4,8"
  timed "$bin/placer-opt" "$work/llama405.mlir" \
    --placer-estimate-costs=cluster="$root/benchmarks/placement/h100x64.json" \
    --placer-place-devices="devices=$n tensor-degrees=1,2,4,8 report=$work/llama405-${n}t.json" -o /dev/null 2>&1
  plan3d "$work/llama405-${n}t.json"
done
