"""Graphviz's drawing of an automaton, when its `dot` is installed (reports fall
back on :mod:`.layered_layout` otherwise)."""

from __future__ import annotations

import shutil
import subprocess


def graphviz_available() -> bool:
    return shutil.which("dot") is not None


def dot_svg(dot_text: str) -> str | None:
    exe = shutil.which("dot")
    if exe is None:
        return None
    p = subprocess.run([exe, "-Tsvg"], input=dot_text.encode(), capture_output=True, timeout=60)
    if p.returncode != 0:
        return None
    text = p.stdout.decode("utf-8", "replace")
    return text[text.find("<svg"):] if "<svg" in text else None
