"""SV-COMP conventions: property files, task definitions, the answer a property gives
a verdict and its score; `check` on a task; `batch` (local pool, resume, Dask)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import tracelearn
from tracelearn.api.batches import BatchOptions, collect_tasks, run_batch
from tracelearn.api.tasks import Task, load_tasks, parse_property, property_verdict, status
from tracelearn.errors import OptionError

UNREACH = "CHECK( init(main()), LTL(G ! call(reach_error())) )\n"
MEMSAFETY = ("CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\n"
             "CHECK( init(main()), LTL(G valid-memtrack) )\n")
HEAD = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\n"
PROGRAMS = {  # name: (source, expected verdict of unreach-call)
    "bug": (HEAD + "int main() { int x = __VERIFIER_nondet_int(); if (x == 42) reach_error(); return 0; }\n", "false"),
    "safe": (HEAD + "int main() { int x = __VERIFIER_nondet_int(); int y = x; if (x != y) reach_error(); return 0; }\n",
             "true"),
    "loop": (HEAD + "int main() { int s = 0; for (int i = 0; i < 5; i++) s += i; if (s != 10) reach_error(); "
             "return 0; }\n", "true"),
}


def _suite(tmp: Path, wrong_expectation: bool = False) -> Path:
    (tmp / "properties").mkdir()
    (tmp / "properties" / "unreach-call.prp").write_text(UNREACH)
    (tmp / "properties" / "termination.prp").write_text("CHECK( init(main()), LTL(F end) )\n")
    d = tmp / "tasks"
    d.mkdir()
    for name, (src, expected) in PROGRAMS.items():
        if wrong_expectation and name == "bug":
            expected = "true"
        (d / f"{name}.c").write_text(src)
        (d / f"{name}.yml").write_text(
            f"format_version: '2.0'\ninput_files: '{name}.c'\nproperties:\n"
            f"  - property_file: ../properties/termination.prp\n    expected_verdict: true\n"
            f"  - property_file: ../properties/unreach-call.prp\n    expected_verdict: {expected}\n"
            f"  - property_file: ../properties/coverage-branches.prp\noptions:\n  language: C\n  data_model: ILP32\n")
    return d


def test_property_files():
    p = parse_property(UNREACH, "unreach-call")
    assert p.checks == {"error-call"} and p.entry == "main" and p.subproperties == ("unreach-call",)
    old = parse_property("CHECK( init(main()), LTL(G ! call(__VERIFIER_error())) )", "unreach-call")
    assert old.checks == {"error-call"}
    m = parse_property(MEMSAFETY, "valid-memsafety")
    assert m.checks == {"pointer", "bounds"} and m.undecided == ("valid-memtrack",)
    m2 = parse_property(MEMSAFETY + "CHECK( init(main()), LTL(G valid-memcleanup) )\n", "valid-memsafety")
    assert m2.checks == {"pointer", "bounds", "memleak"} and m2.undecided == ()
    assert parse_property("CHECK( init(main()), LTL(G ! overflow) )", "no-overflow").checks == {"overflow"}
    with pytest.raises(OptionError, match=r"t.prp:2:1: the property termination is not supported"):
        parse_property(UNREACH + "CHECK( init(main()), LTL(F end) )\n", "t", "t.prp")
    with pytest.raises(OptionError, match=r"t.prp:1:1: not a CHECK"):
        parse_property("G ! call(reach_error())\n", "t", "t.prp")


def test_answers_and_scores():
    unreach = parse_property(UNREACH, "unreach-call")
    mem = parse_property(MEMSAFETY, "valid-memsafety")
    assert property_verdict(unreach, "false", "error-call", "f.c:3:4") == ("false", "unreach-call")
    assert property_verdict(unreach, "true-up-to-bound", None, None) == ("unknown", None)
    assert property_verdict(mem, "true", None, None) == ("unknown", None)  # valid-memtrack is not decided
    assert property_verdict(mem, "false", "pointer", "f.c:3:4:free") == ("false", "valid-free")
    assert property_verdict(mem, "false", "bounds", "f.c:3:4") == ("false", "valid-deref")
    t = lambda e, sub=None: Task("t.yml", "t.c", mem, e, sub)  # noqa: E731
    assert status(t("true"), "true", None) == ("correct", 2)
    assert status(t("false"), "false", "valid-deref") == ("correct", 1)
    assert status(t("true"), "false", "valid-deref") == ("wrong", -16)
    assert status(t("false"), "true", None) == ("wrong", -32)
    assert status(t("false", "valid-free"), "false", "valid-deref") == ("wrong", -16)
    assert status(t("false"), "unknown", None) == ("unknown", 0)


def test_task_definitions(tmp_path):
    d = _suite(tmp_path)
    tasks = load_tasks(d / "bug.yml")
    assert [(t.property.name, t.expected, t.data_model) for t in tasks] == [("unreach-call", "false", "ILP32")]
    (d / "two.yml").write_text("format_version: '2.0'\ninput_files: ['a.c', 'b.c']\nproperties: []\n")
    with pytest.raises(OptionError, match="one C file"):
        load_tasks(d / "two.yml")
    (d / "bad.yml").write_text("input_files: 'a.c'\nproperties: [\n")
    with pytest.raises(OptionError, match=r"bad.yml:\d+:\d+: not a YAML task"):
        load_tasks(d / "bad.yml")
    with pytest.raises(OptionError, match="needs --property"):
        load_tasks(d / "bug.c")


def test_check_on_a_task(tmp_path):
    d = _suite(tmp_path)
    doc = tracelearn.check(str(d / "bug.yml"), timeout=30)
    assert doc["verdict"] == "false" and doc["task"]["status"] == "correct" and doc["task"]["score"] == 1
    doc = tracelearn.check(str(d / "safe.c"), property=str(tmp_path / "properties" / "unreach-call.prp"))
    assert doc["task"]["answer"] == "true" and doc["task"]["status"] == "unknown"  # no expected verdict
    p = subprocess.run([sys.executable, "-m", "tracelearn.cli.main", "check", str(d / "bug.yml"), "--checks",
                        "assertion"], capture_output=True, text=True)
    assert p.returncode == 2 and "exclude each other" in p.stderr and "Traceback" not in p.stderr


def test_batch_local_pool_resumes(tmp_path):
    d = _suite(tmp_path, wrong_expectation=True)
    tasks = collect_tasks([str(d)], None)
    out = tmp_path / "out"
    r = run_batch(tasks, BatchOptions(timeout_s=30, jobs=2, out=str(out)))
    got = {row.task: (row.answer, row.status, row.score) for row in r.rows}
    assert got == {"bug": ("false", "wrong", -16), "loop": ("true", "correct", 2), "safe": ("true", "correct", 2)}
    assert r.summary["score"] == -12 and r.summary["wrong_false"] == 1 and r.summary["correct_true"] == 2
    assert all(row.memory_mb > 0 and row.cpu_s > 0 for row in r.rows)
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 3
    # An interruption cut the last line: that run alone runs again.
    (out / "results.jsonl").write_text("\n".join(lines[:2]) + "\n" + lines[2][:20])
    again = run_batch(tasks, BatchOptions(timeout_s=30, jobs=2, out=str(out)))
    assert again.skipped == 2 and {row.task: (row.answer, row.status) for row in again.rows} == \
        {k: v[:2] for k, v in got.items()}


def test_batch_validates_every_witness_it_writes(tmp_path):
    d = _suite(tmp_path)
    src = HEAD + ("int main() { int i = 0, s = 0, n = __VERIFIER_nondet_int(); while (i < n) { i++; s++; } "
                  "if (s != i) reach_error(); return 0; }\n")
    (d / "count.c").write_text(src)  # safe, proved with a loop invariant
    (d / "count.yml").write_text((d / "safe.yml").read_text().replace("safe.c", "count.c"))
    out = tmp_path / "out"
    r = run_batch(collect_tasks([str(d)], None), BatchOptions(timeout_s=30, jobs=2, out=str(out), witnesses=True))
    got = {row.task: (row.answer, row.validation) for row in r.rows}
    assert got == {"bug": ("false", "confirmed"), "count": ("true", "confirmed"), "loop": ("true", "confirmed"),
                   "safe": ("true", "confirmed")}
    assert r.summary["witnesses"] == 4 and r.summary["witnesses_confirmed"] == 4
    w = (out / "witnesses" / "count.unreach-call.yml").read_text()
    assert "invariant_set" in w and "loop_invariant" in w  # the proof's invariant, re-checked


def test_batch_memory_limit_is_no_verdict(tmp_path):
    d = _suite(tmp_path)
    r = run_batch(load_tasks(d / "bug.yml"), BatchOptions(timeout_s=30, memory_mb=40, out=str(tmp_path / "o")))
    (row,) = r.rows
    assert row.verdict == "error" and row.status == "unknown" and row.score == 0 and row.reason


def test_batch_command_writes_tables(tmp_path):
    d = _suite(tmp_path)
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "tracelearn.cli.main", "batch", str(d / "safe.yml"),
                        str(d / "loop.yml"), "--out", str(out), "--json", "--quiet"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["summary"]["correct_true"] == 2 and doc["summary"]["score"] == 4
    assert "correct" in (out / "results.html").read_text()
    assert (out / "results.csv").read_text().count("\n") == 3
    assert json.loads((out / "results.json").read_text())["summary"] == doc["summary"]
    api = tracelearn.batch([str(d / "safe.yml"), str(d / "loop.yml")], out=str(out))  # resumed: nothing runs
    assert api["summary"]["score"] == 4 and [r["answer"] for r in api["runs"]] == ["true", "true"]


def test_batch_on_a_local_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    d = _suite(tmp_path, wrong_expectation=True)
    tasks = collect_tasks([str(d)], None)
    local = run_batch(tasks, BatchOptions(timeout_s=30, jobs=2, out=str(tmp_path / "local")))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        dask = run_batch(tasks, BatchOptions(timeout_s=30, scheduler=cluster.scheduler_address,
                                             out=str(tmp_path / "dask")))
    key = lambda rows: [(r.task, r.answer, r.status, r.score) for r in rows]  # noqa: E731
    assert key(dask.rows) == key(local.rows)


def test_benchexec_tool_info_runs_tracelearn(tmp_path):
    pytest.importorskip("benchexec")
    from benchexec.tools.template import BaseTool2

    from tracelearn.cli.benchexec_tool import Tool

    d = _suite(tmp_path)
    prp = str(tmp_path / "properties" / "unreach-call.prp")
    exe = str(Path(sys.executable).parent / "tracelearn")
    tool = Tool()
    results = {}
    for name in ("bug", "safe"):
        task = BaseTool2.Task.with_files([str(d / f"{name}.c")], property_file=prp,
                                         options={"language": "C", "data_model": "ILP32"})
        cmd = tool.cmdline(exe, [], task, BaseTool2.ResourceLimits(cputime=30))
        assert cmd[:3] == [exe, "check", str(d / f"{name}.c")] and "ILP32" in cmd and "30" in cmd
        p = subprocess.run(cmd, capture_output=True, text=True)
        run = BaseTool2.Run(cmd, p.returncode, BaseTool2.RunOutput(p.stdout.splitlines()), None)
        results[name] = tool.determine_result(run)
    assert results == {"bug": "false(unreach-call)", "safe": "true"}
    err = BaseTool2.Run(["x"], 2, BaseTool2.RunOutput(["tracelearn: error: f.c:1:2: bad"]), None)
    assert tool.determine_result(err) == "ERROR (f.c:1:2: bad)"


def test_svcomp_tasks_assume_no_signed_overflow(tmp_path):
    # reach_error needs x to wrap negative: undefined behaviour in C, which SV-COMP's
    # verdicts assume away (sv-benchmarks loop-zilu/benchmark01 was of this kind, expected
    # true): the task is answered `true` and the overflow named; plain `check` wraps as
    # gcc -fwrapv and finds the call.
    d = _suite(tmp_path)
    src = HEAD + ("int main() { int x = 1; while (__VERIFIER_nondet_int()) x = x + x; "
                  "if (x < 0) reach_error(); return 0; }\n")
    (d / "wrap.c").write_text(src)
    prp = str(tmp_path / "properties" / "unreach-call.prp")
    doc = tracelearn.check(str(d / "wrap.c"), property=prp, timeout=60)
    assert doc["task"]["answer"] == "true" and doc["proved_by"] in ("k-induction", "chc")
    # its witness holds under the same convention, and not where x wraps
    wit = tmp_path / "w.yml"
    p = subprocess.run([sys.executable, "-m", "tracelearn.cli.main", "check", str(d / "wrap.c"), "--property", prp,
                        "--witness", str(wit), "--quiet"], capture_output=True, text=True)
    assert p.returncode == 0 and wit.exists(), p.stderr
    assert tracelearn.validate(str(wit), str(d / "wrap.c"), timeout=60)["result"] == "confirmed"
    assert tracelearn.validate(str(wit), str(d / "wrap.c"), timeout=60, signed_overflow="wraps")["result"] != "confirmed"
    # the model checker names the overflow once its bound reaches it (31 doublings)
    doc = tracelearn.check(str(d / "wrap.c"), property=prp, bound=40, prove="none", timeout=60)
    assert doc["task"]["answer"] == "true" and doc["proved_by"] == "unwinding"  # overflowing paths end
    assert len(doc["assumptions"]) == 1 and "overflow" in doc["assumptions"][0]
    plain = tracelearn.check(str(d / "wrap.c"), bound=40, timeout=60)
    assert plain["verdict"] == "false"
    no_ub = HEAD + ("int main() { int x = 1; while (__VERIFIER_nondet_int() && x < 1000) x = x + x; "
                    "if (x < 0) reach_error(); return 0; }\n")
    (d / "nowrap.c").write_text(no_ub)
    doc = tracelearn.check(str(d / "nowrap.c"), property=prp, timeout=60)
    assert doc["task"]["answer"] == "true" and doc["assumptions"] == []
    # older task sets state their verdicts with wrap-around (SV-COMP 2015's Addition03)
    doc = tracelearn.check(str(d / "wrap.c"), property=prp, signed_overflow="wraps", timeout=60)
    assert doc["task"]["answer"] == "false"
    with pytest.raises(OptionError, match="signed_overflow"):
        tracelearn.check(str(d / "wrap.c"), signed_overflow="wraps")
