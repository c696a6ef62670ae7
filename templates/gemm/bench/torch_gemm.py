"""Peers of the GEMM benchmark: cuBLAS through torch.addmm with TF32 off, and for f16 and
bf16 a Triton matmul autotuned over 16 configs the way the Triton tutorial does it,
each computing what ktune's tuner times, C = 1.25 A B - 0.75 C0 (C0 read, C written),
and cuBLAS's plain C = A B (torch.mm) besides; with the shim (first argument, a .so),
ktune's stored winner through its runtime call too, for both (C in place); each timed
like ktune times (events around the call only, L2 flushed before each
repetition, median of 30; every launch hidden behind a spin kernel, so that host-side
launch costs stay out: Triton's are tens of microseconds). Arguments
DTYPE:MxNxK[:LAYOUT]; one JSON line each. A transposed operand (layout nt, tn, tt) is
stored transposed and passed as a .t() view, which cuBLAS reads as a transposed operand
without a copy and Triton through its strides. Triton's result is checked against
cuBLAS's before it is timed.

    python3 templates/gemm/bench/torch_gemm.py [build/bench/libktune_bench_shim.so] f32:4096x4096x4096 bf16:4095x4097x1023:tn
"""
import ctypes
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench"))
from peer_timing import ktune_package, l2_flush_buffer, timed  # noqa: E402 (bench/peer_timing.py, shared by every bench)

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


class Ktune:
    """ktune's runtime call (the stored winner, as an application gets it) via the shim."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        i64, u64 = ctypes.c_int64, ctypes.c_uint64
        self.lib.ktune_bench_gemm.restype = ctypes.c_int
        self.lib.ktune_bench_gemm.argtypes = [u64, u64, u64, i64, i64, i64, i64, i64, i64, ctypes.c_double,
                                              ctypes.c_double, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, u64]
        self.lib.ktune_bench_message.restype = ctypes.c_char_p

    def gemm(self, c, a, b, layout, dtype, alpha, beta):
        """C = alpha op(A) op(B) + beta C in place; a "t" operand is a .t() view of its storage."""
        m, k = a.shape
        n = b.shape[1]
        lda = a.stride(0) if layout[0] == "n" else a.stride(1)
        ldb = b.stride(0) if layout[1] == "n" else b.stride(1)
        if self.lib.ktune_bench_gemm(c.data_ptr(), a.data_ptr(), b.data_ptr(), m, n, k, lda, ldb, c.stride(0), alpha,
                                     beta, dtype.replace("tf32", "f32").encode(), layout.encode(),
                                     int(dtype == "tf32"), torch.cuda.current_stream().cuda_stream) != 0:
            raise RuntimeError("ktune: " + self.message())

    def message(self):
        return self.lib.ktune_bench_message().decode()


ktune_py = None  # the Python package, when it loads (main)


def close(x, ref):
    return (x.float() - ref.float()).abs().max().item() <= 0.02 * ref.float().abs().max().item() + 0.05


def main():
    global ktune_py
    args = sys.argv[1:]
    ktune = Ktune(args.pop(0)) if args and args[0].endswith(".so") else None
    ktune_py = ktune_package(os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[1]))), "torch_gemm") if ktune else None
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    flush = l2_flush_buffer()
    for arg in args:
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
        t = timed(lambda: torch.addmm(c0, a, b, beta=BETA, alpha=ALPHA, out=c), flush, hide_launch=True)
        row = {"dtype": name, "shape": shape, "layout": layout, "device": props.name, "torch_us": t,
               "torch_tflops": 2 * m * n * k / t / 1e6, "torch_version": torch.__version__,
               "torch_mm_us": timed(lambda: torch.mm(a, b, out=d), flush, hide_launch=True)}
        if ktune:  # checked against cuBLAS first, then timed in place (launch hidden, as Triton's)
            ck, dk = c0.clone(), torch.empty_like(d)
            ktune.gemm(ck, a, b, layout, name, ALPHA, BETA)
            ktune.gemm(dk, a, b, layout, name, 1.0, 0.0)
            if not close(ck, c) or not close(dk, d):
                print(f"ktune runtime {arg}: differs from cuBLAS ({ktune.message()})", file=sys.stderr)
            else:
                row["ktune_rt_us"] = timed(lambda: ktune.gemm(ck, a, b, layout, name, ALPHA, BETA), flush,
                                           hide_launch=True)
                row["ktune_rt_mm_us"] = timed(lambda: ktune.gemm(dk, a, b, layout, name, 1.0, 0.0), flush,
                                              hide_launch=True)
                row["ktune_rt"] = ktune.message()
                if ktune_py:  # the Python package's call on the same tensors (C = A B)
                    ktune_py.gemm(a, b, out=dk, math="tf32" if name == "tf32" else "auto")
                    row["python_mm_us"] = timed(lambda: ktune_py.gemm(a, b, out=dk, math="tf32" if name == "tf32"
                                                                      else "auto"), flush, hide_launch=True)
        if triton and name in ("f16", "bf16", "tf32"):
            ct = torch.empty_like(c)
            run_triton(a, b, c0, ct)  # autotunes at this shape and these strides
            if not close(ct, c):
                print(f"triton {arg}: max error {(ct.float() - c.float()).abs().max().item()}", file=sys.stderr)
            else:
                row["triton_us"] = timed(lambda: run_triton(a, b, c0, ct), flush, hide_launch=True)
                row["triton_config"] = str(triton_matmul.best_config)
                row["triton_version"] = triton.__version__
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
