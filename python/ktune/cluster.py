"""Tuning a workload over a Ray cluster: one Ray task per problem, each asking Ray for a
GPU and running the `ktune` tuner in a child process with a database of its own; the
caller merges what comes back into its database (`ktune cache merge`: each task's all
or nothing, the faster record kept, records of another template version refused).

    import ktune.cluster
    report = ktune.cluster.tune("problems.txt", database="tuning.db")            # a local Ray
    report = ktune.cluster.tune("problems.txt", address="ray://head:10001")      # a cluster

Ray is optional: `pip install ray`. See docs/clusters.md."""
import json
import os
import shlex
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._tune import tuner as _local_tuner
from .errors import InvalidArgument, TuningError

__all__ = ["tune"]


def _ray():
    try:
        import ray
    except ImportError as e:
        raise ImportError("ktune.cluster needs Ray, an optional dependency: pip install ray") from e
    return ray


def _problems(workload, ktune):
    """The workload's problems, each (line, its command as `ktune tune` words, why it
    cannot be used or ""), checked by the tuner (`--check`: the first bad line is a
    TuningError naming FILE:LINE)."""
    # (JSON lines: a file name with spaces, quotes or tabs stays one word; text output would not.)
    done = subprocess.run([ktune, "tune", "--workload", str(workload), "--check", "--json"], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise TuningError(f"the workload {workload} does not check:\n{(done.stderr or done.stdout).strip()}",
                          done.stdout + done.stderr)
    out = []
    for text in done.stdout.splitlines():
        entry = json.loads(text)
        if "line" in entry:
            out.append((int(entry["line"]), list(entry["words"]), entry["unusable"]))
    return out


def _files_of(words):
    """The files a problem names (--kernel FILE, --capture BUNDLE), to ship with its task:
    the words with each path replaced by its name, and {name: bytes}."""
    words, files = list(words), {}
    for i, word in enumerate(words[:-1]):
        if word in ("--kernel", "--capture"):
            path = Path(words[i + 1])
            # Shipped under a plain name of its own (the task's workload line quotes nothing).
            name = f"file{len(files)}" + "".join(c for c in path.suffix if c.isalnum() or c == ".")
            files[name] = path.read_bytes()
            words[i + 1] = name
    return words, files


def _run_task(ktune, words, files, options):
    """On a Ray worker: one problem into a fresh database; returns what happened and the
    database's bytes (None when nothing was stored). Stdlib only: it is pickled by value."""
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="ktune-ray-") as tmp:
        for name, data in files.items():
            (Path(tmp) / name).write_bytes(data)
        line = " ".join(shlex.quote(w) for w in words)
        (Path(tmp) / "workload.txt").write_text(line + "\n")
        db = Path(tmp) / "tuning.db"
        command = [ktune, "tune", "--workload", str(Path(tmp) / "workload.txt"), "--database", str(db)] + list(options)
        done = subprocess.run(command, capture_output=True, text=True, cwd=tmp)
        return {"returncode": done.returncode, "output": done.stdout + done.stderr, "host": socket.gethostname(),
                "gpus": os.environ.get("CUDA_VISIBLE_DEVICES", ""), "seconds": time.time() - start,
                "database": db.read_bytes() if db.exists() else None}


def _merge(ktune, database, workload, databases):
    """`ktune cache merge` of the tasks' databases into `database`; its report."""
    command = [ktune, "cache", "merge", "--workload", str(workload)] + (["--database", str(database)] if database else [])
    done = subprocess.run(command + [str(d) for d in databases], capture_output=True, text=True)
    return done.returncode, (done.stdout + done.stderr).strip()


def tune(workload, *, database=None, address=None, options=(), dry_run=False, gpus_per_task=1, tuner=None,
         quiet=False):
    """Tunes every problem of a workload file (as `ktune tune --workload FILE`), one Ray
    task per problem, and merges the results into `database` (default: the tuner's,
    $KTUNE_CACHE_DIR/tuning.db). `address`: an existing Ray cluster (else the one this
    process is connected to, or a local one). `options`: `ktune tune` options for every
    problem (e.g. ["--strategy", "model", "--budget-evals", "60"]). `dry_run`: compile
    on CPUs (no GPU asked for, nothing stored). `tuner`: the ktune binary on the workers
    (default: this process's, which a single host or a shared file system sees). Kernel
    files and capture bundles travel with their tasks. Returns {"problems", "tuned",
    "failed": [{"line", "command", "output"}], "tasks": [...], "merge": report}; a task
    that fails is reported and the others go on (run it again to redo the failed ones)."""
    if isinstance(options, str):
        raise InvalidArgument("options: a list of words, e.g. ['--budget-evals', '60']")
    if gpus_per_task < 0 or (not dry_run and gpus_per_task == 0):
        raise InvalidArgument("gpus_per_task: 1 (or more) for tuning, 0 only with dry_run")
    ray = _ray()
    workload = Path(workload).resolve()
    local = _local_tuner()
    problems = _problems(workload, local)
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    report = {"problems": len(problems), "tuned": 0, "failed": [], "tasks": []}
    pending = _submit(ray, problems, report, tuner or local, list(options) + (["--dry-run"] if dry_run else []),
                      0 if dry_run else gpus_per_task)
    with tempfile.TemporaryDirectory(prefix="ktune-ray-merge-") as tmp:
        databases = _collect(ray, pending, report, Path(tmp), quiet)
        code, text = _merge(local, database, workload, databases) if databases else (0, "nothing to merge")
    report["merge"] = text
    if not quiet:
        print(text, flush=True)
    if code != 0:
        raise TuningError(f"merging the tasks' databases failed:\n{text}", text)
    return report


def _submit(ray, problems, report, ktune, options, gpus):
    """A Ray task for each usable problem: {its object ref: (line, words)}. A problem
    that cannot be used (a capture bundle not readable) is reported as failed."""
    # Pickled by value, so that workers need ktune's Python package no more than Ray's.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    remote = ray.remote(num_gpus=gpus, num_cpus=1, max_retries=0)(_run_task)
    pending = {}
    for line, words, unusable in problems:
        if unusable:
            report["failed"].append({"line": line, "command": " ".join(words), "output": unusable})
            continue
        shipped, files = _files_of(words)
        pending[remote.remote(ktune, shipped, files, options)] = (line, words)
    return pending


def _collect(ray, pending, report, folder, quiet):
    """Waits for the tasks as they finish: each one's line in the report (and printed),
    its database written into `folder`; returns those databases."""
    start, databases = time.time(), []
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        line, words = pending.pop(ready[0])
        try:
            r = ray.get(ready[0])
        except Exception as e:  # the task itself died (worker lost, out of memory)
            r = {"returncode": -1, "output": f"the Ray task failed: {e}", "host": "?", "gpus": "", "seconds": 0,
                 "database": None}
        task = {"line": line, "command": " ".join(words), "returncode": r["returncode"], "host": r["host"],
                "gpus": r["gpus"], "seconds": r["seconds"]}
        report["tasks"].append(task)
        if r["database"]:
            databases.append(folder / f"line-{line}.db")
            databases[-1].write_bytes(r["database"])
        if r["returncode"] == 0:
            report["tuned"] += 1
        else:
            report["failed"].append({"line": line, "command": task["command"],
                                     "output": "\n".join(r["output"].strip().splitlines()[-12:])})
        if not quiet:
            done = report["tuned"] + len(report["failed"])
            state = "ok" if r["returncode"] == 0 else f"FAILED (exit status {r['returncode']})"
            print(f"[{done}/{report['problems']}] line {line}: {task['command']}: {state} on {r['host']}"
                  f"{' GPU ' + r['gpus'] if r['gpus'] else ''} in {r['seconds']:.1f} s "
                  f"({time.time() - start:.0f} s elapsed)", flush=True)
    return databases
