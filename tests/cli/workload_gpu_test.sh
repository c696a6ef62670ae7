#!/usr/bin/env bash
# `ktune tune --workload FILE` on the GPU: every problem tuned and stored, a problem with
# no correct config reported while the others go on, and a second run skipping what is
# already stored for the current template; with --devices, a second workload on busy
# GPUs refused, and a killed worker's problem redone by the next run:
#   workload_gpu_test.sh PATH_TO_KTUNE SOURCE_DIR
# Exits 77 (SKIPPED) without a GPU.
set -uo pipefail
ktune=${1:?usage: workload_gpu_test.sh KTUNE SOURCE_DIR}
src=${2:?usage: workload_gpu_test.sh KTUNE SOURCE_DIR}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export KTUNE_CACHE_DIR="$dir/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }
cp "$src/tests/data/user_kernels/scale.cu" "$src/tests/data/user_kernels/all_wrong.cu" "$dir/"
cat > "$dir/work.txt" <<'WORK'
transpose --dtype f32 --shape 1000x1537
--kernel all_wrong.cu --problem n=5000     # every config wrong: reported, the rest go on
reduce --dtype f32 --n 1000003 --op sum
--kernel scale.cu --problem n=1000 --strategy exhaustive --budget-evals 4   # its own options: the first 4 in order
WORK

"$ktune" tune --workload "$dir/work.txt" --strategy random --budget-evals 40 > "$dir/first.txt" 2>&1
rc=$?
if grep -q "cannot tune here" "$dir/first.txt"; then
  echo "[  SKIPPED ] no GPU: $(head -1 "$dir/first.txt")"
  exit 77
fi
cat "$dir/first.txt"
[ $rc = 1 ] || fail "a workload with a failed problem must exit 1 (rc=$rc)"
grep -q "^workload: 4 problems, 3 tuned, 0 already stored, 1 failed" "$dir/first.txt" || fail "first run totals"
[ "$("$ktune" cache list | grep -cE 'transpose|reduce|scale_test')" = 3 ] || fail "three winners stored"
# The scale line's own options won over the command line's 40 random evaluations.
grep -q "scale_test .*: 4 of 9 configs evaluated" "$dir/first.txt" || fail "a line's own search options were not used"

"$ktune" tune --workload "$dir/work.txt" --strategy random --budget-evals 40 > "$dir/second.txt" 2>&1
cat "$dir/second.txt"
grep -q "^workload: 4 problems, 0 tuned, 3 already stored, 1 failed" "$dir/second.txt" || fail "second run resumes"
[ "$(grep -c 'already stored for this template, skipped' "$dir/second.txt")" = 3 ] || fail "skips named"
# The same workload spread over every GPU of the host (one here is enough: a worker
# process per GPU), on a fresh database: the same totals, a progress line per problem,
# the failing kernel's reason in its line; then resumed.
export KTUNE_CACHE_DIR="$dir/cache-devices"
"$ktune" tune --workload "$dir/work.txt" --devices all --strategy random --budget-evals 40 > "$dir/third.txt" 2>&1
rc=$?
cat "$dir/third.txt"
[ $rc = 1 ] || fail "--devices: a workload with a failed problem must exit 1 (rc=$rc)"
grep -q "^workload: 4 problems, 3 tuned, 0 already stored, 1 failed (on [0-9]* GPUs" "$dir/third.txt" || fail "--devices totals"
[ "$(grep -c '^\[[1-4]/4\] line' "$dir/third.txt")" = 4 ] || fail "--devices: a progress line per problem"
grep -q "line 2: --kernel .*all_wrong.cu.*: failed: " "$dir/third.txt" || fail "--devices: the failure and its reason"
[ "$("$ktune" cache list | grep -cE 'transpose|reduce|scale_test')" = 3 ] || fail "--devices: three winners stored"
"$ktune" tune --workload "$dir/work.txt" --devices all --strategy random --budget-evals 40 > "$dir/fourth.txt" 2>&1
cat "$dir/fourth.txt"
grep -q "^workload: 4 problems, 0 tuned, 3 already stored, 1 failed" "$dir/fourth.txt" || fail "--devices resumes"

# Two workloads at once on the same GPUs: the second one's workers are refused by the
# first one's tuner locks, with the holder's pid. Then a worker killed mid-problem: the
# run reports it and goes on; the next run redoes that problem only.
export KTUNE_CACHE_DIR="$dir/cache-busy"
printf 'transpose --dtype f32 --shape 16384x16384\ntranspose --dtype f16 --shape 16384x16384\n' > "$dir/long.txt"
echo 'transpose --dtype f32 --shape 1024x1024' > "$dir/short.txt"
"$ktune" tune --workload "$dir/long.txt" --devices all > "$dir/long1.txt" 2>&1 &
first=$!
sleep 8
"$ktune" tune --workload "$dir/short.txt" --devices all > "$dir/busy.txt" 2>&1
cat "$dir/busy.txt"
grep -q "failed: .*another ktune tuner (pid [0-9]*) is tuning on this GPU" "$dir/busy.txt" ||
  fail "a second workload on busy GPUs: refused with the holder's pid"
worker=$(pgrep -P "$first" | head -1)
[ -n "$worker" ] || fail "no worker process of the first workload"
kill -9 "$worker"
wait "$first"
cat "$dir/long1.txt"
grep -q "killed by signal 9 (its problem is redone by the next run)" "$dir/long1.txt" || fail "the killed worker reported"
grep -q "^workload: 2 problems, 1 tuned, 0 already stored, 1 failed" "$dir/long1.txt" || fail "the other problem went on"
"$ktune" tune --workload "$dir/long.txt" --devices all > "$dir/long2.txt" 2>&1
cat "$dir/long2.txt"
grep -q "^workload: 2 problems, 1 tuned, 1 already stored, 0 failed" "$dir/long2.txt" || fail "the killed problem redone"
echo "workload_gpu_test: ok"
