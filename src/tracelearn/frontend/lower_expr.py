"""Lowering of C expressions: side effects become statements, values become IR
expressions with every conversion explicit."""

from __future__ import annotations

from pycparser import c_ast

from ..errors import TracelearnError, UnsupportedError
from ..ir.expr import AddrOf, Binary, Cast, Const, Expr, Load, Reg, Unary
from ..ir.program import Assert, Assign, Call, Exit, Mem, Nondet
from ..ir.types import (
    ArrayType,
    CType,
    FloatType,
    FunctionType,
    IntType,
    PointerType,
    StructType,
    VoidType,
    is_arith,
)
from . import builtins as B
from .conversions import convert, fold, negate_truth, promote, retype_pointer, to_truth, usual_arith
from .literals import char_literal, float_literal, int_literal, string_literal
from .lvalues import LV, BoundsCheck, LVFunc, LVMem, LVReg
from .scopes import EnumConst, FuncBinding, TypedefBinding, VarBinding

CMP = {"<": "lt", ">": "gt", "<=": "le", ">=": "ge", "==": "eq", "!=": "ne"}
ARITH = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem", "<<": "shl", ">>": "shr",
         "&": "and", "|": "or", "^": "xor"}
LVALUE_NODES = (c_ast.ID, c_ast.ArrayRef, c_ast.StructRef, c_ast.CompoundLiteral)


def has_side_effects(node: c_ast.Node | None) -> bool:
    """Whether evaluating ``node`` may change state (calls, assignments, ++/--)."""
    if node is None:
        return False
    if isinstance(node, (c_ast.FuncCall, c_ast.Assignment)):
        return True
    if isinstance(node, c_ast.UnaryOp):
        if node.op in ("++", "--", "p++", "p--"):
            return True
        if node.op == "sizeof":
            return False
    return any(has_side_effects(c) for _, c in node.children())


# Block items that are statements, not expressions (a statement expression's value is
# its last item only when that is an expression).
_STATEMENT_NODES = (c_ast.Decl, c_ast.DeclList, c_ast.Compound, c_ast.If, c_ast.While, c_ast.DoWhile, c_ast.For,
                    c_ast.Switch, c_ast.Case, c_ast.Default, c_ast.Break, c_ast.Continue, c_ast.Goto, c_ast.Label,
                    c_ast.Return, c_ast.EmptyStatement, c_ast.Typedef, c_ast.Pragma)


class ExprLowering:
    """Mixin of ``Lowerer``: expressions."""

    # ------------------------------------------------------------- helpers

    def text(self, node: c_ast.Node) -> str:
        try:
            return self.gen.visit(node)
        except Exception:  # c_generator may not know every node; text is cosmetic
            return type(node).__name__

    def emit(self, stmt, node: c_ast.Node) -> None:
        self.ctx.cfg.emit(stmt, self.loc(node))

    def materialize(self, e: Expr, node: c_ast.Node, hint: str = "tmp") -> Expr:
        if isinstance(e, Const) or (isinstance(e, Reg) and self.ctx.is_temp(e.name)):
            return e
        t = self.ctx.new_temp(e.type, self.loc(node), hint)
        self.emit(Assign(t, e, self.loc(node), hint, hidden=True), node)
        return t

    def int_const(self, v: int, t: CType | None = None) -> Const:
        t = t or self.std.int
        assert isinstance(t, (IntType, PointerType))
        return Const(t, t.wrap(v) if isinstance(t, IntType) else v & ((1 << t.width) - 1))

    def offset_type(self) -> IntType:
        return self.std.ptrdiff_t

    # --------------------------------------------------------------- rvalues

    def rvalue(self, node: c_ast.Node) -> Expr:
        """Value of an expression used for its value (lvalue conversion, decay)."""
        e = self.expr(node, want=True)
        assert e is not None
        return e

    def effect(self, node: c_ast.Node) -> None:
        """Evaluate for side effects only."""
        self.expr(node, want=False)

    def expr(self, node: c_ast.Node, want: bool) -> Expr | None:
        if isinstance(node, c_ast.Constant):
            return self.constant(node)
        if isinstance(node, LVALUE_NODES) or (
            isinstance(node, c_ast.UnaryOp) and node.op == "*"
        ):
            if isinstance(node, c_ast.ID):
                b = self.scopes.lookup(node.name)
                if isinstance(b, EnumConst):
                    return Const(b.type, b.value)
            lv = self.lvalue(node)
            return self.read(lv, node) if want else self.touch(lv, node)
        if isinstance(node, c_ast.UnaryOp):
            return self.unary(node, want)
        if isinstance(node, c_ast.BinaryOp):
            return self.binary(node, want)
        if isinstance(node, c_ast.Assignment):
            return self.assignment(node, want)
        if isinstance(node, c_ast.TernaryOp):
            return self.ternary(node, want)
        if isinstance(node, c_ast.FuncCall):
            return self.call(node, want)
        if isinstance(node, c_ast.Cast):
            return self.cast(node, want)
        if isinstance(node, c_ast.ExprList):
            if not node.exprs:
                return None
            for e in node.exprs[:-1]:
                self.effect(e)
            return self.expr(node.exprs[-1], want)
        if isinstance(node, c_ast.Compound):
            return self.statement_expression(node, want)
        if isinstance(node, c_ast.InitList):
            raise UnsupportedError("initializer list outside a declaration", self.where(node))
        if isinstance(node, c_ast.Typename):
            raise UnsupportedError("type name used as a value", self.where(node))
        raise UnsupportedError(f"unsupported construct: {type(node).__name__}", self.where(node))

    def statement_expression(self, node: c_ast.Compound, want: bool) -> Expr | None:
        """GNU C's ``({ stmt; ...; e; })``: the statements run, the last expression
        statement is the value (copied to a temporary: what follows in the enclosing
        expression must not change it); a block ending otherwise has no value."""
        if self.ctx is self.init_ctx:
            raise UnsupportedError("statement expression outside a function", self.where(node))
        items = node.block_items or []
        self.scopes.push()
        try:
            for item in items[:-1]:
                self.stmt(item)
            last = items[-1] if items else None
            if last is None or isinstance(last, _STATEMENT_NODES):
                self.stmt(last)
                if want:
                    raise TracelearnError("statement expression without a value used as a value", self.where(node))
                return None
            v = self.expr(last, want)
            if v is None or not want:
                return v
            loc = self.loc(node)
            tmp = self.ctx.new_temp(v.type, loc, "stmtexpr")
            self.emit(Assign(tmp, v, loc, hidden=True), node)
            return tmp
        finally:
            self.scopes.pop()

    def touch(self, lv: LV, node: c_ast.Node) -> Expr | None:
        # `*p;` or `x;` as a statement: volatile reads are not modelled; nothing to do.
        return None

    def constant(self, node: c_ast.Constant) -> Expr:
        text = node.value
        try:
            if node.type == "string":
                return self.string_object(string_literal(text), node)
            if node.type in ("char", "wchar", "char16", "char32") or text.startswith(("'", "L'", "u'", "U'")):
                return Const(self.std.int, char_literal(text))
            if node.type in ("float", "double", "long double") or (
                not text.lower().startswith("0x") and any(c in text for c in ".eE")
            ) or (text.lower().startswith("0x") and "p" in text.lower()):
                v, t = float_literal(text, self.std)
                return Const(t, v)
            v, t = int_literal(text, self.std)
            return Const(t, v)
        except ValueError:
            raise UnsupportedError(f"unsupported constant {text}", self.where(node)) from None

    def string_object(self, data: bytes, node: c_ast.Node) -> Expr:
        name = self.intern_string(data, node)
        return AddrOf(name, self.std.ptr(self.std.char), "global")

    # ---------------------------------------------------------------- lvalues

    def lvalue(self, node: c_ast.Node) -> LV:
        if isinstance(node, c_ast.ID):
            return self.id_lvalue(node)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            p = self.rvalue(node.expr)
            t = p.type
            if not isinstance(t, PointerType):
                raise TracelearnError(f"dereference of a non-pointer ({t})", self.where(node))
            if isinstance(t.target, FunctionType):
                return LVFunc(None, p, t.target, self.text(node))
            if isinstance(t.target, VoidType):
                raise TracelearnError("dereference of a void pointer", self.where(node))
            return LVMem(p, t.target, self.text(node))
        if isinstance(node, c_ast.ArrayRef):
            return self.array_ref(node)
        if isinstance(node, c_ast.StructRef):
            return self.struct_ref(node)
        if isinstance(node, c_ast.CompoundLiteral):
            return self.compound_literal(node)
        if isinstance(node, c_ast.Constant) and node.type == "string":
            data = string_literal(node.value)
            name = self.intern_string(data, node)
            t = ArrayType(self.std.char, len(data) + 1)
            return LVMem(AddrOf(name, self.std.ptr(t), "global"), t, self.text(node))
        if isinstance(node, c_ast.Cast):
            # GCC extension "cast as lvalue" is not C; report clearly.
            raise UnsupportedError("a cast is not an lvalue", self.where(node))
        if isinstance(node, (c_ast.FuncCall, c_ast.TernaryOp, c_ast.Assignment, c_ast.ExprList)):
            # An rvalue of struct type whose member is accessed: give it storage.
            e = self.rvalue(node)
            if isinstance(e.type, StructType):
                return self.struct_temp(e, node)
            raise TracelearnError("expression is not assignable", self.where(node))
        raise TracelearnError(f"expression is not an lvalue: {self.text(node)}", self.where(node))

    def struct_temp(self, e: Expr, node: c_ast.Node) -> LVMem:
        name = self.ctx.unique("__agg")
        var = self.new_local(name, "tmp", e.type, True, self.loc(node))
        addr = AddrOf(var.name, self.std.ptr(e.type), "local")
        self.emit(Assign(Mem(addr, e.type), e, self.loc(node), "tmp", hidden=True), node)
        return LVMem(addr, e.type, self.text(node))

    def id_lvalue(self, node: c_ast.ID) -> LV:
        b = self.scopes.lookup(node.name)
        if b is None:
            if node.name == "__tl_va":  # stdarg.h's va_start
                raise TracelearnError("va_start used in a function without '...' parameters", self.where(node))
            raise TracelearnError(f"use of undeclared identifier '{node.name}'", self.where(node))
        if isinstance(b, VarBinding):
            v = b.var
            if v.in_memory:
                return LVMem(AddrOf(v.name, self.std.ptr(v.type), b.scope), v.type, v.display)
            return LVReg(Reg(v.name, v.type, b.scope), v.display)
        if isinstance(b, FuncBinding):
            return LVFunc(b.name, AddrOf(b.name, self.std.ptr(b.type), "function"), b.type, b.name)
        if isinstance(b, EnumConst):
            raise TracelearnError(f"enumerator '{node.name}' is not an lvalue", self.where(node))
        if isinstance(b, TypedefBinding):
            raise TracelearnError(f"type name '{node.name}' used as a value", self.where(node))
        raise TracelearnError(f"bad identifier '{node.name}'", self.where(node))

    def read(self, lv: LV, node: c_ast.Node) -> Expr:
        """Lvalue conversion with array and function decay."""
        if isinstance(lv, LVReg):
            return lv.reg
        if isinstance(lv, LVFunc):
            return self.function_address(lv, node)
        t = lv.type
        if isinstance(t, ArrayType):
            return retype_pointer(lv.addr, self.std.ptr(t.elem))
        self.emit_checks(lv, node)
        if lv.bitfield is not None:
            return self.read_bitfield(lv)
        if isinstance(t, VoidType):
            raise TracelearnError("use of a void value", self.where(node))
        return Load(t, lv.addr)

    def emit_checks(self, lv: LVMem, node: c_ast.Node) -> None:
        for c in lv.checks:
            if not self.checks_bounds:
                break
            ut = self.std.size_t
            cond = fold(Binary("lt", self.std.int, c.index, Const(ut, c.length), ut))
            if isinstance(cond, Const) and cond.value:
                continue
            pid = self.ctx.stable_id(c.loc, "bounds")
            self.ctx.cfg.emit(
                Assert(cond, c.loc, pid, "bounds", f"array index {c.text} out of bounds [0, {c.length})", "bounds"),
                c.loc,
            )
        lv.checks = []

    def read_bitfield(self, lv: LVMem) -> Expr:
        f = lv.bitfield
        assert f is not None and f.bit_width is not None and isinstance(f.type, IntType)
        ut = f.type
        unit = Load(ut, lv.addr)
        w, off = f.bit_width, f.bit_offset
        if ut.signed:
            # Sign-extend: shift the field to the top, then arithmetic shift down.
            up = Binary("shl", ut, unit, Const(ut, ut.width - off - w))
            val: Expr = Binary("shr", ut, up, Const(ut, ut.width - w))
        else:
            sh = Binary("shr", ut, unit, Const(ut, off)) if off else unit
            val = Binary("and", ut, sh, Const(ut, (1 << w) - 1)) if w < ut.width else sh
        # GCC: a bit-field narrower than int has type int after promotion.
        if w < 32 and not ut.is_bool:
            return convert(self.std, val, self.std.int)
        return val

    def write(self, lv: LV, value: Expr, node: c_ast.Node, text: str | None = None, hidden: bool = False) -> None:
        """Store ``value`` (already converted to the lvalue's type)."""
        loc = self.loc(node)
        if isinstance(lv, LVReg):
            self.emit(Assign(lv.reg, value, loc, text or lv.text, hidden), node)
            return
        if isinstance(lv, LVFunc):
            raise TracelearnError("cannot assign to a function", self.where(node))
        if isinstance(lv.type, ArrayType):
            raise TracelearnError("cannot assign to an array", self.where(node))
        self.emit_checks(lv, node)
        if lv.bitfield is not None:
            f = lv.bitfield
            assert f.bit_width is not None and isinstance(f.type, IntType)
            ut = f.type
            mask = ((1 << f.bit_width) - 1) << f.bit_offset
            unit = Load(ut, lv.addr)
            v = convert(self.std, value, ut)
            shifted = Binary("shl", ut, Binary("and", ut, v, Const(ut, ut.wrap((1 << f.bit_width) - 1))), Const(ut, f.bit_offset))
            new = Binary("or", ut, Binary("and", ut, unit, Const(ut, ut.wrap(~mask))), shifted)
            self.emit(Assign(Mem(lv.addr, ut), new, loc, text or lv.text, hidden), node)
            return
        self.emit(Assign(Mem(lv.addr, lv.type), value, loc, text or lv.text, hidden), node)

    def lv_type(self, lv: LV) -> CType:
        if isinstance(lv, LVMem) and lv.bitfield is not None:
            return lv.bitfield.type
        return lv.type

    # ------------------------------------------------------ arrays, structs

    def array_ref(self, node: c_ast.ArrayRef) -> LVMem:
        base_node, idx_node = node.name, node.subscript
        base_lv: LV | None = None
        if isinstance(base_node, LVALUE_NODES) or (isinstance(base_node, c_ast.UnaryOp) and base_node.op == "*"):
            if not (isinstance(base_node, c_ast.ID) and isinstance(self.scopes.lookup(base_node.name), EnumConst)):
                base_lv = self.lvalue(base_node)
        if base_lv is not None and isinstance(base_lv, LVMem) and isinstance(base_lv.type, ArrayType):
            arr = base_lv.type
            if has_side_effects(idx_node):
                base_addr = self.materialize(base_lv.addr, node, "addr")
            else:
                base_addr = base_lv.addr
            idx = self.rvalue(idx_node)
            if not isinstance(idx.type, IntType):
                raise TracelearnError("array subscript is not an integer", self.where(idx_node))
            checks = list(base_lv.checks)
            if arr.length and not base_lv.flexible:
                checks.append(BoundsCheck(convert(self.std, idx, self.std.size_t), arr.length, self.loc(node), self.text(node)))
            addr = self.pointer_add(retype_pointer(base_addr, self.std.ptr(arr.elem)), idx, arr.elem, node)
            return LVMem(addr, arr.elem, self.text(node), None, checks)
        # Pointer subscript: p[i] == *(p + i), either operand order.
        if base_lv is not None:
            a = self.read(base_lv, base_node)
        else:
            a = self.rvalue(base_node)
        if has_side_effects(idx_node):
            a = self.materialize(a, node)
        i = self.rvalue(idx_node)
        if isinstance(i.type, PointerType) and isinstance(a.type, IntType):
            a, i = i, a
        if not isinstance(a.type, PointerType):
            raise TracelearnError("subscripted value is not an array or pointer", self.where(node))
        elem = a.type.target
        if isinstance(elem, (VoidType, FunctionType)):
            raise TracelearnError("subscript of a pointer to void or function", self.where(node))
        return LVMem(self.pointer_add(a, i, elem, node), elem, self.text(node))

    def pointer_add(self, p: Expr, i: Expr, elem: CType, node: c_ast.Node, negate: bool = False) -> Expr:
        """``p + i`` (or ``p - i``) scaled by the element size."""
        pt = p.type
        assert isinstance(pt, PointerType)
        off_t = self.offset_type()
        i = convert(self.std, i, off_t)
        size = elem.size if not isinstance(elem, FunctionType) else 1
        scaled = fold(Binary("mul", off_t, i, Const(off_t, size))) if size != 1 else i
        if isinstance(scaled, Const) and scaled.value == 0:
            return p
        delta = fold(Cast(pt, scaled))
        res = Binary("sub" if negate else "add", pt, p, delta)
        return fold(res) if isinstance(p, Const) else res

    def struct_ref(self, node: c_ast.StructRef) -> LVMem:
        fname = node.field.name
        if node.type == "->":
            p = self.rvalue(node.name)
            if not isinstance(p.type, PointerType) or not isinstance(p.type.target, StructType):
                raise TracelearnError(f"'->{fname}' applied to a non-struct pointer", self.where(node))
            st = p.type.target
            base_addr, checks = p, []
        else:
            lv = self.lvalue(node.name)
            if not isinstance(lv, LVMem) or not isinstance(lv.type, StructType):
                raise TracelearnError(f"'.{fname}' applied to a non-struct value", self.where(node))
            st = lv.type
            base_addr, checks = lv.addr, list(lv.checks)
        if not st.complete:
            raise TracelearnError(f"member access into incomplete type '{st}'", self.where(node))
        f = st.field_named(fname)
        if f is None:
            raise TracelearnError(f"no member named '{fname}' in '{st}'", self.where(node))
        addr = self.byte_offset(base_addr, f.offset, f.type)
        flexible = isinstance(f.type, ArrayType) and (f.type.length or 0) <= 1 and f is st.fields[-1]
        return LVMem(addr, f.type, self.text(node), f if f.is_bitfield else None, checks, flexible)

    def byte_offset(self, addr: Expr, offset: int, t: CType) -> Expr:
        pt = self.std.ptr(t)
        if offset == 0:
            return retype_pointer(addr, pt)
        res = Binary("add", pt, addr, Const(pt, offset))
        return fold(res) if isinstance(addr, Const) else res

    def compound_literal(self, node: c_ast.CompoundLiteral) -> LVMem:
        t = self.types.build(node.type)
        t = self.complete_array_type(t, node.init)
        if self.ctx.name == self.init_name:
            name = self.new_global_object(t, self.loc(node), "literal")
            addr = AddrOf(name, self.std.ptr(t), "global")
        else:
            var = self.new_local(self.ctx.unique("__literal"), "literal", t, True, self.loc(node))
            addr = AddrOf(var.name, self.std.ptr(t), "local")
        lv = LVMem(addr, t, self.text(node))
        self.init_object(lv, t, node.init, node, zero_first=True)
        return lv

    # -------------------------------------------------------------- unary

    def unary(self, node: c_ast.UnaryOp, want: bool) -> Expr | None:
        op = node.op
        if op == "&":
            inner = node.expr
            if isinstance(inner, c_ast.UnaryOp) and inner.op == "*":
                return self.rvalue(inner.expr)  # &*p == p
            lv = self.lvalue(inner)
            if isinstance(lv, LVReg):
                raise TracelearnError(f"cannot take the address of register '{lv.text}'", self.where(node))
            if isinstance(lv, LVMem) and lv.bitfield is not None:
                raise TracelearnError("cannot take the address of a bit-field", self.where(node))
            if isinstance(lv, LVFunc):
                return self.function_address(lv, node)
            return retype_pointer(lv.addr, self.std.ptr(lv.type))
        if op in ("sizeof", "_Alignof", "alignof"):
            t = self.type_of_operand(node.expr)
            if isinstance(t, FunctionType):
                raise TracelearnError("sizeof of a function", self.where(node))
            if isinstance(t, ArrayType) and t.length is None:
                raise TracelearnError("sizeof of an incomplete array", self.where(node))
            if isinstance(t, StructType) and not t.complete:
                raise TracelearnError(f"sizeof of incomplete type '{t}'", self.where(node))
            v = t.size if op == "sizeof" else t.align
            return Const(self.std.size_t, v)
        if op in ("++", "--", "p++", "p--"):
            return self.incdec(node, want)
        a = self.rvalue(node.expr)
        if op == "!":
            if not (is_arith(a.type) or isinstance(a.type, PointerType)):
                raise TracelearnError("invalid operand to '!'", self.where(node))
            return negate_truth(self.std, a)
        if not is_arith(a.type):
            raise TracelearnError(f"invalid operand to unary '{op}' ({a.type})", self.where(node))
        t = promote(self.std, a.type)
        a = convert(self.std, a, t)
        if op == "+":
            return a
        if op == "-":
            self.check_negation(t, a, node)
            return self.fold_unary("neg", t, a)
        if op == "~":
            if not isinstance(t, IntType):
                raise TracelearnError("invalid operand to '~'", self.where(node))
            return self.fold_unary("not", t, a)
        raise UnsupportedError(f"unsupported unary operator {op}", self.where(node))

    def fold_unary(self, op: str, t: CType, a: Expr) -> Expr:
        from ..ir import concrete

        if isinstance(a, Const):
            return Const(t, concrete.unary(op, t, a.value))
        return Unary(op, t, a)

    def type_of_operand(self, n: c_ast.Node) -> CType:
        """Type of a sizeof operand (a type name or an unevaluated expression)."""
        if isinstance(n, c_ast.Typename):
            return self.types.build(n)
        if isinstance(n, c_ast.ID):
            b = self.scopes.lookup(n.name)
            if isinstance(b, VarBinding):
                return b.var.type
        if isinstance(n, c_ast.Constant) and n.type == "string":
            return ArrayType(self.std.char, len(string_literal(n.value)) + 1)
        return self.unevaluated(lambda: self.operand_type(n))

    def operand_type(self, n: c_ast.Node) -> CType:
        if isinstance(n, LVALUE_NODES) or (isinstance(n, c_ast.UnaryOp) and n.op == "*"):
            if not (isinstance(n, c_ast.ID) and isinstance(self.scopes.lookup(n.name), EnumConst)):
                lv = self.lvalue(n)
                return lv.type
        e = self.rvalue(n)
        return e.type

    def incdec(self, node: c_ast.UnaryOp, want: bool) -> Expr | None:
        lv = self.lvalue(node.expr)
        if isinstance(lv, LVMem) and has_side_effects(node.expr):
            lv.addr = self.materialize(lv.addr, node, "addr")
        t = self.lv_type(lv)
        old = self.read(lv, node)
        post = node.op.startswith("p")
        if post and want:
            old = self.materialize(old, node, "old")
        one_op = "add" if "+" in node.op else "sub"
        if isinstance(t, PointerType):
            new = self.pointer_add(old, Const(self.std.int, 1), t.target, node, negate=one_op == "sub")
        elif isinstance(t, FloatType):
            new = Binary(one_op, t, old, Const(t, 1.0))
        elif isinstance(t, IntType):
            pt = promote(self.std, old.type)
            self.check_overflow(one_op, pt, convert(self.std, old, pt), Const(pt, 1), node)
            new = convert(self.std, Binary(one_op, pt, convert(self.std, old, pt), Const(pt, 1)), t)
        else:
            raise TracelearnError("invalid operand to ++/--", self.where(node))
        if not post and want:
            new = self.materialize(new, node, "new")
        self.write(lv, new, node)
        if not want:
            return None
        return old if post else new

    # ------------------------------------------------------------- binary

    def binary(self, node: c_ast.BinaryOp, want: bool) -> Expr | None:
        op = node.op
        if op in ("&&", "||"):
            return self.logical_value(node, want)
        a = self.rvalue(node.left)
        if has_side_effects(node.right):
            a = self.materialize(a, node)
        b = self.rvalue(node.right)
        return self.binary_values(op, a, b, node)

    def binary_values(self, op: str, a: Expr, b: Expr, node: c_ast.Node) -> Expr:
        ta, tb = a.type, b.type
        if op in CMP:
            return self.compare(CMP[op], a, b, node)
        if op in ("+", "-") and (isinstance(ta, PointerType) or isinstance(tb, PointerType)):
            return self.pointer_arith(op, a, b, node)
        if not (is_arith(ta) and is_arith(tb)):
            raise TracelearnError(f"invalid operands to '{op}' ({ta} and {tb})", self.where(node))
        if op in ("<<", ">>"):
            if not (isinstance(ta, IntType) and isinstance(tb, IntType)):
                raise TracelearnError(f"invalid operands to '{op}'", self.where(node))
            t = promote(self.std, ta)
            a = convert(self.std, a, t)
            b = convert(self.std, convert(self.std, b, promote(self.std, tb)), t)
            self.check_shift(ARITH[op], t, a, b, node)
            return fold(Binary(ARITH[op], t, a, b))
        t = usual_arith(self.std, ta, tb)
        if op in ("%", "&", "|", "^") and not isinstance(t, IntType):
            raise TracelearnError(f"invalid operands to '{op}' ({ta} and {tb})", self.where(node))
        a = convert(self.std, a, t)
        b = convert(self.std, b, t)
        if op in ("/", "%") and isinstance(t, IntType):
            self.check_divisor(a, b, node)
        elif op in ("+", "-", "*"):
            self.check_overflow(ARITH[op], t, a, b, node)
        return fold(Binary(ARITH[op], t, a, b))

    def check_divisor(self, a: Expr, b: Expr, node: c_ast.Node) -> None:
        if not self.checks_div:
            return
        loc = self.loc(node)
        t = b.type
        if not (isinstance(b, Const) and b.value != 0):
            cond = Binary("ne", self.std.int, b, Const(t, 0), t)
            pid = self.ctx.stable_id(loc, "div-by-zero")
            self.ctx.cfg.emit(Assert(cond, loc, pid, "div-by-zero", f"division by zero in {self.text(node)}", "div"), loc)
        # INT_MIN / -1 (and %) traps on x86 as a division by zero does (SIGFPE).
        if isinstance(t, IntType) and t.signed and not (isinstance(b, Const) and b.value != -1) \
                and not (isinstance(a, Const) and a.value != t.min):
            ok = fold(self.not_both(Binary("eq", self.std.int, a, Const(t, t.min), t),
                                    Binary("eq", self.std.int, b, Const(t, -1), t)))
            if not (isinstance(ok, Const) and ok.value):
                pid = self.ctx.stable_id(loc, "div-by-zero")
                self.ctx.cfg.emit(Assert(ok, loc, pid, "div-by-zero",
                                         f"arithmetic overflow in {self.text(node)}: {t.min} / -1 is undefined (x86 traps: SIGFPE)",
                                         "div"), loc)

    # ---------------------------------------------- undefined behaviour checks
    # Conditions are IR expressions over the operands, so that the interpreter and
    # the model checker read them alike; bitwise and/or of 0/1 values stand for
    # && and || (IR expressions have no short-circuit, and nothing here can trap).

    def int_truth(self, op: str, x: Expr, y: Expr) -> Expr:
        return Binary(op, self.std.int, x, y)

    def not_both(self, x: Expr, y: Expr) -> Expr:
        return Binary("eq", self.std.int, self.int_truth("and", x, y), Const(self.std.int, 0), self.std.int)

    def emit_ub_check(self, kind: str, ok: Expr, message: str, node: c_ast.Node) -> None:
        ok = fold(ok)
        if isinstance(ok, Const) and ok.value:
            return
        loc = self.loc(node)
        pid = self.ctx.stable_id(loc, kind)
        self.ctx.cfg.emit(Assert(ok, loc, pid, kind, f"{message} in {self.text(node)}", kind), loc)

    def check_overflow(self, op: str, t: CType, a: Expr, b: Expr, node: c_ast.Node) -> None:
        """Signed ``a op b`` (operands already of type ``t``) must fit ``t``."""
        if "overflow" not in self.checks or not (isinstance(t, IntType) and t.signed):
            return
        ok = Binary({"add": "sadd_ok", "sub": "ssub_ok", "mul": "smul_ok"}[op], self.std.int, a, b, t)
        self.emit_ub_check("overflow", ok, "signed overflow", node)

    def check_negation(self, t: CType, a: Expr, node: c_ast.Node) -> None:
        if "overflow" in self.checks and isinstance(t, IntType) and t.signed:
            self.emit_ub_check("overflow", Binary("ne", self.std.int, a, Const(t, t.min), t),
                               "signed overflow", node)

    def check_shift(self, op: str, t: CType, a: Expr, b: Expr, node: c_ast.Node) -> None:
        """C11 6.5.7: the count in [0, width); ``<<`` of a signed value: non-negative
        and the result representable."""
        if "shift" not in self.checks or not isinstance(t, IntType):
            return
        i = self.std.int
        u = IntType(t.width, False, f"unsigned {t.name}")
        self.emit_ub_check("shift", Binary("lt", i, Cast(u, b), Const(u, t.width), u),
                           f"shift count out of range [0, {t.width})", node)
        if op == "shl" and t.signed:
            self.emit_ub_check("shift", Binary("ge", i, a, Const(t, 0), t), "left shift of a negative value", node)
            limit = Binary("shr", t, Const(t, t.max), b)  # a << b fits iff a <= MAX >> b
            self.emit_ub_check("shift", Binary("le", i, a, limit, t), "signed overflow in a left shift", node)

    def compare(self, op: str, a: Expr, b: Expr, node: c_ast.Node) -> Expr:
        ta, tb = a.type, b.type
        if isinstance(ta, PointerType) or isinstance(tb, PointerType):
            # Pointer comparison, or a pointer against a null pointer constant / integer.
            pt = ta if isinstance(ta, PointerType) else tb
            a = convert(self.std, a, pt) if not isinstance(ta, PointerType) else a
            b = convert(self.std, b, pt) if not isinstance(tb, PointerType) else b
            return fold(Binary(op, self.std.int, a, b, pt))
        if not (is_arith(ta) and is_arith(tb)):
            raise TracelearnError(f"invalid operands to comparison ({ta} and {tb})", self.where(node))
        t = usual_arith(self.std, ta, tb)
        return fold(Binary(op, self.std.int, convert(self.std, a, t), convert(self.std, b, t), t))

    def pointer_arith(self, op: str, a: Expr, b: Expr, node: c_ast.Node) -> Expr:
        ta, tb = a.type, b.type
        if isinstance(ta, PointerType) and isinstance(tb, PointerType):
            if op != "-":
                raise TracelearnError("cannot add two pointers", self.where(node))
            d = self.offset_type()
            diff = Binary("sub", d, Cast(d, a), Cast(d, b))
            size = ta.target.size if not isinstance(ta.target, (VoidType, FunctionType)) else 1
            if size == 1:
                return diff
            return Binary("div", d, diff, Const(d, size))
        if isinstance(tb, PointerType):  # int + p
            if op == "-":
                raise TracelearnError("cannot subtract a pointer from an integer", self.where(node))
            a, b = b, a
            ta, tb = tb, ta
        assert isinstance(ta, PointerType)
        if not isinstance(tb, IntType):
            raise TracelearnError("pointer arithmetic with a non-integer", self.where(node))
        if isinstance(ta.target, StructType) and not ta.target.complete:
            raise TracelearnError(f"arithmetic on a pointer to incomplete type '{ta.target}'", self.where(node))
        return self.pointer_add(a, b, ta.target, node, negate=op == "-")

    # ------------------------------------------------------ && || ?: value

    def logical_value(self, node: c_ast.BinaryOp, want: bool) -> Expr | None:
        pure = self.pure_logical(node)
        if pure is not None:
            # Operands that cannot fail or have effects: short-circuiting changes
            # nothing, so the value is one expression (no branches, no guards).
            return pure if want else None
        cfg = self.ctx.cfg
        loc = self.loc(node)
        bt, bf, join = cfg.new_block("land.true", loc), cfg.new_block("land.false", loc), cfg.new_block("land.end", loc)
        tmp = self.ctx.new_temp(self.std.int, loc, "cond") if want else None
        self.cond_branch(node, bt, bf)
        cfg.place(bt, loc)
        if tmp is not None:
            self.emit(Assign(tmp, Const(self.std.int, 1), loc, "", hidden=True), node)
        cfg.terminate(self.goto(join, loc), loc)
        cfg.place(bf, loc)
        if tmp is not None:
            self.emit(Assign(tmp, Const(self.std.int, 0), loc, "", hidden=True), node)
        cfg.place(join, loc)
        return tmp

    def pure_logical(self, node: c_ast.Node) -> Expr | None:
        """``node`` as a branch-free 0/1 expression, when evaluating every operand is
        safe: no statements, no memory reads, no division."""
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            a = self.pure_logical(node.left)
            b = self.pure_logical(node.right) if a is not None else None
            if a is None or b is None:
                return None
            return fold(Binary("and" if node.op == "&&" else "or", self.std.int, a, b))
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            a = self.pure_logical(node.expr)
            return None if a is None else fold(Binary("xor", self.std.int, a, Const(self.std.int, 1)))

        def probe():
            before = self.ctx.cfg.emitted
            v = self.rvalue(node)
            if not (is_arith(v.type) or isinstance(v.type, PointerType)):
                return None
            return fold(to_truth(self.std, v)) if self.ctx.cfg.emitted == before else None

        e = self.unevaluated(probe)
        if e is None:
            return None
        from ..ir.expr import walk

        for x in walk(e):
            if isinstance(x, Load) or (isinstance(x, Binary) and x.op in ("div", "rem")):
                return None
        return e

    def ternary(self, node: c_ast.TernaryOp, want: bool) -> Expr | None:
        cfg = self.ctx.cfg
        loc = self.loc(node)
        tt = self.unevaluated(lambda: self.value_type(node.iftrue))
        tf = self.unevaluated(lambda: self.value_type(node.iffalse))
        rt = self.ternary_type(tt, tf, node)
        if self.in_constant_expr and is_arith(rt):
            # An integer constant expression (an enumerator, an array size, a case
            # label: glibc's _ISwbit): only the chosen operand counts.
            c = self.constant_value(node.cond)
            v = self.constant_value(node.iftrue if c.value else node.iffalse) if c is not None else None
            if v is not None:
                return fold(convert(self.std, v, rt)) if want else None
        bt, bf, join = cfg.new_block("cond.true", loc), cfg.new_block("cond.false", loc), cfg.new_block("cond.end", loc)
        tmp = self.ctx.new_temp(rt, loc, "cond") if want and not isinstance(rt, VoidType) else None
        self.cond_branch(node.cond, bt, bf, keyword=loc)
        for blk, arm in ((bt, node.iftrue), (bf, node.iffalse)):
            cfg.place(blk, loc)
            if tmp is not None:
                v = self.rvalue(arm)
                self.emit(Assign(tmp, convert(self.std, v, rt), loc, "", hidden=True), node)
            else:
                self.effect(arm)
            cfg.terminate(self.goto(join, loc), loc)
        cfg.place(join, loc)
        return tmp

    def value_type(self, n: c_ast.Node) -> CType:
        e = self.expr(n, want=True)
        return e.type if e is not None else self.std.void

    def ternary_type(self, a: CType, b: CType, node: c_ast.Node) -> CType:
        if is_arith(a) and is_arith(b):
            return usual_arith(self.std, a, b)
        if isinstance(a, PointerType):
            if isinstance(b, PointerType) and isinstance(a.target, VoidType):
                return b
            return a
        if isinstance(b, PointerType):
            return b
        if isinstance(a, VoidType) or isinstance(b, VoidType):
            return self.std.void
        if isinstance(a, StructType) and a is b:
            return a
        raise TracelearnError(f"incompatible operand types in ?: ({a} and {b})", self.where(node))

    # ------------------------------------------------------------- assign

    def assignment(self, node: c_ast.Assignment, want: bool) -> Expr | None:
        op = node.op
        lv = self.lvalue(node.lvalue)
        if isinstance(lv, LVMem) and has_side_effects(node.rvalue):
            lv.addr = self.materialize(lv.addr, node, "addr")
        t = self.lv_type(lv)
        if op == "=" and not want and self.direct_nondet(lv, node.rvalue, node):
            return None
        if op == "=":
            v = self.rvalue(node.rvalue)
            v = self.assign_convert(v, t, node)
        else:
            cur = self.read(lv, node)
            if has_side_effects(node.rvalue):
                cur = self.materialize(cur, node)
            r = self.rvalue(node.rvalue)
            v = self.binary_values(op[:-1], cur, r, node)
            v = convert(self.std, v, t)
            if isinstance(lv, LVMem):
                # The read above already emitted the bounds checks; keep the list for the
                # write only if it was not consumed.
                pass
        if want:
            v = self.materialize(v, node, "val")
        self.write(lv, v, node)
        if not want:
            return None
        if isinstance(lv, LVMem) and lv.bitfield is not None:
            return convert(self.std, v, promote(self.std, t))
        return v

    def direct_nondet(self, lv: LV, rhs: c_ast.Node, node: c_ast.Node) -> bool:
        """``x = nondet_int();`` assigns the input to ``x`` directly (no temporary),
        so traces and value sums see one assignment, as CBMC's do."""
        if not (isinstance(rhs, c_ast.FuncCall) and isinstance(rhs.name, c_ast.ID) and not rhs.args):
            return False
        name = rhs.name.name
        if name in self.defined or isinstance(self.scopes.lookup(name), VarBinding):
            return False
        nd = B.nondet_type(name, self.std)
        declared = self.scopes.lookup(name)
        # Only the verifiers' nondet functions: a declared library function (getchar,
        # rand, ...) has a model of its own, and must not become an unconstrained input.
        if nd is not None and isinstance(declared, FuncBinding) and not declared.implicit \
                and not isinstance(declared.type.ret, VoidType):
            nd = declared.type.ret
        if nd is None or isinstance(lv, LVFunc) or (isinstance(lv, LVMem) and lv.bitfield is not None):
            return False
        from .conversions import same_repr

        if not same_repr(nd, lv.type):
            return False
        loc = self.loc(node)
        if isinstance(lv, LVReg):
            target = lv.reg
        else:
            self.emit_checks(lv, node)
            target = Mem(lv.addr, lv.type)
        self.emit(Nondet(target, loc, f"{name}()", lv.text), node)
        return True

    def assign_convert(self, v: Expr, t: CType, node: c_ast.Node) -> Expr:
        if isinstance(t, StructType):
            if v.type is not t and not (isinstance(v.type, StructType) and v.type.size == t.size):
                raise TracelearnError(f"assigning {v.type} to {t}", self.where(node))
            return v
        if isinstance(v.type, StructType):
            raise TracelearnError(f"assigning {v.type} to {t}", self.where(node))
        if isinstance(t, PointerType) and isinstance(v.type, FloatType) or (
            isinstance(t, FloatType) and isinstance(v.type, PointerType)
        ):
            raise TracelearnError(f"assigning {v.type} to {t}", self.where(node))
        return convert(self.std, v, t)

    # ---------------------------------------------------------------- cast

    def cast(self, node: c_ast.Cast, want: bool) -> Expr | None:
        t = self.types.build(node.to_type)
        if isinstance(t, VoidType):
            self.effect(node.expr)
            return None
        v = self.rvalue(node.expr)
        if isinstance(t, (StructType, ArrayType)):
            raise UnsupportedError(f"cast to {t}", self.where(node))
        if isinstance(v.type, StructType):
            raise TracelearnError(f"cast of a struct value to {t}", self.where(node))
        if isinstance(t, PointerType) and isinstance(v.type, FloatType):
            raise TracelearnError("cast of a floating value to a pointer", self.where(node))
        return convert(self.std, v, t)

    # ---------------------------------------------------------------- calls

    def call(self, node: c_ast.FuncCall, want: bool) -> Expr | None:
        fn = node.name
        args = node.args.exprs if node.args is not None else []
        if isinstance(fn, c_ast.ID):
            b = self.scopes.lookup(fn.name)
            if not isinstance(b, VarBinding) and fn.name not in self.defined:
                special = self.builtin_call(fn.name, args, node, want)
                if special is not NotImplemented:
                    return special
            elif not isinstance(b, VarBinding) and fn.name in B.ERROR_CALLS:
                # SV-COMP: calling the error function is the violation, whatever the
                # program's own body does (empty, __assert_fail, ...). The body still
                # runs when the error-call check is switched off.
                self.error_call_check(fn.name, node)
            if b is None:
                b = self.implicit_declaration(fn.name, node)
        callee_lv = None
        if isinstance(fn, LVALUE_NODES) or (isinstance(fn, c_ast.UnaryOp) and fn.op == "*"):
            callee_lv = self.lvalue(fn)
        if isinstance(callee_lv, LVFunc):
            ftype, name, target = callee_lv.type, callee_lv.name, None if callee_lv.name else callee_lv.addr
        else:
            p = self.read(callee_lv, fn) if callee_lv is not None else self.rvalue(fn)
            if not (isinstance(p.type, PointerType) and isinstance(p.type.target, FunctionType)):
                raise TracelearnError("called object is not a function", self.where(node))
            ftype, name, target = p.type.target, None, p
        assert isinstance(ftype, FunctionType)
        if target is not None and any(has_side_effects(a) for a in args):
            target = self.materialize(target, node, "fp")
        argv = self.call_args(ftype, args, node, name)
        if ftype.variadic and ftype.prototyped and name is not None and self.defines_function(name):
            n = len(ftype.params)
            argv = argv[:n] + [self.va_block(argv[n:], node)]
        ret = ftype.ret
        lhs = None
        if want and not isinstance(ret, VoidType):
            lhs = self.ctx.new_temp(ret, self.loc(node), "ret")
        loc = self.loc(node)
        call_id = self.ctx.stable_id(loc, "call")
        self.emit(Call(lhs, name, target, argv, loc, call_id, self.text(node)), node)
        if want and isinstance(ret, VoidType):
            return None
        return lhs

    def call_args(self, ftype: FunctionType, args: list[c_ast.Node], node: c_ast.Node, name: str | None) -> list[Expr]:
        values: list[Expr] = []
        for i, a in enumerate(args):
            v = self.rvalue(a)
            if any(has_side_effects(x) for x in args[i + 1:]):
                v = self.materialize(v, a, "arg")
            values.append(v)
        out: list[Expr] = []
        n = len(ftype.params)
        if ftype.prototyped and (len(values) < n or (len(values) > n and not ftype.variadic)):
            raise TracelearnError(
                f"call to '{name or 'function pointer'}' with {len(values)} argument(s), expected {n}",
                self.where(node),
            )
        for i, v in enumerate(values):
            if i < n and ftype.prototyped:
                out.append(self.assign_convert(v, ftype.params[i], args[i]))
            else:
                out.append(self.default_promote(v))
        if not ftype.prototyped and len(out) != n and n:
            self.warn(f"{self.where(node)}: call to '{name}' with {len(out)} argument(s), its definition takes {n}")
        return out

    def defines_function(self, name: str) -> bool:
        """Whether a unit of the program defines ``name`` (an IR name: a static one
        may be ``f@unit.c``)."""
        return name in self.defined or name.split("@", 1)[0] in self.defined

    def function_address(self, lv: LVFunc, node: c_ast.Node) -> Expr:
        if lv.name is not None and lv.type.variadic and self.defines_function(lv.name):
            # its callers pass the extra arguments in a block (va_block): a call through
            # a pointer could not know to
            raise UnsupportedError(f"unsupported construct: the address of the variadic function '{lv.name}'",
                                   self.where(node))
        return lv.addr

    def va_block(self, extras: list[Expr], node: c_ast.Node) -> Expr:
        """The extra arguments of a call to a variadic function of the program, stored
        in 8-byte slots (x86-64's stack layout) of a block whose address is passed in
        their place; stdarg.h's ``va_arg`` walks it. The library's variadic functions
        (printf, ...) take their arguments as they are."""
        loc = self.loc(node)
        sizes = [-(-max(e.type.size, 1) // 8) * 8 for e in extras]
        block_t = ArrayType(self.std.char, max(8, sum(sizes)))
        block = self.new_local(self.ctx.unique("__va"), "...", block_t, True, loc)
        base = AddrOf(block.name, self.std.ptr(block_t), "local")
        off = 0
        for e, size in zip(extras, sizes):
            self.write(LVMem(self.byte_offset(base, off, e.type), e.type, "..."), e, node)
            off += size
        return retype_pointer(base, self.std.ptr(self.std.char))

    def default_promote(self, v: Expr) -> Expr:
        t = v.type
        if isinstance(t, FloatType) and t.width == 32:
            return convert(self.std, v, self.std.double)
        if isinstance(t, IntType):
            return convert(self.std, v, promote(self.std, t))
        return v

    def implicit_declaration(self, name: str, node: c_ast.Node) -> FuncBinding:
        if name.startswith("__builtin_"):
            known = self.library_types().get(name)
            target = name
            if known is None:
                # __builtin_memcpy, __builtin_strlen, ...: the library function itself,
                # as gcc calls it when it does not expand the builtin inline.
                target = name[len("__builtin_"):]
                declared = self.scopes.lookup(target)
                known = declared.type if isinstance(declared, FuncBinding) and not declared.implicit else \
                    self.library_types().get(target)
                if known is None:
                    raise UnsupportedError(f"unsupported construct: GCC builtin '{name}'", self.where(node))
            b = FuncBinding(target, known)
            self.scopes.bind(name, b, file_scope=True)
            self.func_types.setdefault(target, known)
            return b
        ft = FunctionType(self.std.int, (), False, False)
        self.warn(f"{self.where(node)}: implicit declaration of function '{name}'")
        self.implicit.add(name)
        b = FuncBinding(name, ft, implicit=True)
        self.scopes.bind(name, b, file_scope=True)
        self.func_types.setdefault(name, ft)
        return b

    def error_call_check(self, name: str, node: c_ast.Node) -> None:
        loc = self.loc(node)
        pid = self.ctx.stable_id(loc, "error-call")
        self.emit(Assert(Const(self.std.int, 0), loc, pid, "error-call", f"call to {name}()", name), node)

    def builtin_call(self, name: str, args: list[c_ast.Node], node: c_ast.Node, want: bool):
        """Lower verifier built-ins; NotImplemented when ``name`` is not one."""
        loc = self.loc(node)
        cfg = self.ctx.cfg
        declared = self.scopes.lookup(name)
        nd = B.nondet_type(name, self.std)
        if nd is not None:
            if isinstance(declared, FuncBinding) and not isinstance(declared.type.ret, VoidType) and not declared.implicit:
                nd = declared.type.ret
            for a in args:
                self.effect(a)
            tmp = self.ctx.new_temp(nd, loc, "nondet")
            self.emit(Nondet(tmp, loc, f"{name}()", name), node)
            return tmp
        if name in B.ASSUME:
            self.expect_args(name, args, 1, node)
            c = self.truth_value(args[0])
            from ..ir.program import Assume

            self.emit(Assume(c, loc), node)
            return None
        if name in B.ERROR_CALLS:
            self.error_call_check(name, node)
            cfg.terminate(Exit(None, loc, "abort"), loc)
            return None
        if name in B.ASSERTS:
            if not args:
                raise TracelearnError(f"{name} needs a condition", self.where(node))
            c = self.truth_value(args[0])
            for extra in args[1:]:
                self.effect(extra)
            pid = self.ctx.stable_id(loc, "assertion")
            self.emit(Assert(c, loc, pid, "assertion", f"assertion {self.text(args[0])}", name), node)
            return None
        if name in B.EVENTS:
            self.expect_args(name, args, 1, node)
            a = args[0]
            if isinstance(a, c_ast.Constant) and a.type == "string":
                letter = string_literal(a.value).decode("utf-8", "replace")
            else:
                v = self.rvalue(a)
                if not isinstance(v, Const):
                    raise TracelearnError(f"{name} needs a constant event name", self.where(a))
                letter = str(v.value)
            from ..ir.program import Event

            self.emit(Event(letter, loc), node)
            return None
        if name in ("exit", "_exit"):
            code = self.rvalue(args[0]) if args else Const(self.std.int, 0)
            cfg.terminate(Exit(convert(self.std, code, self.std.int), loc, "exit"), loc)
            return None
        if name in ("abort", "__assert_fail"):
            for a in args:
                self.effect(a)
            if name == "__assert_fail":
                pid = self.ctx.stable_id(loc, "assertion")
                self.emit(Assert(Const(self.std.int, 0), loc, pid, "assertion", "assertion failed", name), node)
            cfg.terminate(Exit(None, loc, "abort"), loc)
            return None
        if name in ("malloc", "calloc", "alloca", "__builtin_alloca"):
            from ..ir.program import Alloc

            if name == "calloc":
                self.expect_args(name, args, 2, node)
                n = convert(self.std, self.rvalue(args[0]), self.std.size_t)
                s = convert(self.std, self.rvalue(args[1]), self.std.size_t)
                size = fold(Binary("mul", self.std.size_t, n, s))
            else:
                self.expect_args(name, args, 1, node)
                size = convert(self.std, self.rvalue(args[0]), self.std.size_t)
            tmp = self.ctx.new_temp(self.std.ptr(self.std.void), loc, "mem")
            site = self.ctx.stable_id(loc, "alloc")
            self.emit(Alloc(tmp, size, loc, name == "calloc", site, name), node)
            return tmp
        if name == "free":
            from ..ir.program import Free

            self.expect_args(name, args, 1, node)
            p = self.rvalue(args[0])
            if not isinstance(p.type, PointerType):
                p = convert(self.std, p, self.std.ptr(self.std.void))
            self.emit(Free(p, loc), node)
            return None
        return NotImplemented

    def expect_args(self, name: str, args: list, n: int, node: c_ast.Node) -> None:
        if len(args) != n:
            raise TracelearnError(f"{name} takes {n} argument(s), got {len(args)}", self.where(node))

    def truth_value(self, node: c_ast.Node) -> Expr:
        v = self.rvalue(node)
        if not (is_arith(v.type) or isinstance(v.type, PointerType)):
            raise TracelearnError("condition is not a scalar", self.where(node))
        return to_truth(self.std, v)
