"""Peers of the GEMM benchmark: cuBLAS through torch.addmm with TF32 off, and for f16 and
bf16 a Triton matmul autotuned over 16 configs the way the Triton tutorial does it and
Triton's persistent TMA matmul (8 configs; rows 16-byte aligned only),
each computing what ktune's tuner times, C = 1.25 A B - 0.75 C0 (C0 read, C written),
and cuBLAS's plain C = A B (torch.mm) besides; with the shim (first argument, a .so),
ktune's stored winner through its runtime call too, for both (C in place); each timed
like ktune times (events around the call only, L2 flushed before each
repetition, median of 30; every launch hidden behind a spin kernel, so that host-side
launch costs stay out: Triton's are tens of microseconds). Arguments
DTYPE:MxNxK[:LAYOUT]; one JSON line each. With --counters, each line also has the
hardware counters (ktune.counters, the default metrics, L2 flushed before each pass)
of C = A B by ktune's runtime call, cuBLAS (torch.mm) and the Triton matmuls, under
"counters". A transposed operand (layout nt, tn, tt) is
stored transposed and passed as a .t() view, which cuBLAS reads as a transposed operand
without a copy and Triton through its strides. Triton's result is checked against
cuBLAS's before it is timed.

    python3 templates/gemm/bench/torch_gemm.py [build/bench/libktune_bench_shim.so] [--counters] [--no-triton] f32:4096x4096x4096 bf16:4095x4097x1023:tn
"""
import ctypes
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench"))
from peer_timing import counted, counters_wanted, ktune_package, l2_flush_buffer, timed  # noqa: E402 (bench/peer_timing.py, shared by every bench)

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

    # Triton's persistent TMA matmul, as its tutorial (09-persistent-matmul) builds it: one
    # program per SM walking the tiles in grouped order, operands and C through host-side
    # TMA descriptors (a transposed operand: a descriptor over its storage, each block
    # transposed after the load). Needs 16-byte aligned rows; other pitches are skipped.
    from triton.tools.tensor_descriptor import TensorDescriptor

    def _tma_blocks(nargs):  # a config's block shapes, set on the descriptors before each launch
        bm, bn, bk = nargs["BM"], nargs["BN"], nargs["BK"]
        nargs["a_desc"].block_shape = [bk, bm] if nargs["A_T"] else [bm, bk]
        nargs["b_desc"].block_shape = [bn, bk] if nargs["B_T"] else [bk, bn]
        nargs["c0_desc"].block_shape = [bm, bn]
        nargs["c_desc"].block_shape = [bm, bn]

    TMA_CONFIGS = [(128, 256, 64, 3, 8), (128, 256, 64, 4, 8), (128, 128, 64, 3, 8), (128, 128, 64, 4, 4),
                   (128, 128, 128, 3, 8), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (256, 128, 64, 3, 8)]

    @triton.autotune(configs=[triton.Config({"BM": bm, "BN": bn, "BK": bk}, num_stages=s, num_warps=w,
                                            pre_hook=_tma_blocks) for bm, bn, bk, s, w in TMA_CONFIGS],
                     key=["M", "N", "K", "A_T", "B_T"])
    @triton.jit
    def triton_matmul_tma(a_desc, b_desc, c0_desc, c_desc, M, N, K, alpha, beta, NUM_SMS: tl.constexpr,
                          A_T: tl.constexpr, B_T: tl.constexpr, OUT: tl.constexpr, BM: tl.constexpr,
                          BN: tl.constexpr, BK: tl.constexpr):
        tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
        per_group = 8 * tiles_n
        for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_SMS):
            first = tile // per_group * 8
            rows = min(tiles_m - first, 8)
            om = (first + tile % per_group % rows) * BM
            on = (tile % per_group // rows) * BN
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for k0 in range(0, tl.cdiv(K, BK)):
                ok = k0 * BK
                if A_T:
                    x = tl.trans(a_desc.load([ok, om]))
                else:
                    x = a_desc.load([om, ok])
                if B_T:
                    y = tl.trans(b_desc.load([on, ok]))
                else:
                    y = b_desc.load([ok, on])
                acc = tl.dot(x, y, acc)
            acc = alpha * acc + beta * c0_desc.load([om, on]).to(tl.float32)
            c_desc.store([om, on], acc.to(OUT))

    def tma_storage(x):
        """The row-major tensor an operand is stored as (a transposed one: its .t())."""
        return x.t() if x.stride(0) == 1 and x.stride(1) != 1 else x

    def tma_ready(*tensors):
        """Why TMA descriptors cannot cover these (row-major storage), or None."""
        for x in tensors:
            if x.stride(1) != 1 or (x.stride(0) * x.element_size()) % 16 or x.data_ptr() % 16:
                return "a row pitch or base not 16-byte aligned (TMA needs it)"
        return None

    def run_triton_tma(a, b, c0, c, sms):
        m, k = a.shape
        n = b.shape[1]
        a_src, b_src = tma_storage(a), tma_storage(b)
        a_t, b_t = a_src is not a, b_src is not b
        descs = [TensorDescriptor.from_tensor(x, [16, 16]) for x in (a_src, b_src, c0, c)]
        out = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32}[c.dtype]
        grid = lambda meta: (min(sms, triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"])),)
        triton_matmul_tma[grid](*descs, m, n, k, ALPHA, BETA, NUM_SMS=sms, A_T=a_t, B_T=b_t, OUT=out)

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


def operand(rows, cols, transposed, dtype):
    """A rows x cols operand, values in [-1, 1), stored transposed (a .t() view) if asked."""
    if transposed:
        return (torch.rand(cols, rows, device="cuda", dtype=dtype) * 2 - 1).t()
    return torch.rand(rows, cols, device="cuda", dtype=dtype) * 2 - 1


def close(x, ref):
    return (x.float() - ref.float()).abs().max().item() <= 0.02 * ref.float().abs().max().item() + 0.05


def tma_peer(a, b, c0, c, sms, flush, arg):
    """Triton's persistent TMA matmul at this problem: its time and config, or why not."""
    why = tma_ready(tma_storage(a), tma_storage(b), c0, c)
    if why:
        return {"triton_tma_skipped": why}
    ct = torch.empty_like(c)
    try:
        run_triton_tma(a, b, c0, ct, sms)  # autotunes here
    except Exception as e:  # a Triton version without this API, or a config it cannot build
        print(f"triton tma {arg}: {type(e).__name__}: {e}", file=sys.stderr)
        return {"triton_tma_error": f"{type(e).__name__}: {str(e)[:300]}"}
    if not close(ct, c):
        print(f"triton tma {arg}: max error {(ct.float() - c.float()).abs().max().item()}", file=sys.stderr)
        return {"triton_tma_error": "differs from cuBLAS"}
    return {"triton_tma_us": timed(lambda: run_triton_tma(a, b, c0, ct, sms), flush, hide_launch=True),
            "triton_tma_config": str(triton_matmul_tma.best_config)}


def main():
    global ktune_py, triton
    args = sys.argv[1:]
    if "--no-triton" in args:  # the cuBLAS columns alone (Triton autotunes about 10 s a shape)
        args, triton = [a for a in args if a != "--no-triton"], None
    ktune = Ktune(args.pop(0)) if args and args[0].endswith(".so") else None
    ktune_py = ktune_package(os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[1]))), "torch_gemm") if ktune else None
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    flush = l2_flush_buffer()
    args, session = counters_wanted(args)
    for arg in args:
        name, shape, layout = (arg.split(":") + ["nn"])[:3]
        m, n, k = (int(v) for v in shape.split("x"))
        dt = DTYPES[name]
        torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
        a, b = operand(m, k, layout[0] == "t", dt), operand(k, n, layout[1] == "t", dt)
        c0, c, d = operand(m, n, False, dt), torch.empty(m, n, device="cuda", dtype=dt), torch.empty(m, n, device="cuda", dtype=dt)
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
            row.update(tma_peer(a, b, c0, c, props.multi_processor_count, flush, arg))
        if session:  # C = A B by each (Triton's run C = 1.25 A B - 0.75 C0: one C read more)
            runs = [("cublas", lambda: torch.mm(a, b, out=d))]
            if "ktune_rt_mm_us" in row:
                runs.insert(0, ("ktune", lambda: ktune.gemm(dk, a, b, layout, name, 1.0, 0.0)))
            if "triton_us" in row:
                runs.append(("triton", lambda: run_triton(a, b, c0, ct)))
            if "triton_tma_us" in row:
                runs.append(("triton_tma", lambda: run_triton_tma(a, b, c0, ct, props.multi_processor_count)))
            row["counters"] = {peer: counted(session, flush, fn) for peer, fn in runs}
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
