#!/usr/bin/env bash
# Capture on the GPU, end to end (issue 16): applications run with KTUNE_CAPTURE write
# one bundle per distinct problem (a user's kernel with its data, a built-in call with
# its key), never twice; `ktune tune --capture FOLDER` tunes them on the captured data;
# the application's next run launches the winners (exact). A bundle whose reference
# disagrees with the kernel fails every config, so replay compares with the captured
# outputs and not a reference of its own. A pitched call of the same shape (another
# alignment class) is a problem of its own, tuned at its class:
#   capture_gpu_test.sh PATH_TO_KTUNE SOURCE_DIR JACOBI_APP TRANSPOSE_APP
# Exits 77 (SKIPPED) without a GPU.
set -uo pipefail
ktune=${1:?usage: capture_gpu_test.sh KTUNE SOURCE_DIR JACOBI_APP TRANSPOSE_APP}
src=${2:?}
jacobi=${3:?}
transpose=${4:?}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export KTUNE_CACHE_DIR="$dir/cache"
caps="$KTUNE_CACHE_DIR/captures"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/contains.sh"

KTUNE_CAPTURE='jacobi,transp*' "$jacobi" 1001 999 > "$dir/app1.txt" 2>&1
rc=$?
if grep -q "SKIPPED" "$dir/app1.txt"; then
  echo "[  SKIPPED ] no GPU: $(head -1 "$dir/app1.txt")"
  exit 77
fi
cat "$dir/app1.txt"
[ $rc = 0 ] || fail "jacobi_app with capture on (its results must not change)"
grep -q "captured jacobi .* into $caps/jacobi-.*-f32-1001x999-a[0-9]*.ktcap" "$dir/app1.txt" || fail "jacobi captured"
KTUNE_CAPTURE='jacobi,transp*' "$transpose" 1000 1537 > "$dir/app2.txt" 2>&1 || fail "transpose_app with capture on"
cat "$dir/app2.txt"
# pitches 1540 and 1000: 16-byte rows (class 4) where the dense problem's are odd (class 1)
KTUNE_CAPTURE='transp*' "$transpose" 1000 1537 1540 1000 > "$dir/app2p.txt" 2>&1 || fail "pitched transpose_app, capture on"
cat "$dir/app2p.txt"
[ "$(ls "$caps" | wc -l)" = 3 ] || fail "three bundles: $(ls "$caps")"
ls "$caps" | contains "transpose-.*-f32-1000x1537-a4.ktcap" || fail "the pitched call's bundle: $(ls "$caps")"
before=$(stat -c %Y:%s "$caps"/jacobi-*.ktcap)
sleep 1
KTUNE_CAPTURE='*' "$jacobi" 1001 999 > "$dir/app3.txt" 2>&1 || fail "jacobi_app, second capture run"
grep -q "captured jacobi" "$dir/app3.txt" && fail "captured twice"
[ "$(stat -c %Y:%s "$caps"/jacobi-*.ktcap)" = "$before" ] || fail "the bundle was rewritten"
"$ktune" capture list | tee "$dir/list.txt"
grep -q "^3 bundle(s) in $caps, 0 unusable" "$dir/list.txt" || fail "capture list"
"$ktune" capture show "$caps"/jacobi-*.ktcap | contains "every hash checked" || fail "capture show"

# A bundle with a wrong reference (y = 3 x for a kernel computing 2 x) and a truncated one
python3 "$src/tests/cli/make_capture.py" kernel "$src/tests/data/user_kernels/scale.cu" 5000 "$caps/scale-wrong.ktcap" 3
head -c 500 "$caps"/jacobi-*.ktcap > "$caps/cut.ktcap"
"$ktune" tune --capture "$caps" --strategy random --budget-evals 30 > "$dir/tune.txt" 2>&1
rc=$?
cat "$dir/tune.txt"
[ $rc = 1 ] || fail "bad bundles make the run exit 1 (rc=$rc)"
grep -q "^workload: 5 problems, 3 tuned, 0 already stored, 2 failed" "$dir/tune.txt" || fail "replay totals"
grep -q "cut.ktcap (line 1): skipped: .*truncated" "$dir/tune.txt" || fail "the truncated bundle reported"
grep -q "elements of y wrong" "$dir/tune.txt" || fail "the wrong reference fails every config"
grep -q "nothing stored: no config passed" "$dir/tune.txt" || fail "the failed problem says nothing was stored"
"$ktune" cache list | contains "scale_test" && fail "a kernel whose every config failed was stored"

"$jacobi" 1001 999 > "$dir/app4.txt" 2>&1 || fail "jacobi_app after tuning"
cat "$dir/app4.txt"
grep -q "match=exact" "$dir/app4.txt" || fail "the application's next run uses the captured problem's winner"
"$transpose" 1000 1537 2>&1 | tee "$dir/app5.txt" | contains "match=exact" || fail "transpose_app: exact"
"$transpose" 1000 1537 1540 1000 2>&1 | tee "$dir/app5p.txt" | contains "match=exact.*, 0 wrong" ||
  fail "pitched transpose_app: exact, every element right: $(cat "$dir/app5p.txt")"
"$ktune" cache list | contains "transpose .*1000x1537 *align 4 " || fail "the pitched problem stored at align 4"
# resumed: what is stored is skipped
"$ktune" tune --capture "$caps" --strategy random --budget-evals 30 > "$dir/again.txt" 2>&1
grep -q "^workload: 5 problems, 0 tuned, 3 already stored, 2 failed" "$dir/again.txt" || fail "second replay: $(tail -3 "$dir/again.txt")"
"$ktune" capture prune > "$dir/prune.txt" || fail "prune"
grep -q "removed cut.ktcap: unusable" "$dir/prune.txt" || fail "prune the truncated bundle"
[ "$(ls "$caps" | wc -l)" = 4 ] || fail "prune removed only the truncated bundle: $(ls "$caps")"
echo "capture_gpu_test: ok"
