#!/usr/bin/env bash
# The histogram example (a user's kernel, examples/histogram/histogram.cu), one GPU run:
# ktune tunes it from the CLI on uniform random bytes, then one process launches the
# stored winner through ktune::Kernel and CUB's HistogramEven on uniform and on skewed
# bytes (bench/histogram_peers.cu, nvcc), and PyTorch's bincount runs on the same
# distributions.
#   bash bench/histogram_bench.sh BUILD_DIR OUT_DIR [N]
# Output: OUT_DIR/histogram.log, histogram-summary.jsonl, histogram-peers.jsonl,
# histogram-torch.jsonl, histogram.md.
set -uo pipefail
build=${1:?usage: bench/histogram_bench.sh BUILD_DIR OUT_DIR [N]}
out=${2:?usage: bench/histogram_bench.sh BUILD_DIR OUT_DIR [N]}
n=${3:-268435456}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
mkdir -p "$out"
status=0
start=$(date +%s)
"$build/tuner/ktune" tune --kernel "$src/examples/histogram/histogram.cu" --problem "n=$n" \
  --summary "$out/histogram-summary.jsonl" >> "$out/histogram.log" 2>&1 || status=1
echo "tuned histogram256 n=$n in $(( $(date +%s) - start )) s (wall, whole command)" | tee -a "$out/histogram.log"
nvcc -O3 -std=c++17 -arch=sm_90 -I"$src/runtime/include" -I"$src/generator/include" -I"$src/cache/include" \
  "$here/histogram_peers.cu" -L"$build/runtime" -lktune -Xlinker -rpath="$build/runtime" -o /tmp/ktune_histogram_peers \
  >> "$out/histogram.log" 2>&1 || status=1
/tmp/ktune_histogram_peers "$src/examples/histogram/histogram.cu" "$n" > "$out/histogram-peers.jsonl" \
  2>> "$out/histogram.log" || status=1
python3 "$here/torch_histogram.py" "$n" > "$out/histogram-torch.jsonl" 2>> "$out/histogram.log" || status=1
python3 - "$out/histogram-peers.jsonl" "$out/histogram-torch.jsonl" "$out/histogram-summary.jsonl" <<'PY' | tee "$out/histogram.md"
import json, sys
load = lambda p: [json.loads(l) for l in open(p) if l.strip()]
peers, torch = load(sys.argv[1]), {t["dist"]: t for t in load(sys.argv[2])}
k = load(sys.argv[3])[-1]
print("| data | ktune us | % of copy | CUB us | ktune / CUB | torch.bincount us | ktune / bincount | wrong bins (ktune, CUB) |")
print("|---|---|---|---|---|---|---|---|")
for p in peers:
    t = torch.get(p["dist"], {})
    b = t.get("bincount_us", float("nan"))
    print(f"| {p['dist']} | {p['ktune_us']:.1f} | {100 * p['copy_us'] / p['ktune_us']:.1f} | {p['cub_us']:.1f} | "
          f"{p['cub_us'] / p['ktune_us']:.2f}x | {b:.1f} | {b / p['ktune_us']:.2f}x | {p['ktune_wrong_bins']}, {p['cub_wrong_bins']} |")
print(f"\nwinner ({peers[0]['match']}): {peers[0]['config']}; tuned on uniform bytes: {k['configs']} configs in "
      f"{k['seconds']:.1f} s; {k['device']}")
PY
exit $status
