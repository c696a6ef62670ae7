#!/usr/bin/env bash
# Issue 51: search logs under hostile input (no GPU): one bad log never stops a listing,
# a malformed field is a clear error or a skipped line, a header nested 300k deep or
# carrying a kernel description that would crash the evaluator is unreadable (not a
# signal), and a denormal time neither wins nor hangs the report:
#   hostile_logs_cli_test.sh PATH_TO_KTUNE DATA_DIR
set -uo pipefail
ktune=${1:?usage: hostile_logs_cli_test.sh KTUNE DATA_DIR}
data=${2:?usage: hostile_logs_cli_test.sh KTUNE DATA_DIR}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/contains.sh"
logs="$dir/logs"
mkdir -p "$logs"
good="$data/transpose-f32-8192x2048.jsonl"
cp "$good" "$logs/good.jsonl"
variant() {  # name, python statements on the header h and the first candidate c
  python3 - "$good" "$logs/$1.jsonl" "$2" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
h, c = json.loads(lines[0]), json.loads(lines[1])
exec(sys.argv[3])
out = [h if isinstance(h, str) else json.dumps(h), c if isinstance(c, str) else json.dumps(c)] + lines[2:]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
}
variant started 'h["started"] = 7'
variant noshape 'del h["shape"]'
variant registers 'c["registers"] = "many"'
variant denormal 'c["timing"]["median_us"] = 5e-324'
variant deep 'h = "[" * 300000 + "]" * 300000'
variant deepline 'c = "[" * 300000 + "]" * 300000'
variant cycle 'h["kernel_source"] = "// @kernel k\n// @entry k\n// @tune a = 1\n// @derive d = d + 1\n// @launch block = (1, 1, 1)\n// @launch grid = (1, 1, 1)\ntemplate <int a> __global__ void k() {}\n"'
variant fpe 'h["kernel_source"] = "// @kernel k\n// @entry k\n// @tune a = 1\n// @require (-9223372036854775807 - 1) / -1 > a\n// @launch block = (1, 1, 1)\n// @launch grid = (1, 1, 1)\ntemplate <int a> __global__ void k() {}\n"'

out=$("$ktune" log --dir "$logs" list 2>&1)
rc=$?
[ $rc = 0 ] || fail "log list: rc=$rc: $out"
contains "2026-11-22T00:30:04Z .*transpose" <<< "$out" || fail "the good logs are not listed: $out"
[ "$(grep -c "^skipping " <<< "$out")" = 4 ] || fail "four unreadable logs reported: $out"
contains "skipping .*started.jsonl: .*'started' is not a string" <<< "$out" || fail "started: $out"
contains "skipping .*deep.jsonl: .*no header line" <<< "$out" || fail "deep: $out"
contains "skipping .*cycle.jsonl: .*'d' reads itself" <<< "$out" || fail "cycle: $out"

for run in noshape cycle deep; do
  for cmd in show report export; do
    args=()
    [ $cmd = report ] && args=(-o "$dir/r.html")
    [ $cmd = export ] && args=(--csv "$dir/r.csv")
    out=$("$ktune" log --dir "$logs" $cmd "$run" "${args[@]}" 2>&1)
    rc=$?
    [ $rc = 1 ] || fail "log $cmd $run: rc=$rc (a signal is 128+): $out"
    contains "^ktune: error: .*$run.jsonl" <<< "$out" || fail "log $cmd $run: $out"
  done
done
# fpe's description parses (its division fails only when evaluated); its candidates are
# another kernel's: each command ends normally, whatever it can show.
for cmd in show "report -o $dir/f.html" "export --csv $dir/f.csv"; do
  out=$("$ktune" log --dir "$logs" $cmd fpe 2>&1)
  rc=$?
  [ $rc -le 1 ] || fail "log $cmd fpe: rc=$rc: $out"
done
out=$("$ktune" log --dir "$logs" show noshape 2>&1)
contains "no 'shape'" <<< "$out" || fail "show noshape: $out"
for run in registers deepline denormal; do
  out=$(timeout 60 "$ktune" log --dir "$logs" show "$run" 2>&1) || fail "log show $run: $out"
  contains "1 corrupt line(s) skipped" <<< "$out" || fail "show $run: $out"
done
out=$(timeout 60 "$ktune" log --dir "$logs" report denormal -o "$dir/d.html" 2>&1) || fail "report denormal: rc=$?: $out"
contains "not a time a kernel takes" <<< "$("$ktune" log --dir "$logs" show denormal 2>&1)" || fail "denormal reason"
mkfifo "$dir/log.fifo"  # a FIFO as a search log: refused at once (the open blocked forever)
for sub in show "report -o $dir/x.html"; do
  # shellcheck disable=SC2086
  out=$(timeout 20 "$ktune" log $sub "$dir/log.fifo" 2>&1) && fail "log $sub of a FIFO: $out"
  contains "is not a regular file" <<< "$out" || fail "log $sub of a FIFO: $out"
done
mkfifo "$dir/report.fifo"  # nobody reads it: refused at once (the open blocked forever)
out=$(timeout 20 "$ktune" log --dir "$logs" report denormal -o "$dir/report.fifo" 2>&1) && fail "report into a FIFO: $out"
contains "a FIFO that nobody reads" <<< "$out" || fail "report into a FIFO: $out"
echo "hostile logs: all checks passed"
