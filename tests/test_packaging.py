"""Every data file the package reads at run time ships in the wheel: a non-editable
install once lacked the C library models (``frontend/libc/models.c``), so every program
calling ``atoi`` failed with "no such file"."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import tracelearn

ROOT = Path(tracelearn.__file__).parent
PYPROJECT = ROOT.parent.parent / "pyproject.toml"


def test_package_data_covers_every_data_file():
    if not PYPROJECT.exists():  # an installed copy: nothing to compare with
        return
    globs = tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"]["package-data"]["tracelearn"]
    data = [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert data, "no data files found"
    missing = [f for f in data if not any(fnmatch.fnmatch(f, g) for g in globs)]
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"
