#!/usr/bin/env bash
# Issue 51: records under hostile input, end to end on temporary databases (no GPU):
#   hostile_records_cli_test.sh PATH_TO_KTUNE
# 1. an import or merge of records of another template never replaces those of the
#    current template; 6. an absurd time is refused; 10. recover stores nothing an import
#    would reject, and a stored record without its checksum is damaged; 12. a SQLite file
#    that is not a ktune database is refused and left untouched; 2. -wal, -shm and
#    -journal of the database are refused as export targets.
set -euo pipefail
ktune=${1:?usage: hostile_records_cli_test.sh KTUNE}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export KTUNE_CACHE_DIR="$dir/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/contains.sh"
hash=$("$ktune" space transpose --shape 64x64 | tail -1 | sed 's/.*"template_hash": "\([0-9a-f]*\)".*/\1/')
dev="NVIDIA H200|sm_90|132sm|143771MiB|60MiB"
cfg='{"tile_m": 32, "tile_n": 64, "block_x": 32, "block_y": 8, "vec": 1, "layout": "shift", "realign": 0, "copy": 0, "wide": 0, "order": "src", "words": 0}'
records() {  # count median hash [config]
  python3 - "$@" <<'PY'
import json, sys
n, median, h = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
cfg = json.loads(sys.argv[4]) if len(sys.argv) > 4 else None
print(json.dumps({"ktune_schema": 3, "records": [
    {"device_key": "NVIDIA H200|sm_90|132sm|143771MiB|60MiB", "family": "transpose", "variant": "", "dtype": "f32",
     "shape": [100 + i, 64], "align": 1, "median_us": median, "template_hash": h, "config": cfg} for i in range(n)]}))
PY
}

# 1. 100 current records at 10 us; the same problems at 50 us under a foreign hash.
records 100 10 "$hash" "$cfg" > "$dir/current.json"
records 100 50 0123456789abcdef "$cfg" > "$dir/foreign.json"
"$ktune" cache import --database "$dir/a.db" "$dir/current.json" | contains "100 of 100" || fail "import current"
"$ktune" cache import --database "$dir/a.db" "$dir/foreign.json" | contains "^0 of 100" ||
  fail "a foreign template's records replaced current ones"
"$ktune" cache import --database "$dir/foreign.db" "$dir/foreign.json" > /dev/null
"$ktune" cache merge --database "$dir/a.db" "$dir/foreign.db" |
  contains "100 record(s): 0 added, 0 replaced .* 0 kept the stored faster record, 100 refused" ||
  fail "merge did not refuse another template's records"
"$ktune" cache merge --database "$dir/a.db" "$dir/foreign.db" | contains "refused: transpose f32 100x64 .*: tuned on another template version (0123456789abcdef" ||
  fail "merge: no reason for a refusal"
"$ktune" cache prune --database "$dir/a.db" | contains "pruned 0" || fail "prune after import"
"$ktune" cache explain transpose --database "$dir/a.db" --shape 100x64 --ld 65,101 --device-key "$dev" |
  contains "exact: .* 10.00 us" || fail "the current record is not the one used"
# ... while a current record does replace a foreign one, and of two current ones the faster stays.
"$ktune" cache import --database "$dir/foreign.db" "$dir/current.json" | contains "100 of 100" ||
  fail "a current record did not replace a foreign one"
records 100 20 "$hash" "$cfg" > "$dir/slower.json"
"$ktune" cache import --database "$dir/a.db" "$dir/slower.json" | contains "^0 of 100" || fail "a slower record won"

# 6. Times no kernel takes.
for t in 5e-324 1e-300 1e300 0; do
  records 1 "$t" "$hash" "$cfg" > "$dir/t.json"
  if "$ktune" cache import --database "$dir/a.db" "$dir/t.json" 2> "$dir/err"; then fail "time $t imported"; fi
  contains "not a time a kernel takes" < "$dir/err" || fail "time $t: $(cat "$dir/err")"
done

# 10. A record stored with an unknown tunable and an absurd time, with a valid checksum
# (as ktune writes it), and one without its checksum: recover stores neither.
python3 - "$dir/current.json" "$dir/evil.db" <<'PY'
import json, sqlite3, sys
def fnv(data):
    h = 14695981039346656037
    for c in data:
        h = ((h ^ c) * 1099511628211) % 2**64
    return "%016x" % h
rec = json.load(open(sys.argv[1]))["records"][0]
db = sqlite3.connect(sys.argv[2])
db.execute("CREATE TABLE results (device_key TEXT, family TEXT, variant TEXT, dtype TEXT, shape TEXT, align INTEGER, "
           "template_hash TEXT, median_us REAL, record TEXT)")
def put(r, checksum=True):
    text = json.dumps(r, sort_keys=True, separators=(",", ":"))
    if checksum:
        r = dict(r); r["checksum"] = fnv(text.encode()); text = json.dumps(r, sort_keys=True, separators=(",", ":"))
    db.execute("INSERT INTO results VALUES(?,?,?,?,?,?,?,?,?)", (r["device_key"], r["family"], r["variant"], r["dtype"],
               "x".join(map(str, r["shape"])), r["align"], r["template_hash"], r["median_us"], text))
evil = dict(rec, config={"evil": 1}, shape=[7, 7])
put(evil)
put(dict(rec, median_us=1e-300, shape=[8, 8]))
put(dict(rec, shape=[9, 9]), checksum=False)
put(dict(rec, shape=[10, 10]))
db.commit()
PY
"$ktune" cache recover --database "$dir/r.db" "$dir/evil.db" > "$dir/recover.txt" || fail "recover: $(cat "$dir/recover.txt")"
contains "1 stored" < "$dir/recover.txt" || fail "recover stored what an import rejects: $(cat "$dir/recover.txt")"
contains "lost: .*evil" < "$dir/recover.txt" || fail "recover did not report the unknown tunable"
contains "lost: .*no checksum" < "$dir/recover.txt" || fail "a record without its checksum was taken as intact"
contains "lost: .*not a time" < "$dir/recover.txt" || fail "recover did not report the absurd time"

# 12. A SQLite file that is not a ktune database: refused, and not changed.
python3 -c "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute('CREATE TABLE notes (t TEXT)'); db.execute(\"INSERT INTO notes VALUES ('mine')\"); db.commit()" "$dir/other.db"
before=$(sha256sum "$dir/other.db" | cut -d' ' -f1)
for cmd in "cache list" "cache import $dir/current.json" "cache prune"; do
  if "$ktune" $cmd --database "$dir/other.db" > "$dir/out" 2> "$dir/err"; then fail "$cmd used a foreign SQLite file"; fi
  contains "not a ktune" < "$dir/err" || fail "$cmd: $(cat "$dir/err")"
done
[ "$(sha256sum "$dir/other.db" | cut -d' ' -f1)" = "$before" ] || fail "a foreign SQLite file was changed"
ls "$dir" | grep -q 'other.db.broken' && fail "a foreign SQLite file was set aside"
[ ! -e "$dir/other.db-wal" ] || fail "a foreign SQLite file was switched to WAL"

# 2. Export targets that are the database's own companion files.
"$ktune" cache import --database "$dir/live.db" "$dir/current.json" > /dev/null
for suffix in -wal -shm -journal ""; do
  if "$ktune" cache export --database "$dir/live.db" -o "$dir/live.db$suffix" 2> "$dir/err"; then
    fail "export over live.db$suffix"
  fi
done
[ "$("$ktune" cache list --database "$dir/live.db" | grep -c transpose)" = 100 ] || fail "records lost"
# 8. The results table's root page zeroed: SQLite reaches no row, the 1000 records are
# still on their leaf pages, and salvage reads them there.
records 1000 10 "$hash" "$cfg" > "$dir/thousand.json"
"$ktune" cache import --database "$dir/rooted.db" "$dir/thousand.json" > /dev/null
python3 - "$dir/rooted.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'results'").fetchone()[0]
size = db.execute("PRAGMA page_size").fetchone()[0]; db.close()
with open(sys.argv[1], "r+b") as f:
    f.seek((root - 1) * size); f.write(bytes(size))
PY
"$ktune" cache recover --database "$dir/from-pages.db" "$dir/rooted.db" > "$dir/recover.txt" 2>&1 ||
  fail "recover of a damaged root: $(cat "$dir/recover.txt")"
contains "1000 record(s) read from" < "$dir/recover.txt" || fail "records lost with the root page: $(cat "$dir/recover.txt")"
[ "$("$ktune" cache list --database "$dir/from-pages.db" | grep -c transpose)" = 1000 ] || fail "recovered records not stored"
# Found by the database fuzzer: a damaged b-tree that hands rows back out of order made
# the row-by-row salvage read them again and again (4 min 49 s, then out of memory).
gunzip -c "$(dirname "$0")/../data/fuzz/database-rowids-out-of-order.db.gz" > "$dir/disorder.db"
out=$(timeout 60 "$ktune" cache recover --database "$dir/disorder-r.db" "$dir/disorder.db" 2>&1)
rc=$?
[ $rc = 0 ] || fail "recover of a b-tree out of order: rc=$rc: $(tail -c 300 <<< "$out")"
contains "record(s) read from" <<< "$out" || fail "recover of a b-tree out of order: $(tail -c 300 <<< "$out")"
# A field of the wrong JSON type is named (issue 66, item 7: it was a raw JSON exception).
printf '{"ktune_schema": 3, "records": [{"device_key": "x", "family": "transpose", "variant": "", "dtype": "f32", "shape": [64, 64], "align": 1, "config": {}, "template_hash": "0123456789abcdef", "median_us": "fast"}]}' > "$dir/typed.json"
out=$("$ktune" cache import --database "$dir/typed.db" "$dir/typed.json" 2>&1) && fail "a string median_us imported"
contains "'median_us' must be a number, not \"fast\"" <<< "$out" || fail "a string median_us: $out"
echo "hostile records: all checks passed"
