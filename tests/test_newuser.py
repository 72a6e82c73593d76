"""Regression tests for what a new user ran into (wrong verdicts, counterexamples
that did not replay, crashes, lost results, misleading output). Each test failed on
the code before the fix."""

from __future__ import annotations

import json
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

import tracelearn

from conftest import EXAMPLES, cli

TL = [sys.executable, "-m", "tracelearn.cli.main"]
# x^3 + y^3 = z^3 has no solution: z3 works long on it (tens of seconds at least).
HARD = ("#include <assert.h>\nint main(void){ unsigned long long "
                 "x=__VERIFIER_nondet_ulonglong(), y=__VERIFIER_nondet_ulonglong(), z=__VERIFIER_nondet_ulonglong();\n"
                 " if (x > 0 && y > 0 && z > 0 && x < 1000000 && y < 1000000 && z < 1000000) "
                 "assert(x*x*x + y*y*y != z*z*z);\n return 0; }\n")


def verdict(path: str, *extra: str) -> dict:
    return tracelearn.check(path, **_kw(extra))


def _kw(extra) -> dict:
    kw: dict = {"timeout": 30.0}
    it = iter(extra)
    for k in it:
        kw[k] = next(it)
    return kw


def write(tmp_path: Path, name: str, text: str | bytes) -> str:
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(p)


# ------------------------------------------------------------------ wrong verdicts

def test_non_utf8_bytes_in_literals(tmp_path):
    src = (b'#include <assert.h>\n#include <string.h>\nint main(void){ const char *s="caf\xe9 \xff\xfe"; '
           b'assert(strlen(s)==7 && (unsigned char)s[3] == 0xe9); return 0; }\n')
    doc = verdict(write(tmp_path, "u.c", src), "bound", 10)
    assert doc["verdict"] == "true"


@pytest.mark.parametrize("stmt", [
    '__asm__("movl $42, %0" : "=r"(x));',
    'asm("nop");',
    '__asm__ volatile ("nop");',
    '__asm__ __volatile__("" ::: "memory");',
    'asm goto ("jmp %l0" :::: done); done: ;',
])
def test_inline_assembly_is_refused(tmp_path, capsys, stmt):
    path = write(tmp_path, "a.c", f"#include <assert.h>\nint main(void){{ int x=0;\n  {stmt}\n  assert(x==42); return 0; }}\n")
    code, out, err = cli(["check", path], capsys)
    assert code == 2 and out == ""
    assert "a.c:3:3: unsupported construct: inline assembly" in err


@pytest.mark.parametrize("command", [["check"], ["pac", "--timeout", "30"], ["explain"]])
def test_setjmp_is_refused_not_a_made_up_bug(tmp_path, capsys, command):
    """setjmp without a body returned any value: ``if (setjmp(env)) assert(0);``, which
    cannot fail (gcc's run exits 0), was a confirmed bug."""
    path = write(tmp_path, "j.c", "#include <setjmp.h>\n#include <assert.h>\njmp_buf env;\n"
                                  "int main(void) {\n  if (setjmp(env)) { assert(0); }\n  return 0;\n}\n")
    code, out, err = cli([command[0], path, *command[1:]], capsys)
    assert code == 2 and out == ""
    assert "j.c:5:" in err and "unsupported construct: a non-local jump" in err  # (glibc: a macro, _setjmp)


def test_the_address_of_a_function_without_a_body_is_a_function_pointer(tmp_path, capsys):
    """Taking it (not calling it) was an internal KeyError in both engines; called through
    the pointer it returns a nondeterministic value, as a direct call does, and a
    library model is linked for it (strlen)."""
    path = write(tmp_path, "p.c", "#include <assert.h>\n#include <string.h>\nextern int foo(int);\n"
                                  "int (*p)(int) = foo;\nunsigned long (*n)(const char *) = strlen;\n"
                                  "int main(void) { assert(n(\"abc\") == 3); int r = p(3); assert(r == 3); return 0; }\n")
    code, out, err = cli(["check", path, "--json"], capsys)
    doc = json.loads(out)
    assert code == 0 and "internal error" not in err
    assert doc["verdict"] == "false" and doc["counterexample"]["line"] == 6
    assert doc["counterexample"]["replay"]["status"] == "confirmed"
    code, out, err = cli(["run", path, "--inputs", "3"], capsys)
    assert code == 0 and "internal error" not in err


def test_longjmp_by_address_is_refused_too(tmp_path, capsys):
    path = write(tmp_path, "j.c", "#include <setjmp.h>\njmp_buf env;\nvoid (*jump)(struct __jmp_buf_tag *, int) = longjmp;\n"
                                  "int main(void) { return 0; }\n")
    code, out, err = cli(["check", path], capsys)
    assert code == 2 and "j.c:3:" in err and "a non-local jump (longjmp)" in err


@pytest.mark.parametrize("args", [["pac", "--epsilon", "0"], ["check", "--bound", "-1"],
                                  ["learn-filter", "--function", "f", "--lookback", "-1"]])
def test_an_option_argparse_refuses_still_gives_json_its_document(tmp_path, capsys, args):
    path = write(tmp_path, "p.c", "int main(void) { return 0; }\n")
    code, out, err = cli([args[0], path, *args[1:], "--json"], capsys)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    doc = json.loads(out)
    assert doc["command"] == args[0] and doc["error"]["kind"] == "OptionError"
    assert args[-2] in doc["error"]["message"]


def test_asm_labels_of_declarations_are_kept_harmless(tmp_path):
    path = write(tmp_path, "l.c", 'int g(int) __asm__("" "g2");\nint main(void){ return 0; }\n')
    assert verdict(path)["verdict"] == "true"


def test_own_empty_error_function_is_the_violation(tmp_path):
    path = write(tmp_path, "e.c", "extern void abort(void);\nvoid reach_error(){}\nint main(void){ int x = "
                 "__VERIFIER_nondet_int(); if (x == 7) { reach_error(); abort(); } return 0; }\n")
    doc = verdict(path)
    assert doc["verdict"] == "false"
    assert doc["counterexample"]["kind"] == "error-call"
    assert doc["counterexample"]["replay"]["status"] == "confirmed"


def test_error_function_failing_an_assertion_with_error_call_check_only(tmp_path):
    path = write(tmp_path, "t.c", "extern void abort(void);\nextern void __assert_fail(const char *, const char *, "
                 "unsigned int, const char *);\nvoid reach_error() { __assert_fail(\"0\", \"t.c\", 3, \"reach_error\"); }\n"
                 "void f(int n) { if (n<3) return; n--; f(n); ERROR: {reach_error();abort();} }\n"
                 "int main(void) { f(4); }\n")
    for checks in (None, "error-call"):
        doc = verdict(path, "checks", checks)
        assert doc["verdict"] == "false", checks
        assert doc["counterexample"]["replay"]["status"] == "confirmed"


def test_switched_off_runtime_check_never_makes_true(tmp_path):
    path = write(tmp_path, "o.c", "#include <assert.h>\n#include <stddef.h>\nint main(void){ int *p = NULL; "
                 "int c = __VERIFIER_nondet_int(); if (c) { int v = *p; } assert(c == 0); return 0; }\n")
    doc = verdict(path, "checks", "assertion")
    assert doc["verdict"] == "unknown"
    assert "pointer check switched off" in doc["reason"] and "o.c:3" in doc["reason"]
    assert verdict(path)["verdict"] == "false"


def test_array_designator_of_new_pycparser(tmp_path, capsys):
    path = write(tmp_path, "d.c", "struct p { int a[3]; int b; };\nint main(void){ int a[5]={[2]=7}; "
                 "struct p v = { .a[1] = 5, .b = 2 }; int m[2][2] = { [1][0] = 3 };\n"
                 "  return a[2] - 7 + v.a[1] + v.b + m[1][0] - 10; }\n")
    code, _, err = cli(["run", path], capsys)
    assert code == 0, err
    assert verdict(path, "bound", 2)["verdict"] == "true"


# ------------------------------------------------- counterexamples that replay

@pytest.mark.parametrize("body, message", [
    ("int x; free(&x);", "not the start of a heap block"),
    ("int *p = malloc(4); free(p); free(p);", "double free"),
])
def test_bad_free_replays(tmp_path, body, message):
    path = write(tmp_path, "f.c", f"#include <stdlib.h>\nint main(void){{ {body} return 0; }}\n")
    cex = verdict(path, "bound", 2)["counterexample"]
    assert cex["replay"]["status"] == "confirmed"
    assert cex["property"].endswith(":free") and message in cex["message"]


def test_nan_input_is_nan_everywhere(tmp_path):
    path = write(tmp_path, "n.c", "#include <assert.h>\nint main(void){ float f=__VERIFIER_nondet_float(); "
                 "assert(f==f); return 0; }\n")
    sarif = tmp_path / "n.sarif"
    run = subprocess.run(TL + ["check", path, "--bound", "2", "--json", "--sarif", str(sarif)],
                         capture_output=True, text=True, timeout=120)
    doc = json.loads(run.stdout)  # strict JSON: json.loads refuses nothing, so check the text too
    assert "NaN," not in run.stdout and "Infinity," not in run.stdout
    cex = doc["counterexample"]
    assert cex["replay"]["status"] == "confirmed"
    assert cex["inputs"][0]["value"] == "NaN"
    assert "nan" in sarif.read_text() and "0.0" not in sarif.read_text()


def test_short_read_into_small_buffer_replays(tmp_path):
    path = write(tmp_path, "r.c", "#include <unistd.h>\nint main(void){ char b[4]; "
                 "return read(0,b,16)>0 ? b[0] : 0; }\n")
    cex = verdict(path, "bound", 2)["counterexample"]
    assert cex["replay"]["status"] == "confirmed"
    assert "write" in cex["message"] and "read of 16" not in cex["message"]


def test_null_dereference_message_is_the_same_in_both_engines(tmp_path, capsys):
    path = write(tmp_path, "z.c", "#include <stddef.h>\nint main(void){ int *p = NULL; "
                 "int c = __VERIFIER_nondet_int(); if (c) return *p; return 0; }\n")
    cex = verdict(path, "bound", 2)["counterexample"]
    assert cex["message"] == "dereference of NULL"
    code, _, err = cli(["run", path, "--inputs", "1"], capsys)
    assert code == 134 and "dereference of NULL" in err


# ------------------------------------------------------ crashes and lost results

@pytest.mark.parametrize("args", [
    ["check", "{c}", "--sarif", "/nonexistent/x.sarif"],
    ["check", "{c}", "--witness", "/nonexistent/x.yml"],
    ["check", "{c}", "--playback", "/nonexistent/deeper/dir"],
    ["check", "{c}", "--sarif", "{c}"],
    ["check", "{c}", "--timeout", "nan"],
    ["check", "{c}", "--timeout", "inf"],
    ["check", "{c}", "--checks", ""],
    ["check", "{c}", "--unwind-loop", "2=3"],
    ["explain", "{c}", "--bmax", "0"],
    ["explain", "{c}", "--html", "/nonexistent/a.html"],
    ["explain", "{c}", "--dot", "{c}"],
    ["run", "{c}", "--inputs", "nan,inf"],
    ["run", "{c}", "--max-steps", "-5"],
    ["pac", "{dir}"],
    ["fuse", "{c}", "--function", "f", "--with", "g", "--name", "int"],
    ["fuse", "{c}", "--function", "f", "--with", "g", "--check", "-5"],
])
def test_user_mistakes_are_one_line_and_exit_2(tmp_path, capsys, args):
    src = write(tmp_path, "c.c", "#include <stddef.h>\nint main(void){ int *p = NULL; "
                "int c = __VERIFIER_nondet_int(); if (c) return *p; return 0; }\n")
    before = Path(src).read_text()
    code, out, err = cli([a.replace("{c}", src).replace("{dir}", str(tmp_path)) for a in args], capsys)
    assert code == 2, err
    assert err.startswith("tracelearn: error:") and err.count("\n") == 1
    assert "{dir}" not in args or "is a folder, not a C file" in err
    assert Path(src).read_text() == before  # never overwrites an input


def test_svg_without_graphviz_is_refused_before_learning(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    code, out, err = cli(["explain", str(EXAMPLES / "fig2.c"), "--svg", str(tmp_path / "a.svg"),
                          "--html", str(tmp_path / "a.html")], capsys)
    assert code == 2 and "Graphviz" in err and not (tmp_path / "a.html").exists()


@pytest.mark.parametrize("content", ['{"foo": 1}', "[]", '{"command": "explain", "options": {}}',
                                     '{"command": "explain", "file": "x.c", "options": {}, "witnesses": [1]}',
                                     "not json", '{"command": "check", "verdict": "false"}'])
def test_replay_refuses_reports_of_the_wrong_shape(tmp_path, capsys, content):
    p = write(tmp_path, "r.json", content)
    code, _, err = cli(["replay", p], capsys)
    assert code == 2 and err.startswith("tracelearn: error:")


def test_deep_nesting_parses(tmp_path):
    path = write(tmp_path, "n.c", "int main(void){ return " + "(" * 150 + "1" + ")" * 150 + " - 1; }\n")
    assert verdict(path, "bound", 1)["verdict"] == "true"


def test_too_deep_nesting_is_an_error_with_a_location(tmp_path, capsys):
    path = write(tmp_path, "n.c", "int main(void){ return " + "(" * 40000 + "1" + ")" * 40000 + "; }\n")
    code, _, err = cli(["check", path, "--bound", "1"], capsys)
    assert code == 2 and "n.c:1:" in err and "nested too deeply" in err


def test_infinite_input_json_and_playback(tmp_path):
    path = write(tmp_path, "i.c", "#include <assert.h>\nint main(void){ double d=__VERIFIER_nondet_double(); "
                 "assert(d <= 1.7976931348623157e308 || d != d); return 0; }\n")
    pb = tmp_path / "pb"
    run = subprocess.run(TL + ["check", path, "--bound", "2", "--json", "--playback", str(pb)],
                         capture_output=True, text=True, timeout=120)
    assert "Infinity," not in run.stdout.replace('"Infinity"', "")
    doc = json.loads(run.stdout)
    assert doc["counterexample"]["inputs"][0]["value"] == "Infinity"
    if shutil.which("gcc"):
        build = subprocess.run(["gcc", "-o", str(pb / "pb"), str(pb / "playback.c"), "-lm"], capture_output=True)
        assert build.returncode == 0, build.stderr
        assert subprocess.run([str(pb / "pb")], capture_output=True).returncode != 0


def test_ctrl_c_stops_promptly_without_a_verdict(tmp_path):
    path = write(tmp_path, "h.c", HARD)
    p = subprocess.Popen(TL + ["check", path, "--timeout", "300"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert "VERIFICATION" not in out and "interrupted" in err
    assert time.monotonic() - t0 < 10


def test_timeout_is_kept_on_a_hard_query(tmp_path):
    path = write(tmp_path, "h.c", HARD)
    t0 = time.monotonic()
    doc = json.loads(subprocess.run(TL + ["check", path, "--timeout", "3", "--json"], capture_output=True,
                                    text=True, timeout=60).stdout)
    assert doc["verdict"] == "unknown" and "timeout" in doc["reason"]
    assert time.monotonic() - t0 < 12  # 3 s, plus starting Python and z3


def test_timeout_covers_loading_a_huge_file(tmp_path):
    body = "".join(f"int f{i}(int x){{ return x*{i}; }}\n" for i in range(20000))
    path = write(tmp_path, "big.c", body + "int main(void){ return f1(2) - 2; }\n")
    t0 = time.monotonic()
    doc = json.loads(subprocess.run(TL + ["check", path, "--timeout", "2", "--json"], capture_output=True,
                                    text=True, timeout=120).stdout)
    assert doc["verdict"] in ("unknown", "true-up-to-bound", "true")
    if doc["verdict"] == "unknown":
        assert "timeout" in doc["reason"]
    assert time.monotonic() - t0 < 10


# ------------------------------------------------------------- misleading results

def test_unwind_loop_bounds_are_reported_and_checked(tmp_path, capsys):
    path = write(tmp_path, "l.c", "int main(void){ int i, s=0;\n for(i=0;i<10;i++) s+=i;\n return s; }\n")
    # the model checker's own report (a Horn-clause proof would make it "true")
    code, out, _ = cli(["check", path, "--unwind-loop", "2=3", "--timeout", "20", "--prove", "none"], capsys)
    assert code == 0 and "4096" not in out
    assert "loop at line 2: 3" in out and "--unwind-loop" in out
    code, out, _ = cli(["check", path, "--unwind-loop", "2=3", "--timeout", "20"], capsys)
    assert code == 0 and "VERIFICATION SUCCESSFUL (proved for every path" in out
    code, _, err = cli(["check", path, "--unwind-loop", "3=3"], capsys)
    assert code == 2 and "no loop starts on that line" in err and "l.c:2" in err


def test_library_internals_never_appear_as_locations(tmp_path):
    path = write(tmp_path, "s.c", "#include <string.h>\nint main(int argc, char **argv){ char b[4]; "
                 "if (argc > 1) strcpy(b, argv[1]); return 0; }\n")
    sarif, wit = tmp_path / "s.sarif", tmp_path / "s.yml"
    run = subprocess.run(TL + ["check", path, "--bound", "6", "--sarif", str(sarif), "--witness", str(wit)],
                         capture_output=True, text=True, timeout=120)
    assert "VERIFICATION FAILED" in run.stdout
    for text in (run.stdout, sarif.read_text(), wit.read_text()):
        assert "models.c" not in text
    assert "s.c:2:" in run.stdout and "confirmed" in run.stdout


@pytest.mark.parametrize("body, spec", [
    ("int *p = malloc(4); free(p); free(p);", "G valid-free"),
    ("int *p = 0; int c = __VERIFIER_nondet_int(); if (c) return *p;", "G valid-deref"),
])
def test_witness_specification_names_the_property(tmp_path, body, spec):
    path = write(tmp_path, "w.c", f"#include <stdlib.h>\nint main(void){{ {body} return 0; }}\n")
    wit = tmp_path / "w.yml"
    subprocess.run(TL + ["check", path, "--bound", "2", "--witness", str(wit)], capture_output=True, timeout=120)
    doc = yaml.safe_load(wit.read_text())
    assert doc[0]["metadata"]["task"]["specification"] == spec


def test_no_misleading_witness_for_division_by_zero(tmp_path):
    path = write(tmp_path, "d.c", "int main(void){ int d = __VERIFIER_nondet_int(); return 10 / d; }\n")
    wit = tmp_path / "d.yml"
    run = subprocess.run(TL + ["check", path, "--bound", "2", "--witness", str(wit)], capture_output=True,
                         text=True, timeout=120)
    assert not wit.exists() and "no witness written" in run.stderr


def test_function_return_waypoint_at_closing_parenthesis(tmp_path):
    path = write(tmp_path, "w.c", "extern void abort(void);\nvoid reach_error(){}\n"
                 "int main(void){ int x = __VERIFIER_nondet_int( ); if (x == 7) { reach_error(); abort(); } return 0; }\n")
    wit = tmp_path / "w.yml"
    subprocess.run(TL + ["check", path, "--witness", str(wit)], capture_output=True, timeout=120)
    seq = yaml.safe_load(wit.read_text())[0]["content"]
    ret = [s["segment"][0]["waypoint"] for s in seq if s["segment"][0]["waypoint"]["type"] == "function_return"][0]
    line = Path(path).read_text().splitlines()[ret["location"]["line"] - 1]
    assert line[ret["location"]["column"] - 1] == ")"


def test_witness_on_true_is_a_correctness_witness(tmp_path):
    path = write(tmp_path, "t.c", "int main(void){ return 0; }\n")
    run = subprocess.run(TL + ["check", path, "--witness", str(tmp_path / "t.yml")], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0
    entry = yaml.safe_load((tmp_path / "t.yml").read_text())[0]
    assert entry["entry_type"] == "invariant_set" and entry["content"] == []
    run = subprocess.run(TL + ["validate", str(tmp_path / "t.yml"), path], capture_output=True, text=True, timeout=120)
    assert "WITNESS CONFIRMED" in run.stdout


def test_signed_overflow_and_shift_checks(tmp_path, capsys):
    ovf = write(tmp_path, "o.c", "int main(void){ int x = __VERIFIER_nondet_int(); int y = x + 1; return y < x; }\n")
    doc = verdict(ovf, "checks", "overflow", "bound", 2)
    assert doc["verdict"] == "false" and doc["counterexample"]["kind"] == "overflow"
    assert doc["counterexample"]["replay"]["status"] == "confirmed"
    assert verdict(ovf, "bound", 2)["verdict"] == "true"  # off by default: wraps, as gcc -fwrapv
    sh = write(tmp_path, "s.c", "int main(void){ int s = __VERIFIER_nondet_int(); return 1 << s; }\n")
    doc = verdict(sh, "checks", "shift", "bound", 2)
    assert doc["verdict"] == "false" and doc["counterexample"]["replay"]["status"] == "confirmed"
    mul = write(tmp_path, "m.c", "int main(void){ long long y = __VERIFIER_nondet_longlong(), "
                "z = __VERIFIER_nondet_longlong(); if (y > 3037000499LL && z > 3037000499LL) return (int)(y * z); "
                "return 0; }\n")
    assert verdict(mul, "checks", "overflow", "bound", 2)["counterexample"]["replay"]["status"] == "confirmed"


def test_no_false_overflow_alarms(tmp_path):
    path = write(tmp_path, "n.c", "int main(void){ unsigned u = __VERIFIER_nondet_uint(); u = u + 1; char c = 100; "
                 "c = c + c; int x = __VERIFIER_nondet_int(); if (x > 0 && x < 1000) x = x * 1000; "
                 "int k = __VERIFIER_nondet_int(); int s = 1; if (k >= 0 && k < 30) s = 1 << k; "
                 "int n = __VERIFIER_nondet_int(); if (n > -100) n = -n; n++; "
                 "return (s + n > 0) + (u > 0) + (c > 0) + (x > 0); }\n")
    assert verdict(path, "checks", "all", "bound", 2)["verdict"] == "true"


def test_int_min_divided_by_minus_one(tmp_path, capsys):
    path = write(tmp_path, "d.c", "#include <limits.h>\nint main(void){ int a = INT_MIN; int b = -1; "
                 "if (__VERIFIER_nondet_int()) b = 1; return a / b == 0; }\n")
    code, _, err = cli(["run", path, "--inputs", "0"], capsys)
    assert code == 134 and "INT_MIN" not in err and "-2147483648 / -1" in err
    doc = verdict(path, "bound", 2)
    assert doc["verdict"] == "false" and doc["counterexample"]["replay"]["status"] == "confirmed"


def test_memory_leak_check(tmp_path, capsys):
    leak = write(tmp_path, "l.c", "#include <stdlib.h>\nint main(void){ int *p = malloc(8); int *q = malloc(4); "
                 "if (__VERIFIER_nondet_int()) free(q); free(p); return 0; }\n")
    doc = verdict(leak, "checks", "memleak", "bound", 2)
    cex = doc["counterexample"]
    assert doc["verdict"] == "false" and cex["kind"] == "memleak" and cex["replay"]["status"] == "confirmed"
    assert cex["line"] == 2 and cex["column"] == 46  # the malloc of q
    ok = write(tmp_path, "k.c", "#include <stdlib.h>\nint main(void){ int *p = malloc(8); free(p); return 0; }\n")
    assert verdict(ok, "checks", "all", "bound", 2)["verdict"] == "true"
    code, _, err = cli(["run", leak, "--checks", "memleak", "--inputs", "0,0,0"], capsys)
    assert code == 134 and "not freed" in err


# ---------------------------------------------- what a new user expects to find

def test_reproduce_command_works_as_printed(tmp_path):
    path = write(tmp_path, "p.c", "#include <stdio.h>\n#include <stdlib.h>\n#include <assert.h>\n"
                 "int main(int argc, char **argv){ int a[3]; int *m = malloc(2*sizeof(int)); int k;\n"
                 " if (scanf(\"%d\", &k) != 1) return 0; double d = __VERIFIER_nondet_double();\n"
                 " if (argc == 2 && argv[1][0] == 65 && a[1] == 5 && m[1] == 9 && k == 42 && d != d) assert(0);\n"
                 " free(m); return 0; }\n")
    doc = json.loads(subprocess.run(TL + ["check", path, "--bound", "2", "--json"], capture_output=True,
                                    text=True, timeout=120).stdout)
    cmd = shlex.split(doc["counterexample"]["reproduce"])
    assert cmd[:2] == ["tracelearn", "run"]
    run = subprocess.run(TL + cmd[1:], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert run.returncode == 134 and "p.c:6:" in run.stderr


def test_explain_a_program_whose_only_bug_is_a_null_dereference(tmp_path):
    path = write(tmp_path, "x.c", "#include <stddef.h>\nint f(int *p){ return *p; }\nint g(void){ return 1; }\n"
                 "int main(void){ int *p = NULL; if (__VERIFIER_nondet_int()) g(); "
                 "if (__VERIFIER_nondet_int()) return f(p); return 0; }\n")
    doc = tracelearn.explain(path, bound=2, bwl=4)
    # The language is exactly (g)? f assert: every accepted word has a replayed witness.
    words = {tuple(w["word"]) for w in doc["witnesses"]}
    assert words == {("f", "assert"), ("g", "f", "assert")}
    report = write(tmp_path, "x.json", json.dumps(doc))
    run = subprocess.run(TL + ["replay", report], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "2/2 witnesses replayed" in run.stdout


def test_causes_use_the_names_people_wrote(tmp_path):
    src = Path(EXAMPLES / "sort.c").read_text().replace(
        "/* sort.c", "int nondet_int(void);\nint main(void) { f(nondet_int(), nondet_int(), nondet_int()); "
        "return 0; }\n/* sort.c", 1)
    path = write(tmp_path, "sortm.c", src)
    doc = tracelearn.check(path, minimize="all", explain=True, causes_inputs_only=True)
    causes = [c["predicate"] for c in doc["explanation"]["causes"]]
    assert "c < a" in causes and "c < b" in causes
    assert not any("nondet" in c or "#" in c for c in causes)


def test_python_api_returns_what_json_prints(tmp_path, capsys):
    path = write(tmp_path, "z.c", "#include <stddef.h>\nint main(void){ int *p = NULL; "
                 "int c = __VERIFIER_nondet_int(); if (c) return *p; return 0; }\n")
    api = tracelearn.check(path, bound=2)
    code, out, _ = cli(["check", path, "--bound", "2", "--json"], capsys)
    cli_doc = json.loads(out)
    for d in (api, cli_doc):
        d["stats"] = None
    assert json.loads(json.dumps(api)) == cli_doc
    fig2 = str(EXAMPLES / "fig2.c")
    e_api = tracelearn.explain(fig2, bound=4, bwl=4)
    code, out, _ = cli(["explain", fig2, "--bound", "4", "--max-word-length", "4", "--json"], capsys)
    e_cli = json.loads(out)
    assert e_api["automaton"] == e_cli["automaton"] and e_api["alphabet"] == e_cli["alphabet"]
    with pytest.raises(tracelearn.errors.TracelearnError):
        tracelearn.explain(fig2, no_such_option=1)


def test_progress_line_only_on_a_terminal(tmp_path):
    import io
    from tracelearn.cli.progress import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        with Progress(stream=stream, min_interval_s=0) as p:
            p.update("bound 4")
    assert "bound 4" in tty.getvalue() and tty.getvalue().endswith("\x1b[K")
    assert pipe.getvalue() == ""
    with Progress(enabled=False, stream=tty, min_interval_s=0) as p:
        p.update("quiet")
    assert "quiet" not in tty.getvalue()


def _witness_assumptions(tmp_path, path: str, bound: str) -> list[dict]:
    """The assumption waypoints of the violation witness `check` writes for ``path``."""
    wit = tmp_path / "s.yml"
    subprocess.run(TL + ["check", path, "--bound", bound, "--witness", str(wit)], capture_output=True, timeout=120)
    seq = yaml.safe_load(wit.read_text())[0]["content"]
    return [s["segment"][0]["waypoint"] for s in seq if s["segment"][0]["waypoint"]["type"] == "assumption"]


def test_witness_states_argv(tmp_path):
    path = write(tmp_path, "s.c", "#include <string.h>\nint main(int argc, char **argv){ char b[4]; "
                 "if (argc > 1) strcpy(b, argv[1]); return 0; }\n")
    assumptions = _witness_assumptions(tmp_path, path, "6")
    assert len(assumptions) == 1
    value = assumptions[0]["constraint"]["value"]
    assert value.startswith("argc == ") and "argv[1][" in value and "argv[0]" not in value


def test_witness_states_scanf_inputs(tmp_path):
    path = write(tmp_path, "s.c", '#include <stdio.h>\n#include <assert.h>\nint main(void){ int k, j;\n'
                 '  if (scanf("%d %d", &k, &j) != 2) return 0;\n  assert(k + j != 42);\n  return 0; }\n')
    a = _witness_assumptions(tmp_path, path, "2")
    assert len(a) == 1 and a[0]["location"]["line"] == 5
    k, j = (int(part.split("==")[1]) for part in a[0]["constraint"]["value"].split("&&"))
    assert (k + j) & 0xFFFFFFFF == 42


@pytest.mark.parametrize("name", ["n", "__n", "__tmp1"])
def test_post_increment_of_a_reserved_name_in_a_subscript(tmp_path, capsys, name):
    """``a[__n++] = c`` stored at a[1]: the lowering took every variable named ``__...``
    for one of its own temporaries (assigned once) and read ``__n`` after the increment.
    Both engines agreed, so the wrong verdict replayed; gcc says the assertion holds."""
    src = tmp_path / "inc.c"
    src.write_text("#include <assert.h>\nstatic int a[2]; static int NAME;\n"
                   "int main(void) { int c = __VERIFIER_nondet_int(); int __tmp2 = 5;\n"
                   "  a[NAME++] = c; assert(a[0] == c && NAME == 1 && __tmp2 == 5); return 0; }\n".replace("NAME", name))
    code, out, _ = cli(["check", str(src)], capsys)
    assert code == 0 and "VERIFICATION SUCCESSFUL" in out
    code, _, _ = cli(["run", str(src), "--inputs", "7"], capsys)
    assert code == 0


def test_the_time_limit_is_kept_when_its_alarm_lands_in_a_finalizer(monkeypatch):
    # Python drops an exception raised in a finalizer ("Exception ignored in ..."): the
    # alarm fires again until the block ends, so the limit still stops the loop
    import gc
    import sys

    from tracelearn.api.deadline import CommandTimeout, watchdog

    class Slow:
        def __del__(self):
            t = time.monotonic()
            while time.monotonic() - t < 0.4:  # the first alarm (at 0.3 s) lands here
                pass

    gc.collect()  # earlier tests' garbage: its finalizers (z3's) could take an alarm too
    dropped: list = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: dropped.append(u.exc_type))
    t0 = time.monotonic()
    with pytest.raises(CommandTimeout):
        with watchdog(0.05):
            Slow()  # freed at once: its finalizer runs now
            while time.monotonic() - t0 < 10:
                pass
    assert time.monotonic() - t0 < 5
    assert dropped[:1] == [CommandTimeout]  # the first alarm's, dropped by Python
    assert sys.gettrace() is None


def test_the_time_limit_never_fires_inside_z3s_wrappers():
    # An exception raised between z3 creating a term and counting its reference corrupts
    # z3's memory later; the watchdog raises at the next line of the caller instead.
    import sys
    import types

    import z3

    from tracelearn.api.deadline import CommandTimeout, in_z3, watchdog
    wrapper = types.SimpleNamespace(f_code=z3.AstRef.__init__.__code__)
    ours = types.SimpleNamespace(f_code=test_the_time_limit_never_fires_inside_z3s_wrappers.__code__)
    assert in_z3(wrapper) and not in_z3(ours) and not in_z3(None)
    for _ in range(3):
        t0 = time.monotonic()
        with pytest.raises(CommandTimeout):
            with watchdog(0.05):
                while time.monotonic() - t0 < 10:
                    z3.simplify(z3.BitVec("a", 32) + z3.BitVec("b", 32) * 3)  # mostly inside z3's wrappers
        assert time.monotonic() - t0 < 2
        assert sys.gettrace() is None
    assert z3.Solver().check() == z3.sat  # z3 still answers
