#!/usr/bin/env bash
# `ktune tune --workload FILE` refuses bad files before anything runs, naming the file
# and line (no GPU needed: every case fails while the file is read):
#   workload_cli_test.sh PATH_TO_KTUNE SOURCE_DIR
set -uo pipefail
ktune=${1:?usage: workload_cli_test.sh KTUNE SOURCE_DIR}
src=${2:?usage: workload_cli_test.sh KTUNE SOURCE_DIR}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export KTUNE_CACHE_DIR="$dir/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }

expect_error() {  # name, message, workload text
  printf '%b' "$3" > "$dir/$1.txt"
  if "$ktune" tune --workload "$dir/$1.txt" > "$dir/out" 2>&1; then fail "$1: accepted"; fi
  grep -qF "$2" "$dir/out" || fail "$1: expected '$2', got: $(cat "$dir/out")"
  [ ! -e "$dir/cache/tuning.db" ] || fail "$1: a database was written"
}
good='# problems\ntranspose --dtype f32 --shape 1000x1537\n\nreduce --dtype f32 --n 1000003 --op sum   # a comment\n'
expect_error family "family.txt:3: unknown kernel family 'foo'" "transpose --shape 64x64\n\nfoo --shape 1x1\n"
expect_error option "option.txt:2: " "transpose --shape 64x64\ntranspose --shap 1x1\n"
expect_error value "value.txt:1: bad --shape '64xx'" "transpose --shape 64xx\n"
expect_error other "other.txt:1: --n does not apply to transpose" "transpose --n 5\n"
expect_error kernel "kernel.txt:2: cannot read kernel file $dir/missing.cu" "transpose --shape 8x8\n--kernel missing.cu --problem n=3\n"
expect_error empty "names no problem" "# nothing\n\n"
if "$ktune" tune --workload "$dir/none.txt" > "$dir/out" 2>&1 || ! grep -q "cannot read workload file" "$dir/out"; then
  fail "missing file: $(cat "$dir/out")"
fi
printf '%b' "$good" > "$dir/good.txt"
if "$ktune" tune transpose --workload "$dir/good.txt" > "$dir/out" 2>&1 || ! grep -q "give one problem, --workload FILE or --capture FOLDER, not two of them" "$dir/out"; then
  fail "a problem and a workload accepted together"
fi
# --devices spreads a workload only, and not together with --device.
if "$ktune" tune transpose --devices 0 > "$dir/out" 2>&1 || ! grep -q "devices spreads a --workload FILE" "$dir/out"; then
  fail "--devices without a workload accepted: $(cat "$dir/out")"
fi
if "$ktune" tune --workload "$dir/good.txt" --devices 0 --device 1 > "$dir/out" 2>&1 \
   || ! grep -q "give --device or --devices, not both" "$dir/out"; then
  fail "--device and --devices accepted together: $(cat "$dir/out")"
fi
# A line may carry its own search options, which win over the command line's for it
# (here: a dry run of the first 3 configs of one line's model search, all of another's).
printf -- '--kernel %s --problem n=1000 --strategy model --budget-evals 3\n--kernel %s --problem n=999\n' \
  "$src/tests/data/user_kernels/scale.cu" "$src/tests/data/user_kernels/scale.cu" > "$dir/search.txt"
"$ktune" tune --workload "$dir/search.txt" --dry-run --budget-evals 5 > "$dir/out" 2>&1 || fail "search options: $(cat "$dir/out")"
grep -q "9 configs for scale_test .* 1000, the first 3 of the model search (--budget-evals), 3 compiled" "$dir/out" \
  && grep -q "9 configs for scale_test .* 999, the first 5 of the exhaustive search (--budget-evals), 5 compiled" "$dir/out" \
  || fail "per-line search options: $(cat "$dir/out")"
expect_error search_bad "search_bad.txt:2: --budget-evals: " "transpose --shape 64x64 --strategy model\ntranspose --shape 64x64 --budget-evals -1\n"
expect_error search_strategy "search_strategy.txt:1: --strategy: " "transpose --shape 64x64 --strategy greedy\n"
# A good file with a kernel path relative to it passes the reading; without a GPU the
# run then stops with the reason (on a GPU machine workload_gpu_test runs it).
cp "$src/tests/data/user_kernels/scale.cu" "$dir/scale.cu"
printf '%b--kernel scale.cu --problem n=1000\n' "$good" > "$dir/good.txt"
if ! command -v nvidia-smi > /dev/null; then
  "$ktune" tune --workload "$dir/good.txt" > "$dir/out" 2>&1
  rc=$?
  [ $rc = 2 ] && grep -q "cannot tune here" "$dir/out" && grep -q -- "--workload $dir/good.txt --dry-run" "$dir/out" \
    || fail "no GPU: rc=$rc $(cat "$dir/out")"
  "$ktune" tune --workload "$dir/good.txt" --devices all > "$dir/out" 2>&1
  rc=$?
  [ $rc = 2 ] && grep -q "cannot tune here" "$dir/out" || fail "no GPU, --devices: rc=$rc $(cat "$dir/out")"
fi
# Issue 51 (7): a 20k-line workload is checked in memory of a few lines' problems (it
# held every line's kernel source: 1 GB), and /dev/zero as a kernel is a clear error.
python3 -c "import sys; open(sys.argv[1], 'w').write(''.join('transpose --dtype f32 --shape %dx%d\n' % (100 + i, 200 + i) for i in range(20000)))" "$dir/w20k.txt"
out=$(ulimit -v 400000; "$ktune" tune --workload "$dir/w20k.txt" --budget-evals 1 2>&1 | tail -2)
rc=$?
grep -qE "cannot tune here|Tuning needs|\[1/20000\]" <<< "$out" || fail "20k-line workload: rc=$rc: $out"
printf -- '--kernel /dev/zero --problem n=1\n' > "$dir/zero.txt"
out=$("$ktune" tune --workload "$dir/zero.txt" --dry-run 2>&1)
grep -q "zero.txt:1: /dev/zero: not a regular file" <<< "$out" || fail "/dev/zero as a kernel: $out"
# A line longer than 64 KiB is a clear error read in bounded memory: a sparse file of
# one 600 MB line (no disk) under a 400 MB address-space limit. Files that never end or
# block (/dev/zero, a FIFO) are refused before they are opened.
: > "$dir/long.txt"
truncate -s 600000000 "$dir/long.txt"
out=$(ulimit -v 400000; "$ktune" tune --workload "$dir/long.txt" --check 2>&1)
grep -q "long.txt:1: longer than 64 KiB" <<< "$out" || fail "a 600 MB line: $out"
out=$(timeout 20 "$ktune" tune --workload /dev/zero --check 2>&1)
grep -q "/dev/zero is not a regular file" <<< "$out" || fail "an endless file: $out"
# --check lists the problems; --shard I/N takes problems I, I+N, ... (every one in one shard).
printf 'transpose --shape 64x64\nreduce --n 1000 --op sum\n# c\ntranspose --shape 8x8\nreduce --n 77 --op max\ntranspose --shape 9x9\n' > "$dir/five.txt"
"$ktune" tune --workload "$dir/five.txt" --check > "$dir/out" 2>&1 && grep -q "^5 problem(s), every line checked" "$dir/out" &&
  grep -q "^line 4: transpose .*--shape 8x8" "$dir/out" || fail "--check: $(cat "$dir/out")"
all=""
for i in 0 1; do
  "$ktune" tune --workload "$dir/five.txt" --check --shard $i/2 > "$dir/out" 2>&1 || fail "--shard $i/2: $(cat "$dir/out")"
  all="$all $(grep -o '^line [0-9]*' "$dir/out" | tr '\n' ' ')"
done
[ "$(echo $all)" = "line 1 line 4 line 6 line 2 line 5" ] || fail "--shard 0/2 and 1/2 took: $all"
"$ktune" tune --workload "$dir/five.txt" --check --shard 4/5 | grep -q "^line 6:" || fail "--shard 4/5"
for bad in 2/2 x/2 "1/2 " -1/2 1/0 1/ /2 99999999/100000000; do
  if "$ktune" tune --workload "$dir/five.txt" --check --shard "$bad" > "$dir/out" 2>&1 || ! grep -q -- "--shard" "$dir/out"; then
    fail "--shard '$bad' accepted or unclear: $(cat "$dir/out")"
  fi
done
# --order-by TIMES: longest first (unknown problems expected at the median of the known),
# and shards of equal work: the 50 s problem alone in shard 0.
"$ktune" tune --workload "$dir/five.txt" --check | sed -n 's/^line [0-9]*: //p' > "$dir/keys"
{ echo "# seconds, GPU, problem"; paste <(printf '2\n3\n50\n1\n9\n') <(printf 'H200\n%.0s' 1 2 3 4 5) "$dir/keys"
  printf 'not a line\n-4\tH200\tx\n'; } > "$dir/times.tsv"
"$ktune" tune --workload "$dir/five.txt" --check --order-by "$dir/times.tsv" > "$dir/out" 2> "$dir/err" || fail "--order-by: $(cat "$dir/out" "$dir/err")"
[ "$(grep -o '^line [0-9]*' "$dir/out" | tr '\n' ' ')" = "line 4 line 6 line 2 line 1 line 5 " ] || fail "--order-by order: $(cat "$dir/out")"
grep -q "^order: longest first by the recorded times of 5 of the 5 problems" "$dir/out" || fail "--order-by says: $(cat "$dir/out")"
grep -q "times.tsv:7: expected SECONDS<TAB>GPU<TAB>PROBLEM; line skipped" "$dir/err" &&
  grep -q "times.tsv:8: '-4' is not a number of seconds" "$dir/err" || fail "bad times lines: $(cat "$dir/err")"
all=""
for i in 0 1; do
  "$ktune" tune --workload "$dir/five.txt" --check --shard $i/2 --order-by "$dir/times.tsv" 2> /dev/null > "$dir/out" || fail "--shard $i/2 --order-by"
  all="$all$i: $(grep -o '^line [0-9]*' "$dir/out" | tr '\n' ' ')"
done
[ "$all" = "0: line 4 1: line 6 line 2 line 1 line 5 " ] || fail "--shard --order-by took: $all"
head -3 "$dir/times.tsv" > "$dir/two.tsv"  # two known: the others expected at their median (2.5 s)
"$ktune" tune --workload "$dir/five.txt" --check --order-by "$dir/two.tsv" | grep -o '^line [0-9]*' | tr '\n' ' ' > "$dir/out"
[ "$(cat "$dir/out")" = "line 2 line 4 line 5 line 6 line 1 " ] || fail "--order-by, two times known: $(cat "$dir/out")"
for bad in "$dir/none.tsv" "$dir"; do
  if "$ktune" tune --workload "$dir/five.txt" --check --order-by "$bad" > "$dir/out" 2>&1 || ! grep -q -- "--order-by" "$dir/out"; then
    fail "--order-by $bad accepted or unclear: $(cat "$dir/out")"
  fi
done
if "$ktune" tune transpose --order-by "$dir/times.tsv" > "$dir/out" 2>&1 || ! grep -q "orders a --workload" "$dir/out"; then
  fail "--order-by without a workload"
fi
if "$ktune" tune transpose --shard 0/2 > "$dir/out" 2>&1 || ! grep -q "takes one share of a --workload" "$dir/out"; then
  fail "--shard without a workload"
fi
if "$ktune" tune transpose --check > "$dir/out" 2>&1 || ! grep -q "reads a --workload" "$dir/out"; then
  fail "--check without a workload"
fi
# Files that never end or block (issue 66, item 2): a FIFO as the workload, and the
# tuning-times file as a FIFO or a link to /dev/zero, are refused at once (they blocked
# or read forever); `timeout` turns a hang into a failure here.
mkfifo "$dir/fifo.txt"
if timeout 20 "$ktune" tune --workload "$dir/fifo.txt" --check > "$dir/out" 2>&1 ||
   ! grep -q "fifo.txt is not a regular file" "$dir/out"; then
  fail "a FIFO as the workload: $(cat "$dir/out")"
fi
mkdir -p "$KTUNE_CACHE_DIR/logs"
for odd in fifo zero; do
  rm -f "$KTUNE_CACHE_DIR/logs/tuning-times.tsv"
  if [ $odd = fifo ]; then mkfifo "$KTUNE_CACHE_DIR/logs/tuning-times.tsv"; else ln -s /dev/zero "$KTUNE_CACHE_DIR/logs/tuning-times.tsv"; fi
  set +e
  timeout 20 "$ktune" tune --workload "$dir/five.txt" --devices 0 --check > "$dir/out" 2>&1
  rc=$?
  set -e
  [ $rc != 124 ] && grep -q "tuning-times.tsv is not a regular file" "$dir/out" || fail "tuning times as $odd: rc=$rc $(cat "$dir/out")"
done
rm -f "$KTUNE_CACHE_DIR/logs/tuning-times.tsv"
# --shard "" is an error (it tuned the whole workload); a share of many more shards than
# problems is found at once (it took 23 s over 2000 lines).
if "$ktune" tune --workload "$dir/five.txt" --check --shard "" > "$dir/out" 2>&1 || ! grep -q "expected I/N" "$dir/out"; then
  fail "--shard '': $(cat "$dir/out")"
fi
for i in $(seq 1 2000); do echo "transpose --shape ${i}x64"; done > "$dir/w2k.txt"
timeout 10 "$ktune" tune --workload "$dir/w2k.txt" --check --shard 1/9999999 > "$dir/out" 2>&1 &&
  grep -q "^line 2: transpose --shape 2x64" "$dir/out" && grep -q "^1 problem(s)" "$dir/out" || fail "--shard 1/9999999: $(tail -3 "$dir/out")"
if "$ktune" tune --workload "$dir" --check > "$dir/out" 2>&1 || ! grep -q "is not a regular file" "$dir/out"; then
  fail "a folder as the workload: $(cat "$dir/out")"
fi
# The problem zoo (bench/zoo): what its script writes, and every line checks (in a build
# with every family the zoo names: a subset build has no gemm).
python3 "$src/bench/zoo/make_zoo.py" | cmp -s - "$src/bench/zoo/zoo.txt" ||
  fail "bench/zoo/zoo.txt is not what bench/zoo/make_zoo.py writes (regenerate it)"
all_built=1
for family in $(grep -v '^#' "$src/bench/zoo/zoo.txt" | cut -d' ' -f1 | sort -u); do
  "$ktune" space "$family" > /dev/null 2>&1 || all_built=""
done
if [ -n "$all_built" ]; then
  "$ktune" tune --workload "$src/bench/zoo/zoo.txt" --check > "$dir/out" 2>&1 || fail "the zoo does not check: $(tail -3 "$dir/out")"
  # The shipped tables' workloads (shipped/<device>.txt): zoo problems that check.
  for w in "$src"/shipped/*.txt; do
    "$ktune" tune --workload "$w" --check > "$dir/out" 2>&1 || fail "$w does not check: $(tail -3 "$dir/out")"
    while read -r line; do
      grep -qxF -- "$line" "$src/bench/zoo/zoo.txt" || fail "$w: '$line' is not a zoo problem"
    done < <(grep -v '^#' "$w")
  done
fi
# A line `--help` and a negative seed (issue 66, item 7): clear errors.
printf -- '--help\n' > "$dir/help.txt"
if "$ktune" tune --workload "$dir/help.txt" --check > "$dir/out" 2>&1 || ! grep -q "help.txt:1: --help is no problem" "$dir/out"; then
  fail "--help as a workload line: $(cat "$dir/out")"
fi
if "$ktune" tune transpose --shape 64x64 --seed -1 --dry-run > "$dir/out" 2>&1 || ! grep -q "a seed is not negative" "$dir/out"; then
  fail "--seed -1: $(cat "$dir/out")"
fi
echo "workload_cli_test: ok"
