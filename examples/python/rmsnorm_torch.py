"""A user's kernel from PyTorch: tune examples/rmsnorm/rmsnorm.cu for a problem (the
ktune tuner in a child process), then call the stored winner on torch tensors inside a
torch.compile(fullgraph=True) function, checked against F.rms_norm and timed beside it.

    python3 examples/python/rmsnorm_torch.py [ROWS COLS [DTYPE]]     (16384 4096 bf16)

From a checkout with a build: PYTHONPATH=python (libktune.so and the tuner are found in
build/); after `pip install .`, as it is."""
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

import ktune

KERNEL = Path(__file__).resolve().parents[1] / "rmsnorm" / "rmsnorm.cu"
rows, cols = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (16384, 4096)
dtype = sys.argv[3] if len(sys.argv) > 3 else "bf16"
torch_dtype = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[dtype]

summary = ktune.tune_kernel(KERNEL, {"rows": rows, "cols": cols, "T": dtype}, quiet=True)
print(f"tuned: {summary['winner']['config']}, {summary['winner']['median_us']:.1f} us, "
      f"{100 * summary['winner']['ceiling_fraction']:.1f}% of memcpy")

rmsnorm = ktune.Kernel(KERNEL, "rmsnorm", dtype)


@torch.compile(fullgraph=True)
def normalized(x, w):
    y = torch.empty_like(x)
    rmsnorm(y, x, w, x.shape[0], x.shape[1], 1e-6, problem={"rows": x.shape[0], "cols": x.shape[1]})
    return y


x = (torch.rand(rows, cols, device="cuda") * 4 - 2).to(torch_dtype)
w = (torch.rand(cols, device="cuda") + 0.5).to(torch_dtype)
y = normalized(x, w)
want = F.rms_norm(x.float(), (cols,), w.float(), 1e-6)
print(f"max |ktune - F.rms_norm in f32| = {(y.float() - want).abs().max().item():.3g}")


def median_us(fn, reps=50):
    """GPU time between events around fn, the host's launch work hidden behind a spin
    kernel queued first (as bench/peer_timing.py's hide_launch)."""
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(2_000_000)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    return sorted(times)[len(times) // 2]


out = torch.empty_like(x)


def eager():
    rmsnorm(out, x, w, rows, cols, 1e-6, problem={"rows": rows, "cols": cols})


for _ in range(10):
    normalized(x, w), eager(), F.rms_norm(x, (cols,), w, 1e-6)
compiled, direct = median_us(lambda: normalized(x, w)), median_us(eager)
theirs = median_us(lambda: F.rms_norm(x, (cols,), w, 1e-6))
print(f"{dtype} {rows}x{cols} (GPU time, warm L2, one process): ktune in torch.compile {compiled:.1f} us, ktune "
      f"called directly {direct:.1f} us, F.rms_norm {theirs:.1f} us ({theirs / compiled:.2f}x and {theirs / direct:.2f}x)")


def host_us(fn, calls=2000):
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


small = (torch.rand(64, cols, device="cuda")).to(torch_dtype)
small_out = torch.empty_like(small)
normalized(small, w)
rmsnorm(small_out, small, w, 64, cols, 1e-6, problem={"rows": 64, "cols": cols})
print(f"host time per call at 64x{cols}: torch.compile'd {host_us(lambda: normalized(small, w)):.1f} us, direct "
      f"{host_us(lambda: rmsnorm(small_out, small, w, 64, cols, 1e-6, problem={'rows': 64, 'cols': cols})):.1f} us, "
      f"F.rms_norm {host_us(lambda: F.rms_norm(small, (cols,), w, 1e-6)):.1f} us")
