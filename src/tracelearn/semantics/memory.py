"""Concrete byte-addressed memory of the interpreter."""

from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass

from ..ir.types import CType, FloatType, IntType, PointerType


class MemoryFault(Exception):
    """An invalid memory access: reported as a failed "pointer" check."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class MemObject:
    base: int
    size: int
    data: bytearray
    name: str
    kind: str  # "global", "local", "heap", "string", "argv"
    alive: bool = True
    readonly: bool = False
    site: object = None  # heap blocks: the SourceLoc of the allocation (for the memleak check)


class Memory:
    def __init__(self) -> None:
        self.bases: list[int] = []
        self.objects: list[MemObject] = []
        self._last: MemObject | None = None

    def add(self, obj: MemObject) -> MemObject:
        i = bisect.bisect_left(self.bases, obj.base)
        self.bases.insert(i, obj.base)
        self.objects.insert(i, obj)
        return obj

    def remove(self, obj: MemObject) -> None:
        i = bisect.bisect_left(self.bases, obj.base)
        if i < len(self.bases) and self.objects[i] is obj:
            del self.bases[i]
            del self.objects[i]
        if self._last is obj:
            self._last = None

    def find(self, addr: int, n: int) -> tuple[MemObject, int]:
        o = self._last
        if o is not None and o.base <= addr and addr + n <= o.base + o.size and o.alive:
            return o, addr - o.base
        i = bisect.bisect_right(self.bases, addr) - 1
        if i >= 0:
            o = self.objects[i]
            off = addr - o.base
            if off + n <= o.size:
                if not o.alive:
                    raise MemoryFault(f"access to freed memory ({o.name}) at {addr:#x}")
                self._last = o
                return o, off
            if off < o.size + 16:
                raise MemoryFault(f"out-of-bounds access to {o.name} (offset {off}, {n} bytes, size {o.size})")
        if addr == 0:
            raise MemoryFault("dereference of NULL")
        raise MemoryFault(f"dereference of an invalid pointer {addr:#x}")

    def object_at(self, addr: int) -> MemObject | None:
        i = bisect.bisect_right(self.bases, addr) - 1
        if i >= 0 and self.objects[i].base == addr:
            return self.objects[i]
        return None

    # ---------------------------------------------------------- typed access

    def read_bytes(self, addr: int, n: int) -> bytes:
        o, off = self.find(addr, n)
        return bytes(o.data[off:off + n])

    def write_bytes(self, addr: int, data: bytes) -> None:
        o, off = self.find(addr, len(data))
        if o.readonly:
            raise MemoryFault(f"write to read-only {o.name}")
        o.data[off:off + len(data)] = data

    def read_cstring(self, addr: int, limit: int = 1 << 20) -> bytes:
        """The string at ``addr``, at most ``limit`` bytes (printf's ``%.3s`` reads no
        further, and needs no NUL within them)."""
        if limit <= 0:
            return b""
        o, off = self.find(addr, 1)
        end = o.data.find(b"\0", off, off + limit)
        if end < 0:
            if off + limit <= len(o.data):
                return bytes(o.data[off:off + limit])
            raise MemoryFault(f"string at {addr:#x} is not NUL-terminated inside {o.name}")
        return bytes(o.data[off:end])


def decode(t: CType, data: bytes):
    """Python value of ``t`` stored as ``data`` (little endian)."""
    if isinstance(t, IntType):
        return int.from_bytes(data, "little", signed=t.signed)
    if isinstance(t, PointerType):
        return int.from_bytes(data, "little")
    if isinstance(t, FloatType):
        return struct.unpack("<f" if t.width == 32 else "<d", data)[0]
    return bytes(data)


def encode(t: CType, v) -> bytes:
    if isinstance(t, IntType):
        return (v & ((1 << t.width) - 1)).to_bytes(t.size, "little")
    if isinstance(t, PointerType):
        return (v & ((1 << t.width) - 1)).to_bytes(t.size, "little")
    if isinstance(t, FloatType):
        return struct.pack("<f" if t.width == 32 else "<d", v)
    b = bytes(v)
    if len(b) != t.size:
        raise ValueError(f"aggregate of {len(b)} bytes for {t} of {t.size}")
    return b


# Messages both engines give for a bad free (one wording, so traces agree).
FREE_NOT_HEAP = "free of a pointer that is not the start of a heap block"
FREE_TWICE = "double free: the heap block was already freed"
LEAK_MESSAGE = "memory allocated here is not freed at the end of the program"


def library_property(site, kind: str) -> str:
    """The property id of a check failing inside a library model: named after the
    user's call (``site``), the same in both engines."""
    return f"{site}:{kind}"
