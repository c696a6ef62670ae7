#!/usr/bin/env bash
# Every list of the families is the family folders' list (issue 68): the README links each
# folder's README, docs/runtime-api.md names each installed family header, each folder has
# the bench script and gpu test `scripts/gpu-check.sh family:NAME` (and `all`) run, and the
# CLI knows each registered part.
#   family_lists_test.sh PATH_TO_KTUNE SOURCE_DIR   (a build with every family)
set -uo pipefail
ktune=${1:?usage: family_lists_test.sh KTUNE SOURCE_DIR}
src=${2:?usage: family_lists_test.sh KTUNE SOURCE_DIR}
fail() { echo "FAIL: $*" >&2; exit 1; }
known=$("$ktune" space no-such-family 2>&1 || true)
count=0
for dir in "$src"/templates/*/; do
  [ -f "$dir/CMakeLists.txt" ] || continue
  f=$(basename "$dir")
  count=$((count + 1))
  [ -f "$dir/README.md" ] || fail "templates/$f has no README.md"
  grep -qF "(templates/$f/README.md)" "$src/README.md" || fail "README.md does not link templates/$f/README.md"
  for header in "$dir"/include/ktune/*.hpp; do
    [ -e "$header" ] || continue
    grep -qF "ktune/$(basename "$header")" "$src/docs/runtime-api.md" ||
      fail "docs/runtime-api.md does not name the installed header ktune/$(basename "$header") (templates/$f)"
  done
  [ -f "$dir/bench/${f}_bench.sh" ] || fail "templates/$f has no bench/${f}_bench.sh (scripts/gpu-check.sh family:$f runs it)"
  grep -qF "\$out/$f-" "$dir/bench/${f}_bench.sh" ||
    fail "templates/$f/bench/${f}_bench.sh writes no \$out/$f-*.jsonl (scripts/gpu-check.sh stamps those into bench/results/data/)"
  grep -qE "ktune_test\(${f}_gpu_test gpu " "$dir/CMakeLists.txt" ||
    fail "templates/$f/CMakeLists.txt registers no ${f}_gpu_test (scripts/gpu-check.sh family:$f runs it)"
  parts=$(sed -n 's/^ *PARTS //p' "$dir/CMakeLists.txt" | sed 's/#.*//; s/)//g')
  [ -n "$parts" ] || fail "templates/$f/CMakeLists.txt lists no PARTS"
  for part in $parts; do
    [[ "$known" == *" $part,"* || "$known" == *" $part;"* ]] || fail "the CLI does not know $part (templates/$f): $known"
  done
done
[ "$count" -ge 6 ] || fail "only $count family folders found under $src/templates"
echo "family lists: $count folders, all checks passed"
