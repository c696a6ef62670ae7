#!/usr/bin/env bash
# Reduction benchmark, one GPU run: ktune tunes a full sum of 2^28 f32 (its ceiling: a
# read-only pass over the same bytes, same process) and the row sums of a 16384x16384
# f32 matrix and its column sums; CUB's DeviceReduce::Sum (built here with nvcc) and PyTorch's torch.sum
# are timed alike.
#   bash templates/reduce/bench/reduce_bench.sh BUILD_DIR OUT_DIR
# Output: OUT_DIR/reduce.log, reduce-summary.jsonl, reduce-peers.jsonl, reduce.md.
set -uo pipefail
build=${1:?usage: templates/reduce/bench/reduce_bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: templates/reduce/bench/reduce_bench.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
status=0
run() {  # family, options...
  local start; start=$(date +%s)
  "$build/tuner/ktune" tune "$@" --summary "$out/reduce-summary.jsonl" >> "$out/reduce.log" 2>&1 || status=1
  echo "tuned $* in $(( $(date +%s) - start )) s (wall, whole command)" | tee -a "$out/reduce.log"
}
run reduce --op sum --dtype f32 --n 268435456
run reduce --op sum --dtype f16 --n 268435456
run reduce_rows --op sum --dtype f32 --shape 16384x16384
run reduce_cols --op sum --dtype f32 --shape 16384x16384
nvcc -O3 -arch=sm_90 -I "$here/../../../bench" -o /tmp/ktune_cub_reduce "$here/cub_reduce.cu" >> "$out/reduce.log" 2>&1 || status=1
/tmp/ktune_cub_reduce 268435456 > "$out/reduce-peers.jsonl" 2>> "$out/reduce.log" || status=1
python3 "$here/torch_reduce.py" sum:f32:268435456 sum:f16:268435456 rowsum:f32:16384x16384 colsum:f32:16384x16384 \
  >> "$out/reduce-peers.jsonl" \
  2>> "$out/reduce.log" || status=1
python3 "$here/reduce_report.py" "$out/reduce-summary.jsonl" "$out/reduce-peers.jsonl" | tee "$out/reduce.md"
exit $status
