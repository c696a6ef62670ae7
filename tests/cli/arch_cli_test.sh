#!/usr/bin/env bash
# Dry runs and spaces for another architecture than sm_90, without a GPU: `--arch` with
# its limits, a GEMM space without wgmma/TMA, bad architectures, and a description whose
# @require rules out every config on one architecture.
#   arch_cli_test.sh PATH_TO_KTUNE SOURCE_DIR
set -euo pipefail
ktune=${1:?usage: arch_cli_test.sh KTUNE SOURCE_DIR}
src=${2:?usage: arch_cli_test.sh KTUNE SOURCE_DIR}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export KTUNE_CACHE_DIR="$dir/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }

# The issue's two commands (the first configs of each search: CI time).
"$ktune" tune transpose --dtype f32 --shape 8192x2048 --dry-run --arch sm_120 --budget-evals 24 > "$dir/out" 2>&1 \
  || fail "transpose sm_120: $(cat "$dir/out")"
grep -q "24 compiled for sm_120 .* 0 failed, 0 rejected" "$dir/out" || fail "transpose sm_120: $(cat "$dir/out")"
# Progress while it compiles (a whole GEMM space takes minutes), the last line at the total.
grep -q "^\[  24/24\] compiled, 0 failed" "$dir/out" || fail "transpose sm_120: no progress line: $(cat "$dir/out")"
"$ktune" tune gemm_mma --dtype bf16 --shape 4096x4096x4096 --dry-run --arch sm_80 --budget-evals 3 > "$dir/out" 2>&1 \
  || fail "gemm_mma sm_80: $(cat "$dir/out")"
grep -q "3 compiled for sm_80 .* 0 failed, 0 rejected" "$dir/out" || fail "gemm_mma sm_80: $(cat "$dir/out")"

# The space follows the architecture: no wgmma or TMA engine but on sm_90; less shared
# memory on sm_89 than on sm_90.
for arch in sm_80 sm_89 sm_100 sm_120; do
  "$ktune" space gemm_mma --dtype bf16 --shape 4096x4096x4096 --arch $arch > "$dir/space"
  if grep -q '"engine":"\(wgmma\|tma\)"' "$dir/space"; then fail "$arch: a wgmma or tma config in the space"; fi
  grep -q "\"arch\": \"$arch\"" "$dir/space" || fail "$arch: the count line does not name it"
done
n90=$("$ktune" space gemm_mma --dtype bf16 --shape 4096x4096x4096 --arch sm_90 | grep -c '"engine":"mma"')
n89=$("$ktune" space gemm_mma --dtype bf16 --shape 4096x4096x4096 --arch sm_89 | grep -c '"engine":"mma"')
[ "$n89" -lt "$n90" ] || fail "sm_89 (99 KB a block) admits as many mma configs as sm_90 (227 KB): $n89 >= $n90"

# Bad architectures: a clear error naming the supported ones; --arch only with --dry-run.
for bad in sm_52 sm_999 foo; do
  if "$ktune" tune transpose --shape 100x100 --dry-run --arch $bad > "$dir/out" 2>&1; then fail "--arch $bad accepted"; fi
  grep -q "ktune: error: --arch $bad: .*(sm_80, sm_86, sm_87, sm_89, sm_90, sm_100, sm_103, sm_120" "$dir/out" \
    || fail "--arch $bad: $(cat "$dir/out")"
  if "$ktune" space transpose --shape 100x100 --arch $bad > "$dir/out" 2>&1; then fail "space --arch $bad accepted"; fi
done
if "$ktune" tune transpose --shape 100x100 --arch sm_89 > "$dir/out" 2>&1; then fail "--arch without --dry-run accepted"; fi
grep -q "add --dry-run" "$dir/out" || fail "--arch without --dry-run: $(cat "$dir/out")"

# A user's kernel that runs only on sm_90 and later: refused on sm_89 with the architecture named.
cat > "$dir/hopper.cu" <<'CU'
// @kernel  hopper_only
// @entry   copy
// @problem n
// @arg     out y : f32[n]
// @arg     in  x : f32[n]
// @arg     scalar n : i32 = n
// @tune    block = 128, 256
// @require compute_capability >= 90
// @launch  block = (block, 1, 1)
// @launch  grid  = (ceil_div(n, block), 1, 1)
// @verify  config = block=128
// @verify  tolerance = exact
template <int block>
__global__ void copy(float* y, const float* x, int n) {
  const int i = blockIdx.x * block + threadIdx.x;
  if (i < n) y[i] = x[i];
}
CU
"$ktune" tune --kernel "$dir/hopper.cu" --problem n=1000 --dry-run --arch sm_90 > "$dir/out" 2>&1 || fail "hopper sm_90: $(cat "$dir/out")"
if "$ktune" tune --kernel "$dir/hopper.cu" --problem n=1000 --dry-run --arch sm_89 > "$dir/out" 2>&1; then fail "sm_89 accepted"; fi
grep -q "no config of hopper_only .* is valid on sm_89 (its @require lines rule out every one there)" "$dir/out" \
  || fail "sm_89 message: $(cat "$dir/out")"
echo "arch CLI: all checks passed"
