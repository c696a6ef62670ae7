#!/usr/bin/env bash
# The Jacobi stencil example (a user's kernel, examples/stencil/jacobi.cu), one GPU run:
# ktune tunes it from the CLI (its memcpy ceiling measured in the same process), then the
# PyTorch slicing expression and a copy of the same bytes are timed the same way.
#   bash bench/stencil_bench.sh BUILD_DIR OUT_DIR [NX NY]
# Output: OUT_DIR/stencil.log, stencil-summary.jsonl, stencil-torch.jsonl, stencil.md.
set -uo pipefail
build=${1:?usage: bench/stencil_bench.sh BUILD_DIR OUT_DIR [NX NY]}
out=${2:?usage: bench/stencil_bench.sh BUILD_DIR OUT_DIR [NX NY]}
nx=${3:-8192} ny=${4:-8192}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
status=0
start=$(date +%s)
"$build/tuner/ktune" tune --kernel "$here/../examples/stencil/jacobi.cu" --problem "nx=$nx,ny=$ny" \
  --summary "$out/stencil-summary.jsonl" >> "$out/stencil.log" 2>&1 || status=1
echo "tuned jacobi ${nx}x${ny} in $(( $(date +%s) - start )) s (wall, whole command)" | tee -a "$out/stencil.log"
python3 "$here/torch_stencil.py" "$nx" "$ny" > "$out/stencil-torch.jsonl" 2>> "$out/stencil.log" || status=1
python3 - "$out/stencil-summary.jsonl" "$out/stencil-torch.jsonl" <<'PY' | tee "$out/stencil.md"
import json, sys
k = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
t = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
w = k.get("winner")
print("| problem | ktune us | GB/s | % of memcpy | PyTorch us | ktune / PyTorch | configs | tuning s |")
print("|---|---|---|---|---|---|---|---|")
if w:
    print(f"| jacobi f32 {k['shape']} | {w['median_us']:.1f} | {w['gbps']:.0f} | {100 * w['ceiling_fraction']:.1f} | "
          f"{t['torch_us']:.1f} | {t['torch_us'] / w['median_us']:.2f}x | {k['configs']} | {k['seconds']:.1f} |")
    print(f"\nwinner: {w['config']}; memcpy of the same bytes: {k['ceiling_us']:.1f} us in ktune's run, "
          f"{t['copy_us']:.1f} us in PyTorch's; {k['device']}")
else:
    print(f"| jacobi f32 {k['shape']} | no winner |")
PY
exit $status
