"""Transpose peers, one process, one protocol: ktune's stored winner through the runtime
call (libktune_bench_shim.so, ctypes), the Triton kernel autotuned the way Triton users
write it (over the usual space and a wider one), PyTorch, and a memcpy of the same bytes (the ceiling). Every output is checked
against PyTorch's before timing. One JSON line per problem.

    python3 templates/transpose/bench/transpose_peers.py SHIM.so [--counters] f32:8192x2048 f32:8192x2048:2051:8195 ...

With --counters, each line also has each peer's hardware counters on the first buffer
set (ktune.counters, the default metrics, L2 flushed before each pass) under "counters".

A problem is DTYPE:ROWSxCOLS[:LD_SRC:LD_DST] (pitches in elements; default dense).
Timing (peer_timing.timed): the L2 flushed before each repetition, a spin kernel
queued ahead so that the host's launch cost (large for Triton) is not timed, events
around the op only, median of 30.

Placements: where a buffer lies in DRAM moves a copy of 33 MB by up to 5% (20.1 against
21.1 us on an H200) and ktune's transpose by about 1%, so one allocation made the
ceiling, and every ratio to it, a draw. Each problem is timed on KTUNE_BENCH_PLACEMENTS
(default 3) buffer sets allocated side by side, every peer on the same sets, and each
time is the median of the per-set medians (the per-set medians are in the JSON line).
Between runs on fresh machines the 33 MB memcpy still moves by up to 5%.
"""
import ctypes
import json
import os
import statistics
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench"))
from peer_timing import counted, counters_wanted, ktune_package, l2_flush_buffer, timed  # noqa: E402 (bench/peer_timing.py, shared by every bench)

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
          "u8": torch.uint8, "i8": torch.int8, "i16": torch.int16, "i32": torch.int32, "i64": torch.int64}


# The peer as Triton users write it: one BM x BN block loaded, its transpose stored,
# autotuned per shape and pitch (Triton specializes integer arguments divisible by 16 by
# itself), over two spaces: the usual one, BM, BN in {32, 64, 128} and num_warps in
# {2, 4, 8} (27 configs), and a wider one a careful user tries: BM, BN from 16 to 256 and
# 1 to 16 warps, keeping tiles of 2048-16384 elements at 8-64 elements per thread (54).
@triton.jit
def transpose_tile(dst, src, rows, cols, ld_dst, ld_src, BM: tl.constexpr, BN: tl.constexpr):
    # A 1-D grid: a 1 x n matrix has more column blocks than grid axis 1 allows.
    blocks_n = tl.cdiv(cols, BN)
    rm = (tl.program_id(0) // blocks_n) * BM + tl.arange(0, BM)
    rn = (tl.program_id(0) % blocks_n) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < rows) & (rn[None, :] < cols)
    x = tl.load(src + rm[:, None].to(tl.int64) * ld_src + rn[None, :], mask=mask)
    tl.store(dst + rn[:, None].to(tl.int64) * ld_dst + rm[None, :], tl.trans(x), mask=tl.trans(mask))


KEY = ["rows", "cols", "ld_src", "ld_dst"]
USUAL = [triton.Config({"BM": bm, "BN": bn}, num_warps=w) for bm in (32, 64, 128) for bn in (32, 64, 128)
         for w in (2, 4, 8)]
WIDE = [triton.Config({"BM": bm, "BN": bn}, num_warps=w) for bm in (16, 32, 64, 128, 256)
        for bn in (16, 32, 64, 128, 256) for w in (1, 2, 4, 8, 16)
        if 2048 <= bm * bn <= 16384 and 8 <= bm * bn // (32 * w) <= 64]
triton_transpose = triton.autotune(configs=USUAL, key=KEY)(transpose_tile)
triton_transpose_wide = triton.autotune(configs=WIDE, key=KEY)(transpose_tile)


def run_triton(kernel, dst, src, rows, cols, ld_dst, ld_src):
    grid = lambda meta: (triton.cdiv(rows, meta["BM"]) * triton.cdiv(cols, meta["BN"]),)
    kernel[grid](dst, src, rows, cols, ld_dst, ld_src)


def config_text(kernel):
    best = kernel.best_config
    return f"BM={best.kwargs['BM']} BN={best.kwargs['BN']} num_warps={best.num_warps}"


class Ktune:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.ktune_bench_transpose.restype = ctypes.c_int
        self.lib.ktune_bench_transpose.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int64, ctypes.c_int64,
                                                   ctypes.c_int64, ctypes.c_int64, ctypes.c_char_p, ctypes.c_uint64]
        self.lib.ktune_bench_message.restype = ctypes.c_char_p

    def transpose(self, dst, src, rows, cols, ld_dst, ld_src, dtype):
        stream = torch.cuda.current_stream().cuda_stream
        if self.lib.ktune_bench_transpose(dst.data_ptr(), src.data_ptr(), rows, cols, ld_dst, ld_src,
                                          dtype.encode(), stream) != 0:
            raise RuntimeError("ktune: " + self.message())

    def message(self):
        return self.lib.ktune_bench_message().decode()


def parse(arg):
    parts = arg.split(":")
    rows, cols = (int(v) for v in parts[1].split("x"))
    ld_src, ld_dst = (int(parts[2]), int(parts[3])) if len(parts) == 4 else (cols, rows)
    return parts[0], rows, cols, ld_src, ld_dst


def random_matrix(dtype, rows, ld):
    if dtype.is_floating_point:
        return torch.randn(rows, ld, device="cuda").to(dtype)
    return torch.randint(0, 100, (rows, ld), device="cuda", dtype=dtype)


def placements():
    count = int(os.environ.get("KTUNE_BENCH_PLACEMENTS", "3"))
    if count < 1:
        raise SystemExit("transpose_peers: KTUNE_BENCH_PLACEMENTS must be at least 1")
    return count


def record(results, name, each):
    """A peer's time: the median of its per-set medians, and those medians."""
    results[name + "_us"] = statistics.median(each)
    results[name + "_us_each"] = [round(t, 2) for t in each]


ktune_py = None  # the Python package, when it loads (main)


def measure(ktune, flush, arg, count, session=None):
    name, rows, cols, ld_src, ld_dst = parse(arg)
    dtype = DTYPES[name]
    # Every buffer set at once, so that each lies elsewhere in memory.
    srcs = [random_matrix(dtype, rows, ld_src) for _ in range(count)]
    dsts = [torch.empty(cols, ld_dst, device="cuda", dtype=dtype) for _ in range(count)]
    element_bytes = srcs[0].element_size()
    results = {"placements": count}
    peers = ("ktune", "python", "triton", "triton_wide", "torch") if ktune_py else ("ktune", "triton", "triton_wide", "torch")
    for peer in peers:
        each = []
        for src_buf, dst_buf in zip(srcs, dsts):
            src, dst = src_buf[:, :cols], dst_buf[:, :rows]
            op = {"ktune": lambda: ktune.transpose(dst_buf, src_buf, rows, cols, ld_dst, ld_src, name),
                  "python": lambda: ktune_py.transpose(src, out=dst),
                  "triton": lambda: run_triton(triton_transpose, dst_buf, src_buf, rows, cols, ld_dst, ld_src),
                  "triton_wide": lambda: run_triton(triton_transpose_wide, dst_buf, src_buf, rows, cols, ld_dst, ld_src),
                  "torch": lambda: dst.copy_(src.t())}[peer]
            dst_buf.fill_(77)  # poisoned
            op()  # Triton autotunes here, at this shape and pitch (once)
            torch.cuda.synchronize()
            if not torch.equal(dst, src.t()):
                raise RuntimeError(f"{peer} gives a wrong transpose at {arg}")
            each.append(timed(op, flush, hide_launch=True))
            if session and len(each) == 1:
                results.setdefault("counters", {})[peer] = counted(session, flush, op)
        record(results, peer, each)
    del srcs, dsts
    # The ceiling: a device-to-device copy of the bytes the transpose reads and writes,
    # rounded up to 16 (a copy of another size leaves the copy's fast path: 33,558,527 bytes
    # took 20.4-21.3 us where 33,558,528 took 17.7 on an H200, flattering odd shapes).
    copy_bytes = (rows * cols * element_bytes + 15) // 16 * 16
    copies = [(torch.empty(copy_bytes, device="cuda", dtype=torch.uint8),
               torch.empty(copy_bytes, device="cuda", dtype=torch.uint8)) for _ in range(count)]
    record(results, "copy", [timed(lambda: b.copy_(a), flush, hide_launch=True) for a, b in copies])
    del copies
    torch.cuda.empty_cache()
    return {"dtype": name, "shape": f"{rows}x{cols}", "ld_src": ld_src, "ld_dst": ld_dst,
            "bytes": 2 * rows * cols * element_bytes, **results, "ktune_launch": ktune.message(),
            "triton_config": config_text(triton_transpose), "triton_wide_config": config_text(triton_transpose_wide),
            "device": torch.cuda.get_device_properties(0).name, "torch_version": torch.__version__,
            "triton_version": triton.__version__}


def main():
    global ktune_py
    count = placements()  # a bad count fails before any GPU work
    ktune = Ktune(sys.argv[1])
    ktune_py = ktune_package(os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[1]))), "transpose_peers")
    flush = l2_flush_buffer()
    args, session = counters_wanted(sys.argv[2:])
    status = 0
    for arg in args:
        try:
            print(json.dumps(measure(ktune, flush, arg, count, session)), flush=True)
        except RuntimeError as e:  # one problem's failure is reported, the others still run
            print(f"transpose_peers: {arg}: {e}", file=sys.stderr)
            status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
