"""Calls before any tuning, against the tuned winner and PyTorch, in one process (issue 67):
  python3 bench/untuned_bench.py OUT.jsonl --tuner KTUNE [--zoo N] [--random N] [--seed S]
      [--tune-args "--strategy anneal --budget-evals 32"] [--deadline SECONDS]
Draws N problems of bench/zoo/zoo.txt (stratified by family) and N problems in neither the
zoo nor any test (random shapes), both from the seed (printed; a fresh one each run unless
given). First every problem's untuned call, with an empty database and no shipped winners
(KTUNE_SHIPPED_WINNERS=off): the first call's wall time (the model's pick, NVRTC, load), its
GPU time and PyTorch's (events, L2 flushed, median of 30, launch hidden:
bench/peer_timing.py); then per problem `ktune tune LINE` with --tune-args into that
database, and the tuned call's time (PyTorch's again beside it). One JSON
line per problem; bench/untuned_report.py turns them into tables. Uses the ktune package on
sys.path (the installed wheel, PYTHONPATH=site)."""
import argparse
import json
import math
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

here = Path(__file__).resolve().parent
cache = tempfile.mkdtemp(prefix="ktune-untuned-")
os.environ["KTUNE_CACHE_DIR"] = cache
os.environ["KTUNE_SHIPPED_WINNERS"] = "off"
os.environ.pop("KTUNE_TUNE_ON_MISS", None)

import torch  # noqa: E402

sys.path.insert(0, str(here))
import ktune  # noqa: E402
from peer_timing import l2_flush_buffer, timed  # noqa: E402

DT = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16, "i32": torch.int32}


def options(line):
    words = line.split()
    return words[0], {words[i][2:]: words[i + 1] for i in range(1, len(words) - 1, 2)}


def dims(text):
    return [int(v) for v in text.split("x")]


def tensor(shape, dtype):
    if dtype == torch.int32:
        return torch.randint(-100, 100, shape, dtype=dtype, device="cuda")
    return torch.randn(shape, device="cuda").to(dtype)


def calls(line):
    """(ktune call, PyTorch call) of one workload line, on fresh random inputs."""
    family, o = options(line)
    dtype = DT[o["dtype"]]
    if family == "gemm":
        m, n, k = dims(o["shape"])
        a = tensor((m, k), dtype)
        b = tensor((n, k), dtype).t() if o.get("layout", "nn") == "nt" else tensor((k, n), dtype)
        return (lambda: ktune.gemm(a, b)), (lambda: torch.mm(a, b))
    if family == "transpose":
        x = tensor(dims(o["shape"]), dtype)
        return (lambda: ktune.transpose(x)), (lambda: x.t().contiguous())
    if family in ("reduce_rows", "reduce_cols"):
        x = tensor(dims(o["shape"]), dtype)
        d = 1 if family == "reduce_rows" else 0
        return (lambda: ktune.sum(x, dim=d)), (lambda: torch.sum(x, dim=d, dtype=torch.float32))
    if family == "reduce":
        x = tensor((int(o["n"]),), dtype)
        return (lambda: ktune.sum(x)), (lambda: torch.sum(x))
    if family == "scan":
        x = tensor((int(o["n"]),), dtype)
        return (lambda: ktune.cumsum(x)), (lambda: torch.cumsum(x, 0))
    if family == "scan_rows":
        x = tensor(dims(o["shape"]), dtype)
        return (lambda: ktune.cumsum(x, dim=1)), (lambda: torch.cumsum(x, dim=1))
    if family == "compact":
        n = int(o["n"])
        x, mask = tensor((n,), dtype), torch.rand(n, device="cuda") < 0.5
        return (lambda: ktune.masked_select(x, mask)), (lambda: torch.masked_select(x, mask))
    raise SystemExit(f"untuned_bench: no calls for '{line}'")


def same(a, b):
    a, b = a.float().flatten(), b.float().flatten()
    if a.shape != b.shape:
        return False
    scale = b.abs().max().item() + 1
    return (a - b).abs().max().item() <= 0.02 * scale


def zoo_sample(count, rng):
    lines = [ln.strip() for ln in open(here / "zoo" / "zoo.txt") if ln.strip() and not ln.startswith("#")]
    by_family = {}
    for ln in lines:
        by_family.setdefault(ln.split()[0], []).append(ln)
    families = sorted(by_family)
    picks = []
    while len(picks) < count:  # round-robin over families, a random problem of each
        for f in families:
            if len(picks) < count and by_family[f]:
                picks.append(by_family[f].pop(rng.randrange(len(by_family[f]))))
    return picks


def log_uniform(rng, lo, hi):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def random_problems(count, rng):
    kinds = ["gemm", "gemm", "gemm", "transpose", "reduce_rows", "scan", "reduce_cols", "scan_rows", "compact", "reduce"]
    out = []
    for i in range(count):
        kind = kinds[i % len(kinds)]
        if kind == "gemm":
            d = rng.choice(["bf16", "f16"])
            m, n, k = log_uniform(rng, 7, 9000), log_uniform(rng, 300, 30000), log_uniform(rng, 300, 9000)
            out.append(f"gemm --dtype {d} --layout {rng.choice(['nn', 'nt'])} --shape {m}x{n}x{k}")
        elif kind in ("transpose", "reduce_rows", "reduce_cols"):
            r, c = log_uniform(rng, 500, 20000), log_uniform(rng, 500, 20000)
            d = rng.choice(["f32", "bf16"])
            extra = "" if kind == "transpose" else " --op sum"
            out.append(f"{kind} --dtype {d}{extra} --shape {r}x{c}")
        elif kind == "scan_rows":
            out.append(f"scan_rows --dtype f32 --op sum --shape {log_uniform(rng, 100, 20000)}x{log_uniform(rng, 100, 9000)}")
        else:
            n = log_uniform(rng, 1 << 16, 1 << 28)
            extra = " --mode flags" if kind == "compact" else " --op sum"
            out.append(f"{kind} --dtype f32{extra} --n {n}")
    return out


def untuned(line, flush):
    """The first call and the untuned times, with nothing tuned in the database."""
    ours, peer = calls(line)
    torch.cuda.synchronize()
    start = time.perf_counter()
    got = ours()
    torch.cuda.synchronize()
    row = {"problem": line, "first_call_ms": (time.perf_counter() - start) * 1e3,
           "untuned_match": ktune.last_launch()["match"], "untuned_config": ktune.last_launch()["config"]}
    row["same_as_torch"] = same(got, peer())
    row["untuned_us"] = timed(ours, flush, hide_launch=True)
    row["torch_us"] = timed(peer, flush, hide_launch=True)
    return row


def tuned(row, args, flush, deadline):
    """Tunes the problem into the database, then times the call again (and PyTorch's)."""
    if time.monotonic() > deadline:
        row["tuned"] = "skipped: past the deadline"
        return row
    line = row["problem"]
    cmd = [args.tuner, "tune", *line.split(), "--database", str(Path(cache) / "tuning.db"), *shlex.split(args.tune_args)]
    t = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    row["tune_s"] = time.perf_counter() - t
    if done.returncode != 0:
        row["tuned"] = "failed: " + (done.stderr or done.stdout).strip()[-300:]
        return row
    ktune.refresh()
    ours, peer = calls(line)
    ours()
    row["tuned_match"] = ktune.last_launch()["match"]
    row["tuned_config"] = ktune.last_launch()["config"]
    row["tuned_us"] = timed(ours, flush, hide_launch=True)
    row["torch_us_again"] = timed(peer, flush, hide_launch=True)
    return row


def guarded(step, row, *args):
    try:
        return step(row, *args)
    except Exception as e:  # one problem's failure is a row, not the end of the run
        out = row if isinstance(row, dict) else {"problem": row}
        out["error"] = f"{step.__name__}: {type(e).__name__}: {e}"
        return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--tuner", required=True)
    p.add_argument("--zoo", type=int, default=20)
    p.add_argument("--random", type=int, default=10)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--tune-args", default="--strategy anneal --budget-evals 32")
    p.add_argument("--deadline", type=float, default=480)
    args = p.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    rng = random.Random(seed)
    torch.manual_seed(seed)
    deadline = time.monotonic() + args.deadline
    problems = [("zoo", ln) for ln in zoo_sample(args.zoo, rng)] + [("random", ln) for ln in random_problems(args.random, rng)]
    flush = l2_flush_buffer()
    head = {"seed": seed, "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "tune_args": args.tune_args}
    print(json.dumps(head), flush=True)
    with open(args.out, "a") as out:
        out.write(json.dumps(head) + "\n")
        # Every untuned call first, while the database is empty; then each problem tuned.
        rows = []
        for source, line in problems:
            row = guarded(untuned, line, flush)
            row["source"] = source
            rows.append(row)
        for row in rows:
            if "error" not in row:
                row = guarded(tuned, row, args, flush, deadline)
            print(json.dumps(row), flush=True)
            out.write(json.dumps(row) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
