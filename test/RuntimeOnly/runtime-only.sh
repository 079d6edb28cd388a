#!/usr/bin/env bash
# The runtime apart from the compiler: configures and builds the tree with
# -DPLACER_RUNTIME_ONLY=ON (with MPI, and once as if no MPI were installed),
# checks that its placer-run links no compiler library, and runs artifacts
# that the full build compiled: a whole program alone and a split one as 2
# MPI ranks, bitwise equal to the full placer-run's one-step results.
set -euo pipefail
src="$1" build="$2" work="$3"
full="$build/bin"
rm -rf "$work" && mkdir -p "$work"
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  OMPI_MCA_btl_vader_single_copy_mechanism=none \
  OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "runtime-only: FAILED: $*" >&2; exit 1; }
# "$@" must fail with a message containing $1's text.
expect_error() {
  local text="$1"; shift
  if "$@" > error.out 2>&1; then fail "succeeded: $*"; fi
  grep -qF -- "$text" error.out || { cat error.out >&2; fail "no '$text' from: $*"; }
}

build_runtime() {  # folder, extra cmake arguments
  local dir="$1"; shift
  cmake -G Ninja -S "$src" -B "$dir" -DPLACER_RUNTIME_ONLY=ON \
    -DCMAKE_BUILD_TYPE=Release "$@" > "$dir.configure.log"
  ninja -C "$dir" > "$dir.build.log"
  # Nothing of the compiler: no LLVM, MLIR, ONNX, protobuf or CBC.
  if ldd "$dir/bin/placer-run" | grep -Ei "libMLIR|libLLVM|libonnx|libprotobuf|libCbc|libClp"; then
    fail "$dir/bin/placer-run links a compiler library"
  fi
  if grep -Eq "^(MLIR|LLVM|ONNX|Protobuf|CBC)_" "$dir/CMakeCache.txt"; then
    fail "the runtime-only configuration looked for the compiler's packages"
  fi
}
build_runtime rt
build_runtime rt-nompi -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON
# grep reads all of ldd's output: with -q it could exit first, and under pipefail
# ldd's SIGPIPE would fail the check (seen once on a busy machine).
ldd rt/bin/placer-run | grep libmpi >/dev/null || fail "rt links no MPI"
if ldd rt-nompi/bin/placer-run | grep libmpi >/dev/null; then fail "rt-nompi links MPI"; fi
echo "runtime-only: placer-run links $(ldd rt/bin/placer-run | wc -l) libraries, none of LLVM/MLIR/ONNX/protobuf/CBC"

# The full build compiles; the runtime-only one runs.
/usr/bin/python3 "$src/test/Runtime/Inputs/pipeline_models.py" cnn cnn.onnx
"$full/placer-translate" --import-onnx cnn.onnx -o cnn.mlir
"$full/placer-opt" cnn.mlir --partition-devices=2 -o cnn.2.mlir 2> /dev/null
"$full/placer-run" cnn.mlir --output-dir one-step --cache-dir cache > /dev/null
"$full/placer-run" cnn.mlir --compile-only whole --cache-dir cache > /dev/null
"$full/placer-run" cnn.2.mlir --compile-only split --cache-dir cache > /dev/null
# A whole program runs without MPI: its code needs none.
if readelf -d whole/program.so | grep -q libmpi; then fail "whole/program.so needs MPI"; fi

rt/bin/placer-run whole --output-dir from-rt --report report.json --repeat 2 | tee run.out
cmp one-step/y.npy from-rt/y.npy || fail "whole: outputs differ"
grep -q '"cached": true' report.json || fail "report: no cached"
grep -q '"repeat": 2' report.json || fail "report: no repeat"
grep -q "main_graph: 2 runs" run.out || fail "no times printed"
rt-nompi/bin/placer-run whole --output-dir from-nompi
cmp one-step/y.npy from-nompi/y.npy || fail "whole without MPI: outputs differ"
# Given inputs, and 3 microbatches chosen at run time.
/usr/bin/python3 -c "
import numpy as np
np.save('x3.npy', np.random.default_rng(7).uniform(-1, 1, (6, 3, 16, 16)).astype(np.float32))"
"$full/placer-run" whole --input x=x3.npy --microbatches 3 --output-dir full-3 > /dev/null
rt/bin/placer-run whole --input=x=x3.npy --microbatches=3 --output-dir rt-3 > /dev/null
cmp full-3/y.npy rt-3/y.npy || fail "3 microbatches: outputs differ"

# A split program: one stage per rank, pipelined.
timeout 300 mpirun -n 2 rt/bin/placer-run split --microbatches 3 --output-dir rt-split > /dev/null
timeout 300 mpirun -n 2 "$full/placer-run" cnn.2.mlir --microbatches 3 --output-dir full-split --cache-dir cache > /dev/null
cmp full-split/y.npy rt-split/y.npy || fail "split: outputs differ"
timeout 300 mpirun -n 2 rt/bin/placer-run split --output-dir rt-split-1 > /dev/null
cmp one-step/y.npy rt-split-1/y.npy || fail "split, 1 microbatch: outputs differ"
echo "runtime-only: whole and split (2 ranks) artifacts bitwise equal to the full placer-run"

# What the runtime-only runner cannot do says so.
expect_error "is not an artifact folder: this placer-run is the runtime-only build" \
  rt/bin/placer-run cnn.mlir --output-dir x
expect_error "--compile-only needs the compiler" rt/bin/placer-run cnn.mlir --compile-only x
expect_error "unknown option '--bogus'" rt/bin/placer-run whole --bogus 1
expect_error "--repeat expects a number, got 'many'" rt/bin/placer-run whole --output-dir x --repeat many
expect_error "give --output-dir DIR (outputs) or --profile FILE.json" rt/bin/placer-run whole
expect_error "--microbatches must be at least 1" rt/bin/placer-run whole --output-dir x --microbatches 0
expect_error "holds a split program of 2 stages: run it with mpirun" rt/bin/placer-run split --output-dir x
expect_error "split holds a split program" rt-nompi/bin/placer-run split --output-dir x
expect_error "this runtime was built without MPI" \
  timeout 300 mpirun -n 1 rt-nompi/bin/placer-run whole --output-dir x
rt/bin/placer-run --help | grep "runtime-only build" >/dev/null || fail "--help"
echo "runtime-only: errors named"
