"""The interpreter detects runtime errors and reports where they happen."""

from __future__ import annotations

import pytest

from conftest import interp_output

CASES = {
    "div-by-zero": ("int main(void) { int z = 0; return 10 / z; }", 1),
    "bounds": ("int a[4]; int main(void) { int i = 4; a[i] = 1; return 0; }", 1),
    "null": ("int main(void) { int *p = 0; return *p; }", 1),
    "use-after-free": ("#include <stdlib.h>\nint main(void) { int *p = malloc(4); free(p); return *p; }", 2),
    "double-free": ("#include <stdlib.h>\nint main(void) { int *p = malloc(4); free(p); free(p); return 0; }", 2),
    "overrun": ("#include <stdlib.h>\nint main(void) { char *p = malloc(4); p[5] = 1; return 0; }", 2),
    "assertion": ("#include <assert.h>\nint main(void) { int x = 3; assert(x == 4); return 0; }", 2),
    "error-call": ("void reach_error(void);\nint main(void) { reach_error(); return 0; }", 2),
    "dangling": ("int *f(void) { int x = 1; return &x; }\nint main(void) { return *f(); }", 2),
}
KIND = {"div-by-zero": "div-by-zero", "bounds": "bounds", "null": "pointer", "use-after-free": "pointer",
        "double-free": "pointer", "overrun": "pointer", "assertion": "assertion", "error-call": "error-call",
        "dangling": "pointer"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_detected(cfile, name):
    source, line = CASES[name]
    path = cfile(source, f"{name}.c")
    r, _ = interp_output(path)
    assert r.status == "violation", (r.status, r.note)
    assert r.violation.kind == KIND[name]
    assert r.violation.loc.line == line
    assert r.violation.loc.file == path


def test_assume_blocks_the_run(cfile):
    path = cfile("int __VERIFIER_nondet_int(void);\nint main(void) { int x = __VERIFIER_nondet_int(); "
                 "__VERIFIER_assume(x > 5); return 0; }")
    r, _ = interp_output(path, inputs=[3])
    assert r.status == "infeasible"
    r, _ = interp_output(path, inputs=[7])
    assert r.status == "ok"


def test_step_limit(cfile):
    from tracelearn.frontend.lower import load_program
    from tracelearn.semantics.interpreter import Interpreter, InterpOptions

    path = cfile("int main(void) { while (1) { } }")
    r = Interpreter(load_program(path), InterpOptions(max_steps=1000)).run()
    assert r.status == "limit"


def test_inputs_are_recorded_in_order(cfile):
    path = cfile("int nondet_int(void); char nondet_char(void);\n"
                 "int main(void) { int a = nondet_int(); char c = nondet_char(); int u; return a + c + u; }")
    r, _ = interp_output(path, inputs=[5, 300, 7])
    assert [i.value for i in r.inputs] == [5, 44, 7]  # 300 wraps to a char
    assert r.exit_code == (5 + 44 + 7)
    assert [i.origin for i in r.inputs] == ["nondet_int()", "nondet_char()", "uninitialized u"]
