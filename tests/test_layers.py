"""The package's layering (docs/DESIGN.md, "Layers"): a module imports only from the
layers below its own. An upward import is a design bug; this test names it."""

from __future__ import annotations

import ast
from pathlib import Path

import tracelearn

ROOT = Path(tracelearn.__file__).parent

# Lower number = lower layer. Packages of one rank do not import each other.
RANK = {
    "errors": 0, "bigstack": 0, "forked": 0, "z3dag": 0, "bvterm": 0, "querytime": 0,
    "ir": 1,
    "frontend": 2, "semantics": 2, "automata": 2,
    "learning": 3,
    "analyses": 4,
    "report": 5,
    "api": 6,
    "cli": 7,
}


def _imports(path: Path) -> list[tuple[str, int]]:
    """(top-level package imported, line) for every import of ``path``, function-local
    imports included (they hide cycles, not layers)."""
    rel = path.relative_to(ROOT)
    here = list(rel.parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - (node.level - 1)]
                target = base + (node.module.split(".") if node.module else [])
            else:
                target = (node.module or "").split(".")
                if target[0] != "tracelearn":
                    continue
                target = target[1:]
            if target:
                out.append((target[0], node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "tracelearn" and len(parts) > 1:
                    out.append((parts[1], node.lineno))
    return out


def test_every_package_has_a_layer():
    packages = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.stem for p in ROOT.glob("*.py") if p.stem != "__init__"}
    assert packages | modules <= set(RANK) | {"examples"}, sorted(packages | modules - set(RANK))


def test_no_import_goes_upward():
    upward = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if len(rel.parts) == 1:
            continue  # the package's own __init__ re-exports the API
        own = rel.parts[0]
        for target, line in _imports(path):
            if target != own and target in RANK and RANK[target] >= RANK[own]:
                upward.append(f"{rel}:{line} imports {target} ({own} is layer {RANK[own]}, {target} {RANK[target]})")
    assert not upward, "\n".join(upward)
