#!/usr/bin/env bash
# SpMV benchmark, one GPU run: draws one random matrix of each kind (bench/spmv_matrices.py,
# seed in SEED or from the clock, recorded), tunes each with ktune (f32; its ceiling: a copy
# of the bytes a product moves) and times cuSPARSE's products alike: through PyTorch (CSR,
# COO) and directly (cusparse_spmv.cu, built here with nvcc: CSR, COO, sliced ELL).
#   bash templates/spmv/bench/spmv_bench.sh BUILD_DIR OUT_DIR [KIND:ROWS ...]
# Output: OUT_DIR/spmv.log, spmv-matrices.jsonl, spmv-summary.jsonl, spmv-peers.jsonl,
# spmv-cusparse.jsonl, spmv.md.
set -uo pipefail
build=${1:?usage: templates/spmv/bench/spmv_bench.sh BUILD_DIR OUT_DIR [KIND:ROWS ...]}
out=${2:?usage: templates/spmv/bench/spmv_bench.sh BUILD_DIR OUT_DIR [KIND:ROWS ...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
seed=${SEED:-$(date +%s)}
mkdir -p "$out"
matrices=$(mktemp -d)
status=0
python3 "$here/spmv_matrices.py" "$matrices" "$seed" "$@" > "$out/spmv-matrices.jsonl" 2>> "$out/spmv.log" || status=1
for m in "$matrices"/*.csr; do
  [ -e "$m" ] || continue
  start=$(date +%s)
  "$build/tuner/ktune" tune spmv --matrix "$m" --summary "$out/spmv-summary.jsonl" >> "$out/spmv.log" 2>&1 || status=1
  echo "tuned $(basename "$m") in $(( $(date +%s) - start )) s (wall, whole command)" | tee -a "$out/spmv.log"
done
python3 "$here/torch_spmv.py" "$matrices"/*.csr > "$out/spmv-peers.jsonl" 2>> "$out/spmv.log" || status=1
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if "$nvcc" -O2 -std=c++17 -o "$matrices/cusparse_spmv" "$here/cusparse_spmv.cu" -lcusparse >> "$out/spmv.log" 2>&1; then
  "$matrices/cusparse_spmv" "$matrices"/*.csr > "$out/spmv-cusparse.jsonl" 2>> "$out/spmv.log" || status=1
else
  echo "cusparse_spmv: no nvcc or cuSPARSE here; the direct cuSPARSE peer is left out" | tee -a "$out/spmv.log"
  : > "$out/spmv-cusparse.jsonl"
fi
python3 "$here/spmv_report.py" "$out/spmv-matrices.jsonl" "$out/spmv-summary.jsonl" "$out/spmv-peers.jsonl" \
  "$out/spmv-cusparse.jsonl" | tee "$out/spmv.md"
rm -rf "$matrices"
exit $status
