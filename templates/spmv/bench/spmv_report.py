"""The spmv benchmark's table: per matrix, ktune's tuned product against the copy
ceiling and against PyTorch's cuSPARSE products (CSR, COO), from the bench's JSON lines.

    python3 templates/spmv/bench/spmv_report.py MATRICES.jsonl SUMMARY.jsonl PEERS.jsonl
"""
import json
import os
import sys


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main(matrices, summary, peers):
    tuned = {}
    for s in lines(summary):
        tuned[tuple(int(v) for v in s["shape"].split("x")[:3])] = s
    peer = {os.path.basename(p["matrix"]): p for p in lines(peers)}
    print("| matrix | rows | nnz | longest row | ktune us | % of copy | cuSPARSE CSR us | COO us | ktune / CSR | ktune / best | config |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for m in lines(matrices):
        s = tuned.get((m["rows"], m["cols"], m["nnz"]))
        p = peer.get(os.path.basename(m["path"]))
        if not s or not p:
            print(f"| {m['kind']} | {m['rows']} | {m['nnz']} | {m['max_row']} | (missing) |||||||")
            continue
        w = s["winner"]
        us, best = w["median_us"], min(p["csr_us"], p["coo_us"])
        print(f"| {m['kind']} | {m['rows']} | {m['nnz']} | {m['max_row']} | {us:.1f} | {100 * w['ceiling_fraction']:.1f}% "
              f"| {p['csr_us']:.1f} | {p['coo_us']:.1f} | {p['csr_us'] / us:.2f}x | {best / us:.2f}x | {w['config']} |")
    print(f"\nseed {lines(matrices)[0]['seed'] if lines(matrices) else '?'}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
