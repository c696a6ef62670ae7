"""Runs the bench's Triton transpose with one fixed config a few times, for Nsight
Compute to profile next to ktune's config (templates/transpose/bench/transpose_profile.sh):

    python3 templates/transpose/bench/transpose_ncu_triton.py f32 8191x4097 128 32 4   # dtype shape BM BN num_warps
"""
import sys

import torch
import triton

from transpose_peers import DTYPES, triton_transpose


def main():
    name, shape, bm, bn, warps = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
    rows, cols = (int(v) for v in shape.split("x"))
    src = torch.randint(0, 100, (rows, cols), device="cuda").to(DTYPES[name])
    dst = torch.empty(cols, rows, device="cuda", dtype=src.dtype)
    grid = (triton.cdiv(rows, bm) * triton.cdiv(cols, bn),)
    for _ in range(5):  # the autotuner's wrapped kernel, at this one config
        triton_transpose.fn[grid](dst, src, rows, cols, rows, cols, BM=bm, BN=bn, num_warps=warps)
    torch.cuda.synchronize()
    assert torch.equal(dst, src.t()), "triton transpose differs from torch"


if __name__ == "__main__":
    main()
