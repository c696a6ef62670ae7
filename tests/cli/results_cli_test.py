"""bench/results.py on a results folder of its own (KTUNE_RESULTS_DIR): generated tables
found stale and regenerated, history archived and printed back, and each bad input (a
long page, a long cell, bad data lines, missing files, random bytes) refused with a
message naming the file, never a traceback.
  python3 tests/cli/results_cli_test.py SOURCE_DIR"""
import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile

SRC = pathlib.Path(sys.argv[1]).resolve()
TOOL = SRC / "bench" / "results.py"
failures = []


def run(folder, *args):
    env = dict(os.environ, KTUNE_RESULTS_DIR=str(folder))
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, env=env, cwd=SRC)


def expect(what, r, ok, needle=""):
    text = r.stdout + r.stderr
    if (r.returncode == 0) != ok or needle not in text or "Traceback" in text:
        failures.append(f"{what}: rc={r.returncode}, output: {text[-400:]}")


with tempfile.TemporaryDirectory() as tmp:
    root = pathlib.Path(tmp)
    (root / "data").mkdir()
    summary = {"topic": "demo", "kind": "summary", "gpu": "H200", "date": "2026-11-28 22:00", "command": "`x`",
               "result": "1.01x", "section": "s"}
    (root / "data" / "demo.jsonl").write_text(json.dumps(summary) + "\n")
    page = root / "demo.md"
    history = "# History\n\n## Old run, 2026-11-01\n\ntext\n\n| a | b |\n|---|---|\n| 1 | `x|y` |\n\n## Older, 2026-10-01\n\nmore\n"
    page.write_text("# Demo\n\n<!-- table: python3 bench/results.py summary demo -->\nstale\n<!-- end table -->\n\n" + history)
    expect("a stale table", run(root, "tables", "--check"), False, "out of date")
    expect("tables", run(root, "tables"), True, "1 page(s) regenerated")
    expect("tables again", run(root, "tables", "--check"), True)
    if "| H200, 2026-11-28 22:00 | `x` | 1.01x | s |" not in page.read_text():
        failures.append("the regenerated table: " + page.read_text()[:300])
    expect("archive", run(root, "archive", str(page)), True, "2 section(s) moved")
    shown = run(root, "history", "demo")
    expect("history", shown, True, "## Old run, 2026-11-01")
    if "| 1 | `x|y` |" not in shown.stdout or "more" not in shown.stdout:
        failures.append("history lost text: " + shown.stdout)
    expect("history of a word", run(root, "history", "demo", "older"), True, "## Older")
    expect("check", run(root, "check"), True, "results: 1 pages")
    expect("archive twice", run(root, "archive", str(page)), True, "0 section(s) moved")

    long_page = root / "long.md"
    long_page.write_text("x\n" * 401)
    expect("a long page", run(root, "check"), False, "long.md: 401 lines")
    long_page.write_text("| a |\n|---|\n| " + "w" * 301 + " |\n")
    expect("a long cell", run(root, "check"), False, "long.md:3: a table cell of 301 characters")
    long_page.unlink()

    bad = root / "data" / "bad.jsonl"
    for content, needle in [(b"{}\n[1]\n", "bad.jsonl:2: not a JSON object"), (b"{\n", "bad.jsonl:1: not a JSON line"),
                            (b"\xff\xfe\n", "bad.jsonl:1: not a JSON line")]:
        bad.write_bytes(content)
        expect(f"data {content!r}", run(root, "check"), False, needle)
    bad.unlink()
    (root / "data" / "demo.jsonl").write_text(json.dumps({"kind": "summary", "gpu": "H200"}) + "\n")
    expect("a summary line without fields", run(root, "summary", "demo"), False, "without date, command, result")
    expect("a missing topic", run(root, "summary", "nothing"), False, "No such file")
    expect("no history", run(root, "history", "nothing"), False, "no history for 'nothing'")
    expect("no history heading", run(root, "archive", str(root / "data" / "demo.jsonl")), False, "no '# History' heading")
    expect("a missing bench file", run(root, "add", "demo", str(root / "none.jsonl"), "--to", str(root / "o.jsonl")),
           False, "none.jsonl: No such file")

    # Random lines (bytes, JSON fragments) through `add`: a clear refusal or a stamped line.
    rng = random.Random(68)
    pieces = [b"{", b"}", b"[", b"]", b'"a"', b":", b",", b"1", b"null", b"\xff", b"\n", b" ", b'{"x": 1}']
    for i in range(150):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        (root / "fuzz.jsonl").write_bytes(data)
        r = run(root, "add", "fuzz", str(root / "fuzz.jsonl"), "--to", str(root / "fuzz-out.jsonl"))
        if "Traceback" in r.stderr or (r.returncode != 0 and "fuzz.jsonl" not in r.stderr):
            failures.append(f"fuzz {data!r}: rc={r.returncode} {r.stderr[-300:]}")

if failures:
    print("FAIL:\n" + "\n".join(failures))
    sys.exit(1)
print("results.py: tables, history, checks and bad inputs as expected")
