"""Shapes nobody picked (issue 72), shared by the families' shape benchmarks: a seeded
random draw, a seeded sample of the zoo's lines for one family (bench/zoo/zoo.txt), and
the ratios' summary (min, median, max, the worst shapes named). The families' own
scripts (templates/<family>/bench/*_shapes.*) say what a shape is.

    from shape_draw import main, rng, zoo_sample, summarize"""
import json
import math
import random
import statistics
import sys
from pathlib import Path

ZOO = Path(__file__).resolve().parent / "zoo" / "zoo.txt"


def rng(seed):
    """The draw's generator; a seed of None draws one (printed by the caller, recorded)."""
    if seed is None:
        seed = random.SystemRandom().randrange(1, 2**31)
    return seed, random.Random(seed)


def log_uniform(r, lo, hi):
    """An integer in [lo, hi], uniform in log scale (as many small sides as large ones)."""
    import math
    return min(hi, max(lo, int(round(math.exp(r.uniform(math.log(lo), math.log(hi + 1)))))))


def zoo_sample(r, family, count):
    """`count` of the zoo's lines for `family` as {option: value} dicts, drawn with r."""
    lines = [l.split() for l in ZOO.read_text().splitlines() if l.startswith(family + " ")]
    picked = r.sample(lines, min(count, len(lines)))
    out = []
    for words in picked:
        options = {}
        for i in range(1, len(words) - 1, 2):
            options[words[i].lstrip("-")] = words[i + 1]
        out.append(options)
    return out


def summarize(rows, ratio, name, label):
    """{label, count, min, median, max, worst, skipped} of ratio(row) over rows, the three
    lowest named by name(row); a row whose ratio is None or cannot be had (a peer that
    failed there) is named under skipped."""
    pairs, skipped = [], []
    for r in rows:
        try:
            v, shape = ratio(r), name(r)
            v = float(v) if v is not None and math.isfinite(v) else None
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            v = None
        if v is None:
            skipped.append(str(r.get("shape", "?")) if isinstance(r, dict) else "?")
        else:
            pairs.append((v, shape))
    pairs.sort()
    out = {"label": label, "count": len(pairs), "skipped": skipped}
    if pairs:
        values = [v for v, _ in pairs]
        out.update({"min": round(values[0], 4), "median": round(statistics.median(values), 4),
                    "max": round(values[-1], 4), "worst": [f"{n} {v:.3f}" for v, n in pairs[:3]]})
    return out


def print_summary(s, out=sys.stdout):
    skipped = f" (no ratio at {', '.join(s['skipped'])})" if s.get("skipped") else ""
    if not s["count"]:
        print(f"{s['label']}: no measurement{skipped}", file=out)
        return
    print(f"{s['label']}: {s['count']} shapes, min {s['min']:.3f}, median {s['median']:.3f}, max {s['max']:.3f}; "
          f"worst: {', '.join(s['worst'])}{skipped}", file=out)


def read_lines(path):
    """A bench's JSON lines; a missing file or a line that is not a JSON object is a clear
    error naming the file and line."""
    p = Path(path)
    if not p.is_file():
        sys.exit(f"{path}: no such file")
    rows = []
    for number, line in enumerate(p.read_text(errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit(f"{path}:{number}: not JSON ({e.msg})")
        if not isinstance(row, dict):
            sys.exit(f"{path}:{number}: not a JSON object")
        rows.append(row)
    return rows




def stamp(path, seed):
    """Each JSON line of a bench's output (`path`) gets the draw's seed, so that the rows
    appended to bench/results/data/ say which draw they came from."""
    rows = read_lines(path)
    aside = Path(str(path) + ".stamping")
    aside.write_text("".join(json.dumps({**row, "seed": seed}) + "\n" for row in rows))
    aside.replace(path)


def main(doc, draw, summary):
    """The families' command line: `draw [--seed S] [--random N] [--zoo N]` calls
    draw(args); `summary FILE` calls summary(args) with args.results; `stamp FILE SEED`
    adds the seed to each JSON line of FILE."""
    import argparse
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw")
    d.add_argument("--seed", type=int)
    d.add_argument("--random", type=int, default=12)
    d.add_argument("--zoo", type=int, default=6)
    s = sub.add_parser("summary")
    s.add_argument("results")
    t = sub.add_parser("stamp")
    t.add_argument("results")
    t.add_argument("seed", type=int)
    args = parser.parse_args()
    if args.command == "summary":
        return summary(args)
    if args.command == "stamp":
        return stamp(args.results, args.seed)
    if args.random < 0 or args.zoo < 0:
        parser.error("--random and --zoo must be at least 0")
    return draw(args)
