#!/usr/bin/env bash
# Configures (once) and builds Placer in build/ with Ninja.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${PLACER_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
# Two jobs: the machines this runs on have two cores and MLIR TUs are big.
ninja -C "$build" -j "${PLACER_JOBS:-2}"
