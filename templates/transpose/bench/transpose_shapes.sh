#!/usr/bin/env bash
# Transposes at shapes nobody picked (issue 72), one GPU run: a seeded sample of the
# zoo's transposes and a fresh random draw (transpose_shapes.py draw; the seed printed
# and recorded), each tuned by ktune's default command, then timed beside the two
# autotuned Triton transposes, torch and a memcpy in one process (transpose_peers.py);
# the ratios summarized as min, median and max with the worst shapes named. The fixed
# shapes of transpose_bench.sh stay its regression rows.
#   bash templates/transpose/bench/transpose_shapes.sh BUILD_DIR OUT_DIR [SEED]
# KTUNE_SHAPES_RANDOM (12) and KTUNE_SHAPES_ZOO (6): how many of each.
# Output: OUT_DIR/shapes.log, transpose-shapes-peers.jsonl, transpose-shapes.md.
set -uo pipefail
build=${1:?usage: transpose_shapes.sh BUILD_DIR OUT_DIR [SEED]}
out=${2:?usage: transpose_shapes.sh BUILD_DIR OUT_DIR [SEED]}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
seed=()
[ -n "${3:-}" ] && seed=(--seed "$3")
drawn=$(python3 "$here/transpose_shapes.py" draw "${seed[@]}" --random "${KTUNE_SHAPES_RANDOM:-12}" \
  --zoo "${KTUNE_SHAPES_ZOO:-6}") || exit 2
echo "$drawn" | tee -a "$out/shapes.log"
problems=$(echo "$drawn" | grep -v '^#')
status=0
for p in $problems; do
  start=$(date +%s)
  "$build/tuner/ktune" tune transpose --dtype "${p%%:*}" --shape "${p#*:}" >> "$out/shapes.log" 2>&1 || status=1
  echo "tuned $p in $(( $(date +%s) - start )) s" | tee -a "$out/shapes.log"
done
export LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
python3 "$here/transpose_peers.py" "$build/bench/libktune_bench_shim.so" $problems > "$out/transpose-shapes-peers.jsonl" \
  2>> "$out/shapes.log" || status=1
python3 "$here/transpose_shapes.py" stamp "$out/transpose-shapes-peers.jsonl" "$(echo "$drawn" | head -1 | sed -n 's/^# seed //p')" || status=1
{ echo "$drawn" | head -1; python3 "$here/transpose_shapes.py" summary "$out/transpose-shapes-peers.jsonl"; } \
  | tee "$out/transpose-shapes.md"
exit $status
