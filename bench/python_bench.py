"""The Python package against the C++ call and PyTorch, in one process (issue 53):
  python3 bench/python_bench.py BUILD_DIR [ROWSxCOLS ...]   (default 8192x2048 8191x4097)
- GPU time (events, L2 flushed, median; bench/peer_timing.py) of ktune.transpose, of the
  C++ runtime call through the benchmarks' C shim (bench/ktune_bench_shim.cpp, same
  stream, same arrays) and of x.t().contiguous(), per shape;
- host time per call on a 64x64 f32 matrix (100000 calls each, synchronized every 256):
  ktune.transpose(x, out=y), the shim's call, and x.t().contiguous().
Prints one JSON line per measurement. Tune the shapes first (`ktune tune transpose ...`)
so both calls run the stored winner."""
import ctypes
import json
import os
import sys
import time
from pathlib import Path

import torch

build = Path(sys.argv[1]).resolve()
os.environ.setdefault("KTUNE_LIBRARY", str(build / "runtime" / "libktune.so"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import ktune  # noqa: E402
from peer_timing import l2_flush_buffer, timed  # noqa: E402

shim = ctypes.CDLL(str(build / "bench" / "libktune_bench_shim.so"))
shim.ktune_bench_gemm.restype = ctypes.c_int
shim.ktune_bench_gemm.argtypes = [ctypes.c_uint64] * 3 + [ctypes.c_int64] * 6 + [ctypes.c_double, ctypes.c_double,
                                                                                 ctypes.c_char_p, ctypes.c_char_p,
                                                                                 ctypes.c_int, ctypes.c_uint64]
shim.ktune_bench_transpose.restype = ctypes.c_int
shim.ktune_bench_transpose.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                       ctypes.c_int64, ctypes.c_char_p, ctypes.c_uint64]


def cpp_call(x, y):
    rows, cols = x.shape
    s = torch.cuda.current_stream().cuda_stream
    if shim.ktune_bench_transpose(y.data_ptr(), x.data_ptr(), rows, cols, rows, cols, b"f32", s) != 0:
        raise RuntimeError("shim call failed")


def host_us(fn, calls=100000):
    total, done = 0.0, 0
    while done < calls:
        t = time.perf_counter()
        for _ in range(256):
            fn()
        total += time.perf_counter() - t
        done += 256
        torch.cuda.synchronize()
    return total / done * 1e6


flush = l2_flush_buffer()
device = torch.cuda.get_device_properties(0).name
for shape in sys.argv[2:] or ["8192x2048", "8191x4097"]:
    rows, cols = map(int, shape.split("x"))
    x = torch.randn(rows, cols, device="cuda")
    y = torch.empty(cols, rows, device="cuda")
    py = timed(lambda: ktune.transpose(x, out=y), flush)
    info = ktune.last_launch()
    cpp = timed(lambda: cpp_call(x, y), flush)
    py2 = timed(lambda: ktune.transpose(x, out=y), flush)
    torch_us = timed(lambda: x.t().contiguous(), flush)
    assert torch.equal(y, x.t())
    print(json.dumps({"shape": shape, "device": device, "python_us": min(py, py2), "cpp_us": cpp,
                      "python_over_cpp": min(py, py2) / cpp, "torch_us": torch_us, "torch_over_python": torch_us / min(py, py2),
                      "match": info["match"], "config": info["config"]}))

# GEMM (KTUNE_BENCH_GEMM="MxNxK ...", bf16 nn; tune them first): ktune.gemm, the C++
# call, torch.mm on the same tensors.
for shape in os.environ.get("KTUNE_BENCH_GEMM", "").split():
    m, n, k = map(int, shape.split("x"))
    a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda").to(torch.bfloat16)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)

    def cpp_gemm():
        s = torch.cuda.current_stream().cuda_stream
        if shim.ktune_bench_gemm(c.data_ptr(), a.data_ptr(), b.data_ptr(), m, n, k, k, n, n, 1.0, 0.0, b"bf16", b"nn",
                                 0, s) != 0:
            raise RuntimeError("shim gemm failed")

    py = timed(lambda: ktune.gemm(a, b, out=c), flush)
    info = ktune.last_launch()
    cpp = timed(cpp_gemm, flush)
    py2 = timed(lambda: ktune.gemm(a, b, out=c), flush)
    mm = timed(lambda: torch.mm(a, b), flush)
    err = ((c.float() - a.float() @ b.float()).abs().max() / (a.float() @ b.float()).abs().max()).item()
    print(json.dumps({"gemm": shape, "dtype": "bf16", "device": device, "python_us": min(py, py2), "cpp_us": cpp,
                      "python_over_cpp": min(py, py2) / cpp, "torch_mm_us": mm, "torch_over_python": mm / min(py, py2),
                      "max_rel_err": err, "match": info["match"], "config": info["config"]}))

x = torch.randn(64, 64, device="cuda")
y = torch.empty(64, 64, device="cuda")
for _ in range(1000):
    ktune.transpose(x, out=y)
    cpp_call(x, y)
torch.cuda.synchronize()
print(json.dumps({"host_us_per_call_64x64": {"ktune.transpose": host_us(lambda: ktune.transpose(x, out=y)),
                                             "cpp_via_shim": host_us(lambda: cpp_call(x, y)),
                                             "torch_t_contiguous": host_us(lambda: x.t().contiguous()),
                                             "ktune.transpose_again": host_us(lambda: ktune.transpose(x, out=y))},
                  "device": device}))
