#!/usr/bin/env bash
# Transpose benchmark, one GPU run: ktune tunes each dense problem (its tuner measures
# its own memcpy ceiling), then one Python process times, by one protocol, ktune's
# stored winner through the runtime call, the autotuned Triton kernel, PyTorch and a
# memcpy of the same bytes (templates/transpose/bench/transpose_peers.py).
#   bash templates/transpose/bench/transpose_bench.sh BUILD_DIR OUT_DIR
# KTUNE_BENCH_PROBLEMS overrides the list: DTYPE:ROWSxCOLS[:LD_SRC:LD_DST]; a pitched
# problem is tuned at its pitches (--ld), as Triton's kernel is autotuned per pitch, and
# its winner is stored under its alignment class, where the runtime call finds it.
# Output: OUT_DIR/bench.log (tuner tables), transpose-summary.jsonl, transpose-peers.jsonl, results.md.
set -uo pipefail
build=${1:?usage: templates/transpose/bench/transpose_bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: templates/transpose/bench/transpose_bench.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
# Aligned, odd pitches both ways, tall/skinny both ways, degenerate, pitched; 1-8 bytes.
problems=${KTUNE_BENCH_PROBLEMS:-"f32:8192x2048 f32:16384x16384 f32:8191x4097 f32:4097x8191 f32:65536x512 \
f32:512x65536 f32:256x65536 f32:1000003x1 f32:1x4000037 f32:8192x2048:2051:8195 \
f16:8192x4096 f16:8191x4097 f16:16384x1024 f64:8192x2048 f64:8191x4097 f64:4097x2049 \
u8:16384x8192 u8:8191x4097 u8:4097x8191 u8:16000057x1 u8:8192x2048:2051:8195"}
status=0
for p in $problems; do
  IFS=: read -r dtype shape ld_src ld_dst <<< "$p"
  pitches=()
  [ -n "$ld_src" ] && pitches=(--ld "$ld_src,$ld_dst")
  start=$(date +%s)
  "$build/tuner/ktune" tune transpose --dtype "$dtype" --shape "$shape" "${pitches[@]}" --summary "$out/transpose-summary.jsonl" \
    >> "$out/bench.log" 2>&1 || status=1
  echo "tuned $dtype $shape ${pitches[*]} in $(( $(date +%s) - start )) s (wall, whole command)" | tee -a "$out/bench.log"
done
# libktune for the app and the shim: their rpaths name the build directory they were
# linked in, gone when BUILD_DIR was copied (the GPU machine's).
export LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The separate application: must report match=exact and run at the tuner's speed.
"$build/examples/transpose_app" 8192 2048 >> "$out/bench.log" 2>&1 || status=1
grep transpose_app "$out/bench.log" | tail -2
python3 "$here/transpose_peers.py" "$build/bench/libktune_bench_shim.so" $problems > "$out/transpose-peers.jsonl" \
  2>> "$out/bench.log" || status=1
python3 "$here/transpose_report.py" "$out/transpose-summary.jsonl" "$out/transpose-peers.jsonl" | tee "$out/results.md"
# Shapes nobody picked (issue 72), beside the fixed rows above: a zoo sample and a fresh
# random draw (KTUNE_SHAPES_SEED repeats one; KTUNE_SHAPES_RANDOM, KTUNE_SHAPES_ZOO: how
# many; KTUNE_NO_SHAPES=1 skips them), its seed in transpose-shapes.md and on each row.
if [ -z "${KTUNE_NO_SHAPES:-}" ]; then
  bash "$here/transpose_shapes.sh" "$build" "$out" ${KTUNE_SHAPES_SEED:-} || status=1
fi
exit $status
