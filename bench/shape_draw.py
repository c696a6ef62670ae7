"""Shapes nobody picked (issue 72), shared by the families' shape benchmarks: a seeded
random draw, a seeded sample of the zoo's lines for one family (bench/zoo/zoo.txt), and
the ratios' summary (min, median, max, the worst shapes named). The families' own
scripts (templates/<family>/bench/*_shapes.*) say what a shape is.

    from shape_draw import rng, zoo_sample, summarize"""
import json
import random
import re
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
    """{label, count, min, median, max, worst} of ratio(row) over rows (None: skipped),
    the three lowest named by name(row)."""
    pairs = [(ratio(r), name(r)) for r in rows]
    pairs = sorted((v, n) for v, n in pairs if v is not None)
    if not pairs:
        return {"label": label, "count": 0}
    values = [v for v, _ in pairs]
    return {"label": label, "count": len(values), "min": round(values[0], 4), "median": round(statistics.median(values), 4),
            "max": round(values[-1], 4), "worst": [f"{n} {v:.3f}" for v, n in pairs[:3]]}


def print_summary(s, out=sys.stdout):
    if not s["count"]:
        print(f"{s['label']}: no measurement", file=out)
        return
    print(f"{s['label']}: {s['count']} shapes, min {s['min']:.3f}, median {s['median']:.3f}, max {s['max']:.3f}; "
          f"worst: {', '.join(s['worst'])}", file=out)


def read_lines(path):
    return [json.loads(l) for l in Path(path).read_text().splitlines() if l.strip()]


SHAPE = re.compile(r"^\d+(x\d+)+$")
