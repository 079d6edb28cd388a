#!/usr/bin/env bash
# Installs every system package Placer needs to build, test and benchmark.
# Idempotent and non-interactive: safe to run on a fresh Debian 12 machine or
# again on one that already has everything.
set -euo pipefail

PACKAGES=(
  # Build toolchain.
  build-essential cmake ninja-build
  # LLVM/MLIR 22.1 (lit, FileCheck, not, count come with llvm-22-tools).
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools libomp-22-dev
  # ONNX 1.12 and protobuf 3.21.
  libonnx-dev libprotobuf-dev protobuf-compiler
  # Convolutions and products of compiled CPU code.
  libdnnl-dev
  # MILP solver.
  coinor-libcbc-dev zlib1g-dev pkg-config
  # Tests and benchmarks.
  libgtest-dev libgmock-dev libbenchmark-dev
  # Test fixtures are generated with Debian's python3-onnx.
  python3 python3-onnx python3-numpy libonnx-testdata
  # The Python package (pybind11) and its tests.
  python3-dev pybind11-dev python3-pytest
  # Renders the placement pictures (DOT).
  graphviz
  # The sanitizer and fuzzing builds (scripts/sanitize.sh, scripts/fuzz.sh).
  clang-22 libclang-rt-22-dev
  # Split programs run as one MPI rank per device (ssh client: Open MPI's
  # launcher looks for an rsh agent even on one machine).
  libopenmpi-dev openmpi-bin openssh-client
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
