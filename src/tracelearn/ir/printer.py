"""Readable text of IR programs, for debugging and `tracelearn ir`."""

from __future__ import annotations

from .expr import AddrOf, Binary, Cast, Const, Expr, Load, Reg, Unary
from .program import (
    Alloc, Assert, Assign, Assume, Branch, Call, Event, Exit, Free, Goto, Mem, Nondet,
    Procedure, Program, Return,
)

_OPS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "rem": "%", "shl": "<<", "shr": ">>",
        "and": "&", "or": "|", "xor": "^", "eq": "==", "ne": "!=", "lt": "<", "le": "<=",
        "gt": ">", "ge": ">=", "smul_ok": "*fits"}


def expr_text(e: Expr) -> str:
    if isinstance(e, Const):
        return f"{e.value}"
    if isinstance(e, Reg):
        return e.name if e.scope == "local" else f"@{e.name}"
    if isinstance(e, AddrOf):
        return f"&{e.name}"
    if isinstance(e, Load):
        return f"*({e.type})({expr_text(e.addr)})"
    if isinstance(e, Unary):
        return f"{'-' if e.op == 'neg' else '~'}({expr_text(e.a)})"
    if isinstance(e, Binary):
        return f"({expr_text(e.a)} {_OPS[e.op]}{'u' if getattr(e.optype or e.type, 'signed', True) is False else ''} {expr_text(e.b)})"
    if isinstance(e, Cast):
        return f"({e.type})({expr_text(e.a)})"
    return repr(e)


def lvalue_text(lv) -> str:
    if isinstance(lv, Mem):
        return f"*({lv.type})({expr_text(lv.addr)})"
    return expr_text(lv)


def stmt_text(s) -> str:
    if isinstance(s, Assign):
        return f"{lvalue_text(s.lhs)} = {expr_text(s.rhs)}"
    if isinstance(s, Call):
        callee = s.callee or f"(*{expr_text(s.target)})"
        lhs = f"{lvalue_text(s.lhs)} = " if s.lhs is not None else ""
        return f"{lhs}{callee}({', '.join(expr_text(a) for a in s.args)})"
    if isinstance(s, Assume):
        return f"assume {expr_text(s.cond)}"
    if isinstance(s, Assert):
        return f"assert[{s.kind} {s.prop_id}] {expr_text(s.cond)}"
    if isinstance(s, Nondet):
        return f"{lvalue_text(s.lhs)} = nondet  // {s.origin}"
    if isinstance(s, Event):
        return f"event {s.letter}"
    if isinstance(s, Alloc):
        return f"{lvalue_text(s.lhs)} = alloc({expr_text(s.size)}){' zeroed' if s.zeroed else ''}"
    if isinstance(s, Free):
        return f"free({expr_text(s.ptr)})"
    return repr(s)


def term_text(t) -> str:
    if isinstance(t, Goto):
        return f"goto B{t.target}"
    if isinstance(t, Branch):
        return f"if {expr_text(t.cond)} goto B{t.then} else B{t.else_}  // {t.decision_id}"
    if isinstance(t, Return):
        return f"return {expr_text(t.value) if t.value is not None else ''}".rstrip()
    if isinstance(t, Exit):
        return f"{t.kind} {expr_text(t.code) if t.code is not None else ''}".rstrip()
    return repr(t)


def procedure_text(p: Procedure) -> str:
    lines = [f"{p.type.ret} {p.name}({', '.join(f'{v.type} {v.name}' for v in p.params)})"]
    for v in p.locals:
        lines.append(f"  local {v.type} {v.name}{' [mem]' if v.in_memory else ''}")
    for b in p.blocks:
        lines.append(f" B{b.index}: {b.label}")
        for s in b.stmts:
            lines.append(f"    {stmt_text(s)}")
        lines.append(f"    {term_text(b.term)}")
    return "\n".join(lines)


def program_text(prog: Program) -> str:
    out = []
    for name, g in prog.globals.items():
        init = f" = {g.init_bytes!r}" if g.init_bytes else ""
        out.append(f"global {g.var.type} {name}{' [mem]' if g.var.in_memory else ''}{init}")
    for p in prog.procedures.values():
        out.append(procedure_text(p))
    return "\n".join(out)
