#!/usr/bin/env bash
# Nsight Compute's view of the tensor-core GEMM beside its peers at one bf16 shape: one
# launch each of the given ktune configs (through `ktune bench`, C read), Triton's
# persistent TMA matmul (128x256x64, 3 stages: its winner at 4096^3-8192^3) and cuBLAS
# (torch.mm): duration, SM clock, cycles, tensor pipe and issue activity, DRAM bytes, L2.
# Needs ncu that can read the counters (H100 machines here did; gVisor ones do not) and the
# clocks left alone (--clock-control none).
#   bash templates/gemm/bench/gemm_profile.sh BUILD OUT MxNxK CONFIG_JSON...
set -uo pipefail
build=${1:?usage: gemm_profile.sh BUILD OUT MxNxK CONFIG_JSON...}
out=${2:?usage: gemm_profile.sh BUILD OUT MxNxK CONFIG_JSON...}
shape=${3:?usage: gemm_profile.sh BUILD OUT MxNxK CONFIG_JSON...}
shift 3
[ $# -gt 0 ] || { echo "gemm_profile: give at least one ktune config (JSON)" >&2; exit 2; }
[[ $shape =~ ^[0-9]+x[0-9]+x[0-9]+$ ]] || { echo "gemm_profile: shape '$shape' is not MxNxK" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
metrics=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second
metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sector_hit_rate.pct
ncu=(ncu --clock-control none --section SpeedOfLight --section WarpStateStats --metrics "$metrics")
configs=()
for c in "$@"; do configs+=(--config "$c"); done
status=0
"${ncu[@]}" -k regex:ktune_gemm_mma --launch-count $# "$build/tuner/ktune" bench gemm_mma --dtype bf16 --shape "$shape" \
  "${configs[@]}" --rounds 1 > "$out/ncu-ktune.txt" 2>&1 || status=1
"${ncu[@]}" -k regex:matmul_tma --launch-skip 2 --launch-count 1 python3 "$here/peer_loop.py" tma 0.2 ${shape//x/ } \
  > "$out/ncu-triton-tma.txt" 2>&1 || status=1
"${ncu[@]}" -k regex:'nvjet|gemm|xmma|cutlass' --launch-skip 2 --launch-count 1 python3 "$here/peer_loop.py" mm 0.2 \
  ${shape//x/ } > "$out/ncu-cublas.txt" 2>&1 || status=1
for f in "$out"/ncu-*.txt; do
  echo "== $(basename "$f")"
  grep -E "^  [a-z_]+.*\(|Duration|SM Frequency|Elapsed Cycles|L2 Cache Throughput|hmma|issue_active|dram__bytes|hit_rate" "$f" |
    cut -c1-140
done | tee "$out/summary.txt"
exit $status
