#!/usr/bin/env bash
# Fuzzes every target in fuzz/ with libFuzzer under ASan and UBSan (clang-22)
# for SECONDS each (default 60), starting from fuzz/corpus/<target>. New
# inputs go to build-fuzz/corpus/<target>; crashing inputs to
# build-fuzz/crashes/<target>/ -- copy a fixed one into fuzz/corpus/<target>/
# so that the fuzz-regression tests replay it forever.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: onnx-import json pipeline)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${PLACER_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${1:-60}"; shift || true
targets=("$@"); [ "${#targets[@]}" -gt 0 ] || targets=(onnx-import json pipeline)
bash "$root/scripts/install-deps.sh"
# Libraries get coverage instrumentation too (fuzzer-no-link): without it
# libFuzzer sees only the target's few edges.
flags="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize=vptr -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
if [ ! -f "$build/build.ninja" ]; then
  CC=/usr/lib/llvm-22/bin/clang CXX=/usr/lib/llvm-22/bin/clang++ \
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPLACER_FUZZERS=ON -DPLACER_BUILD_TESTS=OFF \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
fi
ninja -C "$build" -j "${PLACER_JOBS:-2}" "${targets[@]/#/placer-fuzz-}"
# LLVM's inlined allocators poison memory that uninstrumented libMLIR then
# uses (false positives); leaks are the sanitizer job's (scripts/sanitize.sh).
export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
crashed=()
for target in "${targets[@]}"; do
  mkdir -p "$build/corpus/$target" "$build/crashes/$target"
  echo "== $target: ${seconds} s"
  # Op types and attribute names (ONNX targets) or format keys (json)
  # that mutations may insert: fuzz/make_dicts.py writes them.
  dict="$root/fuzz/dicts/onnx.dict"
  [ "$target" = json ] && dict="$root/fuzz/dicts/json.dict"
  "$build/bin/placer-fuzz-$target" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 -dict="$dict" \
    -artifact_prefix="$build/crashes/$target/" \
    "$build/corpus/$target" "$root/fuzz/corpus/$target" || crashed+=("$target")
done
if [ "${#crashed[@]}" -gt 0 ]; then
  echo "crashes in: ${crashed[*]} (inputs under $build/crashes/)" >&2
  exit 1
fi
