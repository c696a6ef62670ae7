#!/usr/bin/env bash
# Tuner benchmark, one GPU run (issue 3's targets):
#   bash bench/tuner_bench.sh BUILD_DIR OUT_DIR
# 1. compile cost per config, one instance per NVRTC program vs several (dry runs, all cores);
# 2. a full exhaustive tuning run with an empty binary store, then the same run again
#    (binaries stored: nothing recompiles), then a third: wall times;
# 3. reproducibility: the three runs' winners timed together, interleaved (ktune bench);
# 4. strategies at 25% of the space vs the exhaustive winner.
# Output: OUT_DIR/tuner.log, appended lines in OUT_DIR/summary.jsonl.
set -uo pipefail
build=${1:?usage: bench/tuner_bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: bench/tuner_bench.sh BUILD_DIR OUT_DIR}
ktune="$build/tuner/ktune"
log="$out/tuner.log"
shape=${KTUNE_TUNER_BENCH_SHAPE:-8192x2048}
export KTUNE_CACHE_DIR=$(mktemp -d)/ktune
status=0
say() { echo "$*" | tee -a "$log"; }
wall() { local s=$EPOCHREALTIME; "$@" >> "$log" 2>&1 || status=1; awk -v a="$s" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

say "== compile cost (dry run, f32 $shape, $(nproc) threads)"
for per in 1 8; do
  "$ktune" tune transpose --shape "$shape" --dry-run --instances-per-program $per 2>&1 | tee -a "$log" | sed "s/^/instances-per-program $per: /"
done

say "== exhaustive runs of f32 $shape (empty store, then stored binaries)"
for run in 1 2 3; do
  t=$(wall "$ktune" tune transpose --shape "$shape" --summary "$out/summary.jsonl")
  say "run $run: ${t} s wall"
done
logs=$(ls -t "$KTUNE_CACHE_DIR"/logs/*.jsonl | head -3)
say "== reproducibility: the three winners timed together"
"$ktune" bench transpose --shape "$shape" --rounds 20 $(for l in $logs; do echo --winners-of "$l"; done) 2>&1 | tee -a "$log"

say "== strategies with a budget of 25% of the space (f32 $shape and 16384x16384)"
for s in $shape 16384x16384; do
  "$ktune" tune transpose --shape "$s" --database "$KTUNE_CACHE_DIR/exhaustive-$s.db" >> "$log" 2>&1 || status=1
  best=$(grep -A1 "^rank" "$log" | tail -1 | awk '{print $2}')
  size=$("$ktune" space transpose --shape "$s" | tail -1 | sed 's/.*"count": \([0-9]*\).*/\1/')
  say "$s exhaustive: best $best us over $size configs"
  for strategy in model anneal random; do
    t=$(wall "$ktune" tune transpose --shape "$s" --strategy $strategy --budget-evals $((size / 4)) \
        --database "$KTUNE_CACHE_DIR/$strategy-$s.db")
    found=$(grep -A1 "^rank" "$log" | tail -1 | awk '{print $2}')
    say "$s $strategy (budget $((size / 4)) evals): best $found us, ${t} s wall"
  done
done
exit $status
