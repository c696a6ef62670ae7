"""cuBLAS peer for the GEMM benchmark: torch.mm with TF32 off (cuBLAS SGEMM/DGEMM),
timed like ktune times (events around the call only, L2 flushed before each
repetition, median of 30). Arguments DTYPE:MxNxK; one JSON line each.

    python3 bench/torch_gemm.py f32:4096x4096x4096 f32:4095x4097x1023
"""
import json
import sys

import torch

from peer_timing import l2_flush_buffer, timed

DTYPES = {"f32": torch.float32, "f64": torch.float64}


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    flush = l2_flush_buffer()
    for arg in sys.argv[1:]:
        name, shape = arg.split(":")
        m, n, k = (int(v) for v in shape.split("x"))
        a = torch.rand(m, k, device="cuda", dtype=DTYPES[name]) * 2 - 1
        b = torch.rand(k, n, device="cuda", dtype=DTYPES[name]) * 2 - 1
        c = torch.empty(m, n, device="cuda", dtype=DTYPES[name])
        t = timed(lambda: torch.mm(a, b, out=c), flush)
        print(json.dumps({"dtype": name, "shape": shape, "device": props.name, "torch_us": t,
                          "torch_tflops": 2 * m * n * k / t / 1e6, "torch_version": torch.__version__}), flush=True)


if __name__ == "__main__":
    main()
