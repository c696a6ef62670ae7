"""Tuning from Python: the `ktune tune` command in a child process, so a kernel that
faults or hangs never takes the caller's process or CUDA context with it. Progress goes
to the terminal as the CLI's does; Ctrl-C stops the run as it stops the CLI (the best
so far is stored)."""
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from . import _runtime
from .errors import InvalidArgument, TuningError

_HERE = Path(__file__).resolve().parent


def tuner():
    """The ktune binary: KTUNE_TUNER, the installed package's, a build tree of the checkout, or PATH."""
    if os.environ.get("KTUNE_TUNER"):
        given = os.environ["KTUNE_TUNER"]
        if not os.path.isfile(given) and not shutil.which(given):
            raise TuningError(f"KTUNE_TUNER={given!r}: no such program (the ktune binary)")
        return given
    for path in (_HERE / "bin" / "ktune", _HERE.parent.parent / "build" / "tuner" / "ktune",
                 _HERE.parent.parent / "build-gpu" / "tuner" / "ktune"):
        if path.is_file():
            return str(path)
    found = shutil.which("ktune")
    if not found:
        raise TuningError("the ktune binary was not found (KTUNE_TUNER, the package's bin/, build/tuner, PATH)")
    return found


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_VALUE = re.compile(r"[A-Za-z0-9_.+-]+")


def _option(name, value):
    """--name=value: one word, so a value can never be read as another option."""
    if not _NAME.fullmatch(name):
        raise InvalidArgument(f"option {name!r}: a name such as budget_evals")
    flag = "--" + name.replace("_", "-")
    if value is True:
        return [flag]
    if value is False or value is None:
        return []
    if isinstance(value, (tuple, list)):
        value = "x".join(str(v) for v in value)
    if "\0" in str(value):
        raise InvalidArgument(f"option {name}: its value holds a NUL character")
    return [f"{flag}={value}"]


def _run(words, dry_run, quiet):
    with tempfile.TemporaryDirectory(prefix="ktune-py-") as tmp:
        summary = Path(tmp) / "summary.jsonl"
        command = [tuner(), "tune"] + words + (["--dry-run"] if dry_run else ["--summary", str(summary)])
        capture = quiet or dry_run
        try:
            child = subprocess.Popen(command, stdout=subprocess.PIPE if capture else None,
                                     stderr=subprocess.STDOUT if capture else None, text=True)
        except OSError as e:  # the program is missing, or not executable
            raise TuningError(f"cannot run the tuner {command[0]!r}: {e}") from e
        try:
            output, _ = child.communicate()
        except KeyboardInterrupt:  # the child got the same SIGINT: it stores its best so far and exits
            child.wait()
            raise
        if child.returncode != 0:
            tail = "\n".join((output or "").strip().splitlines()[-12:])
            raise TuningError(f"`{' '.join(command)}` failed (exit status {child.returncode})" +
                              (f":\n{tail}" if tail else "; its output is above"), output or "")
        if dry_run:
            return {"dry_run": True, "output": output}
        lines = [line for line in summary.read_text().splitlines() if line.strip()] if summary.exists() else []
        if not lines:
            raise TuningError(f"`{' '.join(command)}` wrote no summary", output or "")
        _runtime.refresh()  # the next call of the problem in this process uses the new record
        return json.loads(lines[-1])


def tune(family, *, dry_run=False, quiet=False, **options):
    """Tunes a built-in family's problem and stores the winner, as `ktune tune FAMILY
    --OPTION VALUE ...` does (shape=(8192, 2048) is --shape 8192x2048); returns the run's
    summary (winner, median_us, ceiling_fraction, search log, ...)."""
    if not isinstance(family, str) or not _NAME.fullmatch(family):
        raise InvalidArgument(f"family {family!r}: a name such as 'transpose' (letters, digits, '_')")
    words = [family]
    for name, value in options.items():
        words += _option(name, value)
    return _run(words, dry_run, quiet)


def tune_kernel(path, problem, *, dry_run=False, quiet=False, **options):
    """Tunes a user's kernel file for one problem ({"n": 4096, "T": "f16"}); as tune()."""
    if not isinstance(problem, dict) or not problem:
        raise InvalidArgument("problem: a dict of the kernel's problem variables, e.g. {'n': 4096}")
    for k, v in problem.items():  # one variable each: no separator may hide in a name or value
        if not isinstance(k, str) or not _NAME.fullmatch(k) or isinstance(v, bool) or \
                not (isinstance(v, int) or (isinstance(v, str) and _VALUE.fullmatch(v))):
            raise InvalidArgument(f"problem {k!r}: {v!r}: a variable's name, and an integer (or a dtype name) as value")
    if "\0" in str(path):
        raise InvalidArgument("path: holds a NUL character")
    words = [f"--kernel={path}", "--problem=" + ",".join(f"{k}={v}" for k, v in problem.items())]
    for name, value in options.items():
        words += _option(name, value)
    return _run(words, dry_run, quiet)
