"""The shape benchmarks' host side (issue 72): bench/shape_draw.py and every family's
templates/*/bench/*_shapes.py found there. A seeded draw repeats, an unseeded one prints
the seed that repeats it, counts and problem lines are as asked; the shared summary gives
min, median and max with the worst named and names the rows it cannot use apart; `stamp`
puts the seed on every row; bad arguments and files (missing, not JSON, random bytes,
rows of the wrong types) end with a message, never a traceback.
  python3 tests/cli/shape_draw_cli_test.py SOURCE_DIR"""
import json
import pathlib
import random
import re
import subprocess
import sys
import tempfile

SRC = pathlib.Path(sys.argv[1]).resolve()
SCRIPTS = sorted((SRC / "templates").glob("*/bench/*_shapes.py"))
PROBLEM = re.compile(r"^[a-z0-9]+:\d+(x\d+)+(:[a-z]+)?$")  # dtype:shape[:layout]
failures = []
if not SCRIPTS:
    failures.append("no templates/*/bench/*_shapes.py found")

sys.path.insert(0, str(SRC / "bench"))
from shape_draw import summarize  # noqa: E402


def run(script, *args):
    return subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True, text=True)


def expect(what, r, ok, needle=""):
    text = r.stdout + r.stderr
    if (r.returncode == 0) != ok or needle not in text or "Traceback" in text:
        failures.append(f"{what}: rc={r.returncode}, output: {text[-400:]}")


# The shared summary: ratios 0.5 .. 1.5 over five rows; a row without the peer, one with
# the wrong types and one whose ratio is not finite are named apart.
rows = [{"shape": f"s{i}", "ktune": 10.0, "peer": 10.0 * v} for i, v in enumerate([1.5, 0.5, 1.0, 0.75, 1.25])]
rows += [{"shape": "none"}, {"shape": "types", "ktune": [], "peer": "x"}, {"shape": "inf", "ktune": 0.0, "peer": 1e308}]
got = summarize(rows, lambda p: p["peer"] / p["ktune"], lambda p: p["shape"], "label")
if (got.get("label"), got.get("count"), got.get("min"), got.get("median"), got.get("max")) != ("label", 5, 0.5, 1.0, 1.5) or \
        got.get("worst", [None])[0] != "s1 0.500" or got.get("skipped") != ["none", "types", "inf"]:
    failures.append(f"summarize: {got}")
got = summarize(rows, lambda p: p["peer"] / p["ktune"], lambda p: p["missing"], "label")
if got["count"] != 0 or len(got["skipped"]) != len(rows):
    failures.append(f"summarize with a name that fails: {got}")

with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    for script in SCRIPTS:
        family = script.name
        a, b = (run(script, "draw", "--seed", 1234, "--random", 5, "--zoo", 3) for _ in range(2))
        expect(f"{family} draw", a, True, "# seed 1234")
        if a.stdout != b.stdout:
            failures.append(f"{family}: the same seed drew different shapes")
        lines = a.stdout.split("\n")[1:-1]
        if not 5 <= len(lines) <= 8 or not all(PROBLEM.match(l) for l in lines):
            failures.append(f"{family}: draw of 5 random + 3 zoo gave {lines}")
        fresh = run(script, "draw", "--random", 4, "--zoo", 0)
        seed = re.match(r"# seed (\d+)", fresh.stdout)
        if not seed or run(script, "draw", "--seed", seed.group(1), "--random", 4, "--zoo", 0).stdout != fresh.stdout:
            failures.append(f"{family}: an unseeded draw's printed seed does not repeat it: {fresh.stdout[:80]}")
        expect(f"{family} draw --random -1", run(script, "draw", "--random", -1), False, "at least 0")
        expect(f"{family} draw --seed x", run(script, "draw", "--seed", "x"), False, "invalid int")

        # Its summary of rows it cannot use: each named apart, no traceback.
        results = tmp / f"{family}.jsonl"
        rows = [{"dtype": "f16", "shape": "1x2x3", "layout": "nn"}, {"dtype": "f32", "shape": "4x5", "x_us": "fast"}]
        results.write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n")
        r = run(script, "summary", results)
        expect(f"{family} summary", r, True, "no measurement")
        if "1x2x3" not in r.stdout or "4x5" not in r.stdout:
            failures.append(f"{family} summary: the unusable rows not named: {r.stdout[:300]}")

        # stamp: the seed on every row, the rows otherwise as they were.
        expect(f"{family} stamp", run(script, "stamp", results, 77), True)
        stamped = [json.loads(l) for l in results.read_text().splitlines() if l.strip()]
        if len(stamped) != len(rows) or any(s.pop("seed", None) != 77 for s in stamped) or stamped != rows:
            failures.append(f"{family} stamp: rows changed or a seed missing")

        for what, text in (("missing", None), ("not JSON", "{\"a\": 1}\nnot json\n"), ("a list", "[1, 2]\n")):
            bad = tmp / f"bad-{family}.jsonl"
            if text is None:
                bad.unlink(missing_ok=True)
            else:
                bad.write_text(text)
            for command in ("summary", "stamp"):
                extra = [1] if command == "stamp" else []
                expect(f"{family} {command} of a {what} file", run(script, command, bad, *extra), False, str(bad))
        # Random bytes and random JSON rows: a message or a summary, never a traceback.
        r_fuzz = random.Random(5)
        for i in range(30):
            fuzz = tmp / f"fuzz-{family}-{i}.jsonl"
            if i % 2:
                fuzz.write_bytes(bytes(r_fuzz.randrange(256) for _ in range(r_fuzz.randrange(1, 300))))
            else:
                keys = ["dtype", "shape", "layout"] + [f"{p}_us" for p in ("ktune", "ktune_rt_mm", "torch", "torch_mm",
                                                                           "triton", "triton_wide", "copy")]
                values = [0, -1, 1e308, float("nan"), "x", None, [], {}, True, 3.5]
                fuzz.write_text("".join(json.dumps({k: r_fuzz.choice(values) for k in r_fuzz.sample(keys, 5)},
                                                   allow_nan=True) + "\n" for _ in range(4)))
            for command in ("summary", "stamp"):
                r = run(script, command, fuzz, *([3] if command == "stamp" else []))
                if "Traceback" in r.stdout + r.stderr:
                    failures.append(f"{family} {command} fuzz {i}: {(r.stdout + r.stderr)[-300:]}")

for f in failures:
    print("FAIL", f)
print(f"shape_draw_cli_test: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
