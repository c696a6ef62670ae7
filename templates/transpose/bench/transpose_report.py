"""Joins ktune's tuning summaries with the same-process peers (transpose_peers.py) into
a markdown table: each peer as % of the memcpy ceiling (and the memcpy on each buffer
set), ktune's ratio to the better of the two Triton kernels and to PyTorch, and the tuner's own median beside the runtime
call's (the two protocols must rank alike).

    python3 templates/transpose/bench/transpose_report.py transpose-summary.jsonl transpose-peers.jsonl
"""
import json
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    # A pitched problem was tuned with --ld LD_SRC,LD_DST (its summary says so).
    tuned = {(r["dtype"], r["shape"], r.get("ld", "")): r for r in load(sys.argv[1])}
    print("| dtype | shape | ld src/dst | memcpy us | memcpy us per buffer set | ktune us | ktune % of memcpy | "
          "ktune.transpose (Python) us | Python / C++ time | "
          "Triton us | Triton % of memcpy | wider Triton us | ktune / better Triton speed | torch us | ktune / torch speed | "
          "tuner's median us | tune s | configs | ktune launch | Triton winner | wider Triton winner |")
    print("|" + "---|" * 21)
    for p in load(sys.argv[2]):
        copy, k, t = p["copy_us"], p["ktune_us"], p["triton_us"]
        wide = p.get("triton_wide_us")  # runs before the wider space have none
        best = min(t, wide) if wide else t
        dense = p["ld_src"] == int(p["shape"].split("x")[1]) and p["ld_dst"] == int(p["shape"].split("x")[0])
        r = tuned.get((p["dtype"], p["shape"], "" if dense else f"{p['ld_src']},{p['ld_dst']}"))
        tuner = f"{r['winner']['median_us']:.1f}" if r and r.get("winner") else "-"
        seconds = f"{r['seconds']:.1f}" if r else "-"
        configs = str(r["configs"]) if r else "-"
        sets = " / ".join(f"{t:.1f}" for t in p.get("copy_us_each", []))
        py = p.get("python_us")  # the Python package's call on the same tensors, when it loaded
        python = f"{py:.1f} | {py / k:.3f}" if py else "- | -"
        print(f"| {p['dtype']} | {p['shape']} | {p['ld_src']}/{p['ld_dst']} | {copy:.1f} | {sets or '-'} | {k:.1f} | "
              f"{100 * copy / k:.1f}% | {python} | {t:.1f} | {100 * copy / t:.1f}% | {f'{wide:.1f}' if wide else '-'} | "
              f"{best / k:.3f} | {p['torch_us']:.1f} | "
              f"{p['torch_us'] / k:.2f} | {tuner} | {seconds} | {configs} | `{p['ktune_launch']}` | "
              f"{p['triton_config']} | {p.get('triton_wide_config', '-')} |")


if __name__ == "__main__":
    main()
