#!/usr/bin/env bash
# GEMMs at shapes nobody picked (issue 72), one GPU run: a seeded sample of the zoo's
# GEMMs and a fresh random draw (gemm_shapes.py draw; the seed printed and recorded),
# each tuned by the README's command (`--strategy model --budget-evals 120`), then C = A B
# through ktune's runtime call beside torch.mm (cuBLAS) and the Triton matmuls in one
# process (torch_gemm.py); the ratios as min, median and max, the worst shapes named.
#   bash templates/gemm/bench/gemm_shapes.sh BUILD_DIR OUT_DIR [SEED]
# KTUNE_SHAPES_RANDOM (12), KTUNE_SHAPES_ZOO (6), KTUNE_SHAPES_EVALS (120); KTUNE_SHAPES_TRITON=0:
# torch.mm alone (Triton's autotuning takes about 10 s a shape).
# Output: OUT_DIR/shapes.log, gemm-shapes-torch.jsonl, gemm-shapes.md.
set -uo pipefail
build=${1:?usage: gemm_shapes.sh BUILD_DIR OUT_DIR [SEED]}
out=${2:?usage: gemm_shapes.sh BUILD_DIR OUT_DIR [SEED]}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
seed=()
[ -n "${3:-}" ] && seed=(--seed "$3")
drawn=$(python3 "$here/gemm_shapes.py" draw "${seed[@]}" --random "${KTUNE_SHAPES_RANDOM:-12}" \
  --zoo "${KTUNE_SHAPES_ZOO:-6}") || exit 2
echo "$drawn" | tee -a "$out/shapes.log"
problems=$(echo "$drawn" | grep -v '^#')
status=0
for p in $problems; do
  IFS=: read -r dtype shape layout <<< "$p"
  start=$(date +%s)
  "$build/tuner/ktune" tune gemm --dtype "$dtype" --shape "$shape" --layout "$layout" --strategy model \
    --budget-evals "${KTUNE_SHAPES_EVALS:-120}" >> "$out/shapes.log" 2>&1 || status=1
  echo "tuned $p in $(( $(date +%s) - start )) s" | tee -a "$out/shapes.log"
done
export LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
peers=()
[ "${KTUNE_SHAPES_TRITON:-1}" = 0 ] && peers=(--no-triton)
python3 "$here/torch_gemm.py" "$build/bench/libktune_bench_shim.so" "${peers[@]}" $problems > "$out/gemm-shapes-torch.jsonl" \
  2>> "$out/shapes.log" || status=1
python3 "$here/gemm_shapes.py" stamp "$out/gemm-shapes-torch.jsonl" "$(echo "$drawn" | head -1 | sed -n 's/^# seed //p')" || status=1
{ echo "$drawn" | head -1; python3 "$here/gemm_shapes.py" summary "$out/gemm-shapes-torch.jsonl"; } | tee "$out/gemm-shapes.md"
exit $status
