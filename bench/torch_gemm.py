"""Peers of the GEMM benchmark: cuBLAS through torch.addmm with TF32 off, and for f16 and
bf16 a Triton matmul autotuned over 16 configs the way the Triton tutorial does it,
each computing what ktune's tuner times, C = 1.25 A B - 0.75 C0 (C0 read, C written),
and cuBLAS's plain C = A B (torch.mm) besides; each timed like ktune times (events around the call only, L2 flushed before each
repetition, median of 30; Triton's launch hidden behind a spin kernel). Arguments
DTYPE:MxNxK[:LAYOUT]; one JSON line each. A transposed operand (layout nt, tn, tt) is
stored transposed and passed as a .t() view, which cuBLAS reads as a transposed operand
without a copy and Triton through its strides. Triton's result is checked against
cuBLAS's before it is timed.

    python3 bench/torch_gemm.py f32:4096x4096x4096 bf16:4095x4097x1023:tn
"""
import json
import sys

import torch

from peer_timing import l2_flush_buffer, timed

try:
    import triton
    import triton.language as tl
except ImportError:  # the cuBLAS column alone
    triton = None

if triton:
    # (BM, BN, BK, stages, warps), grouped tile order of 8 tile rows, as in the tutorial.
    CONFIGS = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
               (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
               (128, 256, 128, 3, 8), (256, 128, 128, 3, 8), (256, 64, 128, 4, 4), (64, 256, 128, 4, 4),
               (128, 128, 128, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (128, 32, 64, 4, 4)]

    @triton.autotune(configs=[triton.Config({"BM": bm, "BN": bn, "BK": bk}, num_stages=s, num_warps=w)
                              for bm, bn, bk, s, w in CONFIGS],
                     key=["M", "N", "K", "sam", "sak", "sbk", "sbn"])
    @triton.jit
    def triton_matmul(a, b, c0, c, M, N, K, sam, sak, sbk, sbn, scm, alpha, beta, BM: tl.constexpr,
                      BN: tl.constexpr, BK: tl.constexpr):
        pid = tl.program_id(0)
        tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
        per_group = 8 * tiles_n
        first = pid // per_group * 8
        rows = min(tiles_m - first, 8)
        pm = first + pid % per_group % rows
        pn = pid % per_group // rows
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        pa = a + rm[:, None] * sam + rk[None, :] * sak
        pb = b + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, tl.cdiv(K, BK)):
            left = K - k0 * BK
            x = tl.load(pa, mask=(rm[:, None] < M) & (rk[None, :] < left), other=0.0)
            y = tl.load(pb, mask=(rk[:, None] < left) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc)
            pa += BK * sak
            pb += BK * sbk
        at = rm[:, None] * scm + rn[None, :]
        inside = (rm[:, None] < M) & (rn[None, :] < N)
        acc = alpha * acc + beta * tl.load(c0 + at, mask=inside, other=0.0).to(tl.float32)
        tl.store(c + at, acc.to(c.dtype.element_ty), mask=inside)

    def run_triton(a, b, c0, c):
        m, k = a.shape
        n = b.shape[1]
        grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
        triton_matmul[grid](a, b, c0, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                            ALPHA, BETA)

ALPHA, BETA = 1.25, -0.75  # ktune's tuner's (GemmHarness): beta != 0 reads C
DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16,
          "tf32": torch.float32}  # tf32: f32 tensors, cuBLAS with TF32 allowed, Triton's tl.dot in TF32


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    flush = l2_flush_buffer()
    for arg in sys.argv[1:]:
        name, shape, layout = (arg.split(":") + ["nn"])[:3]
        m, n, k = (int(v) for v in shape.split("x"))
        dt = DTYPES[name]
        torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
        def operand(rows, cols, transposed):  # values in [-1, 1), stored transposed if asked
            if transposed:
                return (torch.rand(cols, rows, device="cuda", dtype=dt) * 2 - 1).t()
            return torch.rand(rows, cols, device="cuda", dtype=dt) * 2 - 1
        a, b = operand(m, k, layout[0] == "t"), operand(k, n, layout[1] == "t")
        c0, c, d = operand(m, n, False), torch.empty(m, n, device="cuda", dtype=dt), torch.empty(m, n, device="cuda", dtype=dt)
        t = timed(lambda: torch.addmm(c0, a, b, beta=BETA, alpha=ALPHA, out=c), flush)
        row = {"dtype": name, "shape": shape, "layout": layout, "device": props.name, "torch_us": t,
               "torch_tflops": 2 * m * n * k / t / 1e6, "torch_version": torch.__version__,
               "torch_mm_us": timed(lambda: torch.mm(a, b, out=d), flush)}
        if triton and name in ("f16", "bf16", "tf32"):
            ct = torch.empty_like(c)
            run_triton(a, b, c0, ct)  # autotunes at this shape and these strides
            err = (ct.float() - c.float()).abs().max().item()
            scale = c.float().abs().max().item()
            if err > 0.02 * scale + 0.05:
                print(f"triton {arg}: max error {err} (cuBLAS max {scale})", file=sys.stderr)
            else:
                row["triton_us"] = timed(lambda: run_triton(a, b, c0, ct), flush, hide_launch=True)
                row["triton_config"] = str(triton_matmul.best_config)
                row["triton_version"] = triton.__version__
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
