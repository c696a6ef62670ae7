"""Compaction peers in one PyTorch process: torch.masked_select, ktune.masked_select (both
read the count on the host once) and ktune.compact (the count stays on the device), on
the same f32 values and bool mask, each checked against torch.masked_select first;
bench/peer_timing.timed (L2 flushed, median of 30, the launch hidden behind a spin kernel).
    python3 templates/compact/bench/torch_compact.py BUILD 268435456:0.5:random 268435456:0.01:clustered
One JSON line each."""
import json
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "bench"))
from peer_timing import ktune_package, l2_flush_buffer, timed  # noqa: E402

ktune = ktune_package(sys.argv[1], "torch_compact")


def main():
    flush = l2_flush_buffer()
    for arg in sys.argv[2:]:
        size, keep, pattern = arg.split(":")
        n, keep = int(size), float(keep)
        x = torch.arange(1, n + 1, device="cuda", dtype=torch.float32)
        if pattern == "clustered":
            mask = (torch.rand((n + 255) // 256, device="cuda") < keep).repeat_interleave(256)[:n]
        else:
            mask = torch.rand(n, device="cuda") < keep
        want = torch.masked_select(x, mask)
        got = ktune.masked_select(x, mask)
        row = {"what": "masked_select f32", "n": n, "keep": keep, "pattern": pattern, "kept": want.numel(),
               "device": torch.cuda.get_device_properties(0).name, "torch_version": torch.__version__,
               "checked": bool(torch.equal(got, want)), "ktune_launch": ktune.last_launch()}
        if row["checked"]:
            out = torch.empty_like(x)
            row["torch_us"] = timed(lambda: torch.masked_select(x, mask), flush, hide_launch=True)
            row["ktune_masked_select_us"] = timed(lambda: ktune.masked_select(x, mask), flush, hide_launch=True)
            row["ktune_compact_us"] = timed(lambda: ktune.compact(x, mask, out=out), flush, hide_launch=True)
            row["ktune_over_torch"] = row["torch_us"] / row["ktune_masked_select_us"]
            row["compact_over_torch"] = row["torch_us"] / row["ktune_compact_us"]
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
