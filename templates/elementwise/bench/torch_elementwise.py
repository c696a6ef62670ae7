"""PyTorch peer for the elementwise benchmark, timed like ktune times (events around
the op only, L2 flushed by reading a 2x-L2 buffer before each repetition, median).
One JSON line per problem NAME:DTYPE:N, NAME one of add (torch.add into a preallocated
output), fma (a * b + c as PyTorch runs it: two kernels), copy (a device copy of the
same bytes). Inputs are random, never zeros.

    python3 templates/elementwise/bench/torch_elementwise.py add:f32:268435456 fma:f16:268435456 ...
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench"))
from peer_timing import l2_flush_buffer, timed  # noqa: E402 (bench/peer_timing.py, shared by every bench)

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64}


def main():
    props = torch.cuda.get_device_properties(0)
    flush = l2_flush_buffer()
    for arg in sys.argv[1:]:
        op, name, n = arg.split(":")
        n = int(n)
        dtype = DTYPES[name]
        a, b, c = (torch.randn(n, device="cuda").to(dtype) for _ in range(3))
        out = torch.empty_like(a)
        if op == "add":
            fn, arrays = (lambda: torch.add(a, b, out=out)), 3
        elif op == "fma":
            fn, arrays = (lambda: a * b + c), 4
        else:
            raise SystemExit(f"unknown op {op}")
        moved = arrays * n * a.element_size()
        t = timed(fn, flush)
        half = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(half)
        t_copy = timed(lambda: dst.copy_(half), flush)
        print(json.dumps({"op": op, "dtype": name, "n": n, "device": props.name, "torch_us": t,
                          "torch_gbps": moved / t / 1e3, "copy_us": t_copy, "copy_gbps": moved / t_copy / 1e3,
                          "torch_version": torch.__version__}), flush=True)


if __name__ == "__main__":
    main()
