#!/usr/bin/env bash
# `ktune cache` end to end on a temporary database (no GPU needed):
#   cache_cli_test.sh PATH_TO_KTUNE
set -euo pipefail
ktune=${1:?usage: cache_cli_test.sh KTUNE}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export KTUNE_CACHE_DIR="$dir/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }
hash=$("$ktune" space transpose --shape 64x64 | tail -1 | sed 's/.*"template_hash": "\([0-9a-f]*\)".*/\1/')
[ ${#hash} = 16 ] || fail "no template hash from ktune space"
dev="NVIDIA H200|sm_90|132sm|143771MiB|60MiB"
record() {  # shape align median hash config
  cat <<JSON
{"device_key": "$dev", "family": "transpose", "dtype": "f32", "shape": [$1], "align": $2, "median_us": $3,
 "template_hash": "$4", "config": $5}
JSON
}
vec4='{"tile_m": 64, "tile_n": 64, "block_x": 16, "block_y": 16, "vec": 4, "layout": "xor", "realign": 0}'
vec1='{"tile_m": 32, "tile_n": 64, "block_x": 32, "block_y": 8, "vec": 1, "layout": "shift", "realign": 0}'
cat > "$dir/a.json" <<JSON
{"ktune_schema": 1, "records": [
$(record "8192, 2048" 4 40.0 "$hash" "$vec4"),
$(record "1024, 1024" 1 9.0 "$hash" "$vec1"),
$(record "4096, 4096" 4 99.0 "0000000000000000" "$vec4")
]}
JSON
"$ktune" cache import "$dir/a.json" | grep -q "3 of 3 record(s) stored" || fail "import"
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
"$ktune" cache merge "$dir/c.db" | grep -q "1 of 2 record(s)" || fail "merge count"
"$ktune" cache show --shape 8192x2048 | grep -q '"median_us": 30.0' || fail "merge did not keep the faster 8192x2048"
"$ktune" cache show --shape 1024x1024 | grep -q '"median_us": 9.0' || fail "merge replaced a faster record"

# Explain walks the fallback chain (no GPU: --device-key).
"$ktune" cache explain --device-key "$dev" --shape 8192x2048 | grep -q "exact: tuned 8192x2048" || fail "explain exact"
"$ktune" cache explain --device-key "$dev" --shape 8000x2000 | grep -q "nearest: tuned 8192x2048" || fail "explain nearest"
"$ktune" cache explain --device-key "$dev" --shape 8191x2048 | grep -q "nearest: tuned 1024x1024 align 1" \
  || fail "explain must skip the vec-4 record for an unaligned call"
"$ktune" cache explain --device-key "$dev" --shape 4096x4096 | grep -q "1 record(s) tuned on another template" \
  || fail "explain stale"
"$ktune" cache explain --device-key "other|sm_80|1sm|1MiB|1MiB" --shape 64x64 | grep -q "fallback" || fail "explain fallback"
"$ktune" cache explain --device-key "NVIDIA H100 80GB HBM3|sm_90|132sm|81559MiB|50MiB" --shape 8192x2048 \
  | grep -q "same_arch: tuned 8192x2048" || fail "explain same_arch: another sm_90 model's record"

# Prune removes only the stale record.
"$ktune" cache prune | grep -q "pruned 1 stale" || fail "prune"
[ "$("$ktune" cache list | grep -c transpose)" = 2 ] || fail "list after prune"

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
grep -q "unknown dtype 'f99'" "$dir/err" || fail "unknown dtype message"
if "$ktune" space gemmm 2> "$dir/err"; then fail "unknown family accepted"; fi
grep -q "unknown kernel family 'gemmm'" "$dir/err" || fail "unknown family message"
if "$ktune" space transpose --shape 0x5 2> "$dir/err"; then fail "zero shape accepted"; fi
grep -q "bad --shape" "$dir/err" || fail "zero shape message"
if "$ktune" space gemm --shape 64x64x64 --layout nx 2> "$dir/err"; then fail "unknown gemm layout accepted"; fi
grep -q "unknown --layout 'nx'" "$dir/err" || fail "gemm layout message"
if "$ktune" space gemm --shape 64x64 2> "$dir/err"; then fail "two-dimensional gemm shape accepted"; fi
grep -q "expected MxNxK" "$dir/err" || fail "gemm shape message"
if "$ktune" space gemm --shape 64x64x64 --dtype i32 2> "$dir/err"; then fail "i32 gemm accepted"; fi
grep -q "dtype not supported" "$dir/err" || fail "gemm dtype message"
# A transposed bf16 problem has a space of its own (16-byte loads are 8 elements).
"$ktune" space gemm --shape 64x64x64 --layout tn --dtype bf16 > "$dir/space.txt"
grep -q '"vec":8' "$dir/space.txt" || fail "bf16 gemm space without 16-byte loads"
echo "cache CLI: all checks passed"
