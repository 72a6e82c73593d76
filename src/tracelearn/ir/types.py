"""C types as the IR sees them: every size, width and offset is explicit.

The frontend resolves the data model (ILP32/LP64) when it builds these, so the
engines never need to know C's typing rules: an ``IntType`` carries its width and
signedness, a ``StructType`` carries every field's byte and bit offset.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class CType:
    """Base of all IR types."""

    size: int = 0
    align: int = 1

    @property
    def bits(self) -> int:
        return self.size * 8

    def is_scalar(self) -> bool:
        return isinstance(self, (IntType, FloatType, PointerType))


@dataclass(frozen=True)
class VoidType(CType):
    @property
    def size(self) -> int:  # type: ignore[override]
        return 1  # GNU: sizeof(void) == 1, used for void* arithmetic

    @property
    def align(self) -> int:  # type: ignore[override]
        return 1

    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True)
class IntType(CType):
    width: int
    signed: bool
    name: str = ""
    is_bool: bool = False

    @property
    def size(self) -> int:  # type: ignore[override]
        return self.width // 8

    @property
    def align(self) -> int:  # type: ignore[override]
        return self.width // 8

    @property
    def min(self) -> int:
        return -(1 << (self.width - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        return (1 << (self.width - 1)) - 1 if self.signed else (1 << self.width) - 1

    def wrap(self, value: int) -> int:
        """Two's complement wrap of a Python int into this type's range."""
        value &= (1 << self.width) - 1
        if self.signed and value >> (self.width - 1):
            value -= 1 << self.width
        return value

    def __str__(self) -> str:
        return self.name or f"{'' if self.signed else 'u'}int{self.width}"


@dataclass(frozen=True)
class FloatType(CType):
    width: int  # 32 or 64 (long double is lowered to double with a warning)
    name: str = ""

    @property
    def size(self) -> int:  # type: ignore[override]
        return self.width // 8

    @property
    def align(self) -> int:  # type: ignore[override]
        return self.width // 8

    @property
    def ebits(self) -> int:
        return 8 if self.width == 32 else 11

    @property
    def sbits(self) -> int:
        return 24 if self.width == 32 else 53

    def __str__(self) -> str:
        return self.name or ("float" if self.width == 32 else "double")


@dataclass(frozen=True)
class PointerType(CType):
    target: CType
    width: int

    @property
    def size(self) -> int:  # type: ignore[override]
        return self.width // 8

    @property
    def align(self) -> int:  # type: ignore[override]
        return self.width // 8

    def __str__(self) -> str:
        return f"{self.target} *"


@dataclass(frozen=True)
class ArrayType(CType):
    elem: CType
    length: int | None  # None: incomplete (extern int a[]; flexible member)

    @property
    def size(self) -> int:  # type: ignore[override]
        return self.elem.size * (self.length or 0)

    @property
    def align(self) -> int:  # type: ignore[override]
        return self.elem.align

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.length is None else self.length}]"


@dataclass
class Field:
    name: str
    type: CType
    offset: int  # byte offset of the field (of its storage unit for bit-fields)
    bit_offset: int = 0  # bit-fields: offset inside the storage unit (little endian)
    bit_width: int | None = None  # bit-fields only

    @property
    def is_bitfield(self) -> bool:
        return self.bit_width is not None


@dataclass(eq=False)
class StructType(CType):
    """Struct or union. Identity-compared: two declarations are two types."""

    tag: str
    is_union: bool = False
    fields: list[Field] = field(default_factory=list)
    size: int = 0  # type: ignore[assignment]
    align: int = 1  # type: ignore[assignment]
    complete: bool = False

    def field_named(self, name: str) -> Field | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def __str__(self) -> str:
        return f"{'union' if self.is_union else 'struct'} {self.tag}"

    def __repr__(self) -> str:
        return f"StructType({self.tag!r})"


@dataclass(frozen=True)
class FunctionType(CType):
    ret: CType
    params: tuple[CType, ...]
    variadic: bool = False
    prototyped: bool = True

    @property
    def size(self) -> int:  # type: ignore[override]
        return 1

    def __str__(self) -> str:
        ps = ", ".join(str(p) for p in self.params)
        if self.variadic:
            ps += ", ..."
        return f"{self.ret} ({ps})"


def is_integer(t: CType) -> bool:
    return isinstance(t, IntType)


def is_arith(t: CType) -> bool:
    return isinstance(t, (IntType, FloatType))


def is_pointer(t: CType) -> bool:
    return isinstance(t, PointerType)


def is_aggregate(t: CType) -> bool:
    return isinstance(t, (ArrayType, StructType))
