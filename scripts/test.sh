#!/usr/bin/env bash
# Installs the dependencies, builds, and runs every test: the lit suite and
# the GoogleTest unit tests, both under ctest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${PLACER_BUILD_DIR:-$root/build}"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j 2
