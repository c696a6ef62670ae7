#!/usr/bin/env bash
# `ktune tune --record KEY` (what the runtime runs when KTUNE_TUNE_ON_MISS=1): a record
# key becomes its family's problem; malformed keys are refused with the reason:
#   tune_record_cli_test.sh PATH_TO_KTUNE
set -uo pipefail
ktune=${1:?usage: tune_record_cli_test.sh KTUNE}
export KTUNE_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$KTUNE_CACHE_DIR"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # message, record JSON, more arguments...
  local want=$1 record=$2; shift 2
  out=$("$ktune" tune --record "$record" "$@" 2>&1) && fail "accepted: $record $*"
  echo "$out" | grep -qF -- "$want" || fail "$record $*: expected '$want', got: $out"
}
expect "unknown kernel family 'nope'" '{"family":"nope","dtype":"f32","shape":[3]}'
expect "type must be string" '{"family":1,"dtype":"f32","shape":[3]}'
expect "not a JSON object" '[1,2]'
expect "want {\"family\", \"variant\", \"dtype\", \"shape\"}" '{"family":"transpose"}'
expect "give one problem or --record JSON, not both" '{"family":"transpose","dtype":"f32","shape":[300,200]}' --shape 3x3
expect "is the 'gemm' family's" '{"family":"gemm_mma","variant":"nn","dtype":"f64","shape":[30,20,10]}'
# A tensor-core f32 record was tuned as TF32: its key names that problem again.
out=$("$ktune" tune --record '{"family":"gemm_mma","variant":"nn","dtype":"f32","shape":[30,20,10]}' 2>&1)
echo "$out" | grep -q "cannot tune here" && { echo "$out" | grep -qF -- "--math tf32" || fail "tf32 key: $out"; }
# A good key: tuned where there is a GPU (a short search), else the no-GPU advice names
# the problem the key describes.
out=$("$ktune" tune --record '{"family":"gemm_mma","variant":"nt","dtype":"bf16","shape":[300,200,100]}' \
  --strategy random --budget-evals 4 2>&1)
rc=$?
if echo "$out" | grep -q "cannot tune here"; then
  [ $rc = 2 ] || fail "no GPU: exit 2 (rc=$rc)"
  echo "$out" | grep -qF "ktune space gemm_mma --dtype bf16 --layout nt --math auto --shape 300x200x100" || fail "no GPU: $out"
else
  [ $rc = 0 ] || fail "tuning the key failed: $out"
  "$ktune" cache list | grep -q "gemm_mma.*nt.*bf16.*300x200x100" || fail "the key's problem stored"
fi
echo "tune_record_cli_test: ok"
