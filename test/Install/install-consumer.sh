#!/usr/bin/env bash
# Installs Placer into a scratch prefix, builds test/Install/consumer against
# it and runs it on the bundled example.
set -euo pipefail
src="$1" build="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -x "$work/prefix/bin/placer-opt"
test -x "$work/prefix/bin/placer-translate"
test -f "$work/prefix/include/placer/Dialect/Graph/GraphOps.h.inc"
cmake -G Ninja -S "$src/test/Install/consumer" -B "$work/consumer" \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
ninja -C "$work/consumer" > "$work/build.log"
"$work/consumer/consumer" "$src/examples/mlp4.onnx"
