"""Readable counterexamples (Groce & Kroening): minimal length and values, causes,
and the outputs other tools read. Every minimized counterexample replays in the
interpreter and, compiled with gcc, through the playback harness."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import EXAMPLES
from tracelearn.analyses.counterexample import CexOptions, analyze
from tracelearn.frontend.lower import load_program
from tracelearn.report.playback import write_playback
from tracelearn.report.sarif import sarif_document
from tracelearn.report.witness import witness_yaml
from tracelearn.analyses.check import CheckOptions, check

SORT = str(EXAMPLES / "sort.c")
ASSERTS = frozenset({"assertion"})


def sort_result():
    program = load_program(SORT, entry="f")
    return program, check(program, CheckOptions(checks=ASSERTS))


def visible(cex):
    return [(s.lhs, s.value) for s in cex.steps if s.kind in ("assign", "input") and not s.hidden]


def test_sort_optimal_is_fig3():
    _, res = sort_result()
    a = analyze(res, ASSERTS, CexOptions(minimize="all", method="optimal"))
    cex = a.cex
    assert cex.minimized == "optimal"
    assert cex.length == 7
    assert cex.value_sum == 2
    # Fig. 3: a=0 b=0 c=-1 (temp uninitialised), then temp=0, b=-1, c=0 at lines 10-12.
    assert [v for _, v in visible(cex)][:3] == [0, 0, -1]
    assert [(s.loc.line, s.value) for s in cex.steps if s.kind == "assign" and not s.hidden] == \
        [(10, 0), (11, -1), (12, 0)]
    assert cex.replay["status"] == "confirmed"


def test_greedy_is_labelled_and_never_better_than_optimal():
    _, res = sort_result()
    opt = analyze(res, ASSERTS, CexOptions(minimize="all", method="optimal")).cex
    _, res2 = sort_result()
    greedy = analyze(res2, ASSERTS, CexOptions(minimize="all", method="greedy")).cex
    assert greedy.minimized == "greedy"
    assert greedy.replay["status"] == "confirmed"
    assert (greedy.length, greedy.value_sum) >= (opt.length, opt.value_sum)


def test_length_only(cfile):
    path = cfile("int nondet_int(void);\n#include <assert.h>\nint main(void) { int x = nondet_int(); int s = 0;\n"
                 " if (x > 10) { s = 1; s = 2; s = 3; s = 4; }\n if (x != 5) { assert(x < 3); } return 0; }")
    program = load_program(path)
    res = check(program, CheckOptions())
    a = analyze(res, frozenset({"assertion"}), CexOptions(minimize="length"))
    # The shortest failing path avoids the four assignments: 3 <= x <= 10, x != 5.
    xs = [v for lhs, v in visible(a.cex) if lhs == "x"]
    assert 3 <= xs[0] <= 10 and xs[0] != 5
    assert a.cex.length == 2  # x and s = 0
    assert a.cex.replay["status"] == "confirmed"


def test_sort_causes_inputs_only():
    _, res = sort_result()
    a = analyze(res, ASSERTS, CexOptions(minimize="all", explain=True, causes_inputs_only=True))
    texts = [c.text for c in a.explanation.causes]
    assert "c < a" in texts and "c < b" in texts  # Fig. 6, in the names the source uses
    assert a.explanation.distance >= 1
    # The nearest passing run takes the branch at line 9 the other way.
    assert any(b.loc.line == 9 for b in a.explanation.branches)


def test_causes_are_checked_not_guessed(cfile):
    """A relation that does not matter is not reported."""
    path = cfile("int nondet_int(void);\n#include <assert.h>\nint main(void) { int x = nondet_int();"
                 " int y = nondet_int(); int z = nondet_int();\n assert(x != y); return z; }")
    program = load_program(path)
    res = check(program, CheckOptions())
    a = analyze(res, frozenset({"assertion"}), CexOptions(minimize="all", explain=True, causes_inputs_only=True))
    texts = [c.text for c in a.explanation.causes]
    assert "x == y" in texts
    assert not any("z" in t for t in texts)


def test_sarif_and_witness(tmp_path):
    program, res = sort_result()
    a = analyze(res, ASSERTS, CexOptions(minimize="all"))
    doc = sarif_document([a.cex], res.verdict)
    assert doc["version"] == "2.1.0"
    result = doc["runs"][0]["results"][0]
    assert result["ruleId"] == "assertion"
    flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert len(flow) == a.cex.length + 1
    assert flow[-1]["location"]["physicalLocation"]["region"]["startLine"] == 19
    text = witness_yaml(a.cex, SORT, "LP64", a.waypoints(res))
    assert "entry_type: violation_sequence" in text
    assert text.count("type: branching") == 3  # the three ifs of sort.c
    assert text.rstrip().endswith('function: "f"')
    yaml = pytest.importorskip("yaml")
    parsed = yaml.safe_load(text)
    content = parsed[0]["content"]
    assert content[-1]["segment"][0]["waypoint"]["type"] == "target"
    assert content[-1]["segment"][0]["waypoint"]["location"]["line"] == 19


def gcc_playback(program, cex, source, tmp_path) -> int | None:
    if shutil.which("gcc") is None:
        return None
    path = write_playback(program, cex, source, str(tmp_path / "pb"))
    exe = tmp_path / "pb" / "playback"
    flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    r = subprocess.run(["gcc", "-w", "-g", *flags, "-o", str(exe), str(path)], capture_output=True)
    if r.returncode != 0:  # no sanitizer runtime on this machine: plain build
        r = subprocess.run(["gcc", "-w", "-g", "-o", str(exe), str(path)], capture_output=True)
        assert r.returncode == 0, r.stderr.decode()
    return subprocess.run([str(exe)], capture_output=True, timeout=60).returncode


def test_playback_fails_with_gcc(tmp_path):
    program, res = sort_result()
    a = analyze(res, ASSERTS, CexOptions(minimize="all"))
    code = gcc_playback(program, a.cex, SORT, tmp_path)
    if code is None:
        pytest.skip("gcc not installed")
    assert code != 0


def test_playback_of_nondet_program(cfile, tmp_path):
    src = ("extern int __VERIFIER_nondet_int(void); extern void reach_error(void);\n"
           "int main(void) { int a = __VERIFIER_nondet_int(); int b = __VERIFIER_nondet_int();\n"
           "  __VERIFIER_assume(a > 0 && b > 0);\n  if (a * 3 == b + 40) reach_error();\n  return 0; }")
    path = cfile(src)
    program = load_program(path)
    res = check(program, CheckOptions())
    a = analyze(res, frozenset({"error-call"}) | frozenset(), CexOptions(minimize="all"))
    assert a.cex.replay["status"] == "confirmed"
    assert a.cex.input_values[0] * 3 == a.cex.input_values[1] + 40
    # min a + b with 3a = b + 40, a, b > 0: a = 14, b = 2 (brute force: a >= 14)
    assert a.cex.value_sum == min(x + (3 * x - 40) for x in range(1, 100) if 3 * x - 40 > 0)
    code = gcc_playback(program, a.cex, path, tmp_path)
    if code is None:
        pytest.skip("gcc not installed")
    assert code != 0


def test_cli_json_has_minimization_and_explanation():
    p = subprocess.run(["tracelearn", "check", SORT, "--entry", "f", "--minimize", "all", "--explain",
                        "--causes-inputs-only", "--json"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    cex = doc["counterexample"]
    assert cex["length"] == 7 and cex["value_sum"] == 2 and cex["minimized"] == "optimal"
    causes = [c["predicate"] for c in doc["explanation"]["causes"]]
    assert "c < a" in causes
    assert all("where" in c and c["where"][0]["line"] >= 1 for c in doc["explanation"]["causes"])


def test_guard_truth_is_the_completed_models_value_of_each_guard():
    import random

    import z3

    from tracelearn.semantics.traces import guard_truth
    x, y = z3.BitVecs("x y", 8)
    s = z3.Solver()
    s.add(z3.UGT(x, 10), y == x + 3)
    assert s.check() == z3.sat
    m = s.model()
    true = guard_truth(m)
    rng = random.Random(3)
    atoms = [z3.UGT(x, 10), z3.ULT(y, 5), y == x + 3, z3.Bool("g#1"), x == y]
    guards = [z3.And(rng.sample(atoms, 2)) if rng.random() < 0.5 else rng.choice(atoms) for _ in range(60)]
    for g in guards + guards:  # asked again: the same answers
        assert true(g) == z3.is_true(m.eval(g, model_completion=True))
