"""Joins ktune's tuning summaries with the PyTorch peer into a Markdown table.

    python3 templates/elementwise/bench/elementwise_report.py summary.jsonl torch.jsonl
"""
import json
import sys

EXPR = {"add": "out = a + b", "fma": "out = a * b + c"}


def main():
    ktune = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    torch = {(t["op"], t["dtype"], t["n"]): t for t in (json.loads(l) for l in open(sys.argv[2]) if l.strip())}
    print("| expression | dtype | n | ktune us | ktune GB/s | % of memcpy | torch us | ktune / torch speed | tune s | configs | winner |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for k in ktune:
        op = k["expr"]
        t = torch.get((op, k["dtype"], int(k["shape"])))
        w = k.get("winner")
        if not w:
            print(f"| {EXPR.get(op, op)} | {k['dtype']} | {k['shape']} | no winner | | | | | | | |")
            continue
        speed = f"{t['torch_us'] / w['median_us']:.2f}x" if t else "-"
        torch_us = f"{t['torch_us']:.1f}" if t else "-"
        print(f"| `{EXPR.get(op, op)}` | {k['dtype']} | {k['shape']} | {w['median_us']:.1f} | {w['gbps']:.0f} | "
              f"{100 * w['ceiling_fraction']:.1f}% | {torch_us} | {speed} | {k['seconds']:.1f} | {k['configs']} | "
              f"`{w['config']}` |")


if __name__ == "__main__":
    main()
