#!/usr/bin/env bash
# `ktune tune --record KEY` (what the runtime runs when KTUNE_TUNE_ON_MISS=1): a record
# key becomes its family's problem, at the key's alignment class (a pitched transpose:
# --ld); malformed keys, classes a family cannot tune and bad pitches are refused with
# the reason:
#   tune_record_cli_test.sh PATH_TO_KTUNE
set -uo pipefail
ktune=${1:?usage: tune_record_cli_test.sh KTUNE}
export KTUNE_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$KTUNE_CACHE_DIR"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/contains.sh"
expect() {  # message, record JSON, more arguments...
  local want=$1 record=$2; shift 2
  out=$("$ktune" tune --record "$record" "$@" 2>&1) && fail "accepted: $record $*"
  echo "$out" | contains -F -- "$want" || fail "$record $*: expected '$want', got: $out"
}
expect "unknown kernel family 'nope'" '{"family":"nope","dtype":"f32","shape":[3]}'
expect "type must be string" '{"family":1,"dtype":"f32","shape":[3]}'
expect "not a JSON object" '[1,2]'
expect "want {\"family\", \"variant\", \"dtype\", \"shape\"}" '{"family":"transpose"}'
expect "give one problem or --record JSON, not both" '{"family":"transpose","dtype":"f32","shape":[300,200]}' --shape 3x3
expect "is the 'gemm' family's" '{"family":"gemm_mma","variant":"nn","dtype":"f64","shape":[30,20,10]}'
expect "type must be number" '{"family":"transpose","dtype":"u8","shape":[300,200],"align":"x"}'
expect "alignment class 3 is not a power of two from 1 to 16 elements" '{"family":"transpose","dtype":"u8","shape":[300,200],"align":3}'
expect "reduce tunes this problem at alignment class 4 only, not the call's 1" \
  '{"family":"reduce","variant":"sum","dtype":"f32","shape":[1000],"align":1}'
# --ld: the pitches of a transpose; the no-GPU advice names them (a key of class 1, odd rows)
refused() {  # message, ktune arguments...
  local want=$1; shift
  out=$("$ktune" "$@" 2>&1) && fail "accepted: $*"
  echo "$out" | contains -F -- "$want" || fail "$*: expected '$want', got: $out"
}
for ld in 5 10,abc ,5 2051, 1099511627777,8192; do refused "bad --ld '$ld': expected two pitches of 1 to 2^40 elements" tune transpose --shape 300x200 --ld "$ld"; done
refused "ld_src 100 is smaller than cols" tune transpose --shape 300x200 --ld 100,400
refused "ld_dst 299 is smaller than rows" space transpose --shape 300x200 --ld 200,299
refused "--ld does not apply to gemm" space gemm --ld 4,4
dense=$("$ktune" space transpose --dtype u8 --shape 300x200 | grep -c '"wide":2') || true
pitched=$("$ktune" space transpose --dtype u8 --shape 300x200 --ld 201,301 | grep -c '"wide":2')
[ "$dense" = 0 ] && [ "$pitched" -gt 0 ] || fail "odd pitches open the odd-pitch designs (wide = 2: $dense dense, $pitched pitched)"
out=$("$ktune" tune --record '{"family":"transpose","dtype":"u8","shape":[300,200],"align":1}' \
  --strategy random --budget-evals 4 2>&1)
rc=$?
if echo "$out" | contains "cannot tune here"; then
  echo "$out" | contains -F "ktune space transpose --dtype u8 --ld 201,301 --shape 300x200" || fail "no GPU, class 1: $out"
else
  [ $rc = 0 ] || fail "tuning the class-1 key failed: $out"
  "$ktune" cache list | contains "transpose .*u8 *300x200 *align 1 " || fail "the key's class stored: $("$ktune" cache list)"
fi
# A tensor-core f32 record was tuned as TF32: its key names that problem again.
out=$("$ktune" tune --record '{"family":"gemm_mma","variant":"nn","dtype":"f32","shape":[30,20,10]}' \
  --strategy random --budget-evals 4 2>&1)  # (a short search where there is a GPU)
echo "$out" | contains "cannot tune here" && { echo "$out" | contains -F -- "--math tf32" || fail "tf32 key: $out"; }
# A good key: tuned where there is a GPU (a short search), else the no-GPU advice names
# the problem the key describes.
out=$("$ktune" tune --record '{"family":"gemm_mma","variant":"nt","dtype":"bf16","shape":[300,200,100]}' \
  --strategy random --budget-evals 4 2>&1)
rc=$?
if echo "$out" | contains "cannot tune here"; then
  [ $rc = 2 ] || fail "no GPU: exit 2 (rc=$rc)"
  echo "$out" | contains -F "ktune space gemm_mma --dtype bf16 --layout nt --math auto --shape 300x200x100" || fail "no GPU: $out"
else
  [ $rc = 0 ] || fail "tuning the key failed: $out"
  "$ktune" cache list | contains "gemm_mma.*nt.*bf16.*300x200x100" || fail "the key's problem stored"
fi
echo "tune_record_cli_test: ok"
