#!/usr/bin/env bash
# Compaction benchmark, one GPU run: ktune tunes the flagged selection of 2^28 f32 (half
# kept, at random; one record serves every fraction), then CUB's DeviceSelect::Flagged
# and ktune's runtime call in one process (cub_compact.cu) and torch.masked_select with
# ktune.masked_select / ktune.compact in one PyTorch process (torch_compact.py), at 50%
# and 1% kept, random and clustered.
#   bash templates/compact/bench/compact_bench.sh BUILD_DIR OUT_DIR
# Output: OUT_DIR/compact.log, compact-summary.jsonl, compact-peers.jsonl.
set -uo pipefail
build=${1:?usage: templates/compact/bench/compact_bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: templates/compact/bench/compact_bench.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mkdir -p "$out"
status=0
n=268435456
"$build/tuner/ktune" tune compact --dtype f32 --n $n --keep 0.5 --strategy random \
  --budget-evals "${KTUNE_COMPACT_BUDGET:-72}" --summary "$out/compact-summary.jsonl" >> "$out/compact.log" 2>&1 || status=1
binary=$build/bench/cub_compact  # built beside the build (see cub_compact.cu), else here
if [ ! -x "$binary" ]; then
  binary=/tmp/ktune_cub_compact
  nvcc -O3 -arch=sm_90 -I "$root/runtime/include" -I "$here/../include" -I "$root/bench" "$here/cub_compact.cu" -L "$build/runtime" \
    -lktune -o "$binary" >> "$out/compact.log" 2>&1 || status=1
fi
: > "$out/compact-peers.jsonl"
for case in "0.5 random" "0.01 random" "0.5 clustered" "0.01 clustered"; do
  LD_LIBRARY_PATH="$build/runtime" "$binary" $n $case >> "$out/compact-peers.jsonl" 2>> "$out/compact.log" || status=1
done
python3 "$here/torch_compact.py" "$build" $n:0.5:random $n:0.01:random $n:0.5:clustered $n:0.01:clustered \
  >> "$out/compact-peers.jsonl" 2>> "$out/compact.log" || status=1
cat "$out/compact-peers.jsonl"
exit $status
