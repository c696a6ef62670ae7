#!/usr/bin/env bash
# `ktune log report` on the recorded H200 runs in tests/data, then a look at the page
# rendered by headless Chromium (SKIP, exit 77, when no Chromium or Pillow is installed):
#   log_report_test.sh PATH_TO_KTUNE DATA_DIR
set -euo pipefail
ktune=${1:?usage: log_report_test.sh KTUNE DATA_DIR}
data=${2:?usage: log_report_test.sh KTUNE DATA_DIR}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$ktune" log --dir "$data" report transpose-f32-8192x2048 -o "$dir/report.html" \
  --overlay "$data/transpose-f32-16384x16384.jsonl" > /dev/null
html="$dir/report.html"
[ -s "$html" ] || fail "no report written"
[ ! -e "$html.tmp" ] || fail "temporary file left behind"

# Self-contained: nothing fetched, nothing run.
for banned in '<script' 'src=' 'href=' 'http' 'url(' '@import'; do
  if grep -qi -- "$banned" "$html"; then fail "report is not self-contained: contains '$banned'"; fi
done
# Every plot has a title and both axes labelled (strip plots label y only).
plots=$(grep -o '<svg class="plot"' "$html" | wc -l)
[ "$plots" -ge 10 ] || fail "expected >= 10 plots, found $plots"
labels=$(grep -o '<text class="axis-label"[^>]*>[^<][^<]*</text>' "$html" | wc -l)
[ "$labels" -ge $((2 * plots - 8)) ] || fail "plots without axis labels ($labels labels for $plots plots)"
for want in 'Best so far against evaluations' 'Candidates by achieved rate' '% of the ceiling (cuMemcpyDtoDAsync)' \
            'best median time (us)' 'Top 10 configs' 'Failures by reason' 'rejected: spills' 'Strongest interaction: ' \
            'layout: best ' 'Runs compared' 'tile_m=32 tile_n=128 block_x=8 block_y=32 vec=4 layout=xor realign=0' \
            '<title>tile_m x ' 'within noise'; do
  grep -qF -- "$want" "$html" || fail "report lacks '$want'"
done
[ "$(grep -o 'class="series"' "$html" | wc -l)" = 2 ] || fail "expected two best-so-far curves (run and overlay)"

# A partial log (a tuner still running, or killed) reports as such.
head -c 150000 "$data/transpose-f32-8191x4097.jsonl" > "$dir/cut.jsonl"
"$ktune" log report "$dir/cut.jsonl" -o "$dir/cut.html" > /dev/null
grep -q "partial (running or killed), 1 corrupt line(s) skipped" "$dir/cut.html" || fail "partial run not reported"

# Bad input: clear errors, no file written.
if "$ktune" log report "$dir/cut.jsonl" -o "$dir/no-such-dir/r.html" 2> "$dir/err"; then fail "unwritable path accepted"; fi
grep -q "cannot write" "$dir/err" || fail "unwritable path: message"
if "$ktune" log --dir "$data" report no-such-run -o "$dir/x.html" 2> "$dir/err"; then fail "unknown run accepted"; fi
[ ! -e "$dir/x.html" ] || fail "report written for an unknown run"
echo "log report: markup checks passed"

# The rendered page.
chrome=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -z "$chrome" ]; then echo "SKIP: no headless Chromium (apt-get install chromium-headless-shell)"; exit 77; fi
if ! /usr/bin/python3 -c "import PIL" 2> /dev/null; then echo "SKIP: no Pillow (apt-get install python3-pil)"; exit 77; fi
"$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1240,3600 \
  --screenshot="$dir/shot.png" "file://$html" > "$dir/chrome.log" 2>&1 || { cat "$dir/chrome.log"; fail "chromium failed"; }
/usr/bin/python3 "$here/check_screenshot.py" "$dir/shot.png" || fail "screenshot check"
echo "log report: rendered page checks passed"
