"""PyTorch peer for the transpose benchmark: x.t().contiguous() and a device-to-device
copy of the same bytes, timed like ktune times (events around the op only, L2 flushed
by reading a 2x-L2 buffer before each repetition, median). One JSON line per problem.

    python3 bench/torch_transpose.py f32:8192x2048 u8:16384x8192 ...
"""
import json
import sys

import torch

from peer_timing import l2_flush_buffer, timed

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
          "u8": torch.uint8, "i8": torch.int8, "i32": torch.int32}


def main():
    props = torch.cuda.get_device_properties(0)
    flush = l2_flush_buffer()
    for arg in sys.argv[1:]:
        name, shape = arg.split(":")
        rows, cols = (int(v) for v in shape.split("x"))
        dtype = DTYPES[name]
        if dtype.is_floating_point:
            x = torch.randn(rows, cols, device="cuda").to(dtype)
        else:
            x = torch.randint(1, 100, (rows, cols), device="cuda", dtype=dtype)
        y = torch.empty_like(x)
        moved = 2 * x.numel() * x.element_size()
        t_torch = timed(lambda: x.t().contiguous(), flush)
        t_copy = timed(lambda: y.copy_(x), flush)
        assert torch.equal(x.t().contiguous(), x.t()), "torch transpose disagrees with itself"
        print(json.dumps({"dtype": name, "shape": shape, "device": props.name, "torch_us": t_torch,
                          "torch_gbps": moved / t_torch / 1e3, "copy_us": t_copy, "copy_gbps": moved / t_copy / 1e3,
                          "torch_version": torch.__version__}), flush=True)


if __name__ == "__main__":
    main()
