"""The address space both engines use.

Globals are laid out identically by the interpreter and the model checker (same
order, alignment and red zones), so a pointer value in a counterexample means
the same object when the interpreter replays it. Stack frames and heap blocks are
allocated in execution order by each engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.program import Program

NULL_PAGE_END = 0x1000  # [0, 0x1000): never an object (NULL, stdin/stdout/stderr handles)
FUNC_BASE = 0x1000  # function "addresses": not objects, dereferencing them is invalid
FUNC_STRIDE = 0x10
GLOBAL_BASE = 0x10000
STACK_BASE = 0x40000000
HEAP_BASE = 0x80000000
INVALID_BASE = 0xF0000000  # nondeterministic pointers point here: never an object
INVALID_SIZE = 0x100000
RED_ZONE = 16  # gap between objects, so small overruns hit no object


def align_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


@dataclass(frozen=True)
class GlobalLayout:
    bases: dict[str, int]  # global object name -> base address
    end: int
    functions: dict[str, int]  # function name -> address

    def function_at(self, addr: int) -> str | None:
        for name, a in self.functions.items():
            if a == addr:
                return name
        return None


def layout_globals(program: Program) -> GlobalLayout:
    bases: dict[str, int] = {}
    cur = GLOBAL_BASE
    for name, g in program.globals.items():
        if not g.var.in_memory:
            continue
        cur = align_up(cur, max(16, g.var.type.align))
        bases[name] = cur
        cur += max(g.var.type.size, 1) + RED_ZONE
    funcs = sorted(set(program.procedures) | set(program.externs))
    functions = {n: FUNC_BASE + FUNC_STRIDE * (i + 1) for i, n in enumerate(funcs)}
    return GlobalLayout(bases, cur, functions)


class Bump:
    """A bump allocator with red zones: addresses are never reused, so a dangling
    pointer never silently reaches a newer object."""

    def __init__(self, base: int) -> None:
        self.cur = base

    def alloc(self, size: int, align: int = 16) -> int:
        base = align_up(self.cur, max(16, align))
        self.cur = base + max(size, 1) + RED_ZONE
        return base
