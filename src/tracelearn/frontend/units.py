"""The translation units of a program: one C file, several, or a compilation
database (``compile_commands.json``, the format CMake, Bear and clang tools write),
each unit with its own include directories and macros."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..errors import OptionError, TracelearnError


@dataclass
class Unit:
    file: str
    include_dirs: list[str] = field(default_factory=list)
    defines: dict[str, str] = field(default_factory=dict)
    pre_includes: list[str] = field(default_factory=list)  # -include FILE: read before the unit


def resolve_units(path: str | Sequence[str], include_dirs: list[str] | None = None,
                  defines: dict[str, str] | None = None) -> list[Unit]:
    """The units of ``path`` (a C file, a list of them, or compilation databases);
    ``include_dirs`` and ``defines`` (the command line's) apply to every unit, after
    a database's own."""
    paths = [path] if isinstance(path, str) else list(path)
    if not paths:
        raise OptionError("no source file given")
    units: list[Unit] = []
    for p in paths:
        if p.endswith(".json"):
            units.extend(compilation_database(p))
        else:
            units.append(Unit(p))
    for u in units:
        u.include_dirs = u.include_dirs + list(include_dirs or [])
        u.defines = {**u.defines, **(defines or {})}
    seen: dict[str, int] = {}
    for u in units:
        key = str(Path(u.file).resolve())
        if key in seen:
            raise OptionError(f"{u.file}: the same translation unit is given twice")
        seen[key] = 1
    return units


# Options of a compile command that take a value in the next word; the value is
# skipped with the option (tracelearn needs only -I, -D and -U).
_WITH_VALUE = {"-o", "-MF", "-MT", "-MQ", "-x", "-arch", "-target", "--target", "-MJ"}


def compilation_database(path: str) -> list[Unit]:
    """The C units of a ``compile_commands.json``: ``file``, and ``-I``/``-D``/``-U``
    (also ``-isystem``/``-iquote``/``-idirafter`` directories, ``-include``) of
    ``arguments`` or ``command``, relative to ``directory``; other options do not
    change what the unit means to tracelearn (``-imacros`` and ``-Xclang`` are
    refused: they could)."""
    p = Path(path)
    try:
        entries = json.loads(p.read_text())
    except OSError as e:
        raise TracelearnError(f"no such file: {path} ({e.strerror})") from None
    except json.JSONDecodeError as e:
        raise TracelearnError(f"not a compilation database: {e.msg}", f"{path}:{e.lineno}:{e.colno}") from None
    if not isinstance(entries, list):
        raise TracelearnError("not a compilation database (a JSON list of {directory, file, arguments|command})",
                              path)
    units = []
    for i, ent in enumerate(entries):
        where = f"{path}: entry {i + 1}"
        if not isinstance(ent, dict) or not isinstance(ent.get("file"), str) or \
                not isinstance(ent.get("directory", ""), str):
            raise TracelearnError("an entry needs 'directory' and 'file' strings", where)
        base = Path(ent.get("directory") or p.parent)
        if not base.is_absolute():
            base = p.parent / base
        if isinstance(ent.get("arguments"), list):
            words = [str(w) for w in ent["arguments"]]
        elif isinstance(ent.get("command"), str):
            try:
                words = shlex.split(ent["command"])
            except ValueError as e:
                raise TracelearnError(f"bad 'command': {e}", where) from None
        else:
            raise TracelearnError("an entry needs 'arguments' (a list) or 'command' (a string)", where)
        file = Path(ent["file"])
        if not file.is_absolute():
            file = base / file
        if file.suffix not in (".c", ".i"):
            continue  # C++ or assembler units of a mixed project are not ours
        includes, defines, pre = _flags(words[1:], base, where)
        units.append(Unit(str(file), includes, defines, pre))
    if not units:
        raise TracelearnError("the compilation database has no C unit", path)
    return units


def _flags(words: list[str], base: Path, where: str) -> tuple[list[str], dict[str, str], list[str]]:
    includes: list[str] = []
    defines: dict[str, str] = {}
    pre: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        value = None
        if w in ("-imacros", "-Xclang", "-Xpreprocessor"):
            raise TracelearnError(f"unsupported option {w} in the compile command", where)
        for opt in ("-I", "-D", "-U", "-isystem", "-iquote", "-idirafter", "-include"):
            if w == opt and i < len(words):
                value, w = words[i], opt
                i += 1
                break
            if w.startswith(opt) and len(w) > len(opt) and opt in ("-I", "-D", "-U"):
                value, w = w[len(opt):], opt
                break
        else:
            if w in _WITH_VALUE:
                i += 1
            continue
        if w == "-D":
            name, _, val = value.partition("=")
            defines[name] = val if "=" in value else "1"
        elif w == "-U":
            defines.pop(value, None)
        elif w == "-include":
            f = Path(value)
            pre.append(str(f if f.is_absolute() else base / f))
        else:
            d = Path(value)
            includes.append(str(d if d.is_absolute() else base / d))
    return includes, defines, pre
