"""Results as data (issue 68): the measurements live in bench/results/data/, the pages in
bench/results/ are short current tables plus the text that explains them.

  python3 bench/results.py add TOPIC BENCH.jsonl... [--seed S] [--command CMD] [--to FILE]
      stamps each JSON line a bench wrote (GPU, commit (KTUNE_COMMIT, else git's), date,
      seed, command) and appends it to data/TOPIC.jsonl (or FILE: scripts/gpu-check.sh
      writes one per family, to be appended here)
  python3 bench/results.py summary TOPIC
      the current-numbers table of a page, from data/TOPIC.jsonl's "summary" lines
  python3 bench/results.py archive PAGE.md
      moves the sections under the page's "# History" heading into data/history/TOPIC.jsonl
  python3 bench/results.py history TOPIC [WORD]
      the history view, newest first (only sections whose text holds WORD)
  python3 bench/results.py tables [--check]
      regenerates every block between "<!-- table: COMMAND -->" and "<!-- end table -->"
      in the pages from its command's output (--check: fails when one is out of date)
  python3 bench/results.py check
      no results page over 400 lines, no table cell over 300 characters in the pages,
      docs/, the READMEs; every generated table up to date
"""
import argparse
import datetime
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# KTUNE_RESULTS_DIR: another results folder (the tests' copies).
RESULTS = pathlib.Path(os.environ.get("KTUNE_RESULTS_DIR") or ROOT / "bench" / "results").resolve()
DATA = RESULTS / "data"
MAX_PAGE_LINES, MAX_CELL = 400, 300
TABLE_BLOCK = re.compile(r"(<!-- table: (.+?) -->\n)(.*?)(<!-- end table -->)", re.S)


def read_jsonl(path):
    """The JSON objects of a file, a line each; anything else is an error naming FILE:LINE."""
    rows = []
    try:
        f = open(path, "rb")
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}")
    with f:
        for number, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
                row = json.loads(line) if line.strip() else None
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                sys.exit(f"{path}:{number}: not a JSON line ({getattr(e, 'msg', None) or e.reason})")
            if row is None:
                continue
            if not isinstance(row, dict):
                sys.exit(f"{path}:{number}: not a JSON object")
            rows.append(row)
    return rows


def shown(path):
    """A path as messages show it: from the checkout's root where it is inside."""
    path = pathlib.Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def append_jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")


def run_text(command, default="?"):
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=30, cwd=ROOT).stdout.strip() or default
    except (OSError, subprocess.SubprocessError):
        return default


def add(args):
    stamp = {"topic": args.topic, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
             "commit": os.environ.get("KTUNE_COMMIT") or run_text(["git", "rev-parse", "--short", "HEAD"]),
             "gpu": run_text(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"]).splitlines()[0]}
    if args.seed is not None:
        stamp["seed"] = args.seed
    if args.command:
        stamp["command"] = args.command
    rows = []
    for path in args.files:
        for row in read_jsonl(path):
            rows.append({**stamp, "source": pathlib.Path(path).name, **row})
    append_jsonl(pathlib.Path(args.to) if args.to else DATA / f"{args.topic}.jsonl", rows)
    print(f"{len(rows)} measurement(s) of {args.topic} stamped ({stamp['gpu']}, {stamp['commit']}, {stamp['date']})")


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def summary(args):
    path = DATA / f"{args.topic}.jsonl"
    rows = [r for r in read_jsonl(path) if r.get("kind") == "summary"]
    for r in rows:
        missing = [k for k in ("gpu", "date", "command", "result") if not isinstance(r.get(k), str)]
        if missing:
            sys.exit(f"{shown(path)}: a summary line without {', '.join(missing)}: {json.dumps(r)[:120]}")
    rows.sort(key=lambda r: r["date"], reverse=True)
    print("| GPU, date, commit | command | result | history section |\n|---|---|---|---|")
    for r in rows:
        when = f"{r['gpu']}, {r['date']}" + (f", {r['commit']}" if r.get("commit") else "")
        print(f"| {cell(when)} | {cell(r['command'])} | {cell(r['result'])} | {cell(r.get('section', ''))} |")


# -- history ---------------------------------------------------------------------------

def split_row(line):
    """A markdown table row's cells ('\\|' and '|' inside `code` do not split)."""
    cells, current, code, i = [], "", False, 0
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body) and body[i + 1] == "|":
            current += "\\|"
            i += 2
            continue
        if c == "`":
            code = not code
        if c == "|" and not code:
            cells.append(current.strip())
            current = ""
        else:
            current += c
        i += 1
    cells.append(current.strip())
    return cells


def blocks_of(lines):
    """Text runs and tables: [{"text": "..."}, {"columns": [...], "rows": [[...]]}]."""
    blocks, i = [], 0
    while i < len(lines):
        is_table = lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|?\s*$", lines[i + 1])
        if is_table:
            table = {"columns": split_row(lines[i]), "rows": []}
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                table["rows"].append(split_row(lines[i]))
                i += 1
            blocks.append(table)
        else:
            start = i
            while i < len(lines) and not (lines[i].startswith("|") and i + 1 < len(lines)
                                          and re.match(r"^\|[\s:|-]+\|?\s*$", lines[i + 1])):
                i += 1
            blocks.append({"text": "\n".join(lines[start:i])})
    return blocks


def render_blocks(blocks):
    out = []
    for b in blocks:
        if "text" in b:
            out.append(b["text"])
        else:
            out.append("| " + " | ".join(b["columns"]) + " |")
            out.append("|" + "---|" * len(b["columns"]))
            out.extend("| " + " | ".join(row) + " |" for row in b["rows"])
    return "\n".join(out)


def archive(args):
    page = pathlib.Path(args.page)
    topic = page.stem
    lines = page.read_text(encoding="utf-8").split("\n")
    try:
        start = lines.index("# History")
    except ValueError:
        sys.exit(f"{page}: no '# History' heading: nothing to archive")
    sections, current, before = [], None, []
    for line in lines[start + 1:]:
        if line.startswith("## "):
            current = {"heading": line[3:].strip(), "lines": []}
            sections.append(current)
        elif current is not None:
            current["lines"].append(line)
        elif line.strip():
            before.append(line)
    # Only this command's own note may stand before the first section: it is rewritten.
    if before and not before[0].startswith("The history ("):
        sys.exit(f"{page}: text between '# History' and its first section: {before[0][:60]}")
    rows = []
    for s in sections:
        body = s["lines"]
        while body and not body[-1].strip():
            body.pop()
        date = re.search(r"\d{4}-\d\d-\d\d", s["heading"])
        rows.append({"topic": topic, "kind": "history", "heading": s["heading"],
                     "date": date.group(0) if date else "", "blocks": blocks_of(body)})
    target = DATA / "history" / f"{topic}.jsonl"
    kept = read_jsonl(target) if target.exists() else []
    # Newest first, as the pages were: the archived sections go before the older ones.
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        for row in rows + kept:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    note = (f"The history ({len(rows) + len(kept)} sections, each as it was recorded then) is data:\n"
            f"[data/history/{topic}.jsonl](data/history/{topic}.jsonl); read it with\n"
            f"`python3 bench/results.py history {topic} [WORD]`.")
    page.write_text("\n".join(lines[:start] + ["# History", "", note, ""]), encoding="utf-8")
    print(f"{page}: {len(rows)} section(s) moved to {shown(target)}")


def history(args):
    path = DATA / "history" / f"{args.topic}.jsonl"
    if not path.exists():
        sys.exit(f"{path}: no history for '{args.topic}'")
    for row in read_jsonl(path):
        text = render_blocks(row["blocks"])
        if args.word and args.word.lower() not in (row["heading"] + text).lower():
            continue
        print(f"## {row['heading']}\n\n{text.strip(chr(10))}\n")


# -- generated tables and checks ---------------------------------------------------------

def pages():
    return sorted(RESULTS.glob("*.md"))


def regenerate(text, page):
    def replace(m):
        out = subprocess.run(shlex.split(m.group(2)), capture_output=True, text=True, cwd=ROOT, timeout=120)
        if out.returncode:
            sys.exit(f"{page}: `{m.group(2)}` failed: {out.stderr.strip()[-300:]}")
        return m.group(1) + out.stdout + m.group(4)
    return TABLE_BLOCK.sub(replace, text)


def tables(args):
    stale = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new = regenerate(text, page)
        if new != text:
            stale.append(page)
            if not args.check:
                page.write_text(new, encoding="utf-8")
    if args.check and stale:
        sys.exit("out of date (python3 bench/results.py tables): " + ", ".join(shown(p) for p in stale))
    print(f"{len(stale)} page(s) {'out of date' if args.check else 'regenerated'}")


def long_cells(path):
    found, fence = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith("|"):
            for c in split_row(line):
                if len(c) > MAX_CELL:
                    found.append(f"{shown(path)}:{number}: a table cell of {len(c)} characters "
                                 f"(at most {MAX_CELL}): {c[:60]}...")
    return found


def check(args):
    problems = []
    for page in pages():
        n = page.read_text(encoding="utf-8").count("\n")
        if n > MAX_PAGE_LINES:
            problems.append(f"{shown(page)}: {n} lines (at most {MAX_PAGE_LINES}; "
                            f"python3 bench/results.py archive moves its history into data/)")
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *pages(),
            *sorted((ROOT / "templates").glob("*/README.md"))]
    for doc in docs:
        problems += long_cells(doc)
    for path in sorted(DATA.rglob("*.jsonl")):
        read_jsonl(path)  # exits naming FILE:LINE on a bad line
    if problems:
        sys.exit("\n".join(problems))
    tables(argparse.Namespace(check=True))
    print(f"results: {len(pages())} pages, {len(docs)} documents checked")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    a = sub.add_parser("add")
    a.add_argument("topic")
    a.add_argument("files", nargs="+")
    a.add_argument("--seed", type=int)
    a.add_argument("--command")
    a.add_argument("--to")
    a.set_defaults(run=add)
    s = sub.add_parser("summary")
    s.add_argument("topic")
    s.set_defaults(run=summary)
    r = sub.add_parser("archive")
    r.add_argument("page")
    r.set_defaults(run=archive)
    h = sub.add_parser("history")
    h.add_argument("topic")
    h.add_argument("word", nargs="?")
    h.set_defaults(run=history)
    t = sub.add_parser("tables")
    t.add_argument("--check", action="store_true")
    t.set_defaults(run=tables)
    c = sub.add_parser("check")
    c.set_defaults(run=check)
    args = p.parse_args()
    try:
        args.run(args)
        sys.stdout.flush()
    except BrokenPipeError:  # a reader that stopped early (| head): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    main()
