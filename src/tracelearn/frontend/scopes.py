"""Lexical scopes of the translation unit: ordinary identifiers and tags."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from ..ir.program import Variable
from ..ir.types import CType, FunctionType, StructType


@dataclass
class VarBinding:
    var: Variable
    scope: str  # "local" or "global"


@dataclass
class FuncBinding:
    name: str
    type: FunctionType
    implicit: bool = False  # implicitly declared (K&R style call before declaration)


@dataclass
class EnumConst:
    value: int
    type: CType


@dataclass
class TypedefBinding:
    type: CType


Binding = Union[VarBinding, FuncBinding, EnumConst, TypedefBinding]


@dataclass
class EnumTag:
    name: str


Tag = Union[StructType, EnumTag]


@dataclass
class Scope:
    names: dict[str, Binding] = field(default_factory=dict)
    tags: dict[str, Tag] = field(default_factory=dict)


class Scopes:
    """A stack of scopes; index 0 is file scope."""

    def __init__(self) -> None:
        self.stack: list[Scope] = [Scope()]

    def push(self) -> None:
        self.stack.append(Scope())

    def pop(self) -> None:
        self.stack.pop()

    @property
    def at_file_scope(self) -> bool:
        return len(self.stack) == 1

    def bind(self, name: str, b: Binding, file_scope: bool = False) -> None:
        (self.stack[0] if file_scope else self.stack[-1]).names[name] = b

    def lookup(self, name: str) -> Binding | None:
        for s in reversed(self.stack):
            if name in s.names:
                return s.names[name]
        return None

    def bind_tag(self, name: str, t: Tag) -> None:
        self.stack[-1].tags[name] = t

    def lookup_tag(self, name: str, current_only: bool = False) -> Tag | None:
        scopes = [self.stack[-1]] if current_only else reversed(self.stack)
        for s in scopes:
            if name in s.tags:
                return s.tags[name]
        return None
