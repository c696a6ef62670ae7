"""Joins ktune's reduction tuning summaries with CUB and PyTorch into a Markdown table.

    python3 templates/reduce/bench/reduce_report.py reduce-summary.jsonl reduce-peers.jsonl
"""
import json
import sys


def main():
    ktune = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    peers = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    print("| family | op | dtype | size | ktune us | ktune GB/s | % of read pass | CUB us | torch us | ktune / CUB speed | ktune / torch speed | tune s | configs | winner |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k in ktune:
        w = k.get("winner")
        size = k["shape"]
        what = {"reduce": "sum", "reduce_rows": "rowsum", "reduce_cols": "colsum"}[k["family"]]
        torch = next((p for p in peers if p.get("what") == what and p["dtype"] == k["dtype"] and p["size"] == size), None)
        cub = next((p for p in peers if p.get("what") == "cub::DeviceReduce::Sum" and str(p["n"]) == size
                    and k["dtype"] == "f32" and k["family"] == "reduce"), None)
        if not w:
            print(f"| {k['family']} | {k['op']} | {k['dtype']} | {size} | no winner |")
            continue
        fmt = lambda p, key: f"{p[key]:.1f}" if p else "-"
        ratio = lambda p, key: f"{p[key] / w['median_us']:.2f}x" if p else "-"
        print(f"| {k['family']} | {k['op']} | {k['dtype']} | {size} | {w['median_us']:.1f} | {w['gbps']:.0f} | "
              f"{100 * w['ceiling_fraction']:.1f}% | {fmt(cub, 'us')} | {fmt(torch, 'torch_us')} | {ratio(cub, 'us')} | "
              f"{ratio(torch, 'torch_us')} | {k['seconds']:.1f} | {k['configs']} | `{w['config']}` |")


if __name__ == "__main__":
    main()
