#!/usr/bin/env bash
# GEMM benchmark, one GPU run: ktune tunes each problem (the static model's ranking,
# a budget of evaluations per problem; its ceiling: FMA chains, or mma.sync chains for
# f16 and bf16, doing the same FLOPs), and cuBLAS through torch.addmm with TF32 off and,
# for f16 and bf16, an autotuned Triton matmul (templates/gemm/bench/torch_gemm.py) are timed alike, all
# computing what the tuner times: C = 1.25 A B - 0.75 C0 (C0 read); cuBLAS's C = A B
# (torch.mm, C not read) in a column of its own; and ktune's stored winner through its
# runtime call (build/bench/libktune_bench_shim.so), for both.
#   bash templates/gemm/bench/gemm_bench.sh BUILD_DIR OUT_DIR
# KTUNE_GEMM_PROBLEMS: DTYPE:MxNxK:LAYOUT:EVALS ... (EVALS 0: the whole space; DTYPE tf32:
# f32 with --math tf32, its peers cuBLAS with TF32 allowed and the Triton matmul on f32).
# Output: OUT_DIR/gemm.log, gemm-summary.jsonl, gemm-torch.jsonl, gemm.md.
set -uo pipefail
build=${1:?usage: templates/gemm/bench/gemm_bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: templates/gemm/bench/gemm_bench.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
problems=${KTUNE_GEMM_PROBLEMS:-"bf16:4096x4096x4096:nn:200 bf16:8192x8192x8192:nn:60 bf16:4095x4097x1023:nn:200 bf16:16384x64x16384:nn:200 f16:4096x4096x4096:nn:200 f32:4096x4096x4096:nn:600 f32:4095x4097x1023:nn:600 f32:16384x64x16384:nn:600"}
status=0
peers=()
for p in $problems; do
  IFS=: read -r dtype shape layout evals <<< "$p"
  start=$(date +%s)
  math=auto
  [ "$dtype" = tf32 ] && math=tf32  # f32 on tensor cores, the opt-in
  "$build/tuner/ktune" tune gemm --dtype "${dtype/tf32/f32}" --math "$math" --shape "$shape" --layout "$layout" --strategy model \
    --budget-evals "$evals" --summary "$out/gemm-summary.jsonl" >> "$out/gemm.log" 2>&1 || status=1
  echo "tuned gemm $dtype $shape $layout in $(( $(date +%s) - start )) s (wall, whole command)" | tee -a "$out/gemm.log"
  peers+=("$dtype:$shape:$layout")
done
# ktune's stored winners through the runtime call too (the shim), where it was built.
shim=()
[ -f "$build/bench/libktune_bench_shim.so" ] && shim=("$build/bench/libktune_bench_shim.so")
python3 "$here/torch_gemm.py" "${shim[@]}" "${peers[@]}" > "$out/gemm-torch.jsonl" 2>> "$out/gemm.log" || status=1
python3 - "$out/gemm-summary.jsonl" "$out/gemm-torch.jsonl" <<'PY' | tee "$out/gemm.md"
import json, sys
ktune = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
torch = {(t["dtype"], t["shape"], t["layout"]): t for t in (json.loads(l) for l in open(sys.argv[2]) if l.strip())}
print("| dtype | MxNxK | layout | ktune us | ktune TFLOP/s | % of ceiling | cuBLAS (torch.addmm) us | % of cuBLAS | Triton us | Triton / ktune | "
      "Triton TMA persistent us | TMA / ktune | "
      "ktune runtime us | cuBLAS C = AB (torch.mm) us | ktune runtime C = AB us | % of torch.mm | tune s | evaluated / space | winner |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for k in ktune:
    layout = k.get("layout", "nn")
    if k.get("math") == "tf32":
        k["dtype"] = "tf32"
    w, t = k.get("winner"), torch.get((k["dtype"], k["shape"], layout))
    if not w:
        print(f"| {k['dtype']} | {k['shape']} | {layout} | no winner |"); continue
    cub = f"{t['torch_us']:.1f} | {100 * t['torch_us'] / w['median_us']:.1f}%" if t else "- | -"
    tri = f"{t['triton_us']:.1f} | {t['triton_us'] / w['median_us']:.3f}" if t and "triton_us" in t else "- | -"
    tma = (f"{t['triton_tma_us']:.1f} | {t['triton_tma_us'] / w['median_us']:.3f}" if t and "triton_tma_us" in t
           else "- | -")
    mm = f"{t['torch_mm_us']:.1f}" if t and "torch_mm_us" in t else "-"
    rt = f"{t['ktune_rt_us']:.1f}" if t and "ktune_rt_us" in t else "-"
    rt_mm = (f"{t['ktune_rt_mm_us']:.1f} | {100 * t['torch_mm_us'] / t['ktune_rt_mm_us']:.1f}%"
             if t and "ktune_rt_mm_us" in t else "- | -")
    print(f"| {k['dtype']} | {k['shape']} | {layout} | {w['median_us']:.1f} | {w['gbps'] / 1e3:.1f} | "
          f"{100 * w['ceiling_fraction']:.1f}% | {cub} | {tri} | {tma} | {rt} | {mm} | {rt_mm} | {k['seconds']:.0f} | {k.get('evaluated', '?')} / {k['configs']} | "
          f"`{w['config']}` |")
PY
# Shapes nobody picked (issue 72), beside the fixed rows above: a zoo sample and a fresh
# random draw (KTUNE_SHAPES_SEED repeats one; KTUNE_SHAPES_RANDOM, KTUNE_SHAPES_ZOO: how
# many; KTUNE_NO_SHAPES=1 skips them), its seed in gemm-shapes.md and on each row.
if [ -z "${KTUNE_NO_SHAPES:-}" ]; then
  bash "$here/gemm_shapes.sh" "$build" "$out" ${KTUNE_SHAPES_SEED:-} || status=1
fi
exit $status
