#!/usr/bin/env bash
# Capture bundles on the command line, without a GPU: `ktune capture list|show|prune`,
# and `ktune tune --capture` refusing truncated, corrupted, foreign and edited bundles
# with the path and the reason while the good ones go on (bundles written by
# make_capture.py, independently of ktune's writer):
#   capture_cli_test.sh PATH_TO_KTUNE SOURCE_DIR
set -uo pipefail
ktune=${1:?usage: capture_cli_test.sh KTUNE SOURCE_DIR}
src=${2:?usage: capture_cli_test.sh KTUNE SOURCE_DIR}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export KTUNE_CACHE_DIR="$dir/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/contains.sh"
make=(python3 "$src/tests/cli/make_capture.py")
caps="$dir/caps"
mkdir -p "$caps" "$dir/builtin"
"${make[@]}" kernel "$src/tests/data/user_kernels/scale.cu" 1000 "$caps/scale.ktcap" || fail "make_capture.py"
cp "$caps/scale.ktcap" "$caps/z-copy.ktcap"
head -c 300 "$caps/scale.ktcap" > "$caps/cut.ktcap"
echo "a text file that happens to end in .ktcap" > "$caps/foreign.ktcap"
python3 - "$caps/scale.ktcap" "$caps/flip.ktcap" <<'PY'
import struct, sys, json
data = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack("<I", data[12:16])[0]
first = json.loads(data[16:16 + n])["buffers"][0]["stored"]
data[16 + n + first // 2] ^= 0x5A
open(sys.argv[2], "wb").write(data)
PY
sed 's/x\[i\] \* T(2)/x[i] * T(3)/' "$src/tests/data/user_kernels/scale.cu" > "$dir/edited.cu"
"${make[@]}" kernel "$dir/edited.cu" 1000 "$caps/edited.ktcap"
# the edited source under the original's key: what a hand-edited bundle looks like
python3 -c "
import json,struct,sys
p='$caps/edited.ktcap'; d=open(p,'rb').read(); n=struct.unpack('<I',d[12:16])[0]; h=json.loads(d[16:16+n])
src=open('$src/tests/data/user_kernels/scale.cu').read()
h0=14695981039346656037
for c in src.encode(): h0=((h0^c)*1099511628211)&0xFFFFFFFFFFFFFFFF
h['variant']='%016x'%h0; t=json.dumps(h).encode()
open(p,'wb').write(d[:12]+struct.pack('<I',len(t))+t+d[16+n:])"
touch "$caps/scale.ktcap.tmp-999999999"  # left by a capture killed mid-write
"${make[@]}" problem '{"family":"transpose","variant":"","dtype":"f32","shape":[1000,1537]}' "$dir/builtin/transpose.ktcap"
"${make[@]}" problem '{"family":"nope","variant":"","dtype":"f32","shape":[10]}' "$dir/builtin/nope.ktcap"

# list: one line each, the unusable ones with their reason
out=$("$ktune" capture list "$caps" 2>&1) || fail "capture list: $out"
echo "$out"
echo "$out" | contains "^scale.ktcap .*kernel .*scale_test f32 n=1000, captured on Some Other GPU at 2026-11-23T09:00:00Z" || fail "list: scale"
echo "$out" | contains "^cut.ktcap .*UNUSABLE: .*cut.ktcap: truncated" || fail "list: truncated"
echo "$out" | contains "^foreign.ktcap .*UNUSABLE: .*not a ktune capture bundle" || fail "list: foreign"
echo "$out" | contains "^6 bundle(s) in $caps, 2 unusable" || fail "list: totals"

# show reads every buffer and checks its hash
out=$("$ktune" capture show "$caps/scale.ktcap" 2>&1) || fail "capture show: $out"
echo "$out" | contains "data: 2 buffer(s), 0.0 MB, every hash checked" || fail "show: $out"
echo "$out" | contains '"source": "(.* characters; --source prints it)"' || fail "show hides the source"
"$ktune" capture show --source "$caps/scale.ktcap" | contains "__global__ void scale" || fail "show --source"
out=$("$ktune" capture show "$caps/flip.ktcap" 2>&1) && fail "show accepted a corrupted bundle"
echo "$out" | contains "flip.ktcap: corrupted: buffer x (input)" || fail "show flip: $out"

# tune refuses a bad bundle with the path and the reason
out=$("$ktune" tune --capture "$caps/cut.ktcap" 2>&1) && fail "tune accepted a truncated bundle"
echo "$out" | contains "cut.ktcap: truncated" || fail "tune cut: $out"
out=$("$ktune" tune --capture "$caps/edited.ktcap" 2>&1) && fail "tune accepted an edited bundle"
echo "$out" | contains "edited.ktcap: corrupted: its source or problem does not match its recorded key" || fail "edited: $out"
out=$("$ktune" tune --capture "$dir/builtin/nope.ktcap" 2>&1) && fail "tune accepted an unknown family"
echo "$out" | contains "nope.ktcap: unknown kernel family 'nope'" || fail "nope: $out"
out=$("$ktune" tune --capture "$caps/scale.ktcap" --shape 3x3 2>&1) && fail "a capture and options"
echo "$out" | contains "is the whole problem" || fail "capture and options: $out"
# a good built-in bundle, captured on another GPU: tuned here (or, without a GPU, the advice)
out=$("$ktune" tune --capture "$dir/builtin/transpose.ktcap" --strategy random --budget-evals 20 2>&1)
rc=$?
if echo "$out" | contains "cannot tune here"; then
  [ $rc = 2 ] || fail "no GPU: exit 2 (rc=$rc)"
else
  [ $rc = 0 ] || fail "tuning a captured transpose: $out"
  "$ktune" cache list | contains "transpose .*f32 .*1000x1537" || fail "the captured transpose stored"
fi

# a folder: the bad bundles reported and skipped, the good ones go on (--dry-run compiles)
out=$("$ktune" tune --capture "$caps" --dry-run 2>&1)
rc=$?
echo "$out"
[ $rc = 1 ] || fail "a folder with bad bundles exits 1 (rc=$rc)"
[ "$(echo "$out" | grep -c "skipped: ")" = 3 ] || fail "three bundles skipped"
echo "$out" | contains "foreign.ktcap: skipped: .*not a ktune capture bundle" || fail "foreign skipped"
[ "$(echo "$out" | grep -c "dry run (no GPU): 9 configs for scale_test [0-9a-f]* f32 1000, 9 compiled")" = 3 ] ||
  fail "scale, flip (its data are checked when it is tuned) and the copy compiled"
# a workload line naming a bad bundle: reported with the rest going on
printf -- '--capture caps/cut.ktcap\n--capture caps/scale.ktcap\n' > "$dir/work.txt"
out=$("$ktune" tune --workload "$dir/work.txt" --dry-run 2>&1)
echo "$out" | contains "cut.ktcap: skipped: .*truncated" || fail "workload: bad bundle reported: $out"
echo "$out" | contains "9 compiled" || fail "workload: the good bundle goes on: $out"

# prune: the unusable, the copy and the killed capture's file go; nothing else
out=$("$ktune" capture prune "$caps" --dry-run 2>&1) || fail "prune --dry-run: $out"
echo "$out"
[ "$(ls "$caps" | wc -l)" = 7 ] || fail "--dry-run removed something"
echo "$out" | contains "^5 file(s) would be removed" || fail "prune --dry-run totals"
echo "$out" | contains "would remove z-copy.ktcap: a copy of scale.ktcap" || fail "the copy"
"$ktune" capture prune "$caps" > /dev/null || fail "prune"
[ "$(ls "$caps" | tr '\n' ' ')" = "edited.ktcap scale.ktcap " ] || fail "after prune: $(ls "$caps")"
# prune --tuned: a bundle whose problem has a record (here imported, as if tuned on
# another machine) goes too.
variant=$(python3 -c "
import json,struct
d=open('$caps/scale.ktcap','rb').read(); n=struct.unpack('<I',d[12:16])[0]; print(json.loads(d[16:16+n])['variant'])")
cat > "$dir/export.json" <<JSON
{"ktune_schema": 3, "records": [{"device_key": "Some Other GPU|sm_80|108sm|40536MiB|40MiB", "device_name": "Some Other GPU",
 "device_uuid": "", "family": "scale_test", "variant": "$variant", "dtype": "f32", "shape": [1000], "align": 4,
 "config": {"threads": 64, "bug": 0}, "template_hash": "$variant", "median_us": 2.5, "spread_pct": 0.5, "rate": 3.2,
 "rate_unit": "GB/s", "ceiling_fraction": 0.5, "tool_version": "ktune 0.1.0", "nvrtc_version": "13.0",
 "driver_version": "580", "tuned_at": "2026-11-23T09:00:00Z"}]}
JSON
"$ktune" cache import "$dir/export.json" > /dev/null || fail "import the record"
out=$("$ktune" capture prune "$caps" --tuned 2>&1) || fail "prune --tuned: $out"
echo "$out" | contains "removed scale.ktcap: tuned (stored for Some Other GPU)" || fail "prune --tuned: $out"
# (edited.ktcap carries the same key: it goes too)
[ -z "$(ls "$caps")" ] || fail "after prune --tuned: $(ls "$caps")"
echo "capture_cli_test: ok"
