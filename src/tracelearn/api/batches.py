"""``tracelearn batch``: many SV-COMP runs, each in its own process with its own time
and memory limit.

Results are appended to ``OUT/results.jsonl`` as each run ends, so an interrupted
batch loses nothing finished and a rerun skips what is there. The runs go to a local
pool of processes, or, given a scheduler's address, to an existing Dask distributed
cluster (each worker starts the same ``tracelearn check`` process; the task files
must be at the same paths there, as on a shared file system).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..errors import OptionError
from .tasks import Task, load_tasks

GRACE_S = 15.0  # past the run's own --timeout before the process is killed


@dataclass
class BatchOptions:
    timeout_s: float = 60.0
    memory_mb: int | None = 4096
    jobs: int = 1
    scheduler: str | None = None  # a Dask scheduler address, e.g. tcp://10.0.0.1:8786
    out: str = "tracelearn-batch"
    bound: int | None = None
    progress: Callable[[str], None] | None = None
    prove: str | None = None  # check's --prove (None: its default)
    witnesses: bool = False  # write each run's witness to OUT/witnesses and validate it
    signed_overflow: str | None = None  # check's --signed-overflow (None: its default)


@dataclass
class RunRow:
    id: str
    task: str
    file: str
    property: str
    expected: str | None
    answer: str  # true | false | false(sub) | unknown
    status: str  # correct | wrong | unknown
    score: int
    verdict: str  # tracelearn's own: false, true, true-up-to-bound, unknown, error
    reason: str
    wall_s: float
    cpu_s: float
    memory_mb: float
    proved_by: str = ""  # verdict true: "unwinding" or "chc"
    witness: str = ""  # the witness written (with --witnesses)
    validation: str = ""  # `tracelearn validate` on it: confirmed, rejected, unknown, or why not run


@dataclass
class BatchResult:
    rows: list[RunRow]
    skipped: int  # finished in an earlier batch of the same OUT
    wall_s: float
    summary: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"schema_version": "1.0", "command": "batch", "summary": self.summary,
                "runs": [asdict(r) for r in self.rows]}


def collect_tasks(paths: Iterable[str], property_file: str | None, data_model: str = "ILP32") -> list[Task]:
    """The runs of the given task files, C files (with ``property_file``) and folders
    (their ``.yml`` tasks, recursively)."""
    tasks: list[Task] = []
    for given in paths:
        p = Path(given)
        if p.is_dir():
            found = sorted(p.rglob("*.yml"))
            if not found:
                raise OptionError(f"{p}: no task definition (.yml) in this folder")
            for y in found:
                tasks += load_tasks(y, property_file, data_model)
        elif p.is_file():
            tasks += load_tasks(p, property_file, data_model)
        else:
            raise OptionError(f"{p}: no such file or folder")
    return tasks


def run_id(task: Task) -> str:
    return f"{Path(task.source).resolve()}::{task.property.name}"


def run_one(task: Task, timeout_s: float, memory_mb: int | None, bound: int | None,
            prove: str | None = None, signed_overflow: str | None = None, witness: str | None = None) -> dict:
    """One run as its own ``tracelearn check`` process; the row and the check's document.
    With ``witness`` (a path), the run writes its witness there and a ``tracelearn
    validate`` process re-checks it, with the same limits. A module-level function:
    Dask ships it to its workers."""
    cmd = [sys.executable, "-m", "tracelearn.cli.main", "check", task.source, "--property", task.prp,
           "--timeout", f"{timeout_s:g}", "--json", "--quiet"]
    if not task.source.endswith((".yml", ".yaml")):
        cmd += ["--data-model", task.data_model]
    if bound is not None:
        cmd += ["--bound", str(bound)]
    if prove is not None:
        cmd += ["--prove", prove]
    if signed_overflow is not None:
        cmd += ["--signed-overflow", signed_overflow]
    if witness is not None:
        Path(witness).unlink(missing_ok=True)  # a rerun's witness is its own
        cmd += ["--witness", witness]
    run = _limited(cmd, timeout_s, memory_mb)
    row = {"verdict": "error", "answer": "unknown", "status": "unknown", "score": 0, "reason": "", "proved_by": "",
           "witness": "", "validation": ""}
    doc = None
    if run.killed:
        row["reason"] = f"killed {GRACE_S:g} s past the time limit"
    elif run.returncode != 0:
        last = [ln for ln in run.stderr.splitlines() if ln.strip()][-1:] or [f"exit {run.returncode}"]
        row["reason"] = ("memory limit" if "MemoryError" in run.stderr or "memory" in last[0].lower() else last[0])[:200]
    else:
        try:
            doc = json.loads(run.stdout)
            t = doc["task"]
            row.update(verdict=doc["verdict"], answer=t["answer"], status=t["status"], score=t["score"],
                       reason=doc.get("reason") or "", proved_by=doc.get("proved_by") or "")
        except (ValueError, KeyError) as e:
            row["reason"] = f"unreadable output ({e})"
    row.update(wall_s=round(run.wall_s, 3), cpu_s=round(run.cpu_s, 3), memory_mb=round(run.memory_mb, 1))
    if witness is not None and Path(witness).exists():
        row["witness"] = witness
        row["validation"] = _validate(witness, task, timeout_s, memory_mb, signed_overflow)
    return {"row": row, "doc": doc}


@dataclass
class _Finished:
    returncode: int
    stdout: str
    stderr: str
    killed: bool
    wall_s: float
    cpu_s: float
    memory_mb: float


def _limited(cmd: list[str], timeout_s: float, memory_mb: int | None) -> _Finished:
    """``cmd`` as a process of its own session, with a memory limit, killed (with its
    children) ``GRACE_S`` past ``timeout_s``; its own CPU time and peak memory."""

    def limits() -> None:
        if memory_mb is not None:
            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, preexec_fn=limits, start_new_session=True)
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout_s + GRACE_S, kill)
        timer.start()
        try:
            _, wstatus, usage = os.wait4(p.pid, 0)  # the run's own CPU time and peak memory
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        return _Finished(os.waitstatus_to_exitcode(wstatus), out.read().decode(errors="replace"),
                         err.read().decode(errors="replace"), killed.is_set(), wall,
                         usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def _validate(witness: str, task: Task, timeout_s: float, memory_mb: int | None, signed_overflow: str | None) -> str:
    cmd = [sys.executable, "-m", "tracelearn.cli.main", "validate", witness, task.file, "--timeout",
           f"{timeout_s:g}", "--data-model", task.data_model, "--json", "--quiet"]
    if signed_overflow is not None:
        cmd += ["--signed-overflow", signed_overflow]
    run = _limited(cmd, timeout_s, memory_mb)
    if run.killed:
        return "timeout"
    try:
        return json.loads(run.stdout)["result"]
    except (ValueError, KeyError):
        last = [ln for ln in run.stderr.splitlines() if ln.strip()][-1:] or [f"exit {run.returncode}"]
        return f"error: {last[0][:150]}"


def run_batch(tasks: list[Task], opts: BatchOptions) -> BatchResult:
    if opts.jobs < 1:
        raise OptionError("--jobs must be >= 1")
    out = Path(opts.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "runs").mkdir(exist_ok=True)
    except OSError as e:
        raise OptionError(f"--out {out}: cannot create the folder ({e.strerror or e})") from None
    journal = out / "results.jsonl"
    done = _finished(journal)
    rows = [RunRow(**done[run_id(t)]) for t in tasks if run_id(t) in done]
    todo = [t for t in tasks if run_id(t) not in done]
    skipped = len(rows)
    t0 = time.perf_counter()
    total = len(tasks)

    def finished(task: Task, result: dict) -> None:
        r = result["row"]
        row = RunRow(run_id(task), Path(task.source).stem, task.file, task.property.name, _expected(task),
                     r["answer"], r["status"], r["score"], r["verdict"], r["reason"], r["wall_s"], r["cpu_s"],
                     r["memory_mb"], r.get("proved_by", ""), r.get("witness", ""), r.get("validation", ""))
        if result["doc"] is not None:
            name = f"{Path(task.source).stem}.{task.property.name}.json"
            (out / "runs" / name).write_text(json.dumps(result["doc"], indent=1))
        with journal.open("a") as f:  # one line per finished run: a rerun resumes here
            f.write(json.dumps(asdict(row)) + "\n")
        rows.append(row)
        if opts.progress is not None:
            opts.progress(f"[{len(rows)}/{total}] {row.task} ({row.property}): {row.answer} "
                          f"{row.status} ({row.wall_s:.1f} s)")

    args = (opts.timeout_s, opts.memory_mb, opts.bound, opts.prove, opts.signed_overflow)
    if opts.witnesses:
        (out / "witnesses").mkdir(exist_ok=True)
    wit = {run_id(t): str((out / "witnesses" / f"{Path(t.source).stem}.{t.property.name}.yml").resolve())
           if opts.witnesses else None for t in todo}
    if opts.scheduler:
        _on_dask(opts.scheduler, todo, args, wit, finished)
    else:
        with ThreadPoolExecutor(max_workers=opts.jobs) as pool:  # threads wait; each run is a process
            futures = {pool.submit(run_one, t, *args, wit[run_id(t)]): t for t in todo}
            for fut in as_completed(futures):
                finished(futures[fut], fut.result())
    order = {run_id(t): i for i, t in enumerate(tasks)}
    rows.sort(key=lambda r: order.get(r.id, len(order)))
    result = BatchResult(rows, skipped, time.perf_counter() - t0)
    result.summary = summarize(rows, result.wall_s)
    return result


def write_tables(result: BatchResult, out: str | Path) -> list[str]:
    """results.json, results.csv, results.html in ``out``; the files not written (a
    warning each: the runs themselves are safe in results.jsonl)."""
    from ..report.batch_report import batch_csv, batch_html
    from ..report.jsonout import dumps as json_text

    failed = []
    for name, text in (("results.json", json_text(result.to_json(), indent=1)), ("results.csv", batch_csv(result.rows)),
                       ("results.html", batch_html(result.rows, result.summary))):
        try:
            (Path(out) / name).write_text(text)
        except OSError as e:
            failed.append(f"{Path(out) / name}: not written ({e.strerror or e})")
    return failed


def batch(tasks: list[str], *, property: str | None = None, jobs: int = 1, scheduler: str | None = None,
          timeout: float = 60.0, memory: int | None = 4096, bound: int | None = None, data_model: str = "ILP32",
          out: str = "tracelearn-batch", progress: Callable[[str], None] | None = None,
          prove: str | None = None, witnesses: bool = False, signed_overflow: str | None = None) -> dict:
    """Run the SV-COMP runs of ``tasks`` (files or folders); returns what
    ``tracelearn batch --json`` prints and writes the same tables into ``out``."""
    result = run_batch(collect_tasks(tasks, property, data_model),
                       BatchOptions(timeout, memory, jobs, scheduler, out, bound, progress, prove, witnesses,
                                    signed_overflow))
    doc = result.to_json()
    doc["warnings"] = write_tables(result, out)
    return doc


def _on_dask(address: str, todo: list[Task], args: tuple, wit: dict[str, str | None],
             finished: Callable[[Task, dict], None]) -> None:
    try:
        from distributed import Client, as_completed as dask_completed
    except ImportError:
        raise OptionError("--scheduler needs Dask distributed: pip install 'tracelearn[batch]'") from None
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError) as e:
        raise OptionError(f"--scheduler {address}: cannot reach the scheduler ({e})") from None
    try:
        futures = {client.submit(run_one, t, *args, wit[run_id(t)], pure=False): t for t in todo}
        for fut in dask_completed(list(futures)):
            finished(futures[fut], fut.result())
    finally:
        client.close()


def _finished(journal: Path) -> dict[str, dict]:
    if not journal.exists():
        return {}
    out = {}
    for line in journal.read_text().splitlines():
        try:
            d = json.loads(line)
            out[d["id"]] = d
        except (ValueError, KeyError):
            continue  # a line cut by an interruption: that run runs again
    return out


def _expected(task: Task) -> str | None:
    if task.expected is None:
        return None
    return task.expected if not task.expected_sub else f"{task.expected}({task.expected_sub})"


def summarize(rows: list[RunRow], wall_s: float) -> dict:
    def n(status: str, answer: str) -> int:
        return sum(1 for r in rows if r.status == status and r.answer.startswith(answer))

    return {
        "runs": len(rows),
        "correct_true": n("correct", "true"), "correct_false": n("correct", "false"),
        "wrong_true": n("wrong", "true"),  # answered true, expected false
        "wrong_false": n("wrong", "false"),  # answered false, expected true (or the wrong subproperty)
        "unknown": sum(1 for r in rows if r.status == "unknown"),
        "score": sum(r.score for r in rows),
        "cpu_s": round(sum(r.cpu_s for r in rows), 2),
        "wall_s": round(wall_s, 2),
        "max_memory_mb": max((r.memory_mb for r in rows), default=0.0),
        "witnesses": sum(1 for r in rows if r.witness),
        "witnesses_confirmed": sum(1 for r in rows if r.validation == "confirmed"),
        "witnesses_rejected": sum(1 for r in rows if r.validation == "rejected"),
    }
