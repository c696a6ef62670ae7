#!/usr/bin/env bash
# Transpose benchmark, one GPU run: ktune tunes each problem (its memcpy ceiling is
# measured in the same process), an application built on the public header launches
# the stored winner, and PyTorch's x.t().contiguous() is timed the same way.
#   bash bench/transpose_bench.sh BUILD_DIR OUT_DIR
# Output: OUT_DIR/bench.log (tuner tables), summary.jsonl, torch.jsonl, results.md.
set -uo pipefail
build=${1:?usage: bench/transpose_bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: bench/transpose_bench.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
problems=${KTUNE_BENCH_PROBLEMS:-"f32:8192x2048 f32:16384x16384 f32:8191x4097 f32:65536x512 f32:512x65536 f16:8192x4096 f64:8192x2048 u8:16384x8192"}
status=0
for p in $problems; do
  dtype=${p%%:*}; shape=${p#*:}
  start=$(date +%s)
  "$build/tuner/ktune" tune transpose --dtype "$dtype" --shape "$shape" --summary "$out/summary.jsonl" \
    >> "$out/bench.log" 2>&1 || status=1
  echo "tuned $dtype $shape in $(( $(date +%s) - start )) s (wall, whole command)" | tee -a "$out/bench.log"
done
# The separate application: must report match=exact and run at the tuner's speed.
"$build/examples/transpose_app" 8192 2048 >> "$out/bench.log" 2>&1 || status=1
grep transpose_app "$out/bench.log" | tail -2
# Runtime start-up and per-call overhead, against the winner just stored.
"$build/bench/runtime_bench" 8192 2048 >> "$out/bench.log" 2>&1 || status=1
grep -E "^(first call|steady state)" "$out/bench.log" | tail -3
python3 "$here/torch_transpose.py" $problems > "$out/torch.jsonl" 2>> "$out/bench.log" || status=1
python3 "$here/report.py" "$out/summary.jsonl" "$out/torch.jsonl" | tee "$out/results.md"
exit $status
