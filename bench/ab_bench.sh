#!/usr/bin/env bash
# Two ktune builds tune the same problems in one GPU run, alternating which goes first,
# to show a change kept (or lost) speed: e.g. the commit before a refactor against now.
#   bash bench/ab_bench.sh OLD_KTUNE NEW_KTUNE OUT_DIR
# KTUNE_AB_PROBLEMS: problems separated by ';', each the arguments of `ktune tune`.
# Output: OUT_DIR/ab.log, ab-old.jsonl, ab-new.jsonl, ab.md.
set -uo pipefail
old=${1:?usage: bench/ab_bench.sh OLD_KTUNE NEW_KTUNE OUT_DIR}
new=${2:?usage: bench/ab_bench.sh OLD_KTUNE NEW_KTUNE OUT_DIR}
out=${3:?usage: bench/ab_bench.sh OLD_KTUNE NEW_KTUNE OUT_DIR}
mkdir -p "$out"
problems=${KTUNE_AB_PROBLEMS:-"transpose --dtype f32 --shape 8192x2048;transpose --dtype f32 --shape 8191x4097;\
transpose --dtype u8 --shape 16384x8192;elementwise --expr fma --dtype f16 --n 268435456;\
reduce --op sum --dtype f32 --n 268435456;reduce_rows --op max --dtype f32 --shape 16384x16384;\
gemm --dtype f32 --shape 4096x4096x4096 --strategy model --budget-evals 150"}
status=0
i=0
IFS=';' read -ra list <<< "$problems"
for p in "${list[@]}"; do
  read -ra args <<< "$p"
  order=(old new); [ $((i % 2)) = 1 ] && order=(new old)
  for who in "${order[@]}"; do
    bin=$old; [ "$who" = new ] && bin=$new
    # Each build its own database: neither reuses the other's results.
    KTUNE_CACHE_DIR="$out/cache-$who" "$bin" tune "${args[@]}" --summary "$out/ab-$who.jsonl" >> "$out/ab.log" 2>&1 || status=1
  done
  i=$((i + 1))
done
python3 - "$out/ab-old.jsonl" "$out/ab-new.jsonl" <<'PY' | tee "$out/ab.md"
import json, sys
old = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
new = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
print("| problem | old us | old % ceiling | new us | new % ceiling | new / old time | old winner | new winner |")
print("|---|---|---|---|---|---|---|---|")
for o, n in zip(old, new):
    what = f"{n['family']} {n.get('variant', '')} {n['dtype']} {n['shape']}".replace("  ", " ")
    if "winner" not in o or "winner" not in n:
        print(f"| {what} | no winner |"); continue
    wo, wn = o["winner"], n["winner"]
    print(f"| {what} | {wo['median_us']:.1f} | {100 * wo['ceiling_fraction']:.1f} | {wn['median_us']:.1f} | "
          f"{100 * wn['ceiling_fraction']:.1f} | {wn['median_us'] / wo['median_us']:.3f} | {wo['config']} | {wn['config']} |")
PY
exit $status
