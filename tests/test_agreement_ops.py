"""The concrete and the symbolic meaning of every IR operator agree.

``ir.concrete`` (interpreter, constant folding) and ``semantics.symexpr`` (the
model checker's z3 encoding) are two writings of one semantics. Hypothesis draws
operands over every scalar type of both data models and checks that z3, on
constants, computes bit for bit what the concrete side computes: every binary
and unary operator, every comparison, every conversion.
"""

from __future__ import annotations

import math

import pytest
import z3
from hypothesis import given, settings, strategies as st

from tracelearn.ir import concrete
from tracelearn.ir.datamodel import DataModel, StdTypes
from tracelearn.ir.types import FloatType, IntType
from tracelearn.ir.values import bits_to_float, float_to_bits, round_f32
from tracelearn.semantics import symexpr

STD = {name: StdTypes(DataModel.named(name)) for name in ("ILP32", "LP64")}


def _int_types() -> list[IntType]:
    seen: dict[tuple, IntType] = {}
    for std in STD.values():
        for t in (std.bool, std.char, std.schar, std.uchar, std.short, std.ushort, std.int, std.uint,
                  std.long, std.ulong, std.llong, std.ullong):
            seen.setdefault((t.width, t.signed, t.is_bool), t)
    return list(seen.values())


INT_TYPES = _int_types()
ARITH_INT_TYPES = [t for t in INT_TYPES if not t.is_bool]
FLOAT_TYPES = [STD["LP64"].float, STD["LP64"].double]
INT_OPS = ["add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr"]
CMP_OPS = ["eq", "ne", "lt", "le", "gt", "ge", "sadd_ok", "ssub_ok", "smul_ok"]
FLOAT_OPS = ["add", "sub", "mul", "div"]
EXAMPLES = settings(max_examples=150, deadline=None)


def int_value(t: IntType) -> st.SearchStrategy[int]:
    """Values in ``t``'s range, biased towards the edges where encodings go wrong."""
    lo, hi = t.min, t.max
    edges = [lo, hi, 0, 1, -1 if t.signed else 2, lo + 1, hi - 1, t.width - 1, t.width, t.width + 1]
    return st.one_of(st.sampled_from([e for e in edges if lo <= e <= hi]), st.integers(lo, hi))


def float_value(t: FloatType) -> st.SearchStrategy[float]:
    w = 32 if t.width == 32 else 64
    special = st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5,
                               3.4028234663852886e38, 1e-45, 2.0 ** 31, -(2.0 ** 63), 2.0 ** 64])
    return st.one_of(special, st.floats(width=w, allow_nan=True, allow_infinity=True)).map(
        lambda x: round_f32(x) if w == 32 else x)


def z3_value(t, term: z3.ExprRef):
    """Python value of a constant z3 term, in the concrete side's representation."""
    v = z3.simplify(term)
    if isinstance(t, FloatType):
        if z3.is_true(z3.simplify(z3.fpIsNaN(v))):
            return math.nan  # NaN has many encodings: z3 leaves its bits open
        bits = z3.simplify(z3.fpToIEEEBV(v))
        return bits_to_float(bits.as_long(), t.width)
    raw = v.as_long()
    if isinstance(t, IntType) and t.signed and raw >= 1 << (t.width - 1):
        raw -= 1 << t.width
    return raw


def same_float(a: float, b: float, t: FloatType) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return float_to_bits(a, t.width) == float_to_bits(b, t.width)


def norm(t: IntType, v: int) -> int:
    return t.wrap(v)


@pytest.mark.parametrize("t", ARITH_INT_TYPES, ids=str)
@pytest.mark.parametrize("op", INT_OPS)
def test_integer_binary_operators(op: str, t: IntType) -> None:
    @EXAMPLES
    @given(int_value(t), int_value(t))
    def check(a: int, b: int) -> None:
        if op in ("div", "rem") and b == 0:
            return  # checked (div-by-zero) before it runs, in both engines
        want = norm(t, concrete.binary(op, t, a, b))
        got = z3_value(t, symexpr.binary(op, t, symexpr.const(t, a), symexpr.const(t, b), None))
        assert got == want, f"{a} {op} {b} : {t}"
    check()


@pytest.mark.parametrize("t", INT_TYPES + FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("op", CMP_OPS)
def test_comparisons(op: str, t) -> None:
    if op.endswith("_ok") and not (isinstance(t, IntType) and t.signed):
        pytest.skip("the overflow checks of signed arithmetic")
    strat = float_value(t) if isinstance(t, FloatType) else int_value(t)
    rt = STD["LP64"].int

    @EXAMPLES
    @given(strat, strat)
    def check(a, b) -> None:
        want = concrete.binary(op, rt, a, b, t)
        got = z3_value(rt, symexpr.binary(op, rt, symexpr.const(t, a), symexpr.const(t, b), t))
        assert got == want, f"{a} {op} {b} : {t}"
    check()


@pytest.mark.parametrize("t", FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("op", FLOAT_OPS)
def test_float_binary_operators(op: str, t: FloatType) -> None:
    @EXAMPLES
    @given(float_value(t), float_value(t))
    def check(a: float, b: float) -> None:
        want = concrete.binary(op, t, a, b)
        got = z3_value(t, symexpr.binary(op, t, symexpr.const(t, a), symexpr.const(t, b), None))
        assert same_float(got, want, t), f"{a!r} {op} {b!r} : {t}: z3 {got!r}, concrete {want!r}"
    check()


@pytest.mark.parametrize("t", ARITH_INT_TYPES + FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("op", ["neg", "not"])
def test_unary_operators(op: str, t) -> None:
    if op == "not" and isinstance(t, FloatType):
        pytest.skip("~ is not defined on floating types")
    strat = float_value(t) if isinstance(t, FloatType) else int_value(t)

    @EXAMPLES
    @given(strat)
    def check(a) -> None:
        want = concrete.unary(op, t, a)
        got = z3_value(t, symexpr.unary(op, t, symexpr.const(t, a)))
        if isinstance(t, FloatType):
            assert same_float(got, want, t), f"{op} {a!r}"
        else:
            assert got == norm(t, want), f"{op} {a} : {t}"
    check()


@pytest.mark.parametrize("frm", INT_TYPES + FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("to", INT_TYPES + FLOAT_TYPES, ids=str)
def test_conversions(to, frm) -> None:
    strat = float_value(frm) if isinstance(frm, FloatType) else int_value(frm)

    @settings(max_examples=60, deadline=None)
    @given(strat)
    def check(v) -> None:
        want = concrete.cast(to, frm, v)
        got = z3_value(to, symexpr.cast(to, frm, symexpr.const(frm, v)))
        if isinstance(to, FloatType):
            assert same_float(got, want, to), f"({to}) {v!r} : {frm}: z3 {got!r}, concrete {want!r}"
        else:
            assert got == want, f"({to}) {v!r} : {frm}"
    check()


# ------------------------------------------- the interpreter's compiled operators
# The interpreter compiles expressions to closures with fast paths of its own
# (``_Compiler.binary``/``cast``): hold them to ``ir.concrete`` too, through a
# one-procedure IR program ``f(a, b) { return a OP b; }``.

from tracelearn.ir.expr import Binary, Cast, Reg, Unary  # noqa: E402
from tracelearn.ir.program import Block, Procedure, Program, Return, SourceLoc, Variable  # noqa: E402
from tracelearn.ir.types import FunctionType  # noqa: E402
from tracelearn.semantics.interpreter import Interpreter  # noqa: E402

_LOC = SourceLoc("agreement.c", 1, 1)


def _interpreter_fn(expr_of, param_types, ret):
    """An interpreter running ``f(params) { return expr_of(regs); }``."""
    params = [Variable(f"p{i}", f"p{i}", t, False, _LOC, True) for i, t in enumerate(param_types)]
    regs = [Reg(p.name, p.type) for p in params]
    f = Procedure("f", FunctionType(ret, tuple(param_types), False, True), params, [],
                  [Block(0, [], Return(expr_of(*regs), _LOC), _LOC)], _LOC)
    init = Procedure("__tl_init_globals", FunctionType(STD["LP64"].void, (), False, True), [], [],
                     [Block(0, [], Return(None, _LOC), _LOC)], _LOC)
    prog = Program(DataModel.named("LP64"), {}, {"f": f, "__tl_init_globals": init}, {}, "f")
    it = Interpreter(prog)
    it.steps = it.stmts = 0  # per-run counters that ``run`` would reset

    def call(*args):
        it.steps = it.stmts = 0
        return it.execute("f", list(args))
    return call


@pytest.mark.parametrize("t", ARITH_INT_TYPES + FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("op", INT_OPS + CMP_OPS)
def test_interpreter_binary_operators(op: str, t) -> None:
    if isinstance(t, FloatType) and op not in FLOAT_OPS + CMP_OPS or op.endswith("_ok") and not getattr(t, "signed", False):
        pytest.skip("not an operator of this type")
    cmp = op in CMP_OPS
    rt = STD["LP64"].int if cmp else t
    run = _interpreter_fn(lambda a, b: Binary(op, rt, a, b, t if cmp else None), [t, t], rt)
    strat = float_value(t) if isinstance(t, FloatType) else int_value(t)

    @settings(max_examples=60, deadline=None)
    @given(strat, strat)
    def check(a, b) -> None:
        if op in ("div", "rem") and not isinstance(t, FloatType) and b == 0:
            return
        want = concrete.binary(op, rt, a, b, t if cmp else None)
        got = run(a, b)
        if isinstance(rt, FloatType):
            assert same_float(got, want, rt), f"{a!r} {op} {b!r} : {t}"
        else:
            assert got == want, f"{a} {op} {b} : {t}"
    check()


@pytest.mark.parametrize("frm", INT_TYPES + FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("to", [t for t in INT_TYPES + FLOAT_TYPES if not getattr(t, "is_bool", False)], ids=str)
def test_interpreter_conversions(to, frm) -> None:
    run = _interpreter_fn(lambda a: Cast(to, a), [frm], to)
    strat = float_value(frm) if isinstance(frm, FloatType) else int_value(frm)

    @settings(max_examples=40, deadline=None)
    @given(strat)
    def check(v) -> None:
        want = concrete.cast(to, frm, v)
        got = run(v)
        if isinstance(to, FloatType):
            assert same_float(got, want, to), f"({to}) {v!r} : {frm}"
        else:
            assert got == want, f"({to}) {v!r} : {frm}"
    check()


@pytest.mark.parametrize("t", ARITH_INT_TYPES + FLOAT_TYPES, ids=str)
def test_interpreter_negation(t) -> None:
    run = _interpreter_fn(lambda a: Unary("neg", t, a), [t], t)
    strat = float_value(t) if isinstance(t, FloatType) else int_value(t)

    @settings(max_examples=40, deadline=None)
    @given(strat)
    def check(v) -> None:
        want = concrete.unary("neg", t, v)
        got = run(v)
        assert same_float(got, want, t) if isinstance(t, FloatType) else got == norm(t, want)
    check()
