"""One GEMM peer launched again and again at one bf16 shape, for a profiler or a clock
trace: Triton's persistent TMA matmul at one config (torch_gemm.py's, C read as the
tuner's harness does), cuBLAS's torch.mm (C = A B) or torch.addmm (C read).

    python3 templates/gemm/bench/peer_loop.py tma|mm|addmm SECONDS M N K [BM BN STAGES]
"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_gemm as tg  # noqa: E402 (this folder)


def main():
    what, seconds = sys.argv[1], float(sys.argv[2])
    m, n, k = (int(v) for v in sys.argv[3:6])
    bm, bn, stages = (int(v) for v in (sys.argv[6:9] or (128, 256, 3)))
    if what == "tma":  # one config, so the autotuner launches nothing else
        tg.triton_matmul_tma.configs = [c for c in tg.triton_matmul_tma.configs
                                        if (c.kwargs["BM"], c.kwargs["BN"], c.num_stages) == (bm, bn, stages)]
        if not tg.triton_matmul_tma.configs:
            sys.exit(f"peer_loop: no Triton TMA config {bm}x{bn}, {stages} stages (torch_gemm.TMA_CONFIGS)")
    a = torch.rand(m, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
    b = torch.rand(k, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
    c0 = torch.rand(m, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
    c = torch.empty_like(c0)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    run = {"tma": lambda: tg.run_triton_tma(a, b, c0, c, sms),
           "mm": lambda: torch.mm(a, b, out=c),
           "addmm": lambda: torch.addmm(c0, a, b, beta=tg.BETA, alpha=tg.ALPHA, out=c)}[what]
    run()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    done, t0 = 0, time.time()
    start.record()
    while time.time() - t0 < seconds:
        for _ in range(10):
            run()
        done += 10
        torch.cuda.synchronize()
    stop.record()
    stop.synchronize()
    print(f"{what} {m}x{n}x{k}: {done} launches, {start.elapsed_time(stop) * 1e3 / done:.1f} us each back to back")


if __name__ == "__main__":
    main()
