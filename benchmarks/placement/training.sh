#!/usr/bin/env bash
# Training placements of GPT-2-style decoders under GPipe and 1F1B.
#
#   bash benchmarks/placement/training.sh [BUILD_DIR] [WORK_DIR]
#
# For 24 and 48 layers (d 1600, 25 heads, seq 1024), microbatch sizes 1, 4
# and 8, 8 microbatches per iteration, on 4 and 8 A100-80GB: the DP's time
# per sample (max load / microbatch size), the simulated time per sample of
# one iteration under the schedule (fill and drain included) and its bubble
# fraction, each stage's memory (weights, gradients, Adam state, stashed
# activations; "r": the stage recomputes) and the solver's time, under
# GPipe, 1F1B, and 1F1B with recompute=true. "none fits" gives the smallest memory
# per accelerator that would (the time is then the whole run's, bisection
# included).
set -euo pipefail
build=${1:-build}
work=${2:-$(mktemp -d)}
bin=$(cd "$build/bin" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
cd "$work"

printf '%-6s %-3s %-3s %-14s %-10s %-10s %-7s %-40s %s\n' layers k mb sched \
  "s/sample" "simulated" bubble "stage memory, GiB (first..last)" "solve s"
for layers in 24 48; do
  [ -f "gpt$layers.onnx" ] ||
    (cd / && /usr/bin/python3 "$here/make_decoder.py" "$work/gpt$layers.onnx" --layers "$layers")
  for mb in 1 4 8; do
    "$bin/placer-translate" --import-onnx "gpt$layers.onnx" --shapes-only \
      --dim batch=$mb -o "g$layers-$mb.mlir"
    for k in 4 8; do
      for variant in gpipe 1f1b 1f1b+recompute; do
        schedule=${variant%+recompute}
        recompute=false
        [ "$variant" = "$schedule" ] || recompute=true
        start=$(date +%s.%N)
        if "$bin/placer-opt" "g$layers-$mb.mlir" -o /dev/null 2>err.txt \
            --partition-devices="devices=$k training=true schedule=$schedule recompute=$recompute microbatches=8 report=r.json" \
            --placer-simulate="report=s.json"; then
          /usr/bin/python3 - "$layers" "$k" "$mb" "$variant" <<'EOF'
import json, sys
layers, k, mb, schedule = sys.argv[1:]
r = json.load(open("r.json"))
s = json.load(open("s.json"))
stages = ["%.1f%s" % (d["memory"] / 2**30, "r" if d.get("recompute") else "")
          for d in r["devices"] if d["nodes"]]
print("%-6s %-3s %-3s %-14s %-10.5f %-10.5f %-7.3f %-40s %.2f" % (
    layers, k, mb, schedule, r["max_load"] / int(mb),
    s["time_per_sample"] / int(mb), s["bubble_fraction"],
    " ".join(stages), r["solver_seconds"]))
EOF
        else
          end=$(date +%s.%N)
          need=$(grep -o 'that fits is [0-9]*' err.txt | grep -o '[0-9]*$' || echo inf)
          /usr/bin/python3 -c "import sys; n=sys.argv[5]; print('%-6s %-3s %-3s %-14s %-29s %-40s %.2f' % (sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], 'none fits', 'needs %.1f GiB per device' % (float(n) / 2**30) if n != 'inf' else 'no size fits', float(sys.argv[7]) - float(sys.argv[6])))" \
            "$layers" "$k" "$mb" "$variant" "$need" "$start" "$end"
        fi
      done
    done
  done
done
