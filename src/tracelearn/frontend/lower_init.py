"""Initializers: brace elision, designators, strings; constant images for globals."""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ..errors import TracelearnError
from ..ir.expr import Const, Expr
from ..ir.program import Assign, Mem
from ..ir.types import ArrayType, CType, Field, FloatType, IntType, PointerType, StructType
from ..ir.values import float_to_bits
from .conversions import fold, retype_pointer
from .literals import string_literal
from .lvalues import LV, LVMem, LVReg


@dataclass
class Leaf:
    offset: int
    type: CType
    node: c_ast.Node | None  # expression to evaluate
    data: bytes | None = None  # string literal bytes for a char array
    bitfield: Field | None = None


def _is_string(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Constant) and node.type == "string"


def _char_array(t: CType) -> bool:
    return isinstance(t, ArrayType) and isinstance(t.elem, IntType) and t.elem.width == 8


class InitLowering:
    """Mixin of ``Lowerer``: object initialization."""

    # ------------------------------------------------------------ flatten

    def complete_array_type(self, t: CType, init: c_ast.Node | None) -> CType:
        if not (isinstance(t, ArrayType) and t.length is None) or init is None:
            return t
        if _is_string(init) and _char_array(t):
            return ArrayType(t.elem, len(string_literal(init.value)) + 1)
        if isinstance(init, c_ast.InitList):
            count = self.braced(t, init.exprs, 0, [])
            return ArrayType(t.elem, count)
        raise TracelearnError("array initializer must be a list or a string", self.where(init))

    def leaves(self, t: CType, init: c_ast.Node) -> list[Leaf]:
        out: list[Leaf] = []
        if isinstance(init, c_ast.InitList):
            self.braced(t, init.exprs, 0, out)
        else:
            self.single(t, init, 0, out, None)
        return out

    def single(self, t: CType, node: c_ast.Node, offset: int, out: list[Leaf], bf: Field | None) -> None:
        if _is_string(node) and _char_array(t):
            assert isinstance(t, ArrayType)
            data = string_literal(node.value)
            n = t.length if t.length is not None else len(data) + 1
            out.append(Leaf(offset, t, None, (data + b"\0" * n)[:n]))
        else:
            out.append(Leaf(offset, t, node, None, bf))

    def subobjects(self, t: CType) -> list[tuple[CType, int, Field | None]] | None:
        """(type, offset, bit-field) of the sub-objects in initialization order;
        None for an array of unknown length (unbounded)."""
        if isinstance(t, ArrayType):
            if t.length is None:
                return None
            return [(t.elem, i * t.elem.size, None) for i in range(t.length)]
        if isinstance(t, StructType):
            fields = [f for f in t.fields if f.name]
            if t.is_union:
                fields = fields[:1]
            return [(f.type, f.offset, f if f.is_bitfield else None) for f in fields]
        return [(t, 0, None)]

    def position(self, t: CType, designator: c_ast.Node) -> tuple[int, CType, int, Field | None]:
        """Index, type, offset and bit-field of a designated sub-object."""
        array_designator = getattr(c_ast, "ArrayDesignator", None)  # pycparser >= 3: `[i]` is wrapped
        if array_designator is not None and isinstance(designator, array_designator):
            if not isinstance(t, ArrayType):
                raise TracelearnError(f"array designator in an initializer of '{t}'", self.where(designator))
            designator = designator.expr
        if isinstance(t, ArrayType):
            i = self.const_int(designator)
            if i < 0 or (t.length is not None and i >= t.length):
                raise TracelearnError(f"array designator index {i} out of bounds", self.where(designator))
            return i, t.elem, i * t.elem.size, None
        if isinstance(t, StructType) and isinstance(designator, c_ast.ID):
            named = [f for f in t.fields if f.name]
            for i, f in enumerate(named):
                if f.name == designator.name:
                    return i, f.type, f.offset, f if f.is_bitfield else None
            raise TracelearnError(f"no member named '{designator.name}' in '{t}'", self.where(designator))
        raise TracelearnError("bad designator", self.where(designator))

    def braced(self, t: CType, items: list[c_ast.Node], offset: int, out: list[Leaf]) -> int:
        """Initialize ``t`` from a braced list; returns the number of elements used
        (the length of an array of unknown size)."""
        if not isinstance(t, (ArrayType, StructType)):
            if not items:
                out.append(Leaf(offset, t, None))  # `= {}` zero
                return 1
            first = items[0]
            if isinstance(first, c_ast.InitList):
                return self.braced(t, first.exprs, offset, out)
            self.single(t, first, offset, out, None)
            return 1
        subs = self.subobjects(t)
        cursor, idx, used = 0, 0, 0
        while idx < len(items):
            item = items[idx]
            if isinstance(item, c_ast.NamedInitializer):
                first, rest = item.name[0], item.name[1:]
                cursor, st, soff, bf = self.position(t, first)
                if rest:
                    self.designated(st, rest, item.expr, offset + soff, out)
                else:
                    self.init_sub(st, [item.expr], 0, offset + soff, out, bf)
                idx += 1
            else:
                if subs is None:
                    assert isinstance(t, ArrayType)
                    st, soff, bf = t.elem, cursor * t.elem.size, None
                elif cursor >= len(subs):
                    if isinstance(t, StructType) and t.is_union:
                        break
                    self.warn(f"{self.where(item)}: excess elements in initializer")
                    break
                else:
                    st, soff, bf = subs[cursor]
                idx = self.init_sub(st, items, idx, offset + soff, out, bf)
            cursor += 1
            used = max(used, cursor)
        return used

    def designated(self, t: CType, path: list[c_ast.Node], expr: c_ast.Node, offset: int, out: list[Leaf]) -> None:
        _, st, soff, bf = self.position(t, path[0])
        if len(path) > 1:
            self.designated(st, path[1:], expr, offset + soff, out)
        else:
            self.init_sub(st, [expr], 0, offset + soff, out, bf)

    def init_sub(self, t: CType, items: list[c_ast.Node], idx: int, offset: int, out: list[Leaf],
                 bf: Field | None) -> int:
        item = items[idx]
        if isinstance(item, c_ast.InitList):
            self.braced(t, item.exprs, offset, out)
            return idx + 1
        if _is_string(item) and _char_array(t):
            self.single(t, item, offset, out, None)
            return idx + 1
        if isinstance(t, (ArrayType, StructType)):
            if isinstance(t, StructType) and not isinstance(item, c_ast.NamedInitializer):
                it = self.type_of_operand(item)
                if isinstance(it, StructType):
                    out.append(Leaf(offset, t, item))
                    return idx + 1
            return self.elided(t, items, idx, offset, out)
        out.append(Leaf(offset, t, item, None, bf))
        return idx + 1

    def elided(self, t: CType, items: list[c_ast.Node], idx: int, offset: int, out: list[Leaf]) -> int:
        """Brace elision: ``t``'s sub-objects take the following items of the list."""
        subs = self.subobjects(t) or []
        for st, soff, bf in subs:
            if idx >= len(items) or isinstance(items[idx], c_ast.NamedInitializer):
                break
            idx = self.init_sub(st, items, idx, offset + soff, out, bf)
        return idx

    # ------------------------------------------------------------ locals

    def init_object(self, lv: LV, t: CType, init: c_ast.Node, node: c_ast.Node, zero_first: bool) -> None:
        """Initialize an automatic object (or compound literal) by statements."""
        loc = self.loc(node)
        if isinstance(lv, LVReg):
            expr = init.exprs[0] if isinstance(init, c_ast.InitList) and init.exprs else init
            if not isinstance(expr, c_ast.InitList) and self.direct_nondet(lv, expr, node):
                return
            if isinstance(expr, c_ast.InitList) or (isinstance(init, c_ast.InitList) and not init.exprs):
                v: Expr = Const(t, 0.0 if isinstance(t, FloatType) else 0)
            else:
                v = self.assign_convert(self.rvalue(expr), t, node)
            self.write(lv, v, node)
            return
        assert isinstance(lv, LVMem)
        leaves = self.leaves(t, init)
        if zero_first and isinstance(init, c_ast.InitList) and isinstance(t, (ArrayType, StructType)):
            self.ctx.cfg.emit(Assign(Mem(lv.addr, t), Const(t, 0), loc, lv.text, hidden=True), loc)
        for leaf in leaves:
            self.store_leaf(lv, leaf, node)

    def store_leaf(self, base: LVMem, leaf: Leaf, node: c_ast.Node) -> None:
        loc = self.loc(node)
        addr = self.byte_offset(base.addr, leaf.offset, leaf.type)
        text = base.text if leaf.offset == 0 and leaf.type is base.type else f"{base.text}+{leaf.offset}"
        if leaf.data is not None:
            for i, b in enumerate(leaf.data):
                a = self.byte_offset(base.addr, leaf.offset + i, self.std.char)
                self.ctx.cfg.emit(Assign(Mem(a, self.std.char), Const(self.std.char, self.std.char.wrap(b)), loc, text, hidden=True), loc)
            return
        if leaf.node is None:
            zero = Const(leaf.type, 0.0 if isinstance(leaf.type, FloatType) else 0)
            self.ctx.cfg.emit(Assign(Mem(addr, leaf.type), zero, loc, text, hidden=True), loc)
            return
        v = self.assign_convert(self.rvalue(leaf.node), leaf.type, leaf.node)
        lv = LVMem(addr, leaf.type, text, leaf.bitfield)
        if leaf.bitfield is not None:
            lv.addr = self.byte_offset(base.addr, leaf.offset, leaf.bitfield.type)
        self.write(lv, v, leaf.node, hidden=False)

    # ------------------------------------------------------------ globals

    def global_image(self, t: CType, init: c_ast.Node, lv: LVMem, node: c_ast.Node) -> bytes | None:
        """Constant image of a global's initializer; parts that are not constant
        (addresses, CBMC-style calls) are emitted as statements of the
        initialization procedure. None when the image is all zero."""
        image = bytearray(t.size)
        nonzero = False
        for leaf in self.leaves(t, init):
            if leaf.data is not None:
                image[leaf.offset:leaf.offset + len(leaf.data)] = leaf.data
                nonzero = nonzero or any(leaf.data)
                continue
            if leaf.node is None:
                continue
            before = self.ctx.cfg.emitted
            v = fold(self.assign_convert(self.rvalue(leaf.node), leaf.type, leaf.node))
            if isinstance(v, Const) and leaf.type.is_scalar() and self.ctx.cfg.emitted == before:
                bits = self.const_bits(v, leaf.type)
                if leaf.bitfield is not None:
                    f = leaf.bitfield
                    assert f.bit_width is not None
                    unit_size = f.type.size
                    unit = int.from_bytes(image[leaf.offset:leaf.offset + unit_size], "little")
                    mask = ((1 << f.bit_width) - 1) << f.bit_offset
                    unit = (unit & ~mask) | ((bits << f.bit_offset) & mask)
                    image[leaf.offset:leaf.offset + unit_size] = unit.to_bytes(unit_size, "little")
                else:
                    image[leaf.offset:leaf.offset + leaf.type.size] = bits.to_bytes(leaf.type.size, "little")
                nonzero = nonzero or bits != 0
                continue
            addr = self.byte_offset(lv.addr, leaf.offset, leaf.type)
            target = LVMem(addr, leaf.type, lv.text, leaf.bitfield)
            if leaf.bitfield is not None:
                target.addr = self.byte_offset(lv.addr, leaf.offset, leaf.bitfield.type)
            self.write(target, retype_pointer(v, leaf.type) if isinstance(leaf.type, PointerType) else v, leaf.node)
        return bytes(image) if nonzero else None

    def const_bits(self, c: Const, t: CType) -> int:
        if isinstance(t, FloatType):
            return float_to_bits(float(c.value), t.width)
        return int(c.value) & ((1 << (t.size * 8)) - 1)
