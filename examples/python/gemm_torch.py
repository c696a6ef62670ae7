"""ktune.gemm in place of torch.mm: tune a bf16 GEMM shape once (the ktune tuner in a
child process), then call the stored winner on torch tensors, operands transposed by
view as the layout, checked against torch.mm and timed beside it.

    python3 examples/python/gemm_torch.py [MxNxK [EVALS]]     (4095x4097x1023, 60)

From a checkout with a build: PYTHONPATH=python; after `pip install .`, as it is."""
import sys

import torch

import ktune

m, n, k = map(int, (sys.argv[1] if len(sys.argv) > 1 else "4095x4097x1023").split("x"))
evals = int(sys.argv[2]) if len(sys.argv) > 2 else 60
for layout in ("nn", "tn"):
    summary = ktune.tune("gemm", dtype="bf16", shape=(m, n, k), layout=layout, strategy="model", budget_evals=evals,
                         quiet=True)
    print(f"tuned {layout}: {summary['winner']['median_us']:.1f} us, {summary['winner']['config']}")

a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
a_t = torch.randn(k, m, device="cuda").to(torch.bfloat16).t()  # an m x k view of a transposed matrix: layout tn
b = torch.randn(k, n, device="cuda").to(torch.bfloat16)
for name, lhs in (("nn", a), ("tn", a_t)):
    c = ktune.gemm(lhs, b)
    want = torch.mm(lhs, b)
    err = ((c.float() - want.float()).abs().max() / want.float().abs().max()).item()

    def median_us(fn, reps=50):
        times = []
        for _ in range(reps):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(2_000_000)  # the host's launch work hidden behind a spin kernel
            s.record()
            fn()
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e) * 1e3)
        return sorted(times)[len(times) // 2]

    ours, theirs = median_us(lambda: ktune.gemm(lhs, b, out=c)), median_us(lambda: torch.mm(lhs, b))
    print(f"bf16 {name} {m}x{n}x{k}: ktune.gemm {ours:.1f} us, torch.mm {theirs:.1f} us ({theirs / ours:.2f}x), "
          f"max relative difference {err:.2g} ({ktune.last_launch()['match']})")
