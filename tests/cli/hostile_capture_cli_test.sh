#!/usr/bin/env bash
# Issue 51: capture bundles under hostile input, without a GPU (bundles written by
# make_capture.py and edited here):
#   hostile_capture_cli_test.sh PATH_TO_KTUNE SOURCE_DIR
# 3. prune tells copies by their content, not by a header's word; 7. sizes a bundle
# declares are checked against the file before anything is allocated; 9. one malformed
# bundle is reported and the others listed and pruned; 5. a header nested 300k deep is
# unusable, not a crash; 4. a bundle whose kernel description would crash or hang the
# expression evaluator is skipped and the folder goes on.
set -uo pipefail
ktune=${1:?usage: hostile_capture_cli_test.sh KTUNE SOURCE_DIR}
src=${2:?usage: hostile_capture_cli_test.sh KTUNE SOURCE_DIR}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export KTUNE_CACHE_DIR="$dir/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/contains.sh"
make=(python3 "$src/tests/cli/make_capture.py")
caps="$dir/caps"
mkdir -p "$caps"
"${make[@]}" kernel "$src/tests/data/user_kernels/scale.cu" 1000 "$caps/aa_other.ktcap" || fail "make_capture.py"
"${make[@]}" kernel "$src/tests/data/user_kernels/scale.cu" 999 "$caps/zz_mine.ktcap"
edit() {  # bundle, python statements on the header h (and the file's data d)
  python3 - "$@" <<'PY'
import json, struct, sys
p, code = sys.argv[1], sys.argv[2]
d = open(p, "rb").read(); n = struct.unpack("<I", d[12:16])[0]; h = json.loads(d[16:16 + n]); body = d[16 + n:]
exec(code)
t = h if isinstance(h, bytes) else json.dumps(h).encode()
open(p, "wb").write(d[:12] + struct.pack("<I", len(t)) + t + body)
PY
}
# 3. zz_mine's header claims aa_other's content hash; its data differ.
other=$(python3 -c "import json,struct,sys; d=open(sys.argv[1],'rb').read(); n=struct.unpack('<I',d[12:16])[0]; print(json.loads(d[16:16+n])['content_hash'])" "$caps/aa_other.ktcap")
edit "$caps/zz_mine.ktcap" "h['content_hash'] = '$other'"
out=$("$ktune" capture prune "$caps" 2>&1) || fail "prune: $out"
[ -e "$caps/zz_mine.ktcap" ] || fail "a healthy bundle removed on another's word: $out"
contains "^0 file(s) removed" <<< "$out" || fail "prune: $out"
cp "$caps/aa_other.ktcap" "$caps/bb_copy.ktcap"  # a true copy still goes
"$ktune" capture prune "$caps" | contains "removed bb_copy.ktcap: a copy of aa_other.ktcap" || fail "a true copy kept"

# 7. Sizes from the header, checked before anything is allocated (1 GB of address space).
for bytes in 8589934592 1099511627776 9223372036854775808 -1; do
  cp "$caps/aa_other.ktcap" "$dir/big.ktcap"
  edit "$dir/big.ktcap" "h['buffers'][0]['bytes'] = $bytes"
  out=$(ulimit -v 1000000; "$ktune" capture show "$dir/big.ktcap" 2>&1)
  rc=$?
  [ $rc = 1 ] || fail "declared $bytes bytes: rc=$rc: $out"
  contains "big.ktcap: corrupted" <<< "$out" || fail "declared $bytes bytes: $out"
done
cp "$caps/aa_other.ktcap" "$dir/huge-stored.ktcap"
edit "$dir/huge-stored.ktcap" "h['buffers'][0]['stored'] = 2**63; h['buffers'][1]['stored'] = 2**63"
out=$(ulimit -v 1000000; "$ktune" capture show "$dir/huge-stored.ktcap" 2>&1)
[ $? = 1 ] && contains "truncated" <<< "$out" || fail "stored sizes that wrap: $out"

# 9. and 5. Malformed fields and a deep header: each reported, the rest listed and pruned.
cp "$caps/aa_other.ktcap" "$caps/cc_family.ktcap"; edit "$caps/cc_family.ktcap" "h['family'] = 5"
cp "$caps/aa_other.ktcap" "$caps/dd_shape.ktcap"; edit "$caps/dd_shape.ktcap" "h['shape'] = 'wide'"
cp "$caps/aa_other.ktcap" "$caps/ee_deep.ktcap"; edit "$caps/ee_deep.ktcap" "h = b'[' * 300000 + b']' * 300000"
cp "$caps/aa_other.ktcap" "$caps/ff_version.ktcap"
python3 -c "import sys; p=sys.argv[1]; d=bytearray(open(p,'rb').read()); d[8]=2; open(p,'wb').write(d)" "$caps/ff_version.ktcap"
out=$("$ktune" capture list "$caps" 2>&1) || fail "list: $out"
contains "^cc_family.ktcap .*UNUSABLE: .*'family' is not a string" <<< "$out" || fail "list: family: $out"
contains "^dd_shape.ktcap .*UNUSABLE: .*'shape' is not a list" <<< "$out" || fail "list: shape: $out"
contains "^ee_deep.ktcap .*UNUSABLE: .*not a capture description" <<< "$out" || fail "list: deep: $out"
contains "^aa_other.ktcap .*scale_test" <<< "$out" || fail "list: the good ones: $out"
contains "^6 bundle(s) in .*, 4 unusable" <<< "$out" || fail "list: totals: $out"
out=$("$ktune" capture prune "$caps" 2>&1) || fail "prune: $out"
contains "kept ff_version.ktcap: .*format version 2" <<< "$out" || fail "a newer format's bundle: $out"
contains "^3 file(s) removed" <<< "$out" || fail "prune: $out"
[ -e "$caps/ff_version.ktcap" ] && [ -e "$caps/aa_other.ktcap" ] && [ -e "$caps/zz_mine.ktcap" ] || fail "prune removed too much"

# 4. A bundle whose captured kernel has a self-referencing derive, beside a good one.
mkdir "$dir/mixed"
cp "$caps/aa_other.ktcap" "$dir/mixed/good.ktcap"
cp "$caps/aa_other.ktcap" "$dir/mixed/cycle.ktcap"
edit "$dir/mixed/cycle.ktcap" "h['source'] = h['source'].replace('// @tune', '// @derive  d = d + 1\n// @tune', 1)"
out=$(timeout 120 "$ktune" tune --capture "$dir/mixed" --dry-run 2>&1)
rc=$?
[ $rc = 1 ] || fail "a folder with a bad bundle: rc=$rc: $out"
contains "cycle.ktcap: skipped: .*'d' reads itself" <<< "$out" || fail "the cycle: $out"
contains "9 compiled" <<< "$out" || fail "the good bundle did not go on: $out"
# The application's alignment class travels in the bundle; one that no pointer can have is refused.
for a in 3 0 8 '"4"'; do
  cp "$caps/aa_other.ktcap" "$dir/align.ktcap"
  edit "$dir/align.ktcap" "h['align'] = $a"
  out=$(timeout 60 "$ktune" tune --capture "$dir/align.ktcap" --dry-run 2>&1) && fail "align $a accepted: $out"
  contains "corrupted" <<< "$out" || fail "align $a: $out"
done
echo "hostile capture bundles: all checks passed"
