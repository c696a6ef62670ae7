#!/usr/bin/env bash
# `ktune cache merge` of several databases (an array job's shards) with records made by
# `cache import` (no GPU needed): a line per database (added, replaced, kept, refused),
# the faster record kept across shards, records of another template version and of an
# unknown kernel refused (a user's kernel merged once its file is named), a database with
# an invalid record merged not at all while the others are, and the exit status.
#   merge_cli_test.sh PATH_TO_KTUNE SOURCE_DIR
set -euo pipefail
ktune=${1:?usage: merge_cli_test.sh KTUNE SOURCE_DIR}
src=${2:?usage: merge_cli_test.sh KTUNE SOURCE_DIR}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/contains.sh"
dev="NVIDIA H200|sm_90|132sm|143771MiB|60MiB"
hash=$("$ktune" space transpose --shape 64x64 | tail -1 | sed 's/.*"template_hash": "\([0-9a-f]*\)".*/\1/')
cfg=$("$ktune" space transpose --shape 64x64 | sed -n 1p)
kernel="$src/tests/data/user_kernels/scale.cu"
khash=$("$ktune" space --kernel "$kernel" --problem n=1000 | tail -1 | sed 's/.*"template_hash": "\([0-9a-f]*\)".*/\1/')
kcfg=$("$ktune" space --kernel "$kernel" --problem n=1000 | sed -n 1p)
record() {  # family rows median hash config
  echo "{\"device_key\": \"$dev\", \"family\": \"$1\", \"dtype\": \"f32\", \"shape\": [$2, 64], \"align\": 1,
         \"median_us\": $3, \"template_hash\": \"$4\", \"config\": $5}"
}
shard() {  # name, records...
  local name=$1; shift
  local IFS=,
  echo "{\"ktune_schema\": 3, \"records\": [$*]}" > "$dir/$name.json"
  "$ktune" cache import --database "$dir/$name.db" "$dir/$name.json" > /dev/null
}
# Shard 0: problems 100 and 101; shard 1: 101 (faster) and 102; shard 2: 103, a record of
# another template version (104), an unknown family and a user's kernel.
shard s0 "$(record transpose 100 10 "$hash" "$cfg")" "$(record transpose 101 30 "$hash" "$cfg")"
shard s1 "$(record transpose 101 20 "$hash" "$cfg")" "$(record transpose 102 10 "$hash" "$cfg")"
shard s2 "$(record transpose 103 10 "$hash" "$cfg")" "$(record transpose 104 10 0123456789abcdef "$cfg")" \
  "$(record not_a_family 105 10 0123456789abcdef '{"x": 1}')" "$(record scale_test 1000 5 "$khash" "$kcfg")"

out=$("$ktune" cache merge --database "$dir/all.db" "$dir/s0.db" "$dir/s1.db" "$dir/s2.db")
echo "$out"
echo "$out" | contains "s0.db: 2 record(s): 2 added, 0 replaced .*, 0 kept .*, 0 refused" || fail "shard 0"
echo "$out" | contains "s1.db: 2 record(s): 1 added, 1 replaced .*, 0 kept .*, 0 refused" || fail "shard 1: the faster 101"
echo "$out" | contains "s2.db: 4 record(s): 1 added, 0 replaced .*, 0 kept .*, 3 refused" || fail "shard 2"
echo "$out" | contains "refused: transpose f32 104x64 .*another template version" || fail "stale record not refused"
echo "$out" | contains "refused: not_a_family .*not built into this ktune" || fail "unknown family not refused"
echo "$out" | contains "refused: scale_test .*--kernel FILE.cu" || fail "a user's kernel without its file"
"$ktune" cache show --database "$dir/all.db" --shape 101x64 | contains '"median_us": 20.0' || fail "the faster 101 was not kept"
[ "$("$ktune" cache list --database "$dir/all.db" | grep -c transpose)" = 4 ] || fail "problems 100-103 not stored once each"

# The user's kernel, once its file is named (directly, or by a workload that uses it).
"$ktune" cache merge --database "$dir/all.db" --kernel "$kernel" "$dir/s2.db" |
  contains "s2.db: 4 record(s): 1 added, 0 replaced .*, 1 kept .*, 2 refused" || fail "--kernel"
"$ktune" cache show --database "$dir/all.db" --family scale_test | contains '"median_us": 5.0' || fail "user's record"
echo "--kernel $kernel --problem n=1000" > "$dir/w.txt"
"$ktune" cache merge --database "$dir/w.db" --workload "$dir/w.txt" "$dir/s2.db" |
  contains "s2.db: 4 record(s): 2 added" || fail "--workload"

# A database with an invalid record (a config scale.cu does not have, which the import
# could not check without the file) or a damaged one is merged not at all; the others
# are; exit status 1.
shard bad "$(record transpose 200 10 "$hash" "$cfg")" "$(record scale_test 1000 5 "$khash" '{"threads": 64, "bug": 0, "nope": 1}')"
cp "$dir/s0.db" "$dir/damaged.db"
python3 - "$dir/damaged.db" <<'PY'
import sqlite3, sys  # one record edited outside ktune: its checksum no longer matches
db = sqlite3.connect(sys.argv[1])
db.execute("""UPDATE results SET record = replace(record, '"median_us":10', '"median_us":1') WHERE shape = '100x64'""")
db.commit()
PY
set +e
out=$("$ktune" cache merge --database "$dir/two.db" --kernel "$kernel" "$dir/bad.db" "$dir/damaged.db" "$dir/s1.db" 2>&1)
rc=$?
set -e
echo "$out"
[ $rc = 1 ] || fail "exit status $rc with a database not merged"
echo "$out" | contains "bad.db: not merged, nothing of it stored: 1 invalid record(s), e.g. scale_test .*nope" || fail "bad shard"
echo "$out" | contains "damaged.db: not merged, nothing of it stored: 1 of its 2 record(s) cannot be read" || fail "damaged shard"
echo "$out" | contains "s1.db: 2 record(s): 2 added" || fail "the good shard after a bad one"
[ "$("$ktune" cache list --database "$dir/two.db" | grep -c transpose)" = 2 ] || fail "something of the bad shard stored"
# A shard damaged below the record level (one leaf page of a 600-record database
# clobbered), cut to its first 4096 bytes, a garbage file, a FIFO:
# each merged not at all, exit status 1 (they merged in part, or as empty, with exit 0).
records=()
for r in $(seq 1000 1599); do records+=("$(record transpose "$r" 10 "$hash" "$cfg")"); done
shard big "${records[@]}"
python3 - "$dir/big.db" "$dir/cut.db" "$dir/garbage.db" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
page = int.from_bytes(data[16:18], "big") or 65536
leaves = [i for i in range(1, len(data) // page) if data[i * page] == 0x0D]  # table b-tree leaf pages
assert len(leaves) >= 4, leaves
leaf = leaves[len(leaves) // 2] * page  # one in the middle of the records
data[leaf + page // 2: leaf + page - 8] = b"\xa5" * (page // 2 - 8)  # its cells, not its header
open(sys.argv[1], "wb").write(data)
open(sys.argv[2], "wb").write(data[:4096])
open(sys.argv[3], "wb").write(b"SQLite format 3\x00" + b"\x17" * 8000)
PY
mkfifo "$dir/fifo.db"
for bad in big cut garbage fifo; do
  set +e
  out=$(timeout 60 "$ktune" cache merge --database "$dir/three.db" "$dir/$bad.db" 2>&1)
  rc=$?
  set -e
  [ $rc = 1 ] || fail "$bad.db: exit status $rc (merged in part? 124: it blocked): $out"
  echo "$out" | contains "$bad.db: not merged, nothing of it stored" || fail "$bad.db: $out"
done
echo "$out" | contains "not a regular file" || fail "a FIFO as a shard: $out"
"$ktune" cache list --database "$dir/three.db" 2>/dev/null | grep -q transpose && fail "something of a damaged shard stored"
# Into itself, a missing file, a kernel file that does not describe itself: clear errors
# (exit status 1).
fails() { if "$ktune" "$@" > "$dir/err.txt" 2>&1; then echo "accepted: $*" >&2; return 1; fi; cat "$dir/err.txt"; }
fails cache merge --database "$dir/all.db" "$dir/all.db" | contains "all.db: not merged.*the database merged into" ||
  fail "merge into itself"
fails cache merge --database "$dir/all.db" "$dir/none.db" | contains "none.db" || fail "missing file"
echo "int x;" > "$dir/plain.cu"
fails cache merge --database "$dir/all.db" --kernel "$dir/plain.cu" "$dir/s0.db" | contains "plain.cu" ||
  fail "a kernel file without its description"
echo "merge_cli_test: all checks passed"
