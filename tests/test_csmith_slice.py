"""A small slice of the csmith differential test (benchmarks/csmith_diff.py runs
hundreds): the interpreter prints the same checksum as the gcc-compiled program."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from tracelearn.frontend.lower import load_program
from tracelearn.semantics.inputs import InputSource
from tracelearn.semantics.interpreter import Interpreter, InterpOptions

INCLUDE = "/usr/include/csmith"
ARGS = ["--max-funcs", "3", "--max-block-depth", "2", "--max-expr-complexity", "4", "--max-array-dim", "2",
        "--max-array-len-per-dim", "4", "--max-struct-fields", "4", "--no-volatiles"]

pytestmark = pytest.mark.skipif(
    shutil.which("csmith") is None or shutil.which("gcc") is None or not Path(INCLUDE, "csmith.h").is_file(),
    reason="csmith (with libcsmith-dev) and gcc are needed")


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_interpreter_matches_gcc(tmp_path, seed):
    src = tmp_path / f"p{seed}.c"
    subprocess.run(["csmith", "--seed", str(seed), *ARGS, "-o", str(src)], check=True, capture_output=True,
                   timeout=60, cwd=tmp_path)
    exe = tmp_path / "p"
    subprocess.run(["gcc", "-w", "-O0", "-fwrapv", "-I" + INCLUDE, str(src), "-o", str(exe)], check=True,
                   capture_output=True, timeout=120)
    try:
        ref = subprocess.run([str(exe)], capture_output=True, timeout=10).stdout
    except subprocess.TimeoutExpired:
        pytest.skip("the program runs too long for a unit test")
    out = io.BytesIO()
    program = load_program(str(src), "LP64", [INCLUDE])
    r = Interpreter(program, InterpOptions(stdout=out, max_steps=20_000_000)).run(InputSource([]), argv=[])
    if r.status == "limit":
        pytest.skip("the program runs too long for a unit test")
    assert r.status == "ok", (r.status, r.violation)
    assert out.getvalue() == ref
