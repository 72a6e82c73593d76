"""Data models: the widths of C's integer types and of pointers."""

from __future__ import annotations

from dataclasses import dataclass

from .types import FloatType, IntType, PointerType, CType, VoidType


@dataclass(frozen=True)
class DataModel:
    name: str
    long_width: int
    ptr_width: int
    char_signed: bool = True  # x86 and x86-64 ABIs

    @staticmethod
    def named(name: str) -> "DataModel":
        key = name.upper()
        if key not in DATA_MODELS:
            raise ValueError(f"unknown data model {name!r} (choose ILP32 or LP64)")
        return DATA_MODELS[key]


DATA_MODELS = {
    "ILP32": DataModel("ILP32", long_width=32, ptr_width=32),
    "LP64": DataModel("LP64", long_width=64, ptr_width=64),
}


class StdTypes:
    """The standard C types under one data model."""

    def __init__(self, dm: DataModel) -> None:
        self.dm = dm
        self.void = VoidType()
        self.bool = IntType(8, False, "_Bool", is_bool=True)
        self.char = IntType(8, dm.char_signed, "char")
        self.schar = IntType(8, True, "signed char")
        self.uchar = IntType(8, False, "unsigned char")
        self.short = IntType(16, True, "short")
        self.ushort = IntType(16, False, "unsigned short")
        self.int = IntType(32, True, "int")
        self.uint = IntType(32, False, "unsigned int")
        self.long = IntType(dm.long_width, True, "long")
        self.ulong = IntType(dm.long_width, False, "unsigned long")
        self.llong = IntType(64, True, "long long")
        self.ullong = IntType(64, False, "unsigned long long")
        self.float = FloatType(32, "float")
        self.double = FloatType(64, "double")
        self.size_t = self.ulong
        self.ptrdiff_t = self.long
        self.intptr = IntType(dm.ptr_width, False, "uintptr_t")

    def ptr(self, target: CType) -> PointerType:
        return PointerType(target, self.dm.ptr_width)

    def rank(self, t: IntType) -> int:
        """Integer conversion rank (C11 6.3.1.1), by width; _Bool lowest."""
        if t.is_bool:
            return 0
        base = {8: 1, 16: 2, 32: 3, 64: 5}[t.width]
        # long and long long share width 64 under LP64; long long ranks higher.
        if t.width == 64 and t.name.startswith(("long long", "unsigned long long")):
            base = 6
        if t.width == 32 and t.name in ("long", "unsigned long"):
            base = 4
        return base
