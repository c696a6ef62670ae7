"""Scan peers in one PyTorch process: torch.cumsum, ktune.cumsum through the Python
package (the stored winner, on the same tensors and stream) and a copy of the same
bytes (the ceiling), each checked against torch.cumsum before it is timed (small
integer inputs: exact in f32). bench/peer_timing.timed: L2 flushed, median of 30, the
launch hidden behind a spin kernel.
    python3 templates/scan/bench/torch_scan.py BUILD f32:268435456 i32:268435456 rows:f32:16384x4096
One JSON line each."""
import json
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "bench"))
from peer_timing import ktune_package, l2_flush_buffer, timed  # noqa: E402

ktune = ktune_package(sys.argv[1], "torch_scan")

DTYPES = {"f32": torch.float32, "i32": torch.int32, "f64": torch.float64, "i64": torch.int64}


def main():
    flush = l2_flush_buffer()
    for arg in sys.argv[2:]:
        parts = arg.split(":")
        rows = parts[0] == "rows"
        name, size = parts[-2], parts[-1]
        shape = tuple(int(v) for v in size.split("x"))
        dtype = DTYPES[name]
        x = torch.randint(-3, 4, shape, device="cuda").to(dtype)
        dim = -1 if rows else 0
        y, z, c = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
        torch_op = lambda: torch.cumsum(x, dim=dim, dtype=dtype, out=y)  # noqa: E731
        ktune_op = lambda: ktune.cumsum(x, dim=-1 if rows else None, out=z)  # noqa: E731
        torch_op()
        ktune_op()
        torch.cuda.synchronize()
        info = ktune.last_launch()
        row = {"what": "row cumsum" if rows else "cumsum", "dtype": name, "shape": size,
               "device": torch.cuda.get_device_properties(0).name, "checked": bool(torch.equal(y, z)),
               "torch_version": torch.__version__, "ktune_launch": info}
        if row["checked"]:
            row["torch_us"] = timed(torch_op, flush, hide_launch=True)
            row["ktune_us"] = timed(ktune_op, flush, hide_launch=True)
            row["copy_us"] = timed(lambda: c.copy_(x), flush, hide_launch=True)
            row["ktune_over_torch"] = row["torch_us"] / row["ktune_us"]
            row["ktune_of_copy"] = row["copy_us"] / row["ktune_us"]
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
