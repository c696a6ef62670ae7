"""Host cost per call of every built-in Python call against its PyTorch equivalent, on
tiny tensors, in one process (issue 65, item 6):
  python3 bench/python_host_cost.py [OUT.jsonl] [--profile OUT.txt]
Each pair runs interleaved, 15 rounds each:
- host: the time to enqueue 100 back-to-back calls from an idle stream (synchronized
  before, not during: the launch queue never fills), per call: what the caller's thread
  spends;
- wall: 1000 back-to-back calls and a synchronize, per call (the host, or the GPU where
  it is the slower).
The median round of each. Prints one JSON line per call (and writes them to OUT.jsonl);
--profile writes cProfile's top entries of each ktune call. KTUNE_TEST_INSTALLED=1: the
installed package; else the checkout's."""
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import torch

if not os.environ.get("KTUNE_TEST_INSTALLED"):  # else the installed package (pip install)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import ktune  # noqa: E402

CALLS, HOST_CALLS, ROUNDS = 1000, 100, 15


def wall_us(fn):
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(CALLS):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / CALLS * 1e6


def host_us(fn):
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(HOST_CALLS):
        fn()
    elapsed = time.perf_counter() - t
    torch.cuda.synchronize()
    return elapsed / HOST_CALLS * 1e6


def pairs():
    x = torch.randn(1024, device="cuda")
    m = torch.randn(64, 48, device="cuda")
    mo = torch.empty(48, 64, device="cuda")
    a, b, c = (torch.randn(4096, device="cuda") for _ in range(3))
    ga, gb = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16), torch.randn(64, 64, device="cuda",
                                                                                  dtype=torch.bfloat16)
    ix = torch.randint(0, 100, (4096,), device="cuda", dtype=torch.int32)
    mask = torch.rand(4096, device="cuda") > 0.5
    fma = ktune.elementwise("out = a * b + c", "f32")
    k = ktune.Kernel(Path(__file__).resolve().parents[1] / "tests" / "data" / "user_kernels" / "scale.cu", "scale")
    y = torch.empty_like(x)
    return [
        ("sum", lambda: ktune.sum(x), lambda: torch.sum(x)),
        ("max dim=1", lambda: ktune.max(m, dim=1), lambda: torch.amax(m, dim=1)),
        ("mean", lambda: ktune.mean(x), lambda: torch.mean(x)),
        ("cumsum", lambda: ktune.cumsum(x), lambda: torch.cumsum(x, 0)),
        ("cumsum i32 rows", lambda: ktune.cumsum(ix.view(64, 64), dim=-1), lambda: torch.cumsum(ix.view(64, 64), -1)),
        ("transpose", lambda: ktune.transpose(m), lambda: m.t().contiguous()),
        ("transpose out=", lambda: ktune.transpose(m, out=mo), lambda: mo.copy_(m.t())),
        ("elementwise a*b+c", lambda: fma(a, b, c), lambda: torch.addcmul(c, a, b)),
        ("gemm bf16 64^3", lambda: ktune.gemm(ga, gb), lambda: torch.mm(ga, gb)),
        ("compact (mask)", lambda: ktune.compact(a, mask), lambda: torch.masked_select(a, mask)),
        ("Kernel y = 2x", lambda: k(y, x, 1024, problem={"n": 1024}), lambda: torch.mul(x, 2, out=y)),
    ]


def main(argv):
    out = argv[0] if argv and not argv[0].startswith("--") else None
    profile = argv[argv.index("--profile") + 1] if "--profile" in argv else None
    meta = {"gpu": torch.cuda.get_device_name(), "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "python": sys.version.split()[0], "torch": torch.__version__, "ktune": ktune.__version__,
            "package": str(Path(ktune.__file__).parent), "calls": CALLS, "host_calls": HOST_CALLS,
            "rounds": ROUNDS}
    lines, report = [], io.StringIO()
    for name, ours, theirs in pairs():
        ours(), theirs()  # first calls (lookup, compile, load) are not host cost
        rounds = {key: [] for key in ("ktune_host", "torch_host", "ktune_wall", "torch_wall")}
        for _ in range(ROUNDS):
            rounds["ktune_host"].append(host_us(ours))
            rounds["torch_host"].append(host_us(theirs))
            rounds["ktune_wall"].append(wall_us(ours))
            rounds["torch_wall"].append(wall_us(theirs))
        us = {key: statistics.median(v) for key, v in rounds.items()}
        line = dict(meta, call=name, **{key: round(v, 2) for key, v in us.items()},
                    host_ratio=round(us["ktune_host"] / us["torch_host"], 3),
                    wall_ratio=round(us["ktune_wall"] / us["torch_wall"], 3), match=ktune.last_launch()["match"])
        lines.append(line)
        print(json.dumps(line), flush=True)
        if profile:
            p = cProfile.Profile()
            p.runcall(lambda: [ours() for _ in range(CALLS)])
            report.write(f"== {name}\n")
            pstats.Stats(p, stream=report).sort_stats("tottime").print_stats(12)
    if out:
        Path(out).write_text("".join(json.dumps(line) + "\n" for line in lines))
    if profile:
        Path(profile).write_text(report.getvalue())


if __name__ == "__main__":
    main(sys.argv[1:])
