"""Transpose shapes nobody picked (issue 72): prints the problems of one run, a seeded
sample of the zoo's transposes and a fresh random draw (any element size, sides 1-20000
log-uniform, so not multiples of anything in particular), one DTYPE:ROWSxCOLS a line;
and summarizes a transpose_peers.py run over them.

    python3 templates/transpose/bench/transpose_shapes.py draw [--seed S] [--random 12] [--zoo 6]
    python3 templates/transpose/bench/transpose_shapes.py summary PEERS.jsonl

The draw prints "# seed S" first. The summary: ktune / better Triton and ktune / memcpy
speed (min, median, max, worst three named), the issue's bar beside them."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench"))
from shape_draw import log_uniform, main, print_summary, read_lines, rng, summarize, zoo_sample  # noqa: E402

DTYPES = ("u8", "f16", "f32", "f64")
MAX_BYTES = 2 << 30  # a draw over 2 GiB a matrix is drawn again (the peers hold several sets)


def draw(args):
    seed, r = rng(args.seed)
    print(f"# seed {seed}")
    for z in zoo_sample(r, "transpose", args.zoo):
        print(f"{z['dtype']}:{z['shape']}")
    drawn = 0
    while drawn < args.random:
        dtype = r.choice(DTYPES)
        rows, cols = log_uniform(r, 1, 20000), log_uniform(r, 1, 20000)
        if rows * cols * int(dtype[1:] if dtype != "u8" else 8) // 8 > MAX_BYTES:
            continue
        print(f"{dtype}:{rows}x{cols}")
        drawn += 1


def summary(args):
    rows = read_lines(args.results)
    name = lambda p: f"{p['dtype']}:{p['shape']}"
    better = lambda p: min(p["triton_us"], p.get("triton_wide_us", p["triton_us"])) / p["ktune_us"]
    s = summarize(rows, better, name, "ktune / better Triton (speed; bar: min >= 0.99, median >= 1.01)")
    print_summary(s)
    print_summary(summarize(rows, lambda p: p["copy_us"] / p["ktune_us"], name, "ktune / memcpy of the same bytes (speed)"))
    print_summary(summarize(rows, lambda p: p["torch_us"] / p["ktune_us"], name, "ktune / torch (speed)"))


if __name__ == "__main__":
    main(__doc__, draw, summary)
