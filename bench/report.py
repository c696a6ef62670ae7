"""Joins ktune's tuning summaries with the PyTorch peer into a markdown table.

    python3 bench/report.py summary.jsonl torch.jsonl
"""
import json
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    ktune = {(r["dtype"], r["shape"]): r for r in load(sys.argv[1])}
    torch = {(r["dtype"], r["shape"]): r for r in load(sys.argv[2])} if len(sys.argv) > 2 else {}
    print("| dtype | shape | ktune us | ktune GB/s | memcpy GB/s (same process) | % of memcpy | "
          "torch us | x torch | tune s | configs | winner |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key, r in ktune.items():
        w = r.get("winner")
        t = torch.get(key)
        if not w:
            print(f"| {key[0]} | {key[1]} | no winner | | | | | | {r['seconds']:.1f} | {r['configs']} | |")
            continue
        speedup = f"{t['torch_us'] / w['median_us']:.2f}" if t else "-"
        torch_us = f"{t['torch_us']:.1f}" if t else "-"
        print(f"| {key[0]} | {key[1]} | {w['median_us']:.1f} | {w['gbps']:.0f} | {r['ceiling_gbps']:.0f} | "
              f"{100 * w['ceiling_fraction']:.1f}% | {torch_us} | {speedup} | {r['seconds']:.1f} | {r['configs']} | "
              f"`{w['config']}` |")


if __name__ == "__main__":
    main()
