"""Linking translation units by name, as a C linker does.

An external name (a function or global without ``static``) means one object in the
whole program; a ``static`` one is private to its unit and is renamed
``name@unit`` when another unit uses the same name. Two definitions of one external
name are an error naming both, except tentative definitions (``int x;``), which merge
as the traditional common symbols, and ``inline`` definitions, which a header gives
every unit that includes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast

from ..errors import TracelearnError


@dataclass
class Definition:
    where: str
    kind: str  # "function", "initialized" or "tentative"
    inline: bool = False


@dataclass
class UnitSymbols:
    file: str
    internal: set[str] = field(default_factory=set)  # names with static at file scope
    defined: dict[str, Definition] = field(default_factory=dict)


def _where(node: c_ast.Node, fallback: str) -> str:
    c = getattr(node, "coord", None)
    return f"{c.file}:{c.line}:{c.column or 0}" if c is not None else fallback


def unit_symbols(ast: c_ast.FileAST, file: str) -> UnitSymbols:
    syms = UnitSymbols(file)
    for ext in ast.ext:
        decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
        if not isinstance(decl, c_ast.Decl) or decl.name is None or "typedef" in (decl.storage or []):
            continue
        if "static" in (decl.storage or []):
            syms.internal.add(decl.name)
        if isinstance(ext, c_ast.FuncDef):
            inline = "inline" in (decl.funcspec or []) and "extern" not in (decl.storage or [])
            syms.defined[decl.name] = Definition(_where(ext, file), "function", inline)
        elif not isinstance(decl.type, c_ast.FuncDecl) and "extern" not in (decl.storage or []):
            kind = "initialized" if decl.init is not None else "tentative"
            old = syms.defined.get(decl.name)
            if old is None or old.kind == "tentative":
                syms.defined[decl.name] = Definition(_where(ext, file), kind)
    return syms


def link_renames(units: list[UnitSymbols]) -> list[dict[str, str]]:
    """Per unit, the names to give its internal symbols (only those another unit also
    uses); raises on two definitions of one external name."""
    external: dict[str, Definition] = {}
    for u in units:
        for name, d in u.defined.items():
            if name in u.internal:
                continue
            old = external.get(name)
            variables = {old.kind, d.kind} <= {"tentative", "initialized"} if old else False
            if old is None or (variables and old.kind == "tentative"):
                external[name] = d
            elif (variables and d.kind == "tentative") or (old.inline and d.inline):
                continue
            else:
                raise TracelearnError(f"multiple definition of '{name}' (first defined at {old.where})", d.where)
    counts: dict[str, int] = {}
    for u in units:
        for name in u.internal:
            counts[name] = counts.get(name, 0) + 1
    stems = _unit_stems([u.file for u in units])
    renames = []
    for u, stem in zip(units, stems):
        renames.append({n: f"{n}@{stem}" for n in sorted(u.internal) if n in external or counts[n] > 1})
    return renames


def _unit_stems(files: list[str]) -> list[str]:
    """Short names of the units: the file name, with its directory when two units
    share a file name."""
    names = [Path(f).name for f in files]
    return [n if names.count(n) == 1 else str(Path(f)) for n, f in zip(names, files)]
