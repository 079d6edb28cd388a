#!/usr/bin/env bash
# Import benchmark (issue: foundation). Exports a BERT-large-sized encoder
# with python3-torch (once), then measures, each in a fresh process, the best
# of 3 runs of:
#   - protobuf parse alone of the inline-weights model,
#   - the full import of that model (default mode),
#   - the shapes-only import of the external-data copy.
# Usage: benchmarks/import/run.sh [WORK_DIR]   (default /tmp/placer-bench)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/tmp/placer-bench}"
bench="$root/build/bin/placer-import-bench"
[ -x "$bench" ] || bash "$root/scripts/build.sh"
if [ ! -f "$work/bert_large.onnx" ] || [ ! -f "$work/bert_large_ext.onnx" ]; then
  dpkg -s python3-torch >/dev/null 2>&1 || {
    echo "needs Debian's python3-torch: apt-get install python3-torch" >&2; exit 1; }
  /usr/bin/python3 "$root/benchmarks/import/make_bert_large.py" "$work"
fi

best() { # prints "seconds peak_rss_bytes" of the fastest of 3 runs
  local best_s="" best_m=""
  for _ in 1 2 3; do
    local line s m
    line="$("$bench" "$@")"
    s="${line#seconds=}"; s="${s%% *}"
    m="${line##*peak_rss_bytes=}"
    if [ -z "$best_s" ] || awk "BEGIN{exit !($s < $best_s)}"; then
      best_s="$s"; best_m="$m"
    fi
  done
  echo "$best_s $best_m"
}

size=$(stat -c %s "$work/bert_large.onnx")
read -r parse_s parse_m < <(best parse "$work/bert_large.onnx")
read -r import_s import_m < <(best import "$work/bert_large.onnx" batch=1 seq=128)
read -r shapes_s shapes_m < <(best import "$work/bert_large_ext.onnx" --shapes-only batch=1 seq=128)

awk -v size="$size" -v ps="$parse_s" -v pm="$parse_m" -v is="$import_s" \
    -v im="$import_m" -v ss="$shapes_s" -v sm="$shapes_m" 'BEGIN {
  printf "model: bert_large.onnx, %.2f GB inline weights\n", size / 1e9
  printf "%-34s %9s %12s\n", "run", "seconds", "peak RSS GB"
  printf "%-34s %9.3f %12.2f\n", "protobuf parse alone", ps, pm / 1e9
  printf "%-34s %9.3f %12.2f\n", "import (default mode)", is, im / 1e9
  printf "%-34s %9.3f %12.2f\n", "import --shapes-only (external)", ss, sm / 1e9
  printf "import / parse time: %.2fx (bar: <= 2x)\n", is / ps
  printf "import peak RSS / file size: %.2fx (bar: <= 1.5x)\n", im / size
  printf "shapes-only import: %.3f s (bar: < 1 s)\n", ss
}'
