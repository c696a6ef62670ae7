"""Where a GEMM call's device time goes: torch.profiler's device events of ktune's runtime
call (the stored winner, else the untuned pick: operand copies, kernel, split-K sum) and of
torch.mm at each shape, three calls each after warm-up, averaged per event name.

    python3 templates/gemm/bench/gemm_where.py BUILD/bench/libktune_bench_shim.so dtype:MxNxK[:layout] ...
"""
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_gemm as tg  # noqa: E402 (this folder)


def device_times(fn, calls=3):
    """Each device event name of `calls` calls of fn: its mean time (us) and count a call."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    parts = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            parts.setdefault(e.name[:90], []).append(e.device_time)
    return "; ".join(f"{name} {sum(t) / len(t):.1f}us x{len(t) // calls}" for name, t in parts.items())


def main():
    if len(sys.argv) < 3 or not sys.argv[1].endswith(".so"):
        sys.exit(__doc__)
    ktune = tg.Ktune(sys.argv[1])
    for arg in sys.argv[2:]:
        name, shape, layout = (arg.split(":") + ["nn"])[:3]
        if name not in tg.DTYPES or layout not in ("nn", "nt", "tn", "tt"):
            sys.exit(f"gemm_where: '{arg}' is not dtype:MxNxK[:layout]")
        m, n, k = (int(v) for v in shape.split("x"))
        dt = tg.DTYPES[name]
        a, b = tg.operand(m, k, layout[0] == "t", dt), tg.operand(k, n, layout[1] == "t", dt)
        d = torch.empty(m, n, device="cuda", dtype=dt)
        print(f"{arg} ktune: {device_times(lambda: ktune.gemm(d, a, b, layout, name, 1.0, 0.0))}", flush=True)
        print(f"{arg} torch: {device_times(lambda: torch.mm(a, b, out=d))}", flush=True)
        print(f"{arg} ktune config: {ktune.message()}", flush=True)


if __name__ == "__main__":
    main()
