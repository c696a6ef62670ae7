#!/usr/bin/env bash
# Users' own kernels from the command line, without a GPU: space, dry-run compiles, and
# every kind of bad input with its message (issue 15):
#   user_kernel_cli_test.sh PATH_TO_KTUNE SOURCE_DIR
set -euo pipefail
ktune=${1:?usage: user_kernel_cli_test.sh KTUNE SOURCE_DIR}
src=${2:?usage: user_kernel_cli_test.sh KTUNE SOURCE_DIR}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export KTUNE_CACHE_DIR="$dir/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/contains.sh"
data="$src/tests/data/user_kernels"
stencil="$src/examples/stencil/jacobi.cu"

# The space: every valid config as JSON, then the count; the type parameter is chosen with --problem.
"$ktune" space --kernel "$data/scale.cu" --problem n=1000 > "$dir/space.txt"
[ "$(grep -c '"threads"' "$dir/space.txt")" = 9 ] || fail "scale space: $(cat "$dir/space.txt")"
grep -q '"count": 9' "$dir/space.txt" || fail "scale space count"
"$ktune" space --kernel "$stencil" --problem nx=100,ny=50,T=f64 | tail -1 | contains '"count": 334' || fail "stencil f64 space (f64 tiles are larger)"
# Its kernels compile for sm_90 with NVRTC (the type argument substituted).
"$ktune" tune --kernel "$data/scale.cu" --problem n=1000,T=i32 --dry-run > "$dir/dry.txt" || fail "dry run: $(cat "$dir/dry.txt")"
grep -q "9 compiled for sm_90 (0 of them found in the program store)" "$dir/dry.txt" || fail "dry run count: $(cat "$dir/dry.txt")"
# The dry run stored its programs: a second one (or a tuning run on an sm_90 GPU with
# this cache) compiles none of them.
"$ktune" tune --kernel "$data/scale.cu" --problem n=1000,T=i32 --dry-run > "$dir/dry.txt" || fail "dry run 2: $(cat "$dir/dry.txt")"
grep -q "9 compiled for sm_90 (9 of them found in the program store)" "$dir/dry.txt" || fail "precompiled: $(cat "$dir/dry.txt")"
# With --budget-evals it compiles only what the search would try first: the model's best
# 3 of the 9 (already stored), or the exhaustive order's first 4.
"$ktune" tune --kernel "$data/scale.cu" --problem n=1000,T=i32 --dry-run --strategy model --budget-evals 3 > "$dir/dry.txt" \
  || fail "budgeted dry run: $(cat "$dir/dry.txt")"
grep -q "9 configs for .*, the first 3 of the model search (--budget-evals), 3 compiled for sm_90 (3 of them" "$dir/dry.txt" \
  || fail "budgeted dry run count: $(cat "$dir/dry.txt")"
"$ktune" tune --kernel "$data/scale.cu" --problem n=1000,T=i32 --dry-run --budget-evals 4 > "$dir/dry.txt" \
  && grep -q "the first 4 of the exhaustive search (--budget-evals), 4 compiled" "$dir/dry.txt" \
  || fail "budgeted exhaustive dry run: $(cat "$dir/dry.txt")"
# A program store that cannot be opened costs only the storing.
chmod 0666 "$KTUNE_CACHE_DIR/programs.db"
"$ktune" tune --kernel "$data/scale.cu" --problem n=1000,T=i32 --dry-run > "$dir/dry.txt" 2>&1 || fail "dry run 3: $(cat "$dir/dry.txt")"
grep -q "compiling without storing the programs: .*writable by other users" "$dir/dry.txt" && grep -q "9 compiled for sm_90 (0 of" "$dir/dry.txt" \
  || fail "unusable store: $(cat "$dir/dry.txt")"
chmod 0600 "$KTUNE_CACHE_DIR/programs.db"
# Without a GPU, tune says so and what to do instead.
if ! "$ktune" tune --kernel "$data/scale.cu" --problem n=1000 > /dev/null 2> "$dir/err"; then
  grep -q "cannot tune here" "$dir/err" && grep -q -- "--kernel .*scale.cu --problem n=1000 --dry-run" "$dir/err" \
    || fail "no-GPU message: $(cat "$dir/err")"
fi

# A stored winner of the kernel (imported: no GPU here) is what explain finds for it.
hash=$("$ktune" space --kernel "$data/scale.cu" --problem n=1000 | tail -1 | sed 's/.*"template_hash": "\([0-9a-f]*\)".*/\1/')
cat > "$dir/rec.json" <<JSON
{"ktune_schema": 3, "records": [{"device_key": "D|sm_90|1sm|1MiB|1MiB", "family": "scale_test", "variant": "$hash",
 "dtype": "f32", "shape": [1000], "align": 1, "median_us": 5, "template_hash": "$hash", "config": {"threads": 64, "bug": 0}}]}
JSON
"$ktune" cache import "$dir/rec.json" > /dev/null
"$ktune" cache explain --kernel "$data/scale.cu" --problem n=900 --device-key "D|sm_90|1sm|1MiB|1MiB" \
  | contains "nearest: tuned 1000 align 1" || fail "explain a user kernel's problem"
"$ktune" cache explain --kernel "$data/scale.cu" --problem n=1000,T=f64 --device-key "D|sm_90|1sm|1MiB|1MiB" \
  | contains "fallback" || fail "another type argument is another problem"

expect_refused() {  # message, args...
  local msg=$1; shift
  if "$ktune" "$@" > /dev/null 2> "$dir/err"; then fail "accepted: $*"; fi
  grep -q -- "$msg" "$dir/err" || fail "$*: expected '$msg', got: $(head -c 400 "$dir/err")"
}
# Problems: every variable once, positive integers, a type the @type line lists.
expect_refused "needs --problem n=VALUE" space --kernel "$data/scale.cu"
expect_refused "has no problem variable m" space --kernel "$data/scale.cu" --problem n=5,m=3
expect_refused "is an integer from 1 to" space --kernel "$data/scale.cu" --problem n=0
expect_refused "is an integer from 1 to" space --kernel "$data/scale.cu" --problem n=1e9
expect_refused "given twice" space --kernel "$data/scale.cu" --problem n=5,n=6
expect_refused "T is one of the dtypes its @type line lists" space --kernel "$data/scale.cu" --problem n=5,T=u8
expect_refused "is a family's option" space --kernel "$data/scale.cu" --problem n=5 --dtype f32
expect_refused "not both" space transpose --kernel "$data/scale.cu"
expect_refused "--problem is for --kernel" space transpose --problem n=5
expect_refused "cannot read kernel file" space --kernel "$dir/missing.cu" --problem n=5

# Malformed descriptions: the message names the file, the line and what is wrong.
bad() {  # name, the line to replace (sed pattern), its replacement, the expected message
  sed "s|$2|$3|" "$data/scale.cu" > "$dir/$1.cu"
  expect_refused "$4" space --kernel "$dir/$1.cu" --problem n=5
}
bad size '^// @arg     out y : T\[n\]' '// @arg     out y : T[n * m]' \
  "size.cu: line 7 (argument y): the size of y refers to 'm', which is no problem variable"
bad role '^// @arg     in  x : T\[n\]' '// @arg     input x : T[n]' \
  "role.cu: line 8 .*role is in, out, inout or scalar, not 'input'"
bad count '^// @arg     in  x : T\[n\]' '// @arg     in  x : T' "line 8 .*needs its element count"
bad type '^// @arg     in  x : T\[n\]' '// @arg     in  x : float[n]' "type 'float' is no dtype"
bad tolerance '^// @verify  tolerance = exact' '// @verify  tolerance = within 3' \
  "line 15 .*a tolerance is 'exact', or terms 'abs X', 'rel X', 'ulp N', 'rms X', 'max X' joined by '+'"
bad tolerance_name '^// @verify  tolerance = exact' '// @verify  tolerance = abs 1e-6 * m' \
  "line 15 '// @verify tolerance': 'm' is no problem variable (declared: n)"
bad tolerance_zero '^// @verify  tolerance = exact' '// @verify  tolerance = abs 1e-6 + rel 1 / (n - 5)' \
  "line 15 '// @verify tolerance': '1 / (n - 5)': division by zero"
bad work_zero '^// @verify  tolerance = exact' '// @verify  tolerance = exact\n// @work    flops = 2 * (n - 5)' \
  "line 16 '// @work 2 \\* (n - 5)' is 0 here: it must be positive"
bad work_huge '^// @verify  tolerance = exact' '// @verify  tolerance = exact\n// @work    flops = 1e300 * n * n' \
  "line 16 '// @work 1e300 \\* n \\* n' is 2.5e+301 here: it must be positive (and at most 1e21)"
bad work_name '^// @verify  tolerance = exact' '// @verify  tolerance = exact\n// @work    bytes = 8 * m' \
  "line 16 '// @work': 'm' is no problem variable (declared: n)"
bad work_kind '^// @verify  tolerance = exact' '// @verify  tolerance = exact\n// @work    speed = 3' \
  "line 16 .*expected 'flops = EXPRESSION' or 'bytes = EXPRESSION'"
bad work_twice '^// @verify  tolerance = exact' '// @verify  tolerance = exact\n// @work    flops = n\n// @work    flops = 2 * n' \
  "'@work flops' is declared twice"
bad require_name '^// @tune    bug     = 0, 1, 2' '// @tune    bug     = 0, 1, 2\n// @require threads <= max_threads_per_blok' \
  "line 12 '// @require threads <= max_threads_per_blok': unknown name 'max_threads_per_blok' (known here: threads, bug, n, align, elem_bytes, max_threads_per_block,"
bad verify '^// @verify  config = threads=64 bug=0' '// @verify  tolerance = exact' "how is a result checked"
bad trusted '^// @verify  config = threads=64 bug=0' '// @verify  config = threads=48 bug=0' \
  "line 14 .*not a declared value of 'threads'"
bad expr '^// @launch  grid  = (ceil_div(n, threads), 1, 1)' '// @launch  grid  = (ceil_div(n, threads, 1, 1)' "line 13"
bad half_scalar '^// @arg     scalar n : i64 = n' '// @arg     scalar n : f16 = n' "a scalar is f32, f64 or an integer type, not f16"
# Half precision: the toolkit's cuda_fp16.h and cuda_bf16.h are found without a path
# (here /usr/local/cuda/include); a KTUNE_CUDA_INCLUDE without them is named.
sed 's|^// @type    T = f32, f64, i32|// @type    T = f16, bf16, f32|' "$data/scale.cu" > "$dir/half.cu"
for t in f16 bf16; do
  "$ktune" tune --kernel "$dir/half.cu" --problem n=1000,T=$t --dry-run > "$dir/out" 2>&1 || fail "$t dry run: $(cat "$dir/out")"
  grep -q "9 configs for scale_test .* $t 1000, 9 compiled for sm_90 (0 of them found in the program store) .*, 0 failed" "$dir/out" \
    || fail "$t dry run: $(cat "$dir/out")"
done
if KTUNE_CUDA_INCLUDE="$dir" "$ktune" tune --kernel "$dir/half.cu" --problem n=1000,T=f16 --dry-run > "$dir/out" 2>&1; then
  fail "compiled with a KTUNE_CUDA_INCLUDE without the headers"
fi
grep -q "ktune: error: KTUNE_CUDA_INCLUDE=$dir holds no cuda_fp16.h and cuda_bf16.h" "$dir/out" || fail "headers: $(head -c 400 "$dir/out")"
# Configs that keep data in local memory (spills, local arrays) are rejected in a dry
# run as on the GPU, read from the CUBIN.
"$ktune" tune --kernel "$data/spill.cu" --problem n=1000 --dry-run > "$dir/out" || fail "spill dry run: $(cat "$dir/out")"
grep -q "4 compiled for sm_90 .*, 0 failed, 2 rejected (local memory" "$dir/out" || fail "spill count: $(cat "$dir/out")"
grep -q "rejected: threads=128 local=1: spills 256 bytes to local memory" "$dir/out" || fail "spill line: $(cat "$dir/out")"
# The half-precision example's whole space compiles, f16 and bf16.
for t in f16 bf16; do
  "$ktune" tune --kernel "$src/examples/rmsnorm/rmsnorm.cu" --problem rows=1001,cols=1000,T=$t --dry-run > "$dir/out" 2>&1 \
    && grep -q " 0 failed, 0 rejected" "$dir/out" || fail "rmsnorm $t dry run: $(cat "$dir/out")"
done
# The binning example's kernels: every config compiles, none spills.
for spec in "cutoff_gather.cu nx=1118,ny=1118,cutoff=8,cell=4,cap=13" "direct.cu nx=112,ny=112,atoms=10000,cutoff=8" \
            "scatter.cu nx=354,ny=354,atoms=100000,cutoff=8" "bin_atoms.cu nx=100,ny=100,atoms=1000,cutoff=8,cell=4,cap=13"; do
  set -- $spec
  "$ktune" tune --kernel "$src/examples/binning/$1" --problem "$2" --dry-run > "$dir/out" 2>&1 \
    && grep -q " 0 failed, 0 rejected" "$dir/out" || fail "binning $1 dry run: $(tail -3 "$dir/out")"
done
# The version, and the library's in --help.
"$ktune" --version | grep -qx "ktune [0-9]*\.[0-9]*\.[0-9]* (NVRTC [0-9.]*)" || fail "--version: $("$ktune" --version)"
"$ktune" --help | head -1 | grep -q "^ktune [0-9]*\.[0-9]*\.[0-9]*: " || fail "--help names no version"
# A kernel that does not compile: NVRTC's log, with the line, reaches the user.
if "$ktune" tune --kernel "$data/does_not_compile.cu" --problem n=64 --dry-run > "$dir/out" 2>&1; then
  fail "a kernel with a syntax error compiled"
fi
grep -q 'identifier "undeclared_name" is undefined' "$dir/out" || fail "NVRTC log missing: $(head -c 600 "$dir/out")"
[ ! -e "$KTUNE_CACHE_DIR/tuning.db" ] || [ "$("$ktune" cache list | grep -c broken_syntax)" = 0 ] || fail "stored a record"
echo "user kernel CLI: all checks passed"
