"""GEMM shapes nobody picked (issue 72): prints the problems of one run, a seeded sample
of the zoo's GEMMs (LLM projections at many token counts, `nt`; squares) and a fresh
random draw (bf16 or f16, M, N, K log-uniform in 64-16384, layout nn), one
DTYPE:MxNxK:LAYOUT a line; and summarizes a torch_gemm.py run over them.

    python3 templates/gemm/bench/gemm_shapes.py draw [--seed S] [--random 12] [--zoo 6]
    python3 templates/gemm/bench/gemm_shapes.py summary TORCH.jsonl

The draw prints "# seed S" first. The summary: ktune's runtime call / torch.mm speed for
C = A B (min, median, max, worst three named; shapes without a ktune time, not tuned or
differing from cuBLAS, named apart), the issue's bar beside it."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench"))
from shape_draw import log_uniform, main, print_summary, read_lines, rng, summarize, zoo_sample  # noqa: E402


def draw(args):
    seed, r = rng(args.seed)
    print(f"# seed {seed}")
    for z in zoo_sample(r, "gemm", args.zoo):
        print(f"{z['dtype']}:{z['shape']}:{z.get('layout', 'nn')}")
    for _ in range(args.random):
        m, n, k = (log_uniform(r, 64, 16384) for _ in range(3))
        print(f"{r.choice(('bf16', 'f16'))}:{m}x{n}x{k}:nn")


def summary(args):
    rows = read_lines(args.results)
    name = lambda p: f"{p['dtype']}:{p['shape']}:{p['layout']}"
    ratio = lambda p: p["torch_mm_us"] / p["ktune_rt_mm_us"] if "ktune_rt_mm_us" in p else None
    print_summary(summarize(rows, ratio, name, "ktune / torch.mm, C = A B (speed; bar: median >= 1.00, min >= 0.95)"))
    tma = lambda p: p["triton_tma_us"] / p["ktune_rt_mm_us"] if "ktune_rt_mm_us" in p and "triton_tma_us" in p else None
    print_summary(summarize(rows, tma, name, "ktune / Triton persistent TMA matmul (speed, C read: one more read for Triton)"))


if __name__ == "__main__":
    main(__doc__, draw, summary)
