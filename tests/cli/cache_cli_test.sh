#!/usr/bin/env bash
# `ktune cache` end to end on a temporary database (no GPU needed):
#   cache_cli_test.sh PATH_TO_KTUNE
set -euo pipefail
ktune=${1:?usage: cache_cli_test.sh KTUNE}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export KTUNE_CACHE_DIR="$dir/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/contains.sh"
# Before anything is tuned there is no database: the read-only commands say so, exit 0,
# and create nothing.
"$ktune" cache list | contains "^0 record(s): no tuning database at $KTUNE_CACHE_DIR/tuning.db yet" || fail "list, no database"
[ -z "$("$ktune" cache show 2> "$dir/err")" ] && grep -q "no tuning database .* yet: nothing to show" "$dir/err" ||
  fail "show, no database"
out=$("$ktune" cache explain transpose --dtype u8 --shape 300x200 --ld 201,301 --device-key "x|sm_90|y" | tr '\n' ' ')
echo "$out" | contains "(alignment class 1): *model: no tuning database at .* yet, nothing shipped that fits; the model's first-ranked config tile_m=" ||
  fail "explain, no database: $out"
[ ! -e "$KTUNE_CACHE_DIR" ] || fail "a read-only command created $KTUNE_CACHE_DIR"
hash=$("$ktune" space transpose --shape 64x64 | tail -1 | sed 's/.*"template_hash": "\([0-9a-f]*\)".*/\1/')
[ ${#hash} = 16 ] || fail "no template hash from ktune space"
dev="NVIDIA H200|sm_90|132sm|143771MiB|60MiB"
record() {  # shape align median hash config
  cat <<JSON
{"device_key": "$dev", "family": "transpose", "dtype": "f32", "shape": [$1], "align": $2, "median_us": $3,
 "template_hash": "$4", "config": $5}
JSON
}
vec4='{"tile_m": 64, "tile_n": 64, "block_x": 16, "block_y": 16, "vec": 4, "layout": "xor", "realign": 0, "copy": 0, "wide": 0, "order": "src", "words": 0}'
# A record of an older template, stored before `order` was added: imported as it is.
vec4_old='{"tile_m": 64, "tile_n": 64, "block_x": 16, "block_y": 16, "vec": 4, "layout": "xor", "realign": 0, "copy": 0, "wide": 0}'
vec1='{"tile_m": 32, "tile_n": 64, "block_x": 32, "block_y": 8, "vec": 1, "layout": "shift", "realign": 0, "copy": 0, "wide": 0, "order": "src", "words": 0}'
cat > "$dir/a.json" <<JSON
{"ktune_schema": 1, "records": [
$(record "8192, 2048" 4 40.0 "$hash" "$vec4"),
$(record "1024, 1024" 1 9.0 "$hash" "$vec1"),
$(record "4096, 4096" 4 99.0 "0000000000000000" "$vec4_old")
]}
JSON
"$ktune" cache import "$dir/a.json" | contains "3 of 3 record(s) stored" || fail "import"
[ "$("$ktune" cache list | grep -c transpose)" = 3 ] || fail "list after import"

# Round trip: export, import elsewhere, export again: identical.
"$ktune" cache export -o "$dir/out1.json"
"$ktune" cache import --database "$dir/b.db" "$dir/out1.json" > /dev/null
"$ktune" cache export --database "$dir/b.db" -o "$dir/out2.json"
cmp -s "$dir/out1.json" "$dir/out2.json" || fail "export/import round trip differs"

# Merge keeps the faster record per key.
cat > "$dir/c.json" <<JSON
{"ktune_schema": 1, "records": [$(record "8192, 2048" 4 30.0 "$hash" "$vec4"), $(record "1024, 1024" 1 50.0 "$hash" "$vec1")]}
JSON
"$ktune" cache import --database "$dir/c.db" "$dir/c.json" > /dev/null
"$ktune" cache merge "$dir/c.db" | contains "2 record(s): 0 added, 1 replaced .*, 1 kept the stored faster record, 0 refused" ||
  fail "merge count"
"$ktune" cache show --shape 8192x2048 | contains '"median_us": 30.0' || fail "merge did not keep the faster 8192x2048"
"$ktune" cache show --shape 1024x1024 | contains '"median_us": 9.0' || fail "merge replaced a faster record"

# Explain walks the fallback chain (no GPU: --device-key).
"$ktune" cache explain transpose --device-key "$dev" --shape 8192x2048 | contains "exact: tuned 8192x2048" || fail "explain exact"
"$ktune" cache explain transpose --device-key "$dev" --shape 8000x2000 | contains "nearest: tuned 8192x2048" || fail "explain nearest"
"$ktune" cache explain transpose --device-key "$dev" --shape 8191x2048 | contains "model: " \
  || fail "explain must skip the vec-4 record for an unaligned call, and 1024x1024 is too far to fit"
"$ktune" cache explain transpose --device-key "$dev" --shape 4096x4096 | contains "1 record(s) tuned on another template" \
  || fail "explain stale"
"$ktune" cache explain transpose --device-key "other|sm_80|1sm|1MiB|1MiB" --shape 64x64 | contains "model: " || fail "explain model"
# A record tuned on sm_90 is never served to another architecture, at its very shape too.
"$ktune" cache explain transpose --device-key "NVIDIA L40S|sm_89|142sm|45589MiB|96MiB" --shape 8192x2048 \
  | contains "model: " || fail "explain: an sm_89 device must not get the sm_90 record"
# ... and its untuned pick is ranked with that architecture's limits: no wgmma/TMA on sm_80.
"$ktune" cache explain gemm_mma --device-key "NVIDIA A100-SXM4-80GB|sm_80|108sm|81920MiB|40MiB" --shape 4096x4096x4096 \
  | contains "engine=mma" || fail "explain: sm_80's model pick must use the mma.sync engine"
"$ktune" cache explain transpose --device-key "NVIDIA H100 80GB HBM3|sm_90|132sm|81559MiB|50MiB" --shape 8192x2048 \
  | contains "same_arch: tuned 8192x2048" || fail "explain same_arch: another sm_90 model's record"

# Every family explains and prunes by its own keys (issue 15's defects: explain only knew
# transpose; prune kept stale "reduce:sum" records).
ghash=$("$ktune" space gemm --shape 64x64x64 | tail -1 | sed 's/.*"template_hash": "\([0-9a-f]*\)".*/\1/')
gcfg=$("$ktune" space gemm --shape 64x64x64 --layout nt | sed -n 1p)
rcfg=$("$ktune" space reduce --n 4096 | sed -n 1p)
cat > "$dir/families.json" <<JSON
{"ktune_schema": 3, "records": [
{"device_key": "$dev", "family": "gemm", "variant": "nt", "dtype": "f32", "shape": [64, 64, 64], "align": 4,
 "median_us": 5.0, "template_hash": "$ghash", "config": $gcfg},
{"device_key": "$dev", "family": "reduce", "variant": "sum", "dtype": "f32", "shape": [4096], "align": 4,
 "median_us": 3.0, "template_hash": "0000000000000000", "config": $rcfg}]}
JSON
"$ktune" cache import --database "$dir/fam.db" "$dir/families.json" | contains "2 of 2" || fail "import gemm and reduce"
"$ktune" cache explain gemm --database "$dir/fam.db" --device-key "$dev" --shape 64x64x64 --layout nt \
  | contains "exact: tuned 64x64x64" || fail "explain gemm nt"
"$ktune" cache explain gemm --database "$dir/fam.db" --device-key "$dev" --shape 60x64x64 --layout nt \
  | contains "nearest: tuned 64x64x64" || fail "explain gemm nearest"
"$ktune" cache explain gemm --database "$dir/fam.db" --device-key "$dev" --shape 64x64x64 --layout nn \
  | contains "model: " || fail "explain gemm: another layout's record must not answer"
"$ktune" cache explain reduce --database "$dir/fam.db" --device-key "$dev" --n 4096 \
  | contains "1 record(s) tuned on another template" || fail "explain reduce stale"
"$ktune" cache list --database "$dir/fam.db" | contains "gemm  *nt  *f32" || fail "list shows family and variant"
"$ktune" cache prune --database "$dir/fam.db" | contains "pruned 1 stale" || fail "prune a stale reduce record"
[ "$("$ktune" cache list --database "$dir/fam.db" | grep -c 'reduce')" = 0 ] || fail "stale reduce record kept"
"$ktune" cache show --database "$dir/fam.db" --family gemm --variant nt | contains '"variant": "nt"' || fail "show --variant"

# Prune removes only the stale record.
"$ktune" cache prune | contains "pruned 1 stale" || fail "prune"
[ "$("$ktune" cache list | grep -c transpose)" = 2 ] || fail "list after prune"

# A record stored under an earlier text of the same code (transpose.cuh's
# `// @compatible`) is current: used, and kept by prune.
cat > "$dir/compat.json" <<JSON
{"ktune_schema": 1, "records": [$(record "2048, 2048" 4 20.0 "2dbf0a8301ed02be" "$vec4")]}
JSON
"$ktune" cache import --database "$dir/compat.db" "$dir/compat.json" > /dev/null
"$ktune" cache prune --database "$dir/compat.db" | contains "pruned 0" || fail "prune removed a compatible record"
"$ktune" cache explain transpose --database "$dir/compat.db" --shape 2048x2048 --device-key "$dev" |
  contains "exact" || fail "a record of a compatible template text was not used"

# Bad input: clear errors, nothing lost.
echo '{"ktune_schema": 1, "records": [{"family": "transpose"}]}' > "$dir/bad.json"
if "$ktune" cache import "$dir/bad.json" 2> "$dir/err"; then fail "malformed import accepted"; fi
grep -q "malformed tuning record" "$dir/err" || fail "malformed import message"
echo 'not json' > "$dir/bad2.json"
if "$ktune" cache import "$dir/bad2.json" 2> /dev/null; then fail "non-JSON import accepted"; fi
echo '{"ktune_schema": 7, "records": []}' > "$dir/bad3.json"
if "$ktune" cache import "$dir/bad3.json" 2> "$dir/err"; then fail "other schema accepted"; fi
grep -q "schema 7" "$dir/err" || fail "schema message"
[ "$("$ktune" cache list | grep -c transpose)" = 2 ] || fail "bad imports changed the database"
if "$ktune" tune transpose --dtype f99 2> "$dir/err"; then fail "unknown dtype accepted"; fi
grep -q "unknown --dtype 'f99'" "$dir/err" || fail "unknown dtype message"
if "$ktune" space gemmm 2> "$dir/err"; then fail "unknown family accepted"; fi
grep -q "unknown kernel family 'gemmm'" "$dir/err" || fail "unknown family message"
if "$ktune" space transpose --shape 0x5 2> "$dir/err"; then fail "zero shape accepted"; fi
grep -q "bad --shape" "$dir/err" || fail "zero shape message"
if "$ktune" space gemm --shape 64x64x64 --layout nx 2> "$dir/err"; then fail "unknown gemm layout accepted"; fi
grep -q "unknown --layout 'nx'" "$dir/err" || fail "gemm layout message"
if "$ktune" space gemm --shape 64x64 2> "$dir/err"; then fail "two-dimensional gemm shape accepted"; fi
grep -q "expected 3 positive integers like 4096x4096x4096" "$dir/err" || fail "gemm shape message"
if "$ktune" space gemm --shape 64x64x64 --dtype i32 2> "$dir/err"; then fail "i32 gemm accepted"; fi
grep -q "dtype not supported" "$dir/err" || fail "gemm dtype message"
# Issue 14, case 9: numbers are range-checked, options a family does not use are errors.
expect_refused() {  # message, args...
  local msg=$1; shift
  if "$ktune" "$@" > /dev/null 2> "$dir/err"; then fail "accepted: $*"; fi
  grep -q -- "$msg" "$dir/err" || fail "$*: expected '$msg', got: $(head -c 300 "$dir/err")"
}
expect_refused "below 2^31" space transpose --shape 2147483648x2
expect_refused "below 2^31" tune transpose --shape 2147483648x2 --dry-run
expect_refused "^ktune: error: --n : expected an integer from 1 to" space elementwise --expr add --n ''
expect_refused "^ktune: error: --n 99999999999999999999: expected an integer" space elementwise --expr add --n 99999999999999999999
expect_refused "^ktune: error: --n 0: expected an integer from 1 to" space reduce --n 0
expect_refused "given 2 times" space transpose --shape 8x8 --shape 16x16
expect_refused "name a kernel family" space --dtype f32
expect_refused "is a family's option" space --kernel "$dir/none.cu" --dtype f32
expect_refused "^--budget-evals: Value -1 not in range" tune transpose --budget-evals -1 --dry-run
expect_refused "finite number of seconds" tune transpose --budget-seconds nan --dry-run
expect_refused "^--config-timeout: must be a finite number of seconds" tune transpose --config-timeout -1 --dry-run
expect_refused "the output type is the inputs', or f32 for f16 and bf16 inputs" space gemm --dtype f32 --out-dtype f16
expect_refused "not with math simt" tune gemm --dtype bf16 --out-dtype f32 --math simt --dry-run
expect_refused "^--device: Value -1 not in range" tune transpose --device -1
expect_refused "--expr does not apply to transpose" space transpose --expr add
expect_refused "--op does not apply to transpose" space transpose --op max
expect_refused "--scalar does not apply to transpose" space transpose --scalar k=1
expect_refused "--layout does not apply to reduce" space reduce --layout nt
expect_refused "^--align: 3 not in" space transpose --align 3
expect_refused "given twice" space elementwise --expr 'out = k * a' --scalar k=1 --scalar k=2
expect_refused "bad --shape 'abc'" cache show --shape abc
# A transposed bf16 problem has a space of its own (16-byte loads are 8 elements).
"$ktune" space gemm --shape 64x64x64 --layout tn --dtype bf16 > "$dir/space.txt"
grep -q '"vec":8' "$dir/space.txt" || fail "bf16 gemm space without 16-byte loads"

# Issue 14, case 5: imports validate against the kernel's description; bombs are refused.
# A family this build does not know is a user's kernel: its records merge between
# machines (checked as records only), and prune keeps them.
sed "s/\"transpose\"/\"foo\"/" "$dir/c.json" > "$dir/foo.json"
"$ktune" cache import --database "$dir/foo.db" "$dir/foo.json" | contains "2 of 2" || fail "a user kernel's records not imported"
"$ktune" cache prune --database "$dir/foo.db" | contains "pruned 0" || fail "prune removed a user kernel's records"
sed 's/"shape": \[8192, 2048\]/"shape": [8192, 2048, 7]/' "$dir/c.json" > "$dir/arity.json"
if "$ktune" cache import "$dir/arity.json" 2> "$dir/err"; then fail "a 3-d transpose record imported"; fi
grep -q "ROWSxCOLS shape" "$dir/err" || fail "shape arity message: $(cat "$dir/err")"
sed 's/"vec": 4/"vec": 3/' "$dir/c.json" > "$dir/vec3.json"
if "$ktune" cache import "$dir/vec3.json" 2> "$dir/err"; then fail "undeclared tunable value imported"; fi
grep -q "not a declared value of 'vec'" "$dir/err" || fail "config check message"
python3 -c "print('{\"ktune_schema\": 2, \"records\": [' + '[' * 100000 + ']' * 100000 + ']}')" > "$dir/deep.json"
if "$ktune" cache import "$dir/deep.json" 2> "$dir/err"; then fail "nesting bomb imported"; fi
grep -q "nests deeper than" "$dir/err" || fail "nesting bomb message: $(head -c 300 "$dir/err")"
[ "$("$ktune" cache list | grep -c transpose)" = 2 ] || fail "rejected imports changed the database"

# Case 7: output files. Devices and pipes are written, not replaced; errors are errors;
# a database is never overwritten by an export; a symlink stays a link.
"$ktune" cache export -o /dev/null || fail "export -o /dev/null"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
if [ -e /dev/full ]; then
  if "$ktune" cache export -o /dev/full 2> "$dir/err"; then fail "export to /dev/full reported success"; fi
  grep -q "No space left" "$dir/err" || fail "/dev/full message"
fi
mkfifo "$dir/fifo"
cat "$dir/fifo" > "$dir/from-fifo" &
"$ktune" cache export -o "$dir/fifo"
wait
cmp -s "$dir/from-fifo" "$dir/out1.json" || [ "$(grep -c device_key "$dir/from-fifo")" = 2 ] || fail "export through a FIFO"
[ -p "$dir/fifo" ] || fail "the FIFO was replaced"
mkdir "$dir/outdir"
if "$ktune" cache export -o "$dir/outdir" 2> "$dir/err"; then fail "export over a directory"; fi
grep -q "is a directory" "$dir/err" || fail "directory message"
[ -z "$(ls -A "$dir" | grep -E '\.tmp')" ] || fail "a temporary file was left behind"
before=$(sha256sum "$KTUNE_CACHE_DIR/tuning.db")
if "$ktune" cache export -o "$KTUNE_CACHE_DIR/tuning.db" 2> "$dir/err"; then fail "export over the database"; fi
grep -q "it is a database" "$dir/err" || fail "database-target message"
[ "$(sha256sum "$KTUNE_CACHE_DIR/tuning.db")" = "$before" ] || fail "the database was changed by a refused export"
ln -s "$dir/linked.json" "$dir/link.json"
"$ktune" cache export -o "$dir/link.json"
[ -L "$dir/link.json" ] && [ -s "$dir/linked.json" ] || fail "export through a symlink replaced the link"
chmod 600 "$dir/linked.json"
"$ktune" cache export -o "$dir/link.json"
[ "$(stat -c %a "$dir/linked.json")" = 600 ] || fail "export changed the mode of the file it replaced"

# Case 4: a database to ship: one file, not WAL, read-only; refuses to overwrite.
"$ktune" cache export --for-shipping -o "$dir/ship.db" | contains "2 record(s) written" || fail "export --for-shipping"
[ ! -e "$dir/ship.db-wal" ] && [ "$(stat -c %a "$dir/ship.db")" = 444 ] || fail "shipping copy not self-contained and read-only"
[ "$(head -c 20 "$dir/ship.db" | tail -c 2 | od -An -tu1 | tr -d ' ')" = 11 ] || fail "shipping copy still in WAL mode"
[ "$("$ktune" cache list --database "$dir/ship.db" | grep -c transpose)" = 2 ] || fail "shipping copy unreadable"
if "$ktune" cache export --for-shipping -o "$dir/ship.db" 2> "$dir/err"; then fail "shipping copy overwritten"; fi

# Case 3: recover copies the readable records of a damaged file and reports the loss.
python3 - "$dir/out1.json" "$dir/big.json" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))["records"][0]
records = []
for i in range(1, 501):
    r = dict(rec); r["shape"] = [i, 2048]; records.append(r)
json.dump({"ktune_schema": 3, "records": records}, open(sys.argv[2], "w"))
PY
"$ktune" cache import --database "$dir/big.db" "$dir/big.json" > /dev/null || fail "import 500"
python3 - "$dir/big.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute("PRAGMA wal_checkpoint(TRUNCATE)"); db.close()
data = bytearray(open(sys.argv[1], "rb").read())
page = len(data) // 4096 // 2
data[page * 4096:(page + 1) * 4096] = bytes(4096)
open(sys.argv[1], "wb").write(data)
PY
"$ktune" cache recover --database "$dir/recovered.db" "$dir/big.db" > "$dir/recover.txt" || fail "recover"
kept=$("$ktune" cache list --database "$dir/recovered.db" | grep -c transpose)
[ "$kept" -ge 450 ] && [ "$kept" -lt 502 ] || fail "recover kept $kept records"
grep -q "read from $dir/big.db" "$dir/recover.txt" || fail "recover report"
# Shipped winners: `cache ship` writes a database as a table; KTUNE_SHIPPED_WINNERS reads it
# instead of the built-in ones (explain: level shipped, a near problem too); a damaged
# table is skipped with a warning naming it, and the model serves; `off` lists none.
"$ktune" cache ship --database "$dir/fam.db" -o "$dir/ship.tsv" | contains "1 record(s) written" || fail "cache ship"
head -1 "$dir/ship.tsv" | contains "^# ktune shipped winners, format 1$" || fail "shipped table header"
KTUNE_SHIPPED_WINNERS="$dir/ship.tsv" "$ktune" cache list --shipped | contains "^1 shipped record(s): $dir/ship.tsv" ||
  fail "list --shipped from KTUNE_SHIPPED_WINNERS"
KTUNE_SHIPPED_WINNERS="$dir/ship.tsv" "$ktune" cache explain gemm --database "$dir/none.db" --device-key "$dev" \
  --shape 60x64x64 --layout nt | contains "shipped: tuned 64x64x64" || fail "explain shipped"
KTUNE_SHIPPED_WINNERS=off "$ktune" cache list --shipped | contains "^0 shipped record(s): none" || fail "shipped off"
head -c 200 "$dir/ship.tsv" > "$dir/cut.tsv"
KTUNE_SHIPPED_WINNERS="$dir/cut.tsv" "$ktune" cache explain gemm --database "$dir/none.db" --device-key "$dev" \
  --shape 60x64x64 --layout nt > "$dir/cut.txt" 2>&1 || fail "explain with a damaged table"
grep -q "cut.tsv:4: skipped: the last line has no newline" "$dir/cut.txt" && grep -q "model: " "$dir/cut.txt" ||
  fail "a damaged shipped table: $(cat "$dir/cut.txt")"
KTUNE_SHIPPED_WINNERS="$dir" "$ktune" cache list --shipped 2>&1 | contains "not a regular file" || fail "a folder as table"
[ ! -e "$dir/none.db" ] || fail "explain created a database"
out=$("$ktune" cache ship --database "$dir/fam.db" 2>&1 || true)
echo "$out" | contains -e "--output is required" || fail "ship without -o: $out"
out=$("$ktune" warm --workload "$dir/no-such-workload.txt" 2>&1 || true)
echo "$out" | contains "ktune: error: " || fail "warm without a GPU or a workload: $out"
echo "cache CLI: all checks passed"
