"""Markdown tables of bench/untuned_bench.py's JSON lines (issue 67):
  python3 bench/untuned_report.py untuned.jsonl
Per problem: how the untuned call was served, its first call's wall time, its speed as a
fraction of the tuned winner's (tuned us / untuned us) and of PyTorch's (torch us /
untuned us); then the bars: >= 0.90x the tuned winner everywhere, >= 1.00x PyTorch where
the tuned winner is at least as fast as PyTorch. First-call costs per family."""
import json
import statistics
import sys


def main(path):
    rows = [json.loads(line) for line in open(path)]
    head, rows = rows[0], rows[1:]
    print(f"GPU {head['gpu']}, {head['date']}, seed {head['seed']}, PyTorch {head['torch']}, "
          f"tuned with `{head['tune_args']}`\n")
    print("| source | problem | untuned served by | first call ms | untuned us | tuned us | torch us | "
          "untuned / tuned speed | untuned / torch speed |")
    print("|---|---|---|---|---|---|---|---|---|")
    missed_tuned, missed_torch, first = [], [], {}
    for r in rows:
        if "error" in r:
            print(f"| {r.get('source', '')} | `{r['problem']}` | error: {r['error'][:120]} | | | | | | |")
            continue
        u, p, t = r["untuned_us"], r["torch_us"], r.get("tuned_us")
        tuned_cell, vs_tuned = (f"{t:.1f}", f"{t / u:.2f}x") if t else ("-", r.get("tuned", "-"))
        print(f"| {r['source']} | `{r['problem']}` | {r['untuned_match']} | {r['first_call_ms']:.0f} | {u:.1f} | "
              f"{tuned_cell} | {p:.1f} | {vs_tuned} | {p / u:.2f}x |")
        family = r["problem"].split()[0]
        first.setdefault(family, []).append(r["first_call_ms"])
        if t and t / u < 0.90:
            missed_tuned.append(f"`{r['problem']}` {t / u:.2f}x")
        if t and t <= p and p / u < 1.00:
            missed_torch.append(f"`{r['problem']}` {p / u:.2f}x")
    measured = sum(1 for r in rows if "tuned_us" in r)
    print(f"\n**Bar 1** (>= 0.90x the tuned winner): met at {measured - len(missed_tuned)} of {measured} problems"
          + (f"; missed: {', '.join(missed_tuned)}" if missed_tuned else "") + ".")
    print(f"**Bar 2** (>= 1.00x PyTorch where the tuned winner is as fast as PyTorch): "
          + (f"missed: {', '.join(missed_torch)}" if missed_torch else "met everywhere") + ".\n")
    print("| family | first call ms (median, max) |\n|---|---|")
    for family, ms in sorted(first.items()):
        print(f"| {family} | {statistics.median(ms):.0f}, {max(ms):.0f} |")


if __name__ == "__main__":
    main(sys.argv[1])
