#!/usr/bin/env bash
# An example user kernel against its PyTorch peer, one GPU run: ktune tunes it from the
# CLI (memcpy of the same bytes measured in its process), then the peer and a copy are
# timed the same way (bench/peer_timing.py).
#   bash bench/example_bench.sh BUILD_DIR OUT_DIR stencil [NX NY]      (default 8192 8192)
#   bash bench/example_bench.sh BUILD_DIR OUT_DIR softmax [ROWS COLS]  (default 16384 4096)
#   bash bench/example_bench.sh BUILD_DIR OUT_DIR rmsnorm [ROWS COLS [DTYPE]]  (16384 4096 bf16)
# Output: OUT_DIR/NAME.log, NAME-summary.jsonl, NAME-torch.jsonl, NAME.md.
set -uo pipefail
usage="usage: bench/example_bench.sh BUILD_DIR OUT_DIR stencil|softmax|rmsnorm [SIZE SIZE [DTYPE]]"
build=${1:?$usage}
out=${2:?$usage}
name=${3:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
name_args=()  # the peer script's arguments after the sizes
case "$name" in
  stencil) kernel=stencil/jacobi.cu; a=${4:-8192}; b=${5:-8192}; problem="nx=$a,ny=$b"; peer="PyTorch slicing expression" ;;
  softmax) kernel=softmax/softmax.cu; a=${4:-16384}; b=${5:-4096}; problem="rows=$a,cols=$b"; peer="torch.softmax(x, dim=1)" ;;
  rmsnorm) kernel=rmsnorm/rmsnorm.cu; a=${4:-16384}; b=${5:-4096}; t=${6:-bf16}; problem="rows=$a,cols=$b,T=$t"
    peer="F.rms_norm"; name_args=("$t") ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
mkdir -p "$out"
status=0
start=$(date +%s)
"$build/tuner/ktune" tune --kernel "$here/../examples/$kernel" --problem "$problem" \
  --summary "$out/$name-summary.jsonl" >> "$out/$name.log" 2>&1 || status=1
echo "tuned $name ${a}x${b} in $(( $(date +%s) - start )) s (wall, whole command)" | tee -a "$out/$name.log"
python3 "$here/torch_$name.py" "$a" "$b" "${name_args[@]}" > "$out/$name-torch.jsonl" 2>> "$out/$name.log" || status=1
python3 - "$out/$name-summary.jsonl" "$out/$name-torch.jsonl" "$peer" <<'PY' | tee "$out/$name.md"
import json, sys
k = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
t = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
w = k.get("winner")
print(f"| problem | ktune us | GB/s | % of memcpy | {sys.argv[3]} us | ktune / peer | configs | tuning s |")
print("|---|---|---|---|---|---|---|---|")
if w:
    print(f"| {k['family']} {k['dtype']} {k['shape']} | {w['median_us']:.1f} | {w['gbps']:.0f} | {100 * w['ceiling_fraction']:.1f} | "
          f"{t['torch_us']:.1f} | {t['torch_us'] / w['median_us']:.2f}x | {k['configs']} | {k['seconds']:.1f} |")
    print(f"\nwinner: {w['config']}; memcpy of the same bytes: {k['ceiling_us']:.1f} us (ktune), {t['copy_us']:.1f} us "
          f"(PyTorch); {k['device']}")
    if "compiled_us" in t:
        print(f"torch.compile (max-autotune) of the same call: {t['compiled_us']:.1f} us, ktune / it: "
              f"{t['compiled_us'] / w['median_us']:.2f}x")
else:
    print(f"| {k['family']} {k['shape']} | no winner |")
PY
exit $status
