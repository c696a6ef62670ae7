"""PyTorch peer for the reduction benchmark, timed like ktune times (events around the
op only, L2 flushed by reading a 2x-L2 buffer before each repetition, median of 30).
Arguments: sum:DTYPE:N (torch.sum over everything), rowsum:DTYPE:ROWSxCOLS
(torch.sum(x, dim=1)) or colsum:DTYPE:ROWSxCOLS (torch.sum(x, dim=0)). One JSON line each.

    python3 templates/reduce/bench/torch_reduce.py sum:f32:268435456 rowsum:f32:16384x16384
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
        what, name, size = arg.split(":")
        dtype = DTYPES[name]
        if what == "sum":
            x = torch.randn(int(size), device="cuda").to(dtype)
            fn = lambda: torch.sum(x)
        else:
            rows, cols = (int(v) for v in size.split("x"))
            x = torch.randn(rows, cols, device="cuda").to(dtype)
            fn = (lambda: torch.sum(x, dim=1)) if what == "rowsum" else (lambda: torch.sum(x, dim=0))
        t = timed(fn, flush)
        print(json.dumps({"what": what, "dtype": name, "size": size, "device": props.name, "torch_us": t,
                          "torch_gbps": x.numel() * x.element_size() / t / 1e3, "torch_version": torch.__version__}),
              flush=True)


if __name__ == "__main__":
    main()
