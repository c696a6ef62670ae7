#!/usr/bin/env bash
# Every config of every GEMM space (f32, f16, bf16, f64 x nn, nt, tn, tt) compiled with
# NVRTC and verified at seven odd shapes, the spaces spread over the machine's GPUs
# (one test process per GPU, the CPU cores split between them for NVRTC).
#   bash scripts/gemm_verify_all.sh OUT_DIR [SPACE ...]     SPACE: f32_nn ... f64_tt (default: all 16),
#   or a tensor-core case of the test, e.g. mma_bf16_nn_mma, tf32_f32_tt_mma; KTUNE_SWEEP_SHARD=i/n
#   verifies the i-th of n shares of each space (a tensor-core space compiles for longer
#   than one GPU call may run)
# Writes OUT_DIR/gemm-verify-all.log (every process's output) and prints one line per
# space; exit status 0 only if every space passed.
set -uo pipefail
out=${1:?usage: scripts/gemm_verify_all.sh OUT_DIR [SPACE ...]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
build=${KTUNE_BUILD:-$here/build}
spaces=("$@")
if [ ${#spaces[@]} = 0 ]; then
  for d in f32 f16 bf16 f64; do for l in nn nt tn tt; do spaces+=("${d}_$l"); done; done
fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$gpus" = 0 ]; then echo "gemm_verify_all: no GPU (nvidia-smi lists none)" >&2; exit 2; fi
procs=$(( gpus < ${#spaces[@]} ? gpus : ${#spaces[@]} ))
threads=$(( $(nproc) / procs )); [ $threads -ge 1 ] || threads=1
mkdir -p "$out"
logs=$(mktemp -d)
start=$(date +%s)
pids=()
for ((g = 0; g < procs; ++g)); do
  filter=""
  for ((i = g; i < ${#spaces[@]}; i += procs)); do
    filter+="${filter:+:}AllSpaces/GemmSpaceGpu.EveryConfigVerifiedAtOddShapes/${spaces[i]}"
  done
  CUDA_VISIBLE_DEVICES=$g KTUNE_GEMM_VERIFY=all KTUNE_TEST_COMPILE_THREADS=$threads \
    "$build/templates/gemm/gemm_gpu_test" --gtest_filter="$filter" > "$logs/gpu$g.log" 2>&1 &
  pids+=($!)
done
status=0
for ((g = 0; g < procs; ++g)); do wait "${pids[g]}" || status=1; done
for ((g = 0; g < procs; ++g)); do echo "=== GPU $g"; cat "$logs/gpu$g.log"; done > "$out/gemm-verify-all.log"
grep -E '^gemm(_mma)? .*: all:' "$out/gemm-verify-all.log"
echo "gemm_verify_all: ${#spaces[@]} spaces on $procs GPUs, $threads NVRTC threads each, $(( $(date +%s) - start )) s," \
  "$(grep -c '^\[       OK \]' "$out/gemm-verify-all.log") passed, $(grep -c '^\[  FAILED  \] AllSpaces.*ms)' "$out/gemm-verify-all.log") failed, status $status"
exit $status
