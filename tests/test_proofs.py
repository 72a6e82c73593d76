"""Unbounded proofs: the Horn-clause strategy beside the model checker (`check --prove`).

Every `true` here must hold for every path at any depth; every program that can fail
must never get one (the clauses are bit-precise: wrap-around included)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
import z3

from tracelearn import check, validate
from tracelearn.analyses.check import CheckOptions, check as portfolio
from tracelearn.analyses.proofs import encode
from tracelearn.frontend.lower import DEFAULT_CHECKS, load_program
from tracelearn.cli.main import main

HEADER = "extern int __VERIFIER_nondet_int(void);\nextern void reach_error(void);\n"

MCCARTHY = HEADER + """
int f91(int x) {
    if (x > 100)
        return x - 10;
    return f91(f91(x + 11));
}
int main(void) {
    int x = __VERIFIER_nondet_int();
    int r = f91(x);
    if (!(r == 91 || (x > 101 && r == x - 10))) reach_error();
    return 0;
}
"""

# An unbounded loop: the model checker alone can only say "true up to the bound".
TWIN_COUNTERS = HEADER + """
int main(void) {
    int x = 0, y = 0;
    while (__VERIFIER_nondet_int()) { x++; y++; }
    if (x != y) reach_error();
    return 0;
}
"""

# Safe over mathematical integers, not in C: x + 1 wraps at INT_MAX (gcc -fwrapv).
WRAPS = HEADER + """
int main(void) {
    int x = __VERIFIER_nondet_int();
    while (__VERIFIER_nondet_int()) { if (x > 0) x = x + 1; }
    if (x > 0) { int y = x + 1; if (y <= 0) reach_error(); }
    return 0;
}
"""

# Recursion that leaves its result in a global.
COUNTER = HEADER + """
int g;
void down(int n) { if (n <= 0) { g = 1; return; } down(n - 1); }
int main(void) {
    int n = __VERIFIER_nondet_int();
    g = 0;
    down(n);
    if (g != 1) reach_error();
    return 0;
}
"""

HEAP = HEADER + """
#include <stdlib.h>
int main(void) {
    int n = __VERIFIER_nondet_int();
    while (__VERIFIER_nondet_int()) { int *p = malloc(sizeof(int)); if (p) { *p = n; free(p); } }
    return 0;
}
"""


def _constants(e: z3.ExprRef) -> list[z3.ExprRef]:
    out, todo = {}, [e]
    while todo:
        x = todo.pop()
        if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out[str(x)] = x
        elif z3.is_app(x):
            todo.extend(x.children())
    return list(out.values())


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def run(path: str, timeout: float = 30.0, **kw):
    program = load_program(path, "ILP32", checks=DEFAULT_CHECKS | {"error-call", "assertion"})
    opts = CheckOptions(timeout_s=timeout, checks=frozenset({"error-call", "assertion"}) | DEFAULT_CHECKS, **kw)
    return portfolio(program, opts)


def test_mccarthy91_is_proved_with_its_summary(tmp_path):
    res = run(write(tmp_path, "m.c", MCCARTHY))
    assert res.verdict == "true" and res.proved_by == "chc"
    assert res.proof is not None and res.proof.status == "proved"
    # Spacer alone proves it at once: the lemma stage (concrete calls, Houdini) never ran
    assert res.proof.solver == "spacer" and res.proof.lemma_queries == 0
    summary = next(i for i in res.proof.invariants if i.proc == "f91" and i.kind == "summary")
    assert summary.is_c and "\\result" in summary.text and "\\old(x)" in summary.text
    # the summary is McCarthy's: f91(x) = 91 for x <= 101, x - 10 above
    f = summary.formula
    names = {str(c): c for c in _constants(f)}

    def holds(x: int, r: int) -> bool:
        val = lambda c, v: z3.IntVal(v, f.ctx) if c.sort().kind() == z3.Z3_INT_SORT else z3.BitVecVal(v, c.size(), f.ctx)  # noqa: E731
        subst = [(names[n], val(names[n], v)) for n, v in (("\\old(x)", x), ("\\result", r)) if n in names]
        return z3.is_true(z3.simplify(z3.substitute(f, *subst)))

    assert holds(50, 91) and holds(-7, 91) and holds(200, 190)
    assert not holds(50, 92) and not holds(200, 91) and not holds(101, 91 + 1)


def test_an_unbounded_loop_is_proved_by_a_loop_invariant(tmp_path):
    path = write(tmp_path, "t.c", TWIN_COUNTERS)
    assert run(path, prove="none", timeout=3).verdict == "true-up-to-bound"
    res = run(path, prove="chc")
    assert res.verdict == "true" and res.proved_by == "chc"
    assert any(i.kind == "loop" and i.proc == "main" for i in res.proof.invariants)
    assert run(path).verdict == "true"  # all: k-induction or the Horn clauses, whichever is first


def test_recursion_through_a_global_is_proved(tmp_path):
    res = run(write(tmp_path, "c.c", COUNTER))
    assert res.verdict == "true" and res.proved_by == "chc"


def test_the_clauses_are_bit_precise_wraparound_is_a_bug(tmp_path):
    res = run(write(tmp_path, "w.c", WRAPS))
    assert res.verdict == "false"
    assert res.counterexample.replay["status"] == "confirmed"
    assert res.proof is None or res.proof.status != "proved"
    # the Horn clauses alone see the error too (no model checker needed)
    program = load_program(write(tmp_path, "w2.c", WRAPS), "ILP32", checks=DEFAULT_CHECKS | {"error-call"})
    hr, early = encode(program, frozenset({"error-call"}) | DEFAULT_CHECKS, None)
    assert early is None and hr.solve(None).status == "reachable"


def test_a_bug_is_never_proved(tmp_path):
    res = run(write(tmp_path, "b.c", MCCARTHY.replace("r == 91 ||", "r == 92 ||")))
    assert res.verdict == "false" and res.proved_by == ""
    assert res.proof is not None and res.proof.status in ("reachable", "stopped")


def test_switched_off_undefined_behaviour_is_a_goal_of_the_proof(tmp_path):
    # The assertion holds, but a[i] can be written out of bounds: with the bounds check
    # switched off that is undefined behaviour, and no strategy may answer `true`.
    path = write(tmp_path, "u.c", HEADER + """
int main(void) {
    int a[2];
    int i = __VERIFIER_nondet_int();
    if (i >= 0 && i <= 2) a[i] = 1;
    if (0) reach_error();
    return 0;
}
""")
    program = load_program(path, "ILP32", checks=DEFAULT_CHECKS | {"error-call"})
    res = portfolio(program, CheckOptions(timeout_s=20, checks=frozenset({"error-call"})))
    assert res.verdict == "unknown" and "undefined behaviour" in res.reason
    assert res.proof is not None and res.proof.status == "reachable"


def test_heap_programs_are_refused_with_the_reason(tmp_path):
    res = run(write(tmp_path, "h.c", HEAP), timeout=4)
    assert res.verdict != "true"
    assert res.proof.status == "refused" and "heap memory" in res.proof.reason


def test_prove_option_json_and_text(tmp_path, capsys):
    path = write(tmp_path, "m.c", MCCARTHY)
    doc = check(path, prove="chc", timeout=30, checks="error-call")
    assert doc["verdict"] == "true" and doc["proved_by"] == "chc"
    assert doc["proof"]["status"] == "proved" and doc["proof"]["invariants"]
    doc = check(path, prove="none", bound=2, checks="error-call")
    assert doc["verdict"] == "true-up-to-bound" and doc["proof"] is None
    assert main(["check", path, "--checks", "error-call", "--timeout", "30"]) == 0
    out = capsys.readouterr().out
    assert "proved for every path" in out and "summary invariant of f91" in out
    with pytest.raises(SystemExit) as stop:
        main(["check", path, "--prove", "bogus"])
    assert stop.value.code == 2 and "--prove" in capsys.readouterr().err
    assert main(["check", path, "--checks", "error-call", "--json", "--prove", "chc"]) == 0
    assert json.loads(capsys.readouterr().out)["proof"]["method"] == "chc"


# ------------------------------------------------------------ witnesses

def test_every_correctness_witness_written_is_validated(tmp_path, capsys):
    path = write(tmp_path, "t.c", TWIN_COUNTERS)
    wit = str(tmp_path / "w.yml")
    assert main(["check", path, "--checks", "error-call", "--witness", wit, "--timeout", "30"]) == 0
    doc = yaml.safe_load(Path(wit).read_text())
    entry = doc[0]
    assert entry["entry_type"] == "invariant_set" and entry["metadata"]["format_version"] == "2.0"
    invs = [c["invariant"] for c in entry["content"]]
    assert invs and invs[0]["type"] == "loop_invariant" and invs[0]["location"]["line"] == 6
    res = validate(wit, path, timeout=30)
    assert res["result"] == "confirmed", res
    assert res["invariants"][0]["value"] == invs[0]["value"]


@pytest.mark.parametrize("value,reason", [
    ("x == y + 1", "does not hold"),              # not even true on entry
    ("x <= y", "do not imply the property"),      # inductive, too weak
    ("x == y && x < 5", "does not hold"),         # true on entry, not kept by an iteration
])
def test_wrong_invariants_are_rejected(tmp_path, value, reason):
    path = write(tmp_path, "t.c", TWIN_COUNTERS)
    wit = tmp_path / "w.yml"
    wit.write_text(WITNESS.format(file=path, value=value, line=6))
    res = validate(str(wit), path, timeout=30)
    assert res["result"] == "rejected" and reason in res["reason"], res
    assert res["counterexample"] is not None


def test_an_invariant_is_read_in_its_loops_scope(tmp_path):
    # i is declared by the for statement; the invariant names it
    path = write(tmp_path, "f.c", HEADER + """
int main(void) {
    int n = __VERIFIER_nondet_int();
    if (n < 0 || n > 1000) return 0;
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += 2;
    }
    if (s != 2 * n) reach_error();
    return 0;
}
""")
    wit = tmp_path / "w.yml"
    wit.write_text(WITNESS.format(file=path, value="s == 2 * i && i <= n && 0 <= i && n <= 1000", line=8))
    assert validate(str(wit), path, timeout=30)["result"] == "confirmed"
    wit.write_text(WITNESS.format(file=path, value="s == 2 * i + 2", line=8))
    assert validate(str(wit), path, timeout=30)["result"] == "rejected"


def test_witness_errors_name_the_place(tmp_path, capsys):
    path = write(tmp_path, "t.c", TWIN_COUNTERS)
    wit = tmp_path / "w.yml"
    wit.write_text(WITNESS.format(file=path, value="x == y", line=3))
    assert main(["validate", str(wit), path]) == 2
    err = capsys.readouterr().err
    assert "no loop starts at line 3" in err and "loops start at lines 6" in err and "Traceback" not in err
    wit.write_text(WITNESS.format(file=path, value="x === y", line=6))
    assert main(["validate", str(wit), path]) == 2
    assert "is not a C expression" in capsys.readouterr().err
    wit.write_text("- entry_type: invariant_set\n  content: [\n")
    assert main(["validate", str(wit), path]) == 2
    assert "w.yml:" in capsys.readouterr().err
    wit.write_text("- entry_type: violation_sequence\n  metadata: {}\n  content: []\n")
    assert main(["validate", str(wit), path]) == 2
    assert "needs a target waypoint" in capsys.readouterr().err


BUG = HEADER + """
int main(void) {
    int a = __VERIFIER_nondet_int();
    int b = __VERIFIER_nondet_int();
    if (a > 10 && b == a + 3) reach_error();
    return 0;
}
"""


def test_violation_witnesses_are_validated_by_running_them(tmp_path, capsys):
    path = write(tmp_path, "b.c", BUG)
    wit = tmp_path / "v.yml"
    assert main(["check", path, "--checks", "error-call", "--witness", str(wit), "--quiet"]) == 0
    capsys.readouterr()
    res = validate(str(wit), path)
    assert res["type"] == "violation" and res["result"] == "confirmed", res
    a, b = res["inputs"]
    assert a > 10 and b == a + 3
    text = wit.read_text()
    wit.write_text(text.replace(f"\\\\result == {b}", f"\\\\result == {b + 1}"))
    res = validate(str(wit), path)
    assert res["result"] == "rejected" and "ends ok" in res["reason"], res
    wit.write_text(text.replace(f"\\\\result == {b}", "\\\\result > 3"))
    assert validate(str(wit), path)["result"] == "unknown"



def test_a_failed_assert_has_its_own_specification(tmp_path, capsys):
    # a failed assert() calls __assert_fail, not reach_error: the witness says so, and the
    # validator holds it to that (it rejected its own witness while it read reach_error)
    path = write(tmp_path, "a.c", "extern int __VERIFIER_nondet_int(void);\n#include <assert.h>\n"
                 "int main(void) { int x = __VERIFIER_nondet_int(); if (x == 42) assert(0); return 0; }\n")
    wit = tmp_path / "v.yml"
    assert main(["check", path, "--witness", str(wit), "--quiet"]) == 0
    capsys.readouterr()
    assert 'specification: "G ! call(__assert_fail())"' in wit.read_text()
    res = validate(str(wit), path)
    assert res["result"] == "confirmed" and res["inputs"] == [42], res
    wit.write_text(wit.read_text().replace("__assert_fail()", "reach_error()"))
    assert validate(str(wit), path)["result"] == "rejected"

WITNESS = """- entry_type: invariant_set
  metadata:
    format_version: "2.0"
    task:
      input_files: ["{file}"]
      specification: "G ! call(reach_error())"
      data_model: ILP32
      language: C
  content:
    - invariant:
        type: loop_invariant
        location:
          file_name: "{file}"
          line: {line}
          column: 5
          function: main
        value: "{value}"
        format: c_expression
"""


def test_a_violation_witness_skips_uninitialised_variables(tmp_path, capsys):
    # `int x, y;` are inputs of the run (any value) but no function returns them: the
    # witness gives only the nondet function's values (sv-benchmarks loop-lit/gcnr2008)
    src = HEADER + ("int main(void) { int x, y; x = y = 0; while (__VERIFIER_nondet_int()) { x++; y += 2; } "
                    "if (y == 6) reach_error(); return 0; }\n")
    path = write(tmp_path, "u.c", src)
    wit = tmp_path / "v.yml"
    assert main(["check", path, "--checks", "error-call", "--witness", str(wit), "--quiet"]) == 0
    capsys.readouterr()
    res = validate(str(wit), path)
    assert res["result"] == "confirmed", res


def test_a_late_interrupt_of_the_main_context_is_cleared():
    """A proof found just after the model checker's last query interrupts the main
    context with nobody solving: the next z3 call of the process (in the test suite, the
    next test's push) said "push canceled". check() clears it on the way out."""
    import z3
    from tracelearn.semantics.solving import clear_main_interrupt, interrupt_main_context
    interrupt_main_context()
    clear_main_interrupt()
    s = z3.Solver()
    s.push()
    assert s.check() == z3.sat
