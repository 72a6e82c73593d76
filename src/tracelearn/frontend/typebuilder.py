"""pycparser declarators -> IR types, with struct/union layout (System V ABI)."""

from __future__ import annotations

from typing import Callable

from pycparser import c_ast

from ..errors import UnsupportedError
from ..ir.datamodel import StdTypes
from ..ir.types import (
    ArrayType,
    CType,
    Field,
    FunctionType,
    IntType,
    StructType,
    VoidType,
)
from .scopes import EnumConst, EnumTag, Scopes, TypedefBinding


def round_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


class TypeBuilder:
    def __init__(
        self,
        std: StdTypes,
        scopes: Scopes,
        const_int: Callable[[c_ast.Node], int],
        where: Callable[[c_ast.Node], str],
        warn: Callable[[str], None],
        expr_type: Callable[[c_ast.Node], CType] | None = None,
    ) -> None:
        self.std = std
        self.expr_type = expr_type  # type of an expression, not evaluated (typeof)
        self.scopes = scopes
        self.const_int = const_int
        self.where = where
        self.warn = warn
        self._anon = 0
        self.pack: int | None = None  # #pragma pack(n): members aligned to at most n bytes
        self._pack_stack: list[int | None] = []

    def pragma(self, text: str, where: str) -> None:
        """``#pragma pack(n)``, ``pack()``, ``pack(push[, n])``, ``pack(pop)`` (gcc's forms)."""
        import re

        m = re.fullmatch(r"\s*pack\s*\((.*)\)\s*", text)
        if not m:
            return  # other pragmas do not change the meaning of the program
        args = [a.strip() for a in m.group(1).split(",") if a.strip()]
        if not args:
            self.pack = None
            return
        if args[0] == "push":
            self._pack_stack.append(self.pack)
            args = args[1:]
        elif args[0] == "pop":
            self.pack = self._pack_stack.pop() if self._pack_stack else None
            return
        if args:
            if not args[0].isdigit() or int(args[0]) not in (1, 2, 4, 8, 16):
                raise UnsupportedError(f"unsupported #pragma pack({m.group(1)})", where)
            self.pack = int(args[0])

    def unsupported(self, what: str, node: c_ast.Node) -> UnsupportedError:
        return UnsupportedError(f"unsupported construct: {what}", self.where(node))

    # --------------------------------------------------------------- entry

    def build(self, node: c_ast.Node) -> CType:
        """Type of a declarator tree (TypeDecl/PtrDecl/ArrayDecl/FuncDecl/Typename)."""
        if isinstance(node, c_ast.Typename):
            return self.build(node.type)
        if isinstance(node, c_ast.TypeDecl):
            return self.base_type(node.type)
        if isinstance(node, c_ast.PtrDecl):
            return self.std.ptr(self.build(node.type))
        if isinstance(node, c_ast.ArrayDecl):
            elem = self.build(node.type)
            if isinstance(elem, FunctionType):
                raise self.unsupported("array of functions", node)
            if node.dim is None:
                return ArrayType(elem, None)
            try:
                n = self.const_int(node.dim)
            except UnsupportedError:
                raise self.unsupported("variable-length array", node) from None
            if n < 0:
                raise UnsupportedError("array with negative size", self.where(node))
            return ArrayType(elem, n)
        if isinstance(node, c_ast.FuncDecl):
            return self.function_type(node)
        if isinstance(node, (c_ast.Struct, c_ast.Union, c_ast.Enum, c_ast.IdentifierType, c_ast.TypeOf)):
            return self.base_type(node)
        raise self.unsupported(type(node).__name__, node)

    def function_type(self, node: c_ast.FuncDecl) -> FunctionType:
        ret = self.build(node.type)
        params: list[CType] = []
        variadic = False
        prototyped = node.args is not None
        if node.args is not None:
            for p in node.args.params:
                if isinstance(p, c_ast.EllipsisParam):
                    variadic = True
                    continue
                if isinstance(p, c_ast.ID):  # K&R identifier list
                    prototyped = False
                    continue
                t = self.build(p.type)
                if isinstance(t, VoidType) and getattr(p, "name", None) is None:
                    continue  # f(void)
                params.append(self.adjust_param(t))
            if not params and not variadic and not node.args.params:
                prototyped = False
        return FunctionType(ret, tuple(params), variadic, prototyped)

    def adjust_param(self, t: CType) -> CType:
        """Parameter type adjustment: arrays and functions become pointers."""
        if isinstance(t, ArrayType):
            return self.std.ptr(t.elem)
        if isinstance(t, FunctionType):
            return self.std.ptr(t)
        return t

    # ---------------------------------------------------------- base types

    def base_type(self, node: c_ast.Node) -> CType:
        if isinstance(node, c_ast.IdentifierType):
            return self.named_type(node.names, node)
        if isinstance(node, (c_ast.Struct, c_ast.Union)):
            return self.struct_type(node)
        if isinstance(node, c_ast.Enum):
            self.enum_type(node)
            return self.std.int
        if isinstance(node, c_ast.TypeOf):
            if isinstance(node.expr, c_ast.Typename):
                return self.build(node.expr)
            if self.expr_type is None:
                raise self.unsupported("typeof of an expression here", node)
            return self.expr_type(node.expr)
        raise self.unsupported(type(node).__name__, node)

    def named_type(self, names: list[str], node: c_ast.Node) -> CType:
        s = self.std
        words = [n for n in names if n not in ("signed",)]
        signed_kw = "signed" in names
        if len(names) == 1 and names[0] not in _KEYWORDS:
            b = self.scopes.lookup(names[0])
            if isinstance(b, TypedefBinding):
                return b.type
            raise UnsupportedError(f"unknown type name '{names[0]}'", self.where(node))
        key = " ".join(sorted(words))
        if "__int128" in names:
            raise self.unsupported("__int128", node)
        table: dict[str, CType] = {
            "void": s.void,
            "_Bool": s.bool,
            "char": s.schar if signed_kw else s.char,
            "char unsigned": s.uchar,
            "short": s.short, "int short": s.short,
            "short unsigned": s.ushort, "int short unsigned": s.ushort,
            "": s.int, "int": s.int,
            "unsigned": s.uint, "int unsigned": s.uint,
            "long": s.long, "int long": s.long,
            "long unsigned": s.ulong, "int long unsigned": s.ulong,
            "long long": s.llong, "int long long": s.llong,
            "long long unsigned": s.ullong, "int long long unsigned": s.ullong,
            "float": s.float,
            "double": s.double,
        }
        if key in table:
            return table[key]
        if key == "double long":
            self.warn(f"{self.where(node)}: long double is analysed as double")
            return s.double
        if "_Complex" in names:
            raise self.unsupported("_Complex", node)
        raise UnsupportedError(f"unknown type '{' '.join(names)}'", self.where(node))

    def enum_type(self, node: c_ast.Enum) -> None:
        if node.values is None:
            if node.name and self.scopes.lookup_tag(node.name) is None:
                self.scopes.bind_tag(node.name, EnumTag(node.name))
            return
        if node.name:
            self.scopes.bind_tag(node.name, EnumTag(node.name))
        value = 0
        for e in node.values.enumerators:
            if e.value is not None:
                value = self.const_int(e.value)
            self.scopes.bind(e.name, EnumConst(value, self.std.int))
            value += 1

    def struct_type(self, node: c_ast.Struct | c_ast.Union) -> StructType:
        is_union = isinstance(node, c_ast.Union)
        name = node.name
        if node.decls is None:
            # Reference: find the tag, or declare it incomplete in the current scope.
            if name:
                t = self.scopes.lookup_tag(name)
                if isinstance(t, StructType):
                    return t
                st = StructType(name, is_union)
                self.scopes.bind_tag(name, st)
                return st
            raise self.unsupported("anonymous incomplete struct", node)
        if name:
            t = self.scopes.lookup_tag(name, current_only=True)
            if isinstance(t, StructType) and not t.complete:
                st = t
            else:
                st = StructType(name, is_union)
                self.scopes.bind_tag(name, st)
        else:
            self._anon += 1
            st = StructType(f"<anonymous {self._anon}>", is_union)
        self.layout(st, node.decls)
        return st

    # -------------------------------------------------------------- layout

    def field_align(self, t: CType) -> int:
        # i386 System V: 8-byte scalars are 4-aligned inside structs.
        a = t.align
        if self.std.dm.ptr_width == 32 and not isinstance(t, StructType):
            a = min(a, 4)
        if isinstance(t, ArrayType):
            a = self.field_align(t.elem)
        return min(a, self.pack) if self.pack else a

    def layout(self, st: StructType, decls: list[c_ast.Node]) -> None:
        fields: list[Field] = []
        pos = 0  # in bits
        align = 1
        size_bits = 0
        for d in decls:
            if not isinstance(d, c_ast.Decl):
                if isinstance(d, c_ast.StaticAssert):
                    continue
                raise self.unsupported(type(d).__name__ + " in struct", d)
            t = self.build(d.type)
            if isinstance(t, FunctionType):
                raise self.unsupported("function member", d)
            if d.bitsize is not None:
                width = self.const_int(d.bitsize)
                if not isinstance(t, IntType):
                    raise self.unsupported("bit-field of non-integer type", d)
                if width > t.width:
                    raise UnsupportedError("bit-field wider than its type", self.where(d))
                unit = t.width
                if st.is_union:
                    pos = 0
                if width == 0:
                    pos = round_up(pos, unit)
                    continue
                if self.pack and self.pack * 8 < unit:
                    # Packed: the field starts at the next free bit and may straddle the
                    # type's natural units; access it through the bytes covering it (a
                    # 3-byte unit for a 22-bit field of a 3-byte struct: no read past its end).
                    start = pos // 8 * 8
                    ubits = round_up(pos - start + width, 8)
                    if ubits > 64:
                        raise self.unsupported("packed bit-field spanning more than 8 bytes", d)
                    unit_type: IntType = IntType(ubits, t.signed, t.name, t.is_bool)
                else:
                    if pos // unit != (pos + width - 1) // unit:
                        pos = round_up(pos, unit)
                    start = pos // unit * unit
                    unit_type = t
                if d.name:
                    fields.append(Field(d.name, unit_type, start // 8, pos - start, width))
                    align = max(align, self.field_align(t))
                pos += width
                size_bits = max(size_bits, pos)
                if st.is_union:
                    pos = 0
                continue
            fa = self.field_align(t)
            if isinstance(t, ArrayType) and t.length is None:
                t = ArrayType(t.elem, 0)  # flexible array member
            if st.is_union:
                pos = 0
            pos = round_up(pos, fa * 8)
            name = d.name
            if name is None and isinstance(t, StructType):
                # Anonymous struct/union member: its fields join the enclosing one.
                for f in t.fields:
                    fields.append(Field(f.name, f.type, pos // 8 + f.offset, f.bit_offset, f.bit_width))
            elif name is not None:
                fields.append(Field(name, t, pos // 8))
            align = max(align, fa)
            pos += t.size * 8
            size_bits = max(size_bits, pos)
            if st.is_union:
                pos = 0
        st.fields = fields
        st.align = align
        st.size = round_up((size_bits + 7) // 8, align)
        st.complete = True


_KEYWORDS = {"void", "_Bool", "char", "short", "int", "long", "float", "double", "signed",
             "unsigned", "__int128", "_Complex"}
