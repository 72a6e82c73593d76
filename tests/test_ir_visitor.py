"""The IR visitor fails loudly on a node kind it has no case for, and the engines
built on it cover every kind they must (a new IR node shows here first)."""

from __future__ import annotations

import pytest

from tracelearn.ir import expr as E
from tracelearn.ir import program as P
from tracelearn.ir.printer import _Text
from tracelearn.ir.types import IntType
from tracelearn.ir.visitor import IRVisitor, MissingCase
from tracelearn.semantics.symbolic import SymbolicSemantics

EXPRESSIONS = [E.Const, E.Reg, E.AddrOf, E.Load, E.Unary, E.Binary, E.Cast]
STATEMENTS = [P.Assign, P.Nondet, P.Assume, P.Assert, P.Event, P.Alloc, P.Free]  # P.Call: strategies
TERMINATORS = [P.Goto, P.Branch, P.Return, P.Exit]


def test_missing_case_fails_loudly():
    class OnlyConst(IRVisitor):
        def visit_Const(self, e):
            return e.value

    v = OnlyConst()
    assert v.visit(E.Const(IntType(32, True), 7)) == 7
    with pytest.raises(MissingCase, match="OnlyConst has no case for IR node Reg"):
        v.visit(E.Reg("x", IntType(32, True), "local"))


@pytest.mark.parametrize("cls", EXPRESSIONS + STATEMENTS + [P.Call, P.Mem] + TERMINATORS)
def test_printer_covers_every_node(cls):
    assert hasattr(_Text, f"visit_{cls.__name__}")


@pytest.mark.parametrize("cls", EXPRESSIONS + STATEMENTS)
def test_symbolic_semantics_covers_every_expression_and_statement(cls):
    assert hasattr(SymbolicSemantics, f"visit_{cls.__name__}")


@pytest.mark.parametrize("cls", EXPRESSIONS + STATEMENTS + TERMINATORS)
def test_interpreter_compiler_covers_every_node(cls):
    from tracelearn.semantics.compiler import _Compiler

    assert hasattr(_Compiler, f"visit_{cls.__name__}")


def test_every_ir_class_is_listed_here():
    """Lists above are complete: each dataclass of the IR modules with a ``loc`` (a
    statement or terminator) or deriving from the expression base is in them."""
    containers = {P.Procedure, P.Variable, P.Block}
    stmt_like = {c for c in vars(P).values() if isinstance(c, type) and c.__module__ == P.__name__
                 and "loc" in getattr(c, "__dataclass_fields__", {})} - containers
    assert stmt_like <= set(STATEMENTS + TERMINATORS + [P.Call]), stmt_like - set(STATEMENTS + TERMINATORS + [P.Call])
    exprs = {c for c in vars(E).values() if isinstance(c, type) and c.__module__ == E.__name__
             and issubclass(c, E.Expr) and c is not E.Expr}
    assert exprs == set(EXPRESSIONS)


@pytest.mark.parametrize("cls", STATEMENTS + [P.Call] + TERMINATORS)
def test_cfg_oracle_covers_every_statement_and_terminator(cls):
    from tracelearn.analyses.error_language.cfg_oracle import _MayFail

    assert hasattr(_MayFail, f"visit_{cls.__name__}")
