"""The spmv benchmark's matrices, generated (no downloads), one random draw of each kind
per seed, written as ktune-csr files (templates/spmv/README.md) with one JSON line each
on stdout: kind, rows, cols, nnz, longest row, seed, path.

    python3 templates/spmv/bench/spmv_matrices.py OUT_DIR SEED [KIND:ROWS ...]

Kinds: poisson2d and poisson3d (5- and 7-point stencils on a square or cubic grid),
banded (17 diagonals), uniform (Poisson(16) entries a row at random columns), powerlaw
(row lengths from a Pareto law, 1 to 10^4, columns skewed alike: a graph's), fem (3x3
blocks of a node's ~9 neighbours in a local window), denserows (8 a row, and 16 rows
holding half the columns)."""
import json
import os
import sys

import numpy as np

DEFAULT = ["poisson2d:4000000", "poisson3d:10000000", "banded:2000000", "uniform:2000000", "powerlaw:2000000",
           "fem:2000001", "denserows:1000000"]


def csr(rows, cols, r, c):
    """CSR arrays of the pairs (r, c), sorted and without duplicates."""
    keys = np.unique(r.astype(np.int64) * cols + c.astype(np.int64))
    row, col = keys // cols, keys % cols
    offsets = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=rows), out=offsets[1:])
    return offsets, col


def stencil(shape):
    """The 2*d+1-point stencil's pairs on a grid of `shape`."""
    n = int(np.prod(shape))
    idx = np.arange(n)
    coords = np.unravel_index(idx, shape)
    rs, cs = [idx], [idx]
    stride = 1
    for axis in reversed(range(len(shape))):
        for step in (-1, 1):
            ok = (coords[axis] + step >= 0) & (coords[axis] + step < shape[axis])
            rs.append(idx[ok])
            cs.append(idx[ok] + step * stride)
        stride *= shape[axis]
    return n, n, np.concatenate(rs), np.concatenate(cs)


def make(kind, rows, rng):
    if kind == "poisson2d":
        side = int(round(rows ** 0.5))
        return stencil((side, side))
    if kind == "poisson3d":
        side = int(round(rows ** (1 / 3)))
        return stencil((side, side, side))
    if kind == "banded":
        r = np.repeat(np.arange(rows), 17)
        c = r + np.tile(np.arange(-8, 9), rows)
        ok = (c >= 0) & (c < rows)
        return rows, rows, r[ok], c[ok]
    if kind == "uniform":
        lengths = rng.poisson(16, rows)
        r = np.repeat(np.arange(rows), lengths)
        return rows, rows, r, rng.integers(0, rows, r.size)
    if kind == "powerlaw":
        lengths = np.minimum(np.floor(rng.pareto(1.2, rows) * 2 + 1), 10_000).astype(np.int64)
        r = np.repeat(np.arange(rows), lengths)
        c = np.minimum(np.floor(rng.pareto(0.8, r.size) * rows / 1000), rows - 1).astype(np.int64)
        return rows, rows, r, rng.permutation(rows)[c]  # hubs spread over the columns
    if kind == "fem":
        nodes = rows // 3
        nr = np.repeat(np.arange(nodes), 9)
        nc = np.clip(nr + rng.integers(-64, 65, nr.size), 0, nodes - 1)
        nr, nc = np.concatenate([nr, np.arange(nodes)]), np.concatenate([nc, np.arange(nodes)])
        k = np.arange(3)
        r = (3 * nr[:, None, None] + k[None, :, None] + 0 * k[None, None, :]).ravel()
        c = (3 * nc[:, None, None] + 0 * k[None, :, None] + k[None, None, :]).ravel()
        return nodes * 3, nodes * 3, r, c
    if kind == "denserows":
        r = np.repeat(np.arange(rows), 8)
        c = rng.integers(0, rows, r.size)
        dense = rng.choice(rows, 16, replace=False)
        dr = np.repeat(dense, rows // 2)
        return rows, rows, np.concatenate([r, dr]), np.concatenate([c, rng.integers(0, rows, dr.size)])
    raise SystemExit(f"unknown kind '{kind}' (poisson2d, poisson3d, banded, uniform, powerlaw, fem, denserows)")


def write(path, rows, cols, offsets, col, values):
    header = {"format": "ktune-csr", "version": 1, "rows": rows, "cols": cols, "nnz": int(col.size), "dtype": "f32",
              "index": "i32"}
    with open(path, "wb") as f:
        f.write((json.dumps(header) + "\n").encode())
        f.write(offsets.astype("<i4").tobytes())
        f.write(col.astype("<i4").tobytes())
        f.write(values.astype("<f4").tobytes())


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    out, seed = argv[0], int(argv[1])
    os.makedirs(out, exist_ok=True)
    for i, spec in enumerate(argv[2:] or DEFAULT):
        kind, _, size = spec.partition(":")
        if not size.isdigit() or int(size) < 1:
            raise SystemExit(f"'{spec}': KIND:ROWS, rows a positive integer")
        rng = np.random.default_rng([seed, i])
        rows, cols, r, c = make(kind, int(size), rng)
        offsets, col = csr(rows, cols, r, c)
        path = os.path.join(out, f"{kind}-{rows}.csr")
        write(path, rows, cols, offsets, col, rng.standard_normal(col.size))
        lengths = np.diff(offsets)
        print(json.dumps({"kind": kind, "rows": rows, "cols": cols, "nnz": int(col.size),
                          "max_row": int(lengths.max()), "seed": seed, "path": path}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
