#!/usr/bin/env bash
# Scan benchmark, one GPU run: ktune tunes inclusive sums of 2^28 f32 and i32 and the row
# sums of a 16384x4096 f32 matrix (each against a copy of the same bytes, same process);
# then CUB's DeviceScan::InclusiveSum and ktune's runtime call in one process
# (cub_scan.cu, built here with nvcc against BUILD's libktune), and torch.cumsum with
# ktune.cumsum in one PyTorch process (torch_scan.py).
#   bash templates/scan/bench/scan_bench.sh BUILD_DIR OUT_DIR
# Output: OUT_DIR/scan.log, scan-summary.jsonl, scan-peers.jsonl.
set -uo pipefail
build=${1:?usage: templates/scan/bench/scan_bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: templates/scan/bench/scan_bench.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mkdir -p "$out"
status=0
budget=${KTUNE_SCAN_BUDGET:-300}  # random configs per problem (the whole space: 0)
run() {  # family, options...
  local start; start=$(date +%s)
  "$build/tuner/ktune" tune "$@" --strategy random --budget-evals "$budget" --summary "$out/scan-summary.jsonl" \
    >> "$out/scan.log" 2>&1 || status=1
  echo "tuned $* in $(( $(date +%s) - start )) s (wall, whole command)" | tee -a "$out/scan.log"
}
run scan --op sum --dtype f32 --n 268435456
run scan --op sum --dtype i32 --n 268435456
run scan_rows --op sum --dtype f32 --shape 16384x4096
binary=$build/bench/cub_scan  # built beside the build (see cub_scan.cu), else here
if [ ! -x "$binary" ]; then
  binary=/tmp/ktune_cub_scan
  nvcc -O3 -arch=sm_90 -I "$root/runtime/include" -I "$here/../include" -I "$root/bench" "$here/cub_scan.cu" -L "$build/runtime" -lktune \
    -o "$binary" >> "$out/scan.log" 2>&1 || status=1
fi
LD_LIBRARY_PATH="$build/runtime" "$binary" f32:268435456 i32:268435456 > "$out/scan-peers.jsonl" 2>> "$out/scan.log" \
  || status=1
python3 "$here/torch_scan.py" "$build" f32:268435456 i32:268435456 rows:f32:16384x4096 >> "$out/scan-peers.jsonl" \
  2>> "$out/scan.log" || status=1
cat "$out/scan-peers.jsonl"
exit $status
