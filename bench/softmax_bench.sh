#!/usr/bin/env bash
# The row-softmax example (a user's kernel, examples/softmax/softmax.cu), one GPU run:
# ktune tunes it from the CLI (memcpy of the same bytes measured in its process), then
# torch.softmax(x, dim=1) and a copy are timed the same way.
#   bash bench/softmax_bench.sh BUILD_DIR OUT_DIR [ROWS COLS]
# Output: OUT_DIR/softmax.log, softmax-summary.jsonl, softmax-torch.jsonl, softmax.md.
set -uo pipefail
build=${1:?usage: bench/softmax_bench.sh BUILD_DIR OUT_DIR [ROWS COLS]}
out=${2:?usage: bench/softmax_bench.sh BUILD_DIR OUT_DIR [ROWS COLS]}
rows=${3:-16384} cols=${4:-4096}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
status=0
start=$(date +%s)
"$build/tuner/ktune" tune --kernel "$here/../examples/softmax/softmax.cu" --problem "rows=$rows,cols=$cols" \
  --summary "$out/softmax-summary.jsonl" >> "$out/softmax.log" 2>&1 || status=1
echo "tuned softmax_rows ${rows}x${cols} in $(( $(date +%s) - start )) s (wall, whole command)" | tee -a "$out/softmax.log"
python3 "$here/torch_softmax.py" "$rows" "$cols" > "$out/softmax-torch.jsonl" 2>> "$out/softmax.log" || status=1
python3 - "$out/softmax-summary.jsonl" "$out/softmax-torch.jsonl" <<'PY' | tee "$out/softmax.md"
import json, sys
k = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
t = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
w = k.get("winner")
print("| problem | ktune us | GB/s | % of memcpy | torch.softmax us | ktune / torch | configs | tuning s |")
print("|---|---|---|---|---|---|---|---|")
if w:
    print(f"| softmax_rows f32 {k['shape']} | {w['median_us']:.1f} | {w['gbps']:.0f} | {100 * w['ceiling_fraction']:.1f} | "
          f"{t['torch_us']:.1f} | {t['torch_us'] / w['median_us']:.2f}x | {k['configs']} | {k['seconds']:.1f} |")
    print(f"\nwinner: {w['config']}; memcpy of the same bytes: {k['ceiling_us']:.1f} us (ktune), {t['copy_us']:.1f} us (PyTorch); {k['device']}")
else:
    print(f"| softmax_rows f32 {k['shape']} | no winner |")
PY
exit $status
