#!/usr/bin/env bash
# Issue 16's workload numbers, on a machine with two identical GPUs:
#   bash bench/workload_bench.sh BUILD OUT_DIR
# 1. An application (jacobi_app) captures 4 problems (KTUNE_CAPTURE); its first call is
#    timed with capture off and on (the overhead).
# 2. A workload of 40 problems (transposes, elementwise, reductions, SIMT and
#    tensor-core GEMMs, users' kernels by file, the 4 captured bundles) is tuned on one
#    GPU (--devices 0) and on two (--devices 0,1), each into a fresh database.
# 3. Two shards (odd and even lines) are tuned into two databases, one per GPU as a
#    cluster's nodes would, and merged with `ktune cache merge`.
# 4. workload_compare.py compares the three databases' keys and winners.
# KTUNE_WORKLOAD_ARGS: the search of every problem (default: --strategy model --budget-evals 40).
set -uo pipefail
build=${1:?usage: workload_bench.sh BUILD OUT_DIR}
out=${2:?usage: workload_bench.sh BUILD OUT_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
ktune="$build/tuner/ktune"
jacobi="$build/examples/jacobi_app"
work=$(mktemp -d)
mkdir -p "$out"
read -r -a search <<< "${KTUNE_WORKLOAD_ARGS:---strategy model --budget-evals 40}"
log() { echo "$*" | tee -a "$out/workload_summary.txt"; }
log "workload bench, $(date -u +%FT%TZ), $(nvidia-smi --query-gpu=index,name --format=csv,noheader | tr '\n' ';')"

# 1. capture, and its cost on the application's first call (CUBIN stored by a warm-up run)
export KTUNE_CACHE_DIR="$work/app"
"$jacobi" 4096 4096 > /dev/null 2>&1
for run in off on off on; do
  if [ $run = on ]; then
    rm -rf "$work/overhead"
    KTUNE_CAPTURE=jacobi KTUNE_CAPTURE_DIR="$work/overhead" "$jacobi" 4096 4096 > "$work/o.txt" 2>&1
  else
    "$jacobi" 4096 4096 > "$work/o.txt" 2>&1
  fi
  log "capture $run: $(grep -o 'first call [0-9.]* ms' "$work/o.txt") $(grep -o 'the launch and copies of .* took [0-9.]* ms' "$work/o.txt")"
done
for size in "2048 2048" "3000 1001" "5000 5000" "1536 1536"; do
  # shellcheck disable=SC2086
  KTUNE_CAPTURE=jacobi KTUNE_CAPTURE_DIR="$work/caps" "$jacobi" $size > /dev/null 2>&1 || log "jacobi_app $size failed"
done
"$ktune" capture list "$work/caps" | tee -a "$out/workload_summary.txt"

# 2. the workload
# The shared list less its scans and compactions (paths made absolute), and the bundles.
grep -v '^#\|^scan\|^compact' "$here/bench/workload_40.txt" | sed "s|--kernel \.\./|--kernel $here/|" > "$work/work.txt"
for b in "$work"/caps/*.ktcap; do echo "--capture $b" >> "$work/work.txt"; done
log "workload: $(grep -c . "$work/work.txt") problems; search: ${search[*]}"
cp "$work/work.txt" "$out/workload.txt"
timed() {  # name, ktune arguments...
  local name=$1; shift
  local t0; t0=$(date +%s.%N)
  "$ktune" tune "$@" "${search[@]}" > "$out/workload-$name.txt" 2>&1
  local rc=$?
  log "$name: rc=$rc, $(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s wall; $(tail -1 "$out/workload-$name.txt")"
}
KTUNE_CACHE_DIR="$work/one" timed one-gpu --workload "$work/work.txt" --devices 0
KTUNE_CACHE_DIR="$work/two" timed two-gpus --workload "$work/work.txt" --devices 0,1

# 3. two shards, two databases, merged
awk 'NR % 2 == 1' "$work/work.txt" > "$work/shard1.txt"
awk 'NR % 2 == 0' "$work/work.txt" > "$work/shard2.txt"
t0=$(date +%s.%N)
KTUNE_CACHE_DIR="$work/s1" "$ktune" tune --workload "$work/shard1.txt" --device 0 "${search[@]}" > "$out/workload-shard1.txt" 2>&1 &
KTUNE_CACHE_DIR="$work/s2" "$ktune" tune --workload "$work/shard2.txt" --device 1 "${search[@]}" > "$out/workload-shard2.txt" 2>&1
wait
log "shards: $(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s wall; $(tail -1 "$out/workload-shard1.txt"); $(tail -1 "$out/workload-shard2.txt")"
mkdir -p "$work/merged"
KTUNE_CACHE_DIR="$work/merged" "$ktune" cache merge "$work/s1/tuning.db" | tee -a "$out/workload_summary.txt"
KTUNE_CACHE_DIR="$work/merged" "$ktune" cache merge "$work/s2/tuning.db" | tee -a "$out/workload_summary.txt"

# 4. compare
for db in one two merged; do KTUNE_CACHE_DIR="$work/$db" "$ktune" cache export -o "$work/$db.json"; done
python3 "$here/bench/workload_compare.py" "$work/one.json" "$work/two.json" "$work/merged.json" | tee -a "$out/workload_summary.txt"
rm -rf "$work"
