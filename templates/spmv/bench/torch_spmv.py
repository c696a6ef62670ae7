"""PyTorch's (cuSPARSE's) products for the spmv benchmark, timed like ktune times (events
around the op only, L2 flushed before each repetition, median of 30): torch.mv on the
matrix as sparse CSR (cusparseSpMV, CSR) and as sparse COO (cusparseSpMV, COO). One JSON
line per matrix file.

    python3 templates/spmv/bench/torch_spmv.py MATRIX.csr ...
"""
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench"))
from peer_timing import l2_flush_buffer, timed  # noqa: E402


def read(path):
    with open(path, "rb") as f:
        header = json.loads(f.readline())
        rows, nnz = header["rows"], header["nnz"]
        offsets = np.frombuffer(f.read(4 * (rows + 1)), dtype="<i4")
        cols = np.frombuffer(f.read(4 * nnz), dtype="<i4")
        values = np.frombuffer(f.read(4 * nnz), dtype="<f4")
    return header, offsets, cols, values


def main(paths):
    props = torch.cuda.get_device_properties(0)
    flush = l2_flush_buffer()
    for path in paths:
        h, offsets, cols, values = read(path)
        crow = torch.from_numpy(offsets.astype(np.int32)).cuda()
        col = torch.from_numpy(cols.astype(np.int32)).cuda()
        val = torch.from_numpy(values.copy()).cuda()
        a = torch.sparse_csr_tensor(crow, col, val, size=(h["rows"], h["cols"]))
        x = torch.randn(h["cols"], device="cuda")
        want = a.to_dense() @ x if h["rows"] * h["cols"] <= 1 << 26 else None
        line = {"matrix": os.path.basename(path), "rows": h["rows"], "cols": h["cols"], "nnz": h["nnz"],
                "device": props.name, "torch_version": torch.__version__}
        line["csr_us"] = timed(lambda: torch.mv(a, x), flush)
        coo = a.to_sparse_coo()
        line["coo_us"] = timed(lambda: torch.mv(coo, x), flush)
        if want is not None:
            line["checked"] = bool(torch.allclose(torch.mv(a, x), want, rtol=1e-3, atol=1e-3))
        print(json.dumps(line), flush=True)
        del a, coo, crow, col, val


if __name__ == "__main__":
    main(sys.argv[1:])
