"""PyTorch peer for the RMSNorm example: torch.nn.functional.rms_norm over the rows of a
matrix in f16, bf16 or f32 (weight, eps 1e-6), and a device-to-device copy of the same
bytes, timed like ktune times (bench/peer_timing.py).

    python3 bench/torch_rmsnorm.py ROWS COLS DTYPE
"""
import json
import sys

import torch
import torch.nn.functional as F

from peer_timing import l2_flush_buffer, timed

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}


def main():
    rows, cols, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    dtype = DTYPES[name]
    flush = l2_flush_buffer()
    x = (torch.rand(rows, cols, device="cuda") * 4 - 2).to(dtype)
    w = (torch.rand(cols, device="cuda") + 0.5).to(dtype)
    y = torch.empty_like(x)
    moved = 2 * x.numel() * x.element_size() + w.numel() * w.element_size()
    t_torch = timed(lambda: F.rms_norm(x, (cols,), w, 1e-6), flush)
    # The compiled peer: what a PyTorch user gets from torch.compile (Triton, autotuned).
    compiled = torch.compile(lambda a: F.rms_norm(a, (cols,), w, 1e-6), mode="max-autotune-no-cudagraphs")
    compiled(x)
    t_compiled = timed(lambda: compiled(x), flush)
    t_copy = timed(lambda: y.copy_(x), flush)
    print(json.dumps({"rows": rows, "cols": cols, "dtype": name, "device": torch.cuda.get_device_properties(0).name,
                      "torch_us": t_torch, "compiled_us": t_compiled, "torch_gbps": moved / t_torch / 1e3,
                      "copy_us": t_copy, "torch_version": torch.__version__}))


if __name__ == "__main__":
    main()
