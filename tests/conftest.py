"""Shared helpers: write C sources, run them with gcc and with the interpreter."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from tracelearn.frontend.lower import load_program
from tracelearn.semantics.inputs import InputSource
from tracelearn.semantics.interpreter import Interpreter, InterpOptions

HERE = Path(__file__).parent
C_DIR = HERE / "c"
EXAMPLES = HERE.parent / "src" / "tracelearn" / "examples"


def cli(args: list[str], capsys) -> tuple[int, str, str]:
    """``tracelearn ARGS`` in this process: exit status, stdout, stderr."""
    from tracelearn.cli.main import main

    try:
        code = main(args)
    except SystemExit as e:  # argparse's errors
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def cfile(tmp_path):
    def make(source: str, name: str = "prog.c") -> str:
        p = tmp_path / name
        p.write_text(source)
        return str(p)
    return make


def interp_output(path: str, argv: list[str] | None = None, inputs: list | None = None,
                  data_model: str = "LP64"):
    program = load_program(path, data_model)
    out = io.BytesIO()
    it = Interpreter(program, InterpOptions(stdout=out, stderr=io.BytesIO(), real_io=True))
    r = it.run(InputSource(inputs or []), argv=argv if argv is not None else [])
    return r, out.getvalue()


def gcc_output(path: str, argv: list[str] | None = None, m32: bool = False) -> tuple[int, bytes] | None:
    """Exit status and stdout of the gcc-compiled program (None without gcc)."""
    if shutil.which("gcc") is None:
        return None
    exe = path + ".exe"
    cmd = ["gcc", "-w", "-O0", "-fwrapv", "-o", exe, path, "-lm"]
    if m32:
        cmd.insert(1, "-m32")
    if subprocess.run(cmd, capture_output=True).returncode != 0:
        return None
    p = subprocess.run([exe] + (argv or []), capture_output=True, timeout=30)
    return p.returncode, p.stdout
