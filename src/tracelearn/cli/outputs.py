"""Output files named on the command line: checked before any analysis runs.

An analysis can take minutes; a typo in ``--sarif`` must not cost its result.
Every output path is checked first (its folder exists and is writable, it is not
a folder, it is not one of the inputs), so a bad path is one clear error, exit 2,
before any work. Writing afterwards goes through :func:`write_output`, which
reports a failure as a warning and never loses what else was produced.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import OptionError


def preflight(path: str | None, option: str, inputs: list[str] = (), directory: bool = False) -> None:
    """Raise ``OptionError`` if ``path`` (given to ``option``) cannot be written.

    ``directory``: the option names a folder to create or fill (``--playback``)."""
    if not path:
        return
    p = Path(path)
    for src in inputs:
        try:
            if p.exists() and Path(src).exists() and p.resolve() == Path(src).resolve():
                raise OptionError(f"{option} {path}: that is an input file; refusing to overwrite it")
        except OSError:
            pass
    if directory:
        if p.exists() and not p.is_dir():
            raise OptionError(f"{option} {path}: exists and is not a folder")
        parent = p if p.exists() else p.parent
    else:
        if p.is_dir():
            raise OptionError(f"{option} {path}: is a folder, expected a file name")
        if p.exists() and not os.access(p, os.W_OK):
            raise OptionError(f"{option} {path}: not writable")
        parent = p.parent
    parent = parent if str(parent) else Path(".")
    if not parent.exists():
        raise OptionError(f"{option} {path}: folder {parent} does not exist")
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise OptionError(f"{option} {path}: cannot write in {parent}")


def write_output(path: str, text: str | bytes, option: str) -> bool:
    """Write ``text`` to ``path``; on failure print a warning and return False."""
    try:
        if isinstance(text, bytes):
            Path(path).write_bytes(text)
        else:
            Path(path).write_text(text)
        return True
    except OSError as e:
        print(f"tracelearn: warning: {option} {path}: not written ({e.strerror or e})", file=sys.stderr)
        return False
