#!/usr/bin/env bash
# Regenerates docs/report-example/ (an HTML report and its headless-Chromium screenshot)
# from recorded search logs of real GPU runs:
#   bash scripts/report-example.sh [LOG [OVERLAY_LOG...]]
# Default: two H200 runs of transpose f32 8192x2048 kept beside the report (2026-11-22,
# scripts/gpu-check.sh): exhaustive, with the `model` strategy's run overlaid.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ktune=${KTUNE:-$here/build/tuner/ktune}
[ -x "$ktune" ] || { echo "build first: bash scripts/setup.sh" >&2; exit 1; }
out=$here/docs/report-example
if [ $# = 0 ]; then set -- "$out/exhaustive.jsonl" "$out/model.jsonl"; fi
log=$1
shift
overlay=()
for o in "$@"; do overlay+=(--overlay "$o"); done
mkdir -p "$out"
"$ktune" log report "$log" -o "$out/report.html" "${overlay[@]}"
chrome=$(command -v chromium-headless-shell || command -v chromium || true)
[ -n "$chrome" ] || { echo "no headless Chromium for the screenshot (apt-get install chromium-headless-shell)" >&2; exit 1; }
"$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1240,3800 \
  --screenshot="$out/screenshot.png" "file://$out/report.html" > /dev/null 2>&1
/usr/bin/python3 "$here/tests/cli/check_screenshot.py" "$out/screenshot.png"
echo "wrote $out/report.html and $out/screenshot.png"
