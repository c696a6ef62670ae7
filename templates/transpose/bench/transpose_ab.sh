#!/usr/bin/env bash
# Transpose winners of two ktune builds on the same GPU, alternating A and B at each
# problem, two rounds (a template change measured against the build before it):
#   bash templates/transpose/bench/transpose_ab.sh OUT KTUNE_A KTUNE_B [DTYPE:ROWSxCOLS ...]
# Each tuning run has a database of its own (exhaustive search, L2 flushed). Writes
# OUT/ab.txt (device, one line per run: winner, memcpy of the same bytes, tuning
# time, config) and OUT/ab-logs.tgz (the runs' output and summaries).
set -uo pipefail
out=${1:?usage: templates/transpose/bench/transpose_ab.sh OUT KTUNE_A KTUNE_B [DTYPE:ROWSxCOLS ...]}
a=${2:?KTUNE_A}; b=${3:?KTUNE_B}
shift 3
problems=("$@")
[ ${#problems[@]} -gt 0 ] || problems=(u8:8191x4097 f16:8191x4097 f32:8191x4097 f32:4097x8191 f64:8191x4097 f32:8192x2048)
mkdir -p "$out"
work=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > "$out/ab.txt"
for round in 1 2; do
  for p in "${problems[@]}"; do
    dtype=${p%%:*} shape=${p#*:}
    for side in A B; do
      bin=$a; [ $side = B ] && bin=$b
      KTUNE_CACHE_DIR="$work/db-$side-$round" "$bin" tune transpose --dtype "$dtype" --shape "$shape" \
        --summary "$work/sum-$side.jsonl" > "$work/log-$side-$dtype-$shape-$round.txt" 2>&1
      rc=$?
      tail -1 "$work/sum-$side.jsonl" | python3 -c "
import json, sys
j = json.load(sys.stdin); w = j.get('winner') or {}
print('round $round $side rc=$rc', j['dtype'], j['shape'], 'winner %.2f us' % w.get('median_us', 0),
      'memcpy %.2f us' % j['ceiling_us'], '%.1f%%' % (100 * j['ceiling_us'] / w.get('median_us', 1e9)),
      'tune %.1f s' % j['seconds'], json.dumps(w.get('config')))" >> "$out/ab.txt"
    done
  done
done
date -u >> "$out/ab.txt"
tar -C "$work" -czf "$out/ab-logs.tgz" . && rm -rf "$work"
cat "$out/ab.txt"
