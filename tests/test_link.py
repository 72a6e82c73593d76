"""Whole programs of several translation units: linking by name, as a C linker
does, and compilation databases (compile_commands.json)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

import tracelearn
from tracelearn.errors import TracelearnError
from tracelearn.frontend.lower import load_program

from conftest import C_DIR, cli

LINK = C_DIR / "link"
MAIN, GEOMETRY = str(LINK / "main.c"), str(LINK / "geometry.c")


def test_static_names_stay_private_to_their_unit():
    p = load_program(MAIN, units=[GEOMETRY], defines={"SCALE": "3", "LIMIT": "4"})
    # Both units have a static 'calls' and the header's static inline 'twice'.
    assert {"calls@main.c", "calls@geometry.c", "shifts"} <= set(p.globals)
    assert {"twice@main.c", "twice@geometry.c", "shift", "counter", "counter_local"} <= set(p.procedures)
    assert p.globals["calls@main.c"].var.display == "calls"


@pytest.mark.parametrize("limit, verdict", [(4, "true"), (3, "false")])
def test_verdicts_across_units(limit, verdict):
    doc = tracelearn.check([MAIN, GEOMETRY], define={"SCALE": "3", "LIMIT": str(limit)}, timeout=30.0)
    assert doc["verdict"] == verdict
    if verdict == "false":
        cex = doc["counterexample"]
        assert cex["replay"]["status"] == "confirmed"
        assert cex["property"].endswith("main.c:17:5")
        assert "--unit" in cex["reproduce"] and "-DLIMIT=3" in cex["reproduce"]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("limit", [3, 4])
def test_run_agrees_with_gcc(tmp_path, capsys, limit):
    exe = tmp_path / "a.out"
    subprocess.run(["gcc", "-DSCALE=3", f"-DLIMIT={limit}", "-o", str(exe), MAIN, GEOMETRY], check=True)
    want = subprocess.run([str(exe)], capture_output=True).returncode
    code, _, err = cli(["run", MAIN, "--unit", GEOMETRY, "-DSCALE=3", f"-DLIMIT={limit}"], capsys)
    assert (want == 0) == (code == 0), err
    if want != 0:
        assert "main.c:17:5: assertion failed" in err


def test_two_definitions_are_one_error_naming_both(tmp_path, capsys):
    dup = tmp_path / "dup.c"
    dup.write_text("int counter(void) { return 0; }\n")
    code, out, err = cli(["check", MAIN, GEOMETRY, str(dup), "-DSCALE=1", "-DLIMIT=4"], capsys)
    assert code != 0 and "Traceback" not in err
    assert f"{dup}:1:5: multiple definition of 'counter' (first defined at {GEOMETRY}:13:5)" in err


def test_a_variable_and_a_function_of_one_name_clash(tmp_path):
    dup = tmp_path / "dup.c"
    dup.write_text("int shift;\n")
    with pytest.raises(TracelearnError, match="multiple definition of 'shift'"):
        load_program(MAIN, units=[GEOMETRY, str(dup)], defines={"SCALE": "1", "LIMIT": "4"})


def test_tentative_definitions_merge_and_externs_see_one_object(tmp_path):
    a = tmp_path / "a.c"
    b = tmp_path / "b.c"
    a.write_text("#include <assert.h>\nint n; extern int *where(void); void bump(void);\n"
                 "int main(void) { n = 5; bump(); assert(where() == &n); assert(n == 6); return 0; }\n")
    b.write_text("int n;\nint *where(void) { return &n; }\nvoid bump(void) { n++; }\n")
    assert tracelearn.check([str(a), str(b)], timeout=30.0)["verdict"] == "true"
    b.write_text("int n = 1;\nint *where(void) { return &n; }\nvoid bump(void) { n += 2; }\n")
    doc = tracelearn.check([str(a), str(b)], timeout=30.0)
    assert doc["verdict"] == "false" and doc["counterexample"]["replay"]["status"] == "confirmed"


def test_extern_defined_nowhere_is_unknown(tmp_path):
    a = tmp_path / "a.c"
    a.write_text("#include <assert.h>\nextern int limit;\nint main(void) { assert(limit != 7); return 0; }\n")
    assert tracelearn.check(str(a), timeout=30.0)["verdict"] == "false"
    b = tmp_path / "b.c"
    b.write_text("int limit = 3;\n")
    assert tracelearn.check([str(a), str(b)], timeout=30.0)["verdict"] == "true"


def test_compilation_database_gives_each_unit_its_flags(tmp_path, capsys):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "scale.h").write_text("#define SCALE 2\n")
    (tmp_path / "first.h").write_text("#include <scale.h>\n")
    db = [
        {"directory": str(tmp_path), "arguments": ["gcc", "-c", "-Iinc", "-include", "first.h",
                                                   "-o", "main.o", MAIN], "file": MAIN},
        {"directory": str(LINK), "command": "cc -c -DSCALE=9 -DUNUSED='a b' geometry.c", "file": "geometry.c"},
        {"directory": str(LINK), "command": "c++ -c other.cc", "file": "other.cc"},
    ]
    path = tmp_path / "compile_commands.json"
    path.write_text(json.dumps(db))
    # LIMIT comes from the command line (every unit); SCALE from each unit's own
    # flags (main.c: -include first.h, which finds scale.h through -Iinc).
    p = load_program(str(path), defines={"LIMIT": "4"})
    assert "counter_local" in p.procedures and "shift" in p.procedures
    code, out, err = cli(["check", str(path), "-DLIMIT=3", "--quiet"], capsys)
    assert code == 0 and "VERIFICATION FAILED" in out, err
    code, out, err = cli(["check", str(path), "-DLIMIT=4", "--quiet"], capsys)
    assert code == 0 and "VERIFICATION SUCCESSFUL" in out, err


@pytest.mark.parametrize("text, message", [
    ("{", "not a compilation database"),
    ('{"file": "a.c"}', "not a compilation database"),
    ('[{"file": "a.c", "directory": "."}]', "needs 'arguments'"),
    ('[{"file": "a.cc", "directory": ".", "command": "c++ a.cc"}]', "has no C unit"),
])
def test_bad_compilation_database(tmp_path, capsys, text, message):
    path = tmp_path / "compile_commands.json"
    path.write_text(text)
    code, _, err = cli(["check", str(path)], capsys)
    assert code != 0 and message in err and "Traceback" not in err and str(path) in err


def test_explain_links_units(capsys, tmp_path):
    code, out, err = cli(["explain", MAIN, GEOMETRY, "-DSCALE=3", "-DLIMIT=3", "--json", "--quiet",
                          "--letters", "shift,counter", "--timeout", "60"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["options"]["unit"] == [GEOMETRY]
    assert doc["witnesses"], doc


def test_each_program_links_its_own_copy_of_the_library_models(tmp_path):
    """The models are lowered once per process; every program gets its own copies of
    what it links, so a transformation of one program never reaches another."""
    src = tmp_path / "s.c"
    src.write_text("#include <string.h>\nint main(void) { char b[4] = \"ab\"; return (int)strlen(b); }\n")
    a, b = load_program(str(src)), load_program(str(src))
    pa, pb = a.procedures["strlen"], b.procedures["strlen"]
    assert pa is not pb and len(pa.blocks) == len(pb.blocks)
    stmts = len(pb.blocks[0].stmts)
    pa.blocks[0].stmts.clear()
    assert len(pb.blocks[0].stmts) == stmts and len(load_program(str(src)).procedures["strlen"].blocks[0].stmts) == stmts
