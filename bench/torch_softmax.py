"""PyTorch peer for the softmax benchmark: torch.softmax(x, dim=1) over an f32 matrix and
a device-to-device copy of the same bytes, timed like ktune times (bench/peer_timing.py).

    python3 bench/torch_softmax.py ROWS COLS
"""
import json
import sys

import torch

from peer_timing import l2_flush_buffer, timed


def main():
    rows, cols = int(sys.argv[1]), int(sys.argv[2])
    flush = l2_flush_buffer()
    x = torch.randn(rows, cols, device="cuda")
    y = torch.empty_like(x)
    moved = 2 * x.numel() * x.element_size()
    t_torch = timed(lambda: torch.softmax(x, dim=1), flush)
    t_copy = timed(lambda: y.copy_(x), flush)
    print(json.dumps({"rows": rows, "cols": cols, "device": torch.cuda.get_device_properties(0).name,
                      "torch_us": t_torch, "torch_gbps": moved / t_torch / 1e3, "copy_us": t_copy,
                      "torch_version": torch.__version__}))


if __name__ == "__main__":
    main()
