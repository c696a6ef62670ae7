#!/usr/bin/env bash
# The include graph keeps its floors: a top-level layer includes no layer above it
# (generator < cache < runtime < tuner; templates/ may use any), and inside the ktune
# binary, problem/ and workload/ include nothing of cli/ (issue 68), problem/ nothing of
# workload/, and the tuner library's rooms (run/, search/, measure/) none of the
# binary's (cli/, problem/, report/, workload/); no family folder includes another's.
#   layers_test.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: layers_test.sh SOURCE_DIR}
failed=0
# forbid FOLDER PATTERN WHY: no file under FOLDER has an #include matching PATTERN.
forbid() {
  local hits
  hits=$(grep -rnE --include='*.cpp' --include='*.hpp' --include='*.h' "^#include [<\"]($2)" "$src/$1" 2>/dev/null)
  if [ -n "$hits" ]; then
    echo "FAIL: $1 includes $3:" >&2
    echo "$hits" | sed "s|$src/||" >&2
    failed=1
  fi
}
[ -d "$src/tuner/src/problem" ] || { echo "FAIL: no $src/tuner/src/problem" >&2; exit 1; }
forbid generator 'ktune/(cache|runtime|tuner)/' "a layer above it"
forbid cache 'ktune/(runtime|tuner)/' "a layer above it"
forbid runtime 'ktune/tuner/' "the tuner"
for room in problem workload; do forbid "tuner/src/$room" 'cli/' "cli/"; done
forbid tuner/src/problem 'workload/' "workload/"
for room in run search measure; do forbid "tuner/src/$room" '(cli|problem|report|workload)/' "the binary's rooms"; done
forbid tuner/include '(cli|problem|report|workload)/' "the binary's rooms"
# A family is one folder: none includes another's files.
for dir in "$src"/templates/*/; do
  f=$(basename "$dir")
  for other in "$src"/templates/*/; do
    o=$(basename "$other")
    [ "$o" = "$f" ] || forbid "templates/$f" "$o/" "the $o family's files"
  done
done
[ "$failed" = 0 ] && echo "layers: every floor holds"
exit "$failed"
