"""The spmv benchmark's table: per matrix, ktune's tuned product against the copy
ceiling, against cuSPARSE CSR through PyTorch (torch.mv) and against the best of every
cuSPARSE product measured (PyTorch's CSR and COO; direct CSR ALG1/ALG2, COO ALG1/ALG2,
sliced ELL), from the bench's JSON lines.

    python3 templates/spmv/bench/spmv_report.py MATRICES.jsonl SUMMARY.jsonl PEERS.jsonl [CUSPARSE.jsonl]
"""
import json
import os
import sys

PEER_KEYS = {"csr_us": "torch CSR", "coo_us": "torch COO", "csr_alg1_us": "CSR ALG1", "csr_alg2_us": "CSR ALG2",
             "coo_alg1_us": "COO ALG1", "coo_alg2_us": "COO ALG2", "sell_us": "SELL"}


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def best_peer(*records):
    """The fastest peer product of those that computed the right result (the direct
    cuSPARSE records carry their largest relative error against a double product)."""
    times = [(r[k], name) for r in records if r and r.get("max_rel_error", 0) <= 1e-3
             for k, name in PEER_KEYS.items() if k in r and r[k] > 0]
    return min(times) if times else (None, None)


def main(matrices, summary, peers, direct=None):
    tuned = {}
    for s in lines(summary):
        tuned[tuple(int(v) for v in s["shape"].split("x")[:3])] = s
    peer = {os.path.basename(p["matrix"]): p for p in lines(peers)}
    cusparse = {os.path.basename(p["matrix"]): p for p in lines(direct)} if direct else {}
    print("| matrix | rows | nnz | longest row | ktune us | % of copy | torch CSR us | best cuSPARSE us (format) "
          "| ktune / torch CSR | ktune / best | config |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for m in lines(matrices):
        name = os.path.basename(m["path"])
        s, p, d = tuned.get((m["rows"], m["cols"], m["nnz"])), peer.get(name), cusparse.get(name)
        if not s or not p:
            print(f"| {m['kind']} | {m['rows']} | {m['nnz']} | {m['max_row']} | (missing) |||||||")
            continue
        w = s["winner"]
        us = w["median_us"]
        best, which = best_peer(p, d)
        print(f"| {m['kind']} | {m['rows']} | {m['nnz']} | {m['max_row']} | {us:.1f} | {100 * w['ceiling_fraction']:.1f}% "
              f"| {p['csr_us']:.1f} | {best:.1f} ({which}) | {p['csr_us'] / us:.2f}x | {best / us:.2f}x | {w['config']} |")
    print(f"\nseed {lines(matrices)[0]['seed'] if lines(matrices) else '?'}")


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    main(*sys.argv[1:])
