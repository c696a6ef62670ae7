"""PyTorch peer for the Jacobi stencil benchmark: the 5-point average written as a
PyTorch user writes it (slices of the grid, the border copied), and a device-to-device
copy of the same bytes, timed like ktune times (bench/peer_timing.py). One JSON line.

    python3 bench/torch_stencil.py 8192 8192
"""
import json
import sys

import torch

from peer_timing import l2_flush_buffer, timed


def main():
    nx, ny = int(sys.argv[1]), int(sys.argv[2])
    props = torch.cuda.get_device_properties(0)
    flush = l2_flush_buffer()
    g = torch.randn(ny, nx, device="cuda")
    out = torch.empty_like(g)
    copy_dst = torch.empty_like(g)

    def step():
        out.copy_(g)
        out[1:-1, 1:-1] = 0.25 * ((g[1:-1, :-2] + g[1:-1, 2:]) + (g[:-2, 1:-1] + g[2:, 1:-1]))

    moved = 2 * g.numel() * g.element_size()  # the grid read once, the result written once
    t_torch = timed(step, flush)
    t_copy = timed(lambda: copy_dst.copy_(g), flush)
    print(json.dumps({"nx": nx, "ny": ny, "device": props.name, "torch_us": t_torch, "torch_gbps": moved / t_torch / 1e3,
                      "copy_us": t_copy, "copy_gbps": moved / t_copy / 1e3, "torch_version": torch.__version__}))


if __name__ == "__main__":
    main()
