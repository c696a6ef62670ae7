#!/usr/bin/env bash
# Users' own kernels tuned on the GPU (issue 15): planted bugs are caught and never
# stored, a kernel whose every config fails stores nothing, winners are stored under the
# kernel's keys and found again, the search log reads like a built-in's, a config that
# faults or hangs is logged and the run goes on without it:
#   user_kernel_gpu_test.sh PATH_TO_KTUNE SOURCE_DIR
# Exits 77 (SKIPPED) without a GPU.
set -uo pipefail
ktune=${1:?usage: user_kernel_gpu_test.sh KTUNE SOURCE_DIR}
src=${2:?usage: user_kernel_gpu_test.sh KTUNE SOURCE_DIR}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export KTUNE_CACHE_DIR="$dir/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/contains.sh"
data="$src/tests/data/user_kernels"

"$ktune" tune --kernel "$data/scale.cu" --problem n=1000003 > "$dir/scale.txt" 2>&1
rc=$?
if grep -q "cannot tune here" "$dir/scale.txt"; then
  echo "[  SKIPPED ] no GPU: $(head -1 "$dir/scale.txt")"
  exit 77
fi
cat "$dir/scale.txt"
[ $rc = 0 ] || fail "tuning scale.cu"
# The planted bugs: every bug=1 config wrote past y, every bug=2 config got one element wrong.
log=$(grep -o '/[^ ]*\.jsonl' "$dir/scale.txt" | tail -1)
[ "$(grep -c '"bug":1.*writes out of bounds' "$log")" = 3 ] || fail "out-of-bounds writes not caught in $log"
[ "$(grep -c '"bug":2.*1 of 1000003 elements of y wrong' "$log")" = 3 ] || fail "wrong results not caught"
[ "$(grep -c '"bug":0.*"status":"ok"' "$log")" = 3 ] || fail "a correct config failed"
grep -q '^1  .*bug=0' "$dir/scale.txt" || fail "the winner is not a correct config"
# A short run (its ceiling under 10 us: CUDA-graph batches) re-times its finalists and its
# ceiling one launch at a time; --batched-finals keeps the batches.
finals() {
  python3 - "$1" "$2" <<'PY'
import json, sys
closing = json.loads(open(sys.argv[1]).read().splitlines()[-1])
batches = {f["timing"]["batch"] for f in closing["finalists"]}
if sys.argv[2] == "one":
    assert batches == {1} and closing["finals_ceiling"]["batch"] == 1, closing
else:
    assert min(batches) > 1 and "finals_ceiling" not in closing, closing
PY
}
finals "$log" one || fail "a short run's finalists not re-timed one launch at a time: $log"
"$ktune" tune --kernel "$data/scale.cu" --problem n=1000003 --batched-finals > "$dir/batched.txt" 2>&1 \
  || fail "--batched-finals: $(tail -5 "$dir/batched.txt")"
finals "$(grep -o '/[^ ]*\.jsonl' "$dir/batched.txt" | tail -1)" batched || fail "--batched-finals: finalists not batched"
"$ktune" cache list | contains "scale_test .* f32 *1000003 " || fail "winner not stored"
# Other element types are other problems.
for t in f64 i32; do
  "$ktune" tune --kernel "$data/scale.cu" --problem n=4096,T=$t > "$dir/$t.txt" 2>&1 || fail "T=$t: $(tail -5 "$dir/$t.txt")"
  "$ktune" cache list | contains "scale_test .* $t *4096 " || fail "T=$t winner not stored"
done
# The stored winner is what a lookup of the same kernel and problem finds.
"$ktune" cache explain --kernel "$data/scale.cu" --problem n=1000003 | contains "exact: tuned 1000003" || fail "explain"
# `ktune log` reads a user kernel's search log unchanged.
"$ktune" log show "$log" > "$dir/logshow.txt" 2>&1 || fail "ktune log show: $(head -5 "$dir/logshow.txt")"
grep -q "bug=0" "$dir/logshow.txt" || fail "log show lists no winner"

# A config that faults (an illegal address) poisons the context for the rest of the
# process: the tuner records it, restarts itself without it, and stores a correct one.
"$ktune" tune --kernel "$data/wild.cu" --problem n=100000 > "$dir/wild.txt" 2>&1 || fail "wild.cu: $(tail -8 "$dir/wild.txt")"
cat "$dir/wild.txt"
grep -q "2 launch_error (e.g. bug=1 threads=128: the kernel faulted (the run went on in a fresh process)" "$dir/wild.txt" || fail "no reset reported: $(grep failures "$dir/wild.txt")"
grep -q '^1  .*bug=0' "$dir/wild.txt" || fail "wild.cu: the winner is not a correct config"
"$ktune" cache list | contains "wild_test" || fail "wild.cu: winner not stored"

# A config that never finishes: the watchdog logs it after --config-timeout seconds and
# the run goes on in a fresh process without it, as after a fault.
start=$SECONDS
"$ktune" tune --kernel "$data/hang.cu" --problem n=100000 --config-timeout 3 > "$dir/hang.txt" 2>&1 \
  || fail "hang.cu: $(tail -8 "$dir/hang.txt")"
cat "$dir/hang.txt"
grep -q "2 launch_error (e.g. hang=1 threads=128: hung: still running after 3 s" "$dir/hang.txt" \
  || fail "no hang reported: $(grep failures "$dir/hang.txt")"
grep -q '^1  .*hang=0' "$dir/hang.txt" || fail "hang.cu: the winner is not a finishing config"
"$ktune" cache list | contains "hang_test" || fail "hang.cu: winner not stored"
[ $((SECONDS - start)) -lt 60 ] || fail "hang.cu took $((SECONDS - start)) s for two 3 s timeouts"

# A kernel whose every config fails verification: a clear error, nothing stored.
if "$ktune" tune --kernel "$data/all_wrong.cu" --problem n=5000 > "$dir/wrong.txt" 2>&1; then
  fail "all_wrong.cu reported success"
fi
grep -q "failures: 2 wrong" "$dir/wrong.txt" || fail "all_wrong message: $(tail -5 "$dir/wrong.txt")"
! "$ktune" cache list | contains all_wrong_test || fail "all_wrong.cu stored a record"

# The stencil example at an odd size, every config verified bit for bit.
"$ktune" tune --kernel "$src/examples/stencil/jacobi.cu" --problem nx=1001,ny=999 > "$dir/jacobi.txt" 2>&1 \
  || fail "jacobi: $(tail -8 "$dir/jacobi.txt")"
grep -q "failures: none" "$dir/jacobi.txt" || fail "jacobi configs failed: $(grep failures "$dir/jacobi.txt")"
# The other examples at odd sizes: every config verified.
"$ktune" tune --kernel "$src/examples/histogram/histogram.cu" --problem n=1000003 > "$dir/hist.txt" 2>&1 \
  || fail "histogram: $(tail -8 "$dir/hist.txt")"
grep -q "failures: none" "$dir/hist.txt" || fail "histogram configs failed: $(grep failures "$dir/hist.txt")"
"$ktune" tune --kernel "$src/examples/softmax/softmax.cu" --problem rows=1001,cols=999 > "$dir/softmax.txt" 2>&1 \
  || fail "softmax: $(tail -8 "$dir/softmax.txt")"
grep -q "failures: none" "$dir/softmax.txt" || fail "softmax configs failed: $(grep failures "$dir/softmax.txt")"
# A broken reference is named and nothing is stored; a correct one tunes.
"$ktune" tune --kernel "$data/bad_reference.cu" --problem n=1000,mode=1 > "$dir/ref1.txt" 2>&1 \
  && fail "a reference writing out of bounds was accepted"
grep -q "the reference copy_reference writes past the end of y" "$dir/ref1.txt" || fail "ref oob: $(tail -3 "$dir/ref1.txt")"
"$ktune" tune --kernel "$data/bad_reference.cu" --problem n=1000,mode=2 > "$dir/ref2.txt" 2>&1 \
  && fail "a faulting reference was accepted"
grep -q "ktune: error: .*(the reference)" "$dir/ref2.txt" || fail "ref fault: $(tail -3 "$dir/ref2.txt")"
! "$ktune" cache list | contains "bad_reference_test" || fail "a broken reference's problem stored a record"
"$ktune" tune --kernel "$data/bad_reference.cu" --problem n=1000,mode=3 > "$dir/ref3.txt" 2>&1 || fail "ref ok: $(tail -5 "$dir/ref3.txt")"
# Half precision (the toolkit's headers found by ktune), every config verified on the
# device at odd sizes, at the largest alignment class and at 2 bytes (vec = 1 only).
for t in f16 bf16; do
  "$ktune" tune --kernel "$src/examples/rmsnorm/rmsnorm.cu" --problem rows=1001,cols=1000,T=$t > "$dir/rms-$t.txt" 2>&1 \
    || fail "rmsnorm $t: $(tail -8 "$dir/rms-$t.txt")"
  grep -q "failures: none" "$dir/rms-$t.txt" || fail "rmsnorm $t configs failed: $(grep failures "$dir/rms-$t.txt")"
done
"$ktune" tune --kernel "$src/examples/rmsnorm/rmsnorm.cu" --problem rows=999,cols=998,T=f16,align=1 > "$dir/rms-a1.txt" 2>&1 \
  || fail "rmsnorm align=1: $(tail -8 "$dir/rms-a1.txt")"
grep -q "failures: none" "$dir/rms-a1.txt" && ! grep -q "vec=[248]" "$dir/rms-a1.txt" || fail "rmsnorm align=1: $(cat "$dir/rms-a1.txt")"
# @work flops: FLOP/s against FMA chains of the kernel's arithmetic.
sed 's|^// @verify  tolerance = exact|// @verify  tolerance = exact\n// @work    flops = 2 * n|' "$data/scale.cu" > "$dir/flops.cu"
"$ktune" tune --kernel "$dir/flops.cu" --problem n=1000000 > "$dir/flops.txt" 2>&1 || fail "flops: $(tail -5 "$dir/flops.txt")"
grep -q "FMA chains (f32), same FLOPs" "$dir/flops.txt" && grep -q "GFLOP/s" "$dir/flops.txt" || fail "flops: $(head -20 "$dir/flops.txt")"
# A wrong config is reported with its first mismatches' indices and values.
grep -q "wrong, first \[" "$dir/wrong.txt" || grep -rq "wrong, first \[" "$KTUNE_CACHE_DIR/logs" || fail "no first mismatch reported"
echo "user kernels on the GPU: all checks passed"
