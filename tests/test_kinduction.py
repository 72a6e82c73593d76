"""k-induction (`--prove kind`): proofs with the invariants Houdini keeps, refusals, and
never a `true` for a program whose error lies beyond the bounds explored."""

from __future__ import annotations

import pytest

import tracelearn
from tracelearn.frontend.lower import load_program
from tracelearn.semantics.strategies.kinduction import kinduction_loop

HEAD = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\n"

# Safe, but only with an invariant: x - y never changes, so x == y after the loop.
EQUAL = HEAD + """int main() {
  int x = 0, y = 0;
  while (__VERIFIER_nondet_int()) { if (x < 100000) { x++; y++; } }
  if (x != y) reach_error();
  return 0;
}
"""
# Safe and 1-inductive as it stands: the check is in the loop.
IN_LOOP = HEAD + """int main() {
  int i = 0;
  while (i < 1000000) { if (i < 0) reach_error(); i = i + 1; }
  return 0;
}
"""


def _check(tmp_path, src: str, **kw) -> dict:
    f = tmp_path / "p.c"
    f.write_text(src)
    return tracelearn.check(str(f), checks="error-call", prove="kind", data_model="ILP32", **kw)


def test_proved_with_houdini_invariants(tmp_path):
    doc = _check(tmp_path, EQUAL, timeout=60)
    assert doc["verdict"] == "true" and doc["proved_by"] == "k-induction"
    k = doc["kinduction"]
    assert k["status"] == "proved" and "x == y" in k["invariants"]
    assert "x >= 100000" not in k["invariants"]  # false at the first arrival: dropped


def test_proved_without_invariants(tmp_path):
    doc = _check(tmp_path, IN_LOOP, timeout=60)
    assert doc["verdict"] == "true" and doc["proved_by"] == "k-induction" and doc["bound"] <= 2


@pytest.mark.parametrize("src", [
    # the error needs 40 iterations; the fixed bound explores 2
    "int main() { int i = 0; while (__VERIFIER_nondet_int()) i++; if (i == 40) reach_error(); return 0; }",
    "int main() { int i = 0, j = 0; while (i < 50) { i++; j += 2; } if (j != 100 || i == 50) reach_error(); "
    "return 0; }",
    "int main() { int x = 0; while (__VERIFIER_nondet_int()) { x = x + 3; if (x == 30) reach_error(); } return 0; }",
    # wraps after 2^31 iterations: x >= 0 is no invariant under -fwrapv
    "int main() { int x = 0; while (__VERIFIER_nondet_int()) x++; if (x < 0) reach_error(); return 0; }",
])
def test_never_true_when_the_error_is_deeper_than_the_bound(tmp_path, src):
    doc = _check(tmp_path, HEAD + src, bound=2, timeout=60)
    assert doc["verdict"] != "true", doc["kinduction"]
    assert doc["kinduction"]["status"] != "proved"


def test_refusals(tmp_path):
    two = HEAD + ("int main() { int i = 0; while (i < 3) i++; while (i > 0) i--; "
                  "if (i) reach_error(); return 0; }")
    doc = _check(tmp_path, two, bound=2, timeout=30)
    assert doc["kinduction"]["status"] == "refused" and "2 loops" in doc["kinduction"]["reason"]
    arr = HEAD + "int main() { int a[3] = {0}; int i = 0; while (i < 3) { a[i] = i; i++; } return a[0]; }"
    f = tmp_path / "a.c"
    f.write_text(arr)
    assert "lives in memory" in kinduction_loop(load_program(str(f), "ILP32"))


def test_the_witness_of_a_k_induction_proof_is_validated(tmp_path):
    from tracelearn.cli.main import main

    f = tmp_path / "p.c"
    f.write_text(EQUAL)
    wit = tmp_path / "w.yml"
    assert main(["check", str(f), "--checks", "error-call", "--prove", "kind", "--witness", str(wit),
                 "--timeout", "60"]) == 0
    assert "(x == y)" in wit.read_text()
    res = tracelearn.validate(str(wit), str(f), timeout=60)
    assert res["result"] == "confirmed", res


def test_no_k_induction_with_per_loop_bounds(tmp_path):
    # the base case is the bound of every loop: with --unwind-loop it is not
    doc = _check(tmp_path, EQUAL, bound=4, timeout=30, unwind_loop=["5=1"])
    assert doc["kinduction"]["status"] == "refused" and "--unwind-loop" in doc["kinduction"]["reason"]
    assert doc["verdict"] == "true-up-to-bound"
