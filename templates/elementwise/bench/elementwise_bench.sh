#!/usr/bin/env bash
# Elementwise benchmark, one GPU run: ktune tunes each problem (memcpy ceiling of the
# same bytes in the same process) and PyTorch runs the same operation, timed alike.
#   bash templates/elementwise/bench/elementwise_bench.sh BUILD_DIR OUT_DIR
# Output: OUT_DIR/elementwise.log, elementwise-summary.jsonl, elementwise-torch.jsonl,
# elementwise.md.
set -uo pipefail
build=${1:?usage: templates/elementwise/bench/elementwise_bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: templates/elementwise/bench/elementwise_bench.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
problems=${KTUNE_EW_PROBLEMS:-"add:f32:268435456 add:f32:8388608 fma:f32:268435456 add:f16:268435456 add:f16:8388608 fma:f16:268435456"}
status=0
for p in $problems; do
  IFS=: read -r op dtype n <<< "$p"
  start=$(date +%s)
  "$build/tuner/ktune" tune elementwise --expr "$op" --dtype "$dtype" --n "$n" --summary "$out/elementwise-summary.jsonl" \
    >> "$out/elementwise.log" 2>&1 || status=1
  echo "tuned $op $dtype $n in $(( $(date +%s) - start )) s (wall, whole command)" | tee -a "$out/elementwise.log"
done
python3 "$here/torch_elementwise.py" $problems > "$out/elementwise-torch.jsonl" 2>> "$out/elementwise.log" || status=1
python3 "$here/elementwise_report.py" "$out/elementwise-summary.jsonl" "$out/elementwise-torch.jsonl" | tee "$out/elementwise.md"
exit $status
