#!/usr/bin/env bash
# The runtime-only build against the full placer-run on the execution
# benchmark's ResNet-18 (torchvision, seeded random weights, batch 1,
# exported by compare.py's build): compile once with the full build
# (--compile-only: whole, and split in 2 stages by --partition-devices=2),
# run the folders with build-rt/bin/placer-run (cmake -DPLACER_RUNTIME_ONLY=ON;
# the split one as 2 MPI ranks), and check them bitwise against the one-step
# full placer-run. Prints the runner's size and libraries, and the
# process wall times (load + 1 run).
# Usage: benchmarks/execution/runtime-only.sh
set -euo pipefail
source "$(dirname "$0")/setup.sh"
ensure_packages "/usr/bin/python3 -c 'import torch, torchvision, onnx'" \
  python3-torch python3-torchvision python3-onnx
bin="$root/build/bin" rt="$root/build-rt"
cmake -G Ninja -S "$root" -B "$rt" -DPLACER_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$rt" >/dev/null
dir="$work/runtime-only" && rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
/usr/bin/python3 - "$root" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/benchmarks/execution")
import compare
compare.build("resnet18", ".", 17)
PY
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
"$bin/placer-translate" --import-onnx model.onnx -o r18.mlir
"$bin/placer-opt" r18.mlir --partition-devices=2 -o r18.2.mlir 2>/dev/null
"$bin/placer-run" r18.mlir --compile-only whole --cache-dir cache >/dev/null
"$bin/placer-run" r18.2.mlir --compile-only split --cache-dir cache >/dev/null
seconds() { /usr/bin/time -f "%e" "$@" 2>&1 >/dev/null | tail -1; }
echo "runtime-only placer-run: $(stat -c %s "$rt/bin/placer-run") B + libplacer_rt $(stat -c %s "$rt/lib/libplacer_rt.so") B;" \
     "libraries: $(ldd "$rt/bin/placer-run" | awk '{print $1}' | grep -v vdso | tr '\n' ' ')"
echo "full placer-run links: $(ldd "$bin/placer-run" | grep -Eo 'lib(MLIR|LLVM)[^ ]*' | sort -u | tr '\n' ' ')"
"$bin/placer-run" r18.mlir --output-dir one --cache-dir cache >/dev/null  # warm the cache
mpirun -n 2 "$bin/placer-run" r18.2.mlir --output-dir one-split --cache-dir cache >/dev/null
for i in 1 2 3; do
  echo "whole: runtime-only $(seconds "$rt/bin/placer-run" whole --output-dir rt) s," \
       "full on the folder $(seconds "$bin/placer-run" whole --output-dir full) s," \
       "full one-step (cached code) $(seconds "$bin/placer-run" r18.mlir --output-dir one --cache-dir cache) s;" \
       "split, 2 ranks: runtime-only $(seconds mpirun -n 2 "$rt/bin/placer-run" split --output-dir rt-split) s"
done
cmp rt/logits.npy one/logits.npy && echo "whole: runtime-only == one-step placer-run (bitwise)"
cmp rt-split/logits.npy one-split/logits.npy && echo "split: runtime-only (mpirun -n 2) == one-step mpirun placer-run (bitwise)"
cmp rt-split/logits.npy one/logits.npy && echo "split == whole (bitwise)"
