#!/usr/bin/env bash
# Installs Placer into a scratch prefix, builds test/Install/consumer against
# it and runs its programs on the bundled example: the C++ consumer (dialect
# and importer), the C consumer (the C API: partition, stages, runs), the
# stock mlir-opt-22 with the installed plugin, and the installed Python
# package.
set -euo pipefail
src="$1" build="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -x "$work/prefix/bin/placer-opt"
test -x "$work/prefix/bin/placer-translate"
test -f "$work/prefix/include/placer/Dialect/Graph/GraphOps.h.inc"
test -f "$work/prefix/include/placer-c/Placer.h"
cmake -G Ninja -S "$src/test/Install/consumer" -B "$work/consumer" \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
ninja -C "$work/consumer" > "$work/build.log"
"$work/consumer/consumer" "$src/examples/mlp4.onnx" | tee "$work/cxx.out"
grep -q "consumer imported 25 nodes" "$work/cxx.out"
"$work/consumer/consumer_c" "$src/examples/mlp4.onnx" "$work/cache"
# The installed plugin in the stock mlir-opt.
"$work/prefix/bin/placer-translate" --import-onnx "$src/examples/mlp4.onnx" \
  --dim batch=8 -o "$work/mlp4.mlir"
plugin=$(echo "$work"/prefix/lib*/libPlacerPlugin.so)
/usr/lib/llvm-22/bin/mlir-opt --load-dialect-plugin="$plugin" \
  --load-pass-plugin="$plugin" "$work/mlp4.mlir" -o "$work/split.mlir" \
  --pass-pipeline="builtin.module(partition-devices{devices=2})" 2>/dev/null
grep -q "dist.program" "$work/split.mlir"
echo "plugin consumer: mlir-opt-22 split the model with $plugin"
# The installed package, from the prefix alone.
site=$(echo "$work"/prefix/lib*/python3*/site-packages)
PYTHONPATH="$site" /usr/bin/python3 -c "
import placer, sys
m = placer.import_onnx(sys.argv[1], dims={'batch': 8})
p = m.partition(devices=2)
print('python consumer: %d stages from %s' % (len(p.stages()[0]), placer.__file__))
" "$src/examples/mlp4.onnx"
