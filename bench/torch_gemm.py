"""cuBLAS peer for the GEMM benchmark: torch.mm with TF32 off (cuBLAS SGEMM/DGEMM),
timed like ktune times (events around the call only, L2 flushed before each
repetition, median of 30). Arguments DTYPE:MxNxK[:LAYOUT]; one JSON line each. A
transposed operand (layout nt, tn, tt) is stored transposed and passed as a .t() view,
which cuBLAS reads as a transposed operand without a copy.

    python3 bench/torch_gemm.py f32:4096x4096x4096 f32:4095x4097x1023:tn
"""
import json
import sys

import torch

from peer_timing import l2_flush_buffer, timed

DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    flush = l2_flush_buffer()
    for arg in sys.argv[1:]:
        name, shape, layout = (arg.split(":") + ["nn"])[:3]
        m, n, k = (int(v) for v in shape.split("x"))
        dt = DTYPES[name]
        def operand(rows, cols, transposed):  # values in [-1, 1), stored transposed if asked
            if transposed:
                return (torch.rand(cols, rows, device="cuda", dtype=dt) * 2 - 1).t()
            return torch.rand(rows, cols, device="cuda", dtype=dt) * 2 - 1
        a, b = operand(m, k, layout[0] == "t"), operand(k, n, layout[1] == "t")
        c = torch.empty(m, n, device="cuda", dtype=dt)
        t = timed(lambda: torch.mm(a, b, out=c), flush)
        print(json.dumps({"dtype": name, "shape": shape, "layout": layout, "device": props.name, "torch_us": t,
                          "torch_tflops": 2 * m * n * k / t / 1e6, "torch_version": torch.__version__}), flush=True)


if __name__ == "__main__":
    main()
