"""The command line: verdicts in JSON, `run`, and one clear message for bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import EXAMPLES


def tl(*args, stdin: bytes = b""):
    p = subprocess.run([sys.executable, "-m", "tracelearn.cli.main", *args], capture_output=True,
                       input=stdin, timeout=300)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def test_check_json_schema():
    code, out, err = tl("check", str(EXAMPLES / "sort.c"), "--entry", "f", "--json")
    assert code == 0, err
    doc = json.loads(out)
    for key in ("schema_version", "file", "verdict", "bound", "counterexample", "stats"):
        assert key in doc
    assert doc["verdict"] == "false"
    cex = doc["counterexample"]
    assert cex["length"] == len(cex["steps"]) > 0
    for s in cex["steps"]:
        assert {"file", "line", "function", "lhs", "value"} <= set(s)
    assert cex["inputs"] and cex["replay"]["status"] == "confirmed"
    for key in ("encoding_time_s", "solver_time_s", "formula_size"):
        assert key in doc["stats"]


def test_check_true_json(cfile):
    path = cfile("int main(void){ int a[3] = {1,2,3}; int s = 0; for (int i = 0; i < 3; i++) s += a[i];"
                 " __CPROVER_assert(s == 6, \"sum\"); return 0; }")
    code, out, _ = tl("check", path, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["verdict"] == "true" and doc["counterexample"] is None


def test_check_text_trace():
    code, out, _ = tl("check", str(EXAMPLES / "sort.c"), "--entry", "f", "--bound", "1")
    assert code == 0
    assert "State 1 file" in out and "Violated property:" in out and "VERIFICATION FAILED" in out


def test_demo_runs():
    code, out, err = tl("demo")
    assert code == 0, err
    assert "VERIFICATION FAILED" in out


def test_run_real_io(cfile):
    path = cfile(r'''#include <stdio.h>
int main(int argc, char **argv) { int x; scanf("%d", &x); printf("%s:%d\n", argv[1], x * 2); return 5; }''')
    code, out, _ = tl("run", path, "--", "hello", stdin=b"21\n")
    assert code == 5
    assert out == "hello:42\n"


def test_run_runtime_error_exit_134(cfile):
    path = cfile("int main(void) {\n  int a[2];\n  int i = 2;\n  a[i] = 0;\n  return 0;\n}\n")
    code, _, err = tl("run", path)
    assert code == 134
    assert f"{path}:4:" in err and "bounds" in err


BAD_C = {
    "syntax": ("int main(void) { int x = ; }", ":1:"),
    "undeclared": ("int main(void) {\n  return y;\n}", ":2:"),
    "unsupported_int128": ("__int128 x;\nint main(void) { return 0; }", ":1:"),
    "va_start_not_variadic": ("#include <stdarg.h>\nint f(int n) { va_list ap;\n  va_start(ap, n); return n; }\n"
                              "int main(void) { return f(1); }", ":3:"),
    "vla": ("int main(void) { int n = 3;\n  int a[n];\n  return 0; }", ":2:"),
    "bad_member": ("struct S { int a; };\nint main(void) { struct S s;\n  return s.b; }", ":3:"),
    "bad_include": ("#include <nonexistent_header.h>\nint main(void) { return 0; }", ":1:"),
    "packed_attribute": ("int a;\nstruct __attribute__((packed)) S { char c; int i; };\nint main(void) { return 0; }", ":2:"),
    "unknown_gcc_builtin": ("int main(void) {\n  return __builtin_frobnicate(3);\n}", ":2:"),
}


@pytest.mark.parametrize("name", sorted(BAD_C))
def test_bad_c_one_clear_message(cfile, name):
    source, where = BAD_C[name]
    path = cfile(source, f"{name}.c")
    code, out, err = tl("check", path)
    assert code == 2
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("warning:")]
    assert len(lines) == 1, err
    assert lines[0].startswith("tracelearn: error: ")
    assert path + where in lines[0]
    assert "Traceback" not in err


@pytest.mark.parametrize("args", [
    ["check", "/no/such/file.c"],
    ["check", "FILE", "--bound", "-3"],
    ["check", "FILE", "--bound", "x"],
    ["check", "FILE", "--checks", "nonsense"],
    ["check", "FILE", "--data-model", "ILP64"],
    ["check", "FILE", "--timeout", "0"],
    ["check", "FILE", "--unwind-loop", "abc"],
    ["frobnicate"],
    ["run", "FILE", "--inputs", "1,x"],
    ["check", "FILE", "--entry", "nosuchfunction"],
    ["check", "FILE", "--bug-search", "--minimize", "all"],
])
def test_bad_options(cfile, args):
    path = cfile("int main(void) { return 0; }")
    code, out, err = tl(*[path if a == "FILE" else a for a in args])
    assert code == 2
    assert "error" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_run_json_and_its_python_function(tmp_path):
    """`run --json`: how the run ended, the program's output and the inputs it drew, as
    ``tracelearn.run`` returns them; the exit status is the one without --json."""
    import tracelearn

    src = tmp_path / "r.c"
    src.write_text("""
        #include <stdio.h>
        #include <assert.h>
        int __VERIFIER_nondet_int(void);
        int main(int argc, char **argv) {
            int x = __VERIFIER_nondet_int();
            printf("%s got %d\\n", argv[1], x);
            assert(x != 3);
            return 2;
        }""")
    code, out, err = tl("run", str(src), "--inputs", "3", "--json", "--", "hello")
    assert code == 134, err
    doc = json.loads(out)
    assert doc["status"] == "violation" and doc["exit_status"] == 134
    assert doc["violation"]["kind"] == "assertion" and doc["violation"]["loc"].endswith("r.c:8:13")
    assert doc["stdout"] == "hello got 3\n"
    assert [i["value"] for i in doc["inputs"] if "nondet" in i["origin"]] == [3]
    api = tracelearn.run(str(src), inputs=[4], args=["hi"])
    assert api["status"] == "exit" and api["exit_code"] == api["exit_status"] == 2
    assert api["stdout"] == "hi got 4\n" and api["violation"] is None
    with pytest.raises(tracelearn.errors.TracelearnError, match="unknown option 'bound' of run"):
        tracelearn.run(str(src), bound=3)


def test_a_command_loads_its_own_modules_and_the_api_keeps_its_functions():
    """`check` builds its own parser only: the learners, PAC and the stream filters are
    not imported. Importing a module of the API never hides the function of its name."""
    code = ("import sys, tracelearn.cli.main as m; m.build_parser('check'); "
            "print(' '.join(sorted(k for k in sys.modules if k.startswith('tracelearn.'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            check=True).stdout.split()
    assert "tracelearn.api.checking" in loaded
    for module in ("tracelearn.api.pac_verification", "tracelearn.api.streams", "tracelearn.api.batches",
                   "tracelearn.analyses.error_language.driver", "tracelearn.learning.lstar"):
        assert module not in loaded
    # a fresh process: the package's function first, before any module of the API
    code = "import tracelearn; assert callable(tracelearn.check) and callable(tracelearn.learn_filter)"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    code = ("import tracelearn, tracelearn.api.checking as c, tracelearn.api.pac_verification as p; "
            "import tracelearn.api as api; "
            "assert api.check is c.check and tracelearn.check is c.check and callable(api.pac); "
            "assert api.pac is p.pac and sorted(dir(api)) == sorted(set(dir(api)))")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
