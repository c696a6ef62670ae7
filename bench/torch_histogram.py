"""PyTorch peer for the histogram benchmark: torch.bincount(x, minlength=256) and
torch.histc over the same uniform and skewed bytes as bench/histogram_peers.cu (half of
the skewed ones are 7), timed like ktune times (bench/peer_timing.py). One JSON line
per distribution.

    python3 bench/torch_histogram.py 268435456
"""
import json
import sys

import torch

from peer_timing import l2_flush_buffer, timed


def main():
    n = int(sys.argv[1])
    flush = l2_flush_buffer()
    g = torch.Generator(device="cuda").manual_seed(1)
    for dist in ("uniform", "skewed"):
        x = torch.randint(0, 256, (n,), device="cuda", dtype=torch.uint8, generator=g)
        if dist == "skewed":
            x[torch.rand(n, device="cuda", generator=g) < 0.5] = 7
        t_bincount = timed(lambda: torch.bincount(x, minlength=256), flush)
        xf = x.to(torch.float32)
        t_histc = timed(lambda: torch.histc(xf, bins=256, min=0, max=255), flush)
        print(json.dumps({"dist": dist, "n": n, "bincount_us": t_bincount, "histc_f32_us": t_histc,
                          "torch_version": torch.__version__}), flush=True)


if __name__ == "__main__":
    main()
