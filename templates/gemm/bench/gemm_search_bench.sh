#!/usr/bin/env bash
# Does the README's tuning command find the GEMM winner? (issue 56, item 2). One GPU run:
# for each problem, the whole space (exhaustive) and the README's line (`--strategy model
# --budget-evals 120`), each into a fresh database with its search log kept, then both
# winners timed together, interleaved (`ktune bench --winners-of`), so that the ratio
# does not depend on two runs' clocks. The exhaustive logs are what a replay test
# (tests/tuner/search_test.cpp) needs: copy them into tests/data.
#   bash templates/gemm/bench/gemm_search_bench.sh BUILD_DIR OUT_DIR
# KTUNE_GEMM_PROBLEMS: DTYPE:MxNxK:LAYOUT ... (DTYPE tf32: f32 with --math tf32).
# Output: OUT_DIR/search.log, OUT_DIR/search.md, OUT_DIR/logs-*/ (the search logs).
set -uo pipefail
build=${1:?usage: templates/gemm/bench/gemm_search_bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: templates/gemm/bench/gemm_search_bench.sh BUILD_DIR OUT_DIR}
ktune="$build/tuner/ktune"
mkdir -p "$out"
work=$(mktemp -d)
problems=${KTUNE_GEMM_PROBLEMS:-"bf16:4096x4096x4096:nn bf16:8192x8192x8192:nn bf16:2048x11008x4096:nn"}
status=0
seconds() { sed -n 's/.* \([0-9.]*\) s (search [0-9.]* s).*/\1/p' "$1" | tail -1; }  # of a tuning run's output
winner() { grep -A1 "^rank" "$1" | tail -1 | awk '{ $1 = $2 = $3 = $4 = $5 = $6 = ""; print }' | sed 's/^ *//'; }
echo "| problem | exhaustive: configs, s | model 120: s | model winner / exhaustive winner (interleaved) | exhaustive winner | model winner |" > "$out/search.md"
echo "|---|---|---|---|---|---|" >> "$out/search.md"
for p in $problems; do
  IFS=: read -r dtype shape layout <<< "$p"
  math=auto
  [ "$dtype" = tf32 ] && math=tf32
  args=(gemm --dtype "${dtype/tf32/f32}" --math "$math" --shape "$shape" --layout "$layout")
  name="$dtype-$shape-$layout"
  for run in exhaustive model; do
    search=(--strategy exhaustive)
    [ $run = model ] && search=(--strategy model --budget-evals 120)
    KTUNE_CACHE_DIR="$work/$name-$run" "$ktune" tune "${args[@]}" "${search[@]}" --log-dir "$out/logs-$run" \
      > "$work/$name-$run.txt" 2>&1 || status=1
    cat "$work/$name-$run.txt" >> "$out/search.log"
  done
  ex_log=$(ls -t "$out"/logs-exhaustive/*.jsonl | head -1)
  mo_log=$(ls -t "$out"/logs-model/*.jsonl | head -1)
  "$ktune" bench "${args[@]}" --winners-of "$ex_log" --winners-of "$mo_log" --rounds 10 > "$work/$name-bench.txt" 2>&1 ||
    status=1
  cat "$work/$name-bench.txt" >> "$out/search.log"
  # The bench's rows in the order given: the exhaustive winner, then the model's.
  read -r ex_us mo_us <<< "$(awk '/^ *[0-9.]+ +[0-9]/ { printf "%s ", $1 }' "$work/$name-bench.txt")"
  ratio=$(awk -v a="$mo_us" -v b="$ex_us" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", a / b; else print "-" }')
  configs=$(sed -n 's/.*: \([0-9]*\) of [0-9]* configs evaluated.*/\1/p' "$work/$name-exhaustive.txt" | tail -1)
  echo "| $dtype $shape $layout | $configs, $(seconds "$work/$name-exhaustive.txt") | $(seconds "$work/$name-model.txt") | $ratio ($mo_us / $ex_us us) | \`$(winner "$work/$name-exhaustive.txt")\` | \`$(winner "$work/$name-model.txt")\` |" >> "$out/search.md"
done
cat "$out/search.md"
rm -rf "$work"
exit $status
