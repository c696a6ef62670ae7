#!/usr/bin/env bash
# The whole GPU pass in one call (build here, run there):
#   bash scripts/gpu-bundle.sh          # here: build/ without object files -> build-gpu/
#   bash scripts/gpu-check.sh OUT_DIR [tests|tuner|tensor|kernels|install|wheel|sweep|all|family:NAME|NAME]
# (on the GPU machine, KTUNE_BUILD=build-gpu). `install`: ktune tunes the example's problem, then
# scripts/check_install.sh builds examples/ against the installed package and runs it.
# `sweep` (not part of all): every config of every space compiled, `ctest -C sweep -L
# sweep` on all cores; KTUNE_SWEEP_SHARD=i/n runs one share of it, KTUNE_SWEEP_ONLY=REGEX
# only the sweep tests it matches.
# `family:NAME` (or NAME; `bench` is family:transpose): one family folder's pass: its gpu
# test, the sanitizers over its runtime tests, its templates/NAME/bench/NAME_bench.sh.
# `all`: the gpu tests, compute-sanitizer (memcheck, racecheck) on one config of each
# layout, every family folder's pass (the folders under templates/ decide which; the
# passes' logs in one families.log), users' kernels, the install, the wheel and
# bench/tuner_bench.sh (compile cost, stored binaries, reproducibility, strategies).
# A part writes at most 8 files into OUT_DIR; prints a short summary last.
# KTUNE_NO_BENCH=1: a family's pass without its benchmark.
set -uo pipefail
out=${1:?usage: scripts/gpu-check.sh OUT_DIR [tests|tuner|tensor|kernels|install|wheel|sweep|all|family:NAME|NAME]}
# KTUNE_GPU_TESTS=REGEX: the `tests` part runs only the gpu tests it matches.
what=${2:-all}
here=$(cd "$(dirname "$0")/.." && pwd)
[ "$what" = bench ] && what=family:transpose
[ -d "$here/templates/$what/bench" ] && what=family:$what
build=${KTUNE_BUILD:-$here/build}
mkdir -p "$out"
# ctest files hold the absolute paths of the machine that configured the build.
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
if [ -n "$src" ] && [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$here" "$src"; fi
bdir=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
if [ -n "$bdir" ] && [ ! -e "$bdir" ]; then ln -s "$build" "$bdir"; fi
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-$(mktemp -d)/ktune}
status=0
# A test program of the build: the layers' are under tests/, each family's under templates/<family>/.
test_bin() { find "$build/tests" "$build/templates" -type f -name "$1" -perm -u+x 2>/dev/null | head -1; }
note() { echo "$*" | tee -a "$out/summary.txt"; }
# The search logs of the runs so far, for `ktune log` and replay tests.
keep_logs() { tar -czf "$out/$1" -C "$KTUNE_CACHE_DIR" logs 2>/dev/null; }

{ date -u; nvidia-smi; nvidia-smi -q -d CLOCK | sed -n 1,40p; } > "$out/device.txt" 2>&1
note "device: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>&1)"

if [ "$what" = tests ] || [ "$what" = all ]; then
  (cd "$build" && ctest -L gpu -R "${KTUNE_GPU_TESTS:-.}" --output-on-failure --timeout 1200) > "$out/tests.log" 2>&1
  rc=$?; [ $rc = 0 ] || status=1
  note "ctest -L gpu: rc=$rc; $(grep -E 'tests passed|Skipped|Failed' "$out/tests.log" | tr '\n' ' ')"
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 "$(test_bin layouts_gpu_test)" >> "$out/tests.log" 2>&1
    rc=$?; [ $rc = 0 ] || status=1
    note "compute-sanitizer $tool: rc=$rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/tests.log" | tail -1)"
  done
  # Bad input on the real device: each must fail with its message, and nothing else.
  ktune="$build/tuner/ktune"
  expect_error() {  # message, command...
    local msg=$1; shift
    if "$@" > "$out/bad.txt" 2>&1; then note "bad input accepted: $*"; status=1;
    elif grep -q "$msg" "$out/bad.txt"; then note "bad input ok: $* -> $(grep -m1 "$msg" "$out/bad.txt" | cut -c1-150)";
    else note "bad input, wrong message: $* -> $(head -c 300 "$out/bad.txt")"; status=1; fi
    cat "$out/bad.txt" >> "$out/tests.log"; rm -f "$out/bad.txt"
  }
  expect_error "of GPU memory to tune" "$ktune" tune transpose --shape 200000x200000
  expect_error "does not exist" "$ktune" tune transpose --device 7
  expect_error "each size must be below 2^31" "$ktune" tune transpose --shape 3000000000x2
  "$ktune" tune transpose --shape 16384x16384 > "$out/first-tuner.txt" 2>&1 &
  first=$!
  sleep 3
  expect_error "is tuning on this GPU" "$ktune" tune transpose --shape 1024x1024
  wait $first || { note "the first tuner failed"; status=1; }
  cat "$out/first-tuner.txt" >> "$out/tests.log"; rm -f "$out/first-tuner.txt"
  # Ctrl-C mid-search: exit 0, the best so far stored, the log closed as interrupted. A
  # folder of its own, so that it compiles its space (the programs the run above stored
  # beside its database made this search finish in 5.9 s, before the signal).
  mkdir -p "$KTUNE_CACHE_DIR/sigint"
  sigint_db="$KTUNE_CACHE_DIR/sigint/tuning.db"
  "$ktune" tune transpose --shape 8192x8192 --database "$sigint_db" > "$out/sigint.txt" 2>&1 &
  tuner=$!
  sleep 6
  kill -INT $tuner
  tuner_rc=0; wait $tuner || tuner_rc=$?
  # Captured, not piped: under pipefail, `grep -q` closing the pipe early can fail the
  # command that writes into it.
  listed=$("$ktune" cache list --database "$sigint_db" 2>&1)
  if [ $tuner_rc = 0 ] && grep -q "INTERRUPTED" "$out/sigint.txt" && grep -q 8192x8192 <<< "$listed" \
     && grep -q '"interrupted":true' "$(grep -o '/[^ ]*\.jsonl' "$out/sigint.txt" | tail -1)"; then
    note "ctrl-c ok: $(grep -E 'INTERRUPTED' "$out/sigint.txt")"
  else
    note "ctrl-c FAILED: $(tail -c 400 "$out/sigint.txt")"; status=1
  fi
  cat "$out/sigint.txt" >> "$out/tests.log"; rm -f "$out/sigint.txt"
fi
# One kernel family's pass: its gpu test, the sanitizers over its runtime tests, its benchmark.
# `all` has run every gpu test already (the `tests` part): there, only the sanitizers and
# the bench, into families.log.
family_pass() {  # name
  local name=$1 test=$1_gpu_test log=$out/$1-tests.log rc tool
  if [ "$what" = all ]; then log=$out/families.log; else
    (cd "$build" && ctest -R "$test" --verbose --timeout 1200) > "$log" 2>&1
    rc=$?; [ $rc = 0 ] || status=1
    note "$name gpu test: rc=$rc; $(grep -E 'tests passed|Skipped|Failed|verified' "$log" | tr '\n' ' ')"
  fi
  # (transpose's runtime tests are the layers' RuntimeGpu; the `tests` part sanitizes its layouts.)
  if ! "$(test_bin "$test")" --gtest_list_tests --gtest_filter='*RuntimeGpu.*' | grep -q '^  '; then
    note "compute-sanitizer ($name): $test has no *RuntimeGpu.* tests to run under it"
  else for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 "$(test_bin "$test")" --gtest_filter='*RuntimeGpu.*' >> "$log" 2>&1
    rc=$?; [ $rc = 0 ] || status=1
    note "compute-sanitizer $tool ($name runtime tests): rc=$rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
  done; fi
  if [ -z "${KTUNE_NO_BENCH:-}" ]; then
    bash "$here/templates/$name/bench/${name}_bench.sh" "$build" "$out" || status=1
    # Its JSON lines, stamped (GPU, commit, date), for bench/results/data/$name.jsonl.
    python3 "$here/bench/results.py" add "$name" --to "$out/$name-data.jsonl" \
      --command "scripts/gpu-check.sh OUT family:$name" $(ls "$out/$name"*.jsonl 2>/dev/null | grep -v -- -data.jsonl) \
      | tee -a "$out/summary.txt" || status=1
  fi
  [ "$what" = all ] || keep_logs "$name-logs.tar.gz"
}
if [[ "$what" == family:* ]]; then family_pass "${what#family:}"; fi
if [ "$what" = all ]; then
  for dir in "$here"/templates/*/bench/; do family_pass "$(basename "$(dirname "$dir")")"; done
fi
if [ "$what" = kernels ] || [ "$what" = all ]; then
  # Users' own kernels: the GPU test (planted bugs, all-failing kernel, the stencil), the
  # sanitizers over a tuning run of the stencil (both layouts: halo in shared memory or
  # not), then the stencil benchmark against PyTorch.
  (cd "$build" && ctest -R user_kernel_gpu_test --verbose --timeout 900) > "$out/kernels-tests.log" 2>&1
  rc=$?; [ $rc = 0 ] || status=1
  note "user kernel gpu test: rc=$rc; $(grep -E 'tests passed|Skipped|FAIL|all checks' "$out/kernels-tests.log" | tr '\n' ' ')"
  for tool in memcheck racecheck; do
    for k in "stencil/jacobi.cu nx=257,ny=129" "histogram/histogram.cu n=100003" "softmax/softmax.cu rows=67,cols=1000"; do
      read -r file problem <<< "$k"
      compute-sanitizer --tool $tool --error-exitcode 9 "$build/tuner/ktune" tune --kernel "$here/examples/$file" \
        --problem "$problem" --strategy random --budget-evals 24 --database "$KTUNE_CACHE_DIR/sanitize.db" \
        >> "$out/kernels-tests.log" 2>&1
      rc=$?; [ $rc = 0 ] || status=1
      note "compute-sanitizer $tool ($file tuning run, 24 configs): rc=$rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/kernels-tests.log" | tail -1)"
    done
  done
  # The application launches what was tuned: match=exact, the tuner's speed, no NVRTC.
  "$build/tuner/ktune" tune --kernel "$here/examples/stencil/jacobi.cu" --problem nx=2048,ny=2048 \
    > "$out/jacobi-app.log" 2>&1 || status=1
  "$build/examples/jacobi_app" 2048 2048 >> "$out/jacobi-app.log" 2>&1
  rc=$?; [ $rc = 0 ] || status=1
  note "jacobi_app: rc=$rc; $(grep -E '^(1 |jacobi_app)' "$out/jacobi-app.log" | cut -c1-160 | tr '\n' ' ')"
  "$build/bench/runtime_bench" 2048 2048 "$here/examples/stencil/jacobi.cu" >> "$out/jacobi-app.log" 2>&1 || status=1
  note "runtime: $(grep -E '^steady state' "$out/jacobi-app.log" | cut -c1-200 | tr '\n' ' ')"
  [ -n "${KTUNE_NO_BENCH:-}" ] || bash "$here/bench/example_bench.sh" "$build" "$out" stencil || status=1
  [ -n "${KTUNE_NO_BENCH:-}" ] || bash "$here/bench/histogram_bench.sh" "$build" "$out" || status=1
  [ -n "${KTUNE_NO_BENCH:-}" ] || bash "$here/bench/example_bench.sh" "$build" "$out" softmax || status=1
fi
if [ "$what" = install ] || [ "$what" = all ]; then
  # The application outside the tree, on the GPU: it must report the winner tuned here.
  "$build/tuner/ktune" tune transpose --dtype f32 --shape 1000x1537 > "$out/install.log" 2>&1 || status=1
  bash "$here/scripts/check_install.sh" "$build" "$(mktemp -d)" 1000 1537 >> "$out/install.log" 2>&1
  rc=$?; [ $rc = 0 ] || status=1
  note "install: rc=$rc; $(grep -E '^transpose_app' "$out/install.log" | tr '\n' ' ' | cut -c1-900)"
fi
if [ "$what" = wheel ] || [ "$what" = all ]; then
  # The wheel as a user gets it (built here from a clean clone: `pip wheel . --no-deps -w
  # .whl`), installed with pip, and the Python GPU suite run against the installed package,
  # not the checkout; then the host cost of every call against PyTorch's (bench/results/python.md).
  site=$(mktemp -d)
  wheel=$(ls "$here"/.whl/ktune-*.whl 2>/dev/null | head -1)
  if [ -z "$wheel" ]; then note "wheel: none in .whl/ (build it here: pip wheel . --no-deps -w .whl)"; status=1
  else
    python3 -m pip install -q --no-index --no-deps --no-compile --target "$site" "$wheel" > "$out/wheel.log" 2>&1
    rc=$?; [ $rc = 0 ] || status=1
    note "wheel: pip install $(basename "$wheel"): rc=$rc"
    (cd "$here" && KTUNE_TEST_INSTALLED=1 PYTHONPATH="$site" PYTHONUNBUFFERED=1 timeout 900 python3 python/tests/run.py gpu) \
      >> "$out/wheel.log" 2>&1
    rc=$?; [ $rc = 0 ] || status=1
    note "python gpu tests against the installed wheel: rc=$rc; $(grep -E '^(Ran|OK|FAILED)' "$out/wheel.log" | tr '\n' ' ')"
    (cd "$here" && KTUNE_TEST_INSTALLED=1 PYTHONPATH="$site" timeout 300 python3 bench/python_host_cost.py \
      "$out/host-cost.jsonl" --profile "$out/host-profile.txt") > "$out/host-cost.txt" 2>&1
    rc=$?; [ $rc = 0 ] || status=1
    note "host cost (bench/python_host_cost.py): rc=$rc"
  fi
fi
if [ "$what" = tensor ]; then
  # The tensor-core GEMM's checks, in steps (KTUNE_TENSOR_STEPS, default all three), as
  # one device call of 10 minutes holds about two of them. Measured on an H100
  # (2026-11-23): racecheck over the pipelines test 179 s; all 13 tma spaces verified at
  # odd shapes 506 s (KTUNE_TENSOR_VERIFY_S caps it, 330 s by default: spaces not
  # reached are reported as such); the bench as templates/gemm/bench/gemm_bench.sh (KTUNE_GEMM_PROBLEMS),
  # with the SM clock and power sampled every second beside it (tensor-clocks.txt), as
  # sustained GEMMs may run below the boost clock. KTUNE_TENSOR_TOOLS: the sanitizers.
  steps=${KTUNE_TENSOR_STEPS:-sanitize verify bench}
  if [[ " $steps " == *" sanitize "* ]]; then
    for tool in ${KTUNE_TENSOR_TOOLS:-racecheck memcheck}; do
      timeout 280 compute-sanitizer --tool $tool --error-exitcode 9 "$(test_bin gemm_gpu_test)" \
        --gtest_filter='*TensorCorePipelines*' >> "$out/tensor-tests.log" 2>&1
      rc=$?; [ $rc = 0 ] || status=1
      note "compute-sanitizer $tool (tensor-core pipelines): rc=$rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/tensor-tests.log" | tail -1)"
    done
  fi
  if [[ " $steps " == *" verify "* ]]; then
    timeout "${KTUNE_TENSOR_VERIFY_S:-330}" "$(test_bin gemm_gpu_test)" \
      --gtest_filter="${KTUNE_TENSOR_SPACES:-*EveryConfigVerifiedAtOddShapes/*tma*}" > "$out/tensor-verify.log" 2>&1
    rc=$?; [ $rc = 0 ] || status=1
    note "tma spaces verified: rc=$rc; $(grep -c '^\[       OK \]' "$out/tensor-verify.log") passed, $(grep -cE '^\[  SKIPPED \] .*\([0-9]+ ms\)$' "$out/tensor-verify.log") skipped;" \
      "$(grep -E '^\[  FAILED  \]' "$out/tensor-verify.log" | head -3 | tr '\n' ' ')"
  fi
  if [[ " $steps " == *" bench "* ]]; then
    nvidia-smi dmon -s pc -o T > "$out/tensor-clocks.txt" 2>&1 &
    dmon=$!
    bash "$here/templates/gemm/bench/gemm_bench.sh" "$build" "$out" || status=1
    kill $dmon 2>/dev/null
    keep_logs tensor-logs.tar.gz
  fi
fi
if [ "$what" = sweep ]; then
  start=$(date +%s)
  (cd "$build" && ctest -C sweep -L sweep -R "${KTUNE_SWEEP_ONLY:-.}" --verbose) > "$out/sweep.log" 2>&1
  rc=$?; [ $rc = 0 ] || status=1
  note "sweep (shard ${KTUNE_SWEEP_SHARD:-0/1}, $(nproc) cores): rc=$rc in $(( $(date +%s) - start )) s;" \
    "$(grep -oE '[0-9]+ kernels compiled' "$out/sweep.log" | awk '{s+=$1} END {print s}') kernels;" \
    "$(grep -E 'tests passed|Test +#' "$out/sweep.log" | sed 's/  */ /g' | tr '\n' ' ')"
fi
if [ "$what" = tuner ] || [ "$what" = all ]; then
  bash "$here/bench/tuner_bench.sh" "$build" "$out" || status=1
fi
exit $status
