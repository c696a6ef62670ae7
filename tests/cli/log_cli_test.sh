#!/usr/bin/env bash
# `ktune log` on the recorded H200 and H100 runs in tests/data (no GPU needed):
#   log_cli_test.sh PATH_TO_KTUNE DATA_DIR
set -euo pipefail
ktune=${1:?usage: log_cli_test.sh KTUNE DATA_DIR}
data=${2:?usage: log_cli_test.sh KTUNE DATA_DIR}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/contains.sh"

out=$("$ktune" log --dir "$data" list)
[ "$(echo "$out" | grep -c 'NVIDIA H200')" = 24 ] || fail "list: expected 24 H200 runs"  # golden/ is a subfolder
[ "$(echo "$out" | grep -c 'NVIDIA H100')" = 13 ] || fail "list: expected 13 H100 runs"
echo "$out" | tail -1 | contains "^37 run(s)" || fail "list: total"
head -1 <<< "$out" | contains "transpose-h200-f64-8191x4097-order" || fail "list: newest first"

out=$("$ktune" log --dir "$data" show transpose-f32-8192x2048)
echo "$out" | contains "winner (re-timed with the finalists): 34.56 us, tile_m=32 tile_n=128 block_x=8 block_y=32 vec=4 layout=xor realign=0" \
  || fail "show: winner"
echo "$out" | contains "1142 of 1142 configs evaluated, complete" || fail "show: totals"
echo "$out" | contains "^  vec: best 4, 2 " || fail "show: vec effect"
echo "$out" | contains -E "^  layout: best (xor|shift|pad)" || fail "show: layout effect"
echo "$out" | contains "^noise: winner" || fail "show: noise"
echo "$out" | contains "^strongest interaction: " || fail "show: interaction"
echo "$out" | contains "^best so far:" || fail "show: convergence"
echo "$out" | contains "rejected: spills" || fail "show: failures grouped by reason"

# Issue 14, case 6: a line with an unknown config value or a zero time is skipped and
# named; the report stays bounded; a header of the wrong type is an error with file:line.
python3 - "$data/transpose-f32-8192x2048.jsonl" "$dir/odd.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
out, bad_config, zero = [], False, False
for line in lines:
    j = json.loads(line)
    if j.get("type") == "candidate" and j.get("status") == "ok":
        if not bad_config:
            j["config"]["layout"] = "qhift"; bad_config = True
        elif not zero:
            j["timing"]["median_us"] = 0; zero = True
    out.append(json.dumps(j))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
"$ktune" log show "$dir/odd.jsonl" > "$dir/odd.txt" 2>&1 || fail "show: one bad line failed the whole log: $(head -c 300 "$dir/odd.txt")"
grep -q "2 corrupt line(s) skipped (first: $dir/odd.jsonl:[0-9]*: .*qhift" "$dir/odd.txt" || fail "show: skipped lines not named"
timeout 60 "$ktune" log report "$dir/odd.jsonl" -o "$dir/odd.html" > /dev/null || fail "report on a log with a zero time"
[ "$(stat -c %s "$dir/odd.html")" -lt 5000000 ] || fail "report grew without bound"
sed '1s/"family": *"transpose"/"family": 7/' "$dir/odd.jsonl" > "$dir/badhead.jsonl"
if "$ktune" log show "$dir/badhead.jsonl" 2> "$dir/err"; then fail "show: a header of the wrong type was accepted"; fi
grep -q "badhead.jsonl:1: unreadable header" "$dir/err" || fail "show: header error without file:line: $(cat "$dir/err")"

"$ktune" log export "$data/transpose-f32-8192x2048.jsonl" --csv "$dir/run.csv" > /dev/null
[ "$(wc -l < "$dir/run.csv")" = 1143 ] || fail "export: one row per candidate plus a header"
head -1 "$dir/run.csv" | contains "^index,status,tile_m,tile_n,block_x,block_y,vec,layout,realign,copy,wide,order,words,median_us" || fail "export: header"
[ "$(grep -c ',ok,' "$dir/run.csv")" = 1126 ] || fail "export: ok rows"

out=$("$ktune" log --dir "$data" compare transpose-f32-8192x2048 transpose-f32-16384x16384 --top 3)
echo "$out" | contains "^A transpose-f32-8192x2048" || fail "compare: A"
echo "$out" | contains "1126 configs timed in both: B/A time ratio median" || fail "compare: common configs"
echo "$out" | contains "^A's winner in B: rank " || fail "compare: winners' ranks"
echo "$out" | contains '^warning: the runs tuned different problems (shape \[8192,2048\] vs \[16384,16384\])' \
  || fail "compare: no warning for different problems"

# Golden files pin both export formats (a hand-written three-candidate log: ok,
# compile error with quotes and a newline in its reason, rejected).
"$ktune" log export "$data/golden/mini.jsonl" --csv "$dir/mini.csv" --kernel-tuner "$dir/mini.kt.json" > /dev/null
cmp "$dir/mini.csv" "$data/golden/mini.csv" || fail "CSV export differs from the golden file"
cmp "$dir/mini.kt.json" "$data/golden/mini.kernel_tuner.json" || fail "Kernel Tuner export differs from the golden file"
if "$ktune" log export "$data/golden/mini.jsonl" 2> "$dir/err"; then fail "export without a format accepted"; fi

# A run cut mid-write (killed tuner): partial, the broken line counted, still readable.
head -c 200000 "$data/transpose-f32-8192x2048.jsonl" > "$dir/cut.jsonl"
printf "\ngarbage\n" >> "$dir/cut.jsonl"  # the cut line, then another broken one
out=$("$ktune" log show "$dir/cut.jsonl")
echo "$out" | contains "partial (running or killed), 2 corrupt line(s) skipped" || fail "show: partial log"

if "$ktune" log --dir "$data" show no-such-run 2> "$dir/err"; then fail "unknown run accepted"; fi
grep -q "no search log 'no-such-run'" "$dir/err" || fail "unknown run message"
echo "log CLI: all checks passed"
