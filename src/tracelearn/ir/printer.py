"""Readable text of IR programs, for debugging and `tracelearn ir`."""

from __future__ import annotations

from .expr import AddrOf, Binary, Cast, Const, Expr, Load, Reg, Unary
from .visitor import IRVisitor
from .program import (
    Alloc, Assert, Assign, Assume, Branch, Call, Event, Exit, Free, Goto, Mem, Nondet,
    Procedure, Program, Return,
)

_OPS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "rem": "%", "shl": "<<", "shr": ">>",
        "and": "&", "or": "|", "xor": "^", "eq": "==", "ne": "!=", "lt": "<", "le": "<=",
        "gt": ">", "ge": ">=", "sadd_ok": "+fits", "ssub_ok": "-fits", "smul_ok": "*fits"}


class _Text(IRVisitor):
    """The text of expressions, lvalues, statements and terminators."""

    def visit_Const(self, e: Const) -> str:
        return f"{e.value}"

    def visit_Reg(self, e: Reg) -> str:
        return e.name if e.scope == "local" else f"@{e.name}"

    def visit_AddrOf(self, e: AddrOf) -> str:
        return f"&{e.name}"

    def visit_Load(self, e: Load) -> str:
        return f"*({e.type})({self.visit(e.addr)})"

    def visit_Unary(self, e: Unary) -> str:
        return f"{'-' if e.op == 'neg' else '~'}({self.visit(e.a)})"

    def visit_Binary(self, e: Binary) -> str:
        unsigned = getattr(e.optype or e.type, "signed", True) is False
        return f"({self.visit(e.a)} {_OPS[e.op]}{'u' if unsigned else ''} {self.visit(e.b)})"

    def visit_Cast(self, e: Cast) -> str:
        return f"({e.type})({self.visit(e.a)})"

    def visit_Mem(self, lv: Mem) -> str:
        return f"*({lv.type})({self.visit(lv.addr)})"

    def visit_Assign(self, s: Assign) -> str:
        return f"{self.visit(s.lhs)} = {self.visit(s.rhs)}"

    def visit_Call(self, s: Call) -> str:
        callee = s.callee or f"(*{self.visit(s.target)})"
        lhs = f"{self.visit(s.lhs)} = " if s.lhs is not None else ""
        return f"{lhs}{callee}({', '.join(self.visit(a) for a in s.args)})"

    def visit_Assume(self, s: Assume) -> str:
        return f"assume {self.visit(s.cond)}"

    def visit_Assert(self, s: Assert) -> str:
        return f"assert[{s.kind} {s.prop_id}] {self.visit(s.cond)}"

    def visit_Nondet(self, s: Nondet) -> str:
        return f"{self.visit(s.lhs)} = nondet  // {s.origin}"

    def visit_Event(self, s: Event) -> str:
        return f"event {s.letter}"

    def visit_Alloc(self, s: Alloc) -> str:
        return f"{self.visit(s.lhs)} = alloc({self.visit(s.size)}){' zeroed' if s.zeroed else ''}"

    def visit_Free(self, s: Free) -> str:
        return f"free({self.visit(s.ptr)})"

    def visit_Goto(self, t: Goto) -> str:
        return f"goto B{t.target}"

    def visit_Branch(self, t: Branch) -> str:
        return f"if {self.visit(t.cond)} goto B{t.then} else B{t.else_}  // {t.decision_id}"

    def visit_Return(self, t: Return) -> str:
        return f"return {self.visit(t.value) if t.value is not None else ''}".rstrip()

    def visit_Exit(self, t: Exit) -> str:
        return f"{t.kind} {self.visit(t.code) if t.code is not None else ''}".rstrip()


_TEXT = _Text()


def expr_text(e: Expr) -> str:
    return _TEXT.visit(e)


def lvalue_text(lv) -> str:
    return _TEXT.visit(lv)


def stmt_text(s) -> str:
    return _TEXT.visit(s)


def term_text(t) -> str:
    return _TEXT.visit(t)


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
