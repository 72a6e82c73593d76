"""Library functions the interpreter runs natively (I/O and math).

With ``real_io`` the input functions read the real standard input (``tracelearn
run``); otherwise they return nondeterministic values, as the model checker
assumes. Output functions write to the given streams, or nowhere.
"""

from __future__ import annotations

import math
import os
import re
import struct
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Callable

from ..ir.program import Call, SourceLoc
from ..ir.types import ArrayType, CType, FloatType, IntType, VoidType
from .libspec import SCAN_STRING, Infeasible, scan_conversions, scan_type
from .memory import MemObject, MemoryFault
from .printf import FormatError, format_printf

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .interpreter import Interpreter
    from .library import LibraryModel

STDIN, STDOUT, STDERR = 1, 2, 3
FIRST_FILE = 4  # fopen's first stream


class OpenFile:
    """A stream fopen opened on the real file system (`tracelearn run`): read whole
    at once (programs read their inputs), or written through."""

    def __init__(self, data: bytes, out) -> None:  # noqa: ANN001 - a binary file or None
        self.data, self.pos, self.eof, self.out = data, 0, False, out

    @staticmethod
    def open(path: str, mode: str) -> "OpenFile":
        if mode.startswith("r") and "+" not in mode:
            with open(path, "rb") as f:
                return OpenFile(f.read(), None)
        if mode[:1] in ("w", "a") and "+" not in mode:
            return OpenFile(b"", open(path, mode[:1] + "b"))
        raise OSError(22, f"fopen mode {mode!r} is not modelled")

    def getc(self) -> int:
        if self.pos >= len(self.data):
            self.eof = True
            return -1
        self.pos += 1
        return self.data[self.pos - 1]

    def close(self) -> None:
        if self.out is not None:
            self.out.close()
            self.out = None


class NativeLibrary:
    def __init__(self, interp: "Interpreter", models: "Mapping[str, LibraryModel]") -> None:
        self.it = interp
        self.models = models
        self.stdin_buf = b""
        self.stdin_eof = False
        self.files: dict[int, OpenFile] = {}  # fopen's streams of the real file system (run)
        self.unmodelled: dict[str, int] = {}  # functions without body or model called: times

    def reset(self) -> None:
        self.stdin_buf = b""
        self.stdin_eof = False
        self.unmodelled = {}
        for f in self.files.values():
            f.close()
        self.files = {}

    # ------------------------------------------------------------- dispatch

    def call(self, name: str, args: list, call: Call):
        model = self.models.get(name)
        if model is not None:
            try:
                return model.concrete(self, args, call)
            except FormatError as e:
                self.it.fault(MemoryFault(f"{name}: {e}"), call.loc)
            except MemoryFault as e:
                self.it.fault(e, call.loc)
        # No body and no model: the result is nondeterministic (an input).
        self.unmodelled[name] = self.unmodelled.get(name, 0) + 1
        ft = self.it.program.externs.get(name)
        rt = ft.ret if ft is not None else IntType(32, True)
        if isinstance(rt, VoidType):
            return None
        return self.it.inputs.next(rt, f"result of {name}()", call.loc)

    # --------------------------------------------------------------- output

    def stream(self, handle: int):
        if handle == STDOUT:
            return self.it.opt.stdout
        if handle == STDERR:
            return self.it.opt.stderr
        f = self.files.get(handle)
        return f.out if f is not None else None

    def emit(self, handle: int, data: bytes) -> int:
        s = self.stream(handle)
        if s is not None:
            s.write(data)
        return len(data)

    def fmt(self, fmt_addr: int, args: list) -> bytes:
        mem = self.it.mem
        fmt = mem.read_cstring(fmt_addr)
        long_bits = self.it.dm.long_width
        return format_printf(fmt, args, lambda a, n: mem.read_cstring(a, n if n is not None else 1 << 20), long_bits)

    def va_args(self, va: int) -> "VaSlots":
        return VaSlots(self, va)

    def vprintf(self, a: list, c: Call):
        return self.emit(STDOUT, self.fmt(a[0], self.va_args(a[1])))

    def vfprintf(self, a: list, c: Call):
        return self.emit(a[0], self.fmt(a[1], self.va_args(a[2])))

    def vsprintf(self, a: list, c: Call):
        return self.store(a[0], None, self.fmt(a[1], self.va_args(a[2])))

    def vsnprintf(self, a: list, c: Call):
        return self.store(a[0], a[1], self.fmt(a[2], self.va_args(a[3])))

    def store(self, buf: int, n: int | None, data: bytes) -> int:
        """sprintf's (``n`` None) and snprintf's output into ``buf``."""
        if n is None:
            self.it.mem.write_bytes(buf, data + b"\0")
        elif n > 0:
            self.it.mem.write_bytes(buf, data[: n - 1] + b"\0")
        return len(data)

    def printf(self, a: list, c: Call):
        return self.emit(STDOUT, self.fmt(a[0], a[1:]))

    def fprintf(self, a: list, c: Call):
        return self.emit(a[0], self.fmt(a[1], a[2:]))

    def sprintf(self, a: list, c: Call):
        return self.store(a[0], None, self.fmt(a[1], a[2:]))

    def snprintf(self, a: list, c: Call):
        return self.store(a[0], a[1], self.fmt(a[2], a[3:]))

    def zero(self, a: list, c: Call):
        return 0

    def nothing(self, a: list, c: Call):
        return None

    def getchar(self, a: list, c: Call):
        return self.getc(STDIN, c)

    def fgetc(self, a: list, c: Call):
        return self.getc(a[0], c)

    def rand(self, a: list, c: Call):
        return self.nondet_range(IntType(32, True), 0, 2147483647, "rand()", c.loc)

    def puts(self, a: list, c: Call):
        return self.emit(STDOUT, self.it.mem.read_cstring(a[0]) + b"\n")

    def fputs(self, a: list, c: Call):
        return self.emit(a[1], self.it.mem.read_cstring(a[0]))

    def putchar(self, a: list, c: Call):
        self.emit(STDOUT, bytes([a[0] & 0xFF]))
        return a[0] & 0xFF

    def fputc(self, a: list, c: Call):
        self.emit(a[1], bytes([a[0] & 0xFF]))
        return a[0] & 0xFF

    def write(self, a: list, c: Call):
        fd, buf, n = a
        data = self.it.mem.read_bytes(buf, n) if n else b""
        return self.emit(fd + 1, data)  # fd 1 -> handle STDOUT(2), fd 2 -> STDERR(3)

    # ---------------------------------------------------------------- input

    def nondet_range(self, t: CType, lo: int, hi: int, origin: str, loc: SourceLoc) -> int:
        v = self.it.inputs.next_in_range(t, lo, hi, origin, loc)
        if v is None:

            raise Infeasible(f"{origin}: given value is outside [{lo}, {hi}]")
        return v

    # ------------------------------------------------------ the environment

    def isatty(self, a: list, c: Call):
        if self.it.opt.real_io:
            return int(a[0] in (0, 1, 2) and os.isatty(a[0]))
        return self.nondet_range(IntType(32, True), 0, 1, "isatty()", c.loc)

    def feof(self, a: list, c: Call):
        if a[0] in self.files:
            return int(self.files[a[0]].eof)
        if self.it.opt.real_io and a[0] == STDIN:
            return int(self.stdin_eof and not self.stdin_buf)
        return self.nondet_range(IntType(32, True), 0, 1, "feof()", c.loc)

    def tl_fopen(self, a: list, c: Call):
        """A stream of the real file system in `run` (errno in ``*err`` when it
        fails); elsewhere an input decides: no file (ENOENT), or stream 4, whose bytes
        are inputs as stdin's are."""
        path, mode, err = a
        if self.it.opt.real_io:
            m = self.it.mem.read_cstring(mode).decode("latin-1")
            try:
                f = OpenFile.open(os.fsdecode(self.it.mem.read_cstring(path)), m)
            except OSError as e:
                self.it.mem.write_bytes(err, (e.errno or 2).to_bytes(4, "little", signed=True))
                return 0
            handle = max([FIRST_FILE - 1, *self.files]) + 1
            self.files[handle] = f
            return handle
        if self.nondet_range(IntType(32, True), 0, 1, "fopen() opens", c.loc):
            return FIRST_FILE
        self.it.mem.write_bytes(err, (2).to_bytes(4, "little", signed=True))
        return 0

    def fclose(self, a: list, c: Call):
        f = self.files.pop(a[0], None)
        if f is not None:
            f.close()
        return 0

    STAT_INFO = ArrayType(IntType(64, True), 8)

    def tl_stat(self, a: list, c: Call):
        """0 and the file's information (see sys/stat.h), or the errno of the failure:
        the real file system in `run`; elsewhere inputs (exists, then the eight numbers)."""
        path, follow, info = a
        if self.it.opt.real_io:
            try:
                s = os.stat(os.fsdecode(self.it.mem.read_cstring(path)), follow_symlinks=bool(follow))
            except OSError as e:
                return e.errno or 2
            values = [s.st_dev, s.st_ino, s.st_mode, s.st_nlink, s.st_uid, s.st_gid, s.st_size, int(s.st_mtime)]
            data = b"".join((v & (1 << 64) - 1).to_bytes(8, "little") for v in values)
        else:  # both drawn, as the model checker draws them
            exists = self.nondet_range(IntType(32, True), 0, 1, "stat() exists", c.loc)
            data = bytes(self.it.inputs.next(ArrayType(IntType(64, True), 8), "stat() information", c.loc))
            if not exists:
                return 2
        self.it.mem.write_bytes(info, data)
        return 0

    def tl_now(self, a: list, c: Call):
        """The clock: seconds and microseconds since the epoch (real in `run`)."""
        t = ArrayType(IntType(64, True), 2)
        if self.it.opt.real_io:
            now = time.time()
            sec = int(now)
            data = sec.to_bytes(8, "little", signed=True) + int((now - sec) * 1e6).to_bytes(8, "little", signed=True)
        else:
            data = bytes(self.it.inputs.next(t, "the clock", c.loc))
        self.it.mem.write_bytes(a[0], data)
        return None

    def clock(self, a: list, c: Call):
        if self.it.opt.real_io:
            return int(time.process_time() * 1e6)
        return self.nondet_range(IntType(64, True), 0, (1 << 63) - 1, "clock()", c.loc)

    def getuid(self, a: list, c: Call):
        if self.it.opt.real_io:
            return os.getuid()
        return self.nondet_range(IntType(32, False), 0, (1 << 32) - 1, "getuid()", c.loc)

    def tl_getenv(self, a: list, c: Call):
        """0: unset; 1: the real value, written to the buffer; 2: an input (drawn by
        getenv's C body, frontend/libc/models.c)."""
        name, buf, n = a
        if self.it.opt.real_io:
            value = os.environb.get(self.it.mem.read_cstring(name))
            if value is None:
                return 0
            self.it.mem.write_bytes(buf, value[: n - 1] + b"\0")
            return 1
        return 2 * self.nondet_range(IntType(32, True), 0, 1, "getenv() set", c.loc)

    def tl_realpath(self, a: list, c: Call):
        """0: no such file; 1: the real resolved path, written; 2: an input (the path,
        taken as it is, by realpath's C body)."""
        path, buf, n = a
        if self.it.opt.real_io:
            try:
                resolved = os.path.realpath(os.fsdecode(self.it.mem.read_cstring(path)), strict=True)
            except OSError:
                return 0
            data = os.fsencode(resolved)
            if len(data) >= n:
                return 0
            self.it.mem.write_bytes(buf, data + b"\0")
            return 1
        return 2 * self.nondet_range(IntType(32, True), 0, 1, "realpath() exists", c.loc)

    def real_stdin(self, n: int | None = None) -> bytes:
        s = self.it.opt.stdin
        if s is None:
            return b""
        return s.read() if n is None else s.read(n)

    def getc(self, handle: int, c: Call):
        f = self.files.get(handle)
        if f is not None:
            return f.getc()
        if self.it.opt.real_io and handle == STDIN:
            if not self.stdin_buf:
                self.stdin_buf = self.real_stdin(4096)
            if not self.stdin_buf:
                self.stdin_eof = True
                return -1
            ch, self.stdin_buf = self.stdin_buf[0], self.stdin_buf[1:]
            return ch
        return self.nondet_range(IntType(32, True), -1, 255, "getchar()", c.loc)

    def fgets(self, a: list, c: Call):
        buf, size, handle = a
        if size <= 0:
            return 0
        if (self.it.opt.real_io and handle == STDIN) or handle in self.files:
            out = b""
            while len(out) < size - 1:
                ch = self.getc(handle, c)
                if ch < 0:
                    break
                out += bytes([ch])
                if ch == 10:
                    break
            if not out:
                return 0
            self.it.mem.write_bytes(buf, out + b"\0")
            return buf
        data = self.it.inputs.next(ArrayType(IntType(8, False), size - 1), "fgets()", c.loc) if size > 1 else b""
        self.it.mem.write_bytes(buf, bytes(data) + b"\0")
        return buf

    def read(self, a: list, c: Call):
        fd, buf, n = a
        if self.it.opt.real_io and fd == 0:
            data = self.stdin_buf[:n] if self.stdin_buf else self.real_stdin(n)
            self.stdin_buf = self.stdin_buf[len(data):] if self.stdin_buf else b""
            if data:
                self.it.mem.write_bytes(buf, data)
            return len(data)
        size_t = IntType(self.it.dm.ptr_width, True)
        count = self.nondet_range(size_t, 0, n, "read() count", c.loc)
        if n:  # n bytes of data are drawn, the first count are stored (as the model checker does)
            data = self.it.inputs.next(ArrayType(IntType(8, False), n), "read() data", c.loc)
            if count:
                self.it.mem.write_bytes(buf, bytes(data)[:count])
        return count

    def scan_type(self, conv: bytes, length: bytes | None) -> CType:
        return scan_type(conv, length, self.it.dm.long_width, self.it.dm.ptr_width)

    def store_scalar(self, addr: int, t: CType, v) -> None:
        from .memory import encode

        self.it.mem.write_bytes(addr, encode(t, v))

    def scan(self, fmt_addr: int, ptrs: list, c: Call, source: bytes | None, name: str):
        fmt = self.it.mem.read_cstring(fmt_addr)
        targets = scan_conversions(fmt)
        if source is None:  # nondeterministic input: every conversion succeeds
            for (conv, length, width), p in zip(targets, ptrs):
                if conv == b"s":
                    n = width or SCAN_STRING
                    data = self.it.inputs.next(ArrayType(IntType(8, False), n), f"{name} %s", c.loc)
                    self.it.mem.write_bytes(p, bytes(data) + b"\0")
                    continue
                t = self.scan_type(conv, length)
                self.store_scalar(p, t, self.it.inputs.next(t, f"{name} %{conv.decode()}", c.loc))
            return len(targets)
        text = source.decode("latin-1")
        pos, count = 0, 0
        for (conv, length, width), p in zip(targets, ptrs):
            while pos < len(text) and text[pos].isspace() and conv != b"c":
                pos += 1
            if pos >= len(text):
                return count if count else -1
            t = self.scan_type(conv, length)
            if conv == b"s":
                m = re.match(r"\S+", text[pos:])
                word = m.group(0)[: width or None] if m else ""
                self.it.mem.write_bytes(p, word.encode("latin-1") + b"\0")
                pos += len(word)
            elif conv == b"c":
                self.store_scalar(p, t, ord(text[pos]))
                pos += 1
            elif isinstance(t, FloatType):
                m = re.match(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)", text[pos:], re.I)
                if not m:
                    return count
                self.store_scalar(p, t, float(m.group(0)))
                pos += m.end()
            else:
                base = 16 if conv in b"xX" else 8 if conv == b"o" else 10
                pat = r"[+-]?(0[xX])?[0-9a-fA-F]+" if base == 16 else r"[+-]?[0-7]+" if base == 8 else r"[+-]?\d+"
                m = re.match(pat, text[pos:])
                if not m:
                    return count
                assert isinstance(t, IntType)
                self.store_scalar(p, t, t.wrap(int(m.group(0), base)))
                pos += m.end()
            count += 1
        self.consumed_text = pos
        return count

    def scanf(self, a: list, c: Call):
        return self.fscanf([STDIN] + a, c)

    def fscanf(self, a: list, c: Call):
        handle = a[0]
        f = self.files.get(handle)
        if f is not None:
            n = self.scan(a[1], a[2:], c, f.data[f.pos:], "fscanf")
            f.pos += getattr(self, "consumed_text", 0)
            return n
        if self.it.opt.real_io and handle == STDIN:
            if not self.stdin_buf:
                self.stdin_buf = self.real_stdin()
            n = self.scan(a[1], a[2:], c, self.stdin_buf, "fscanf")
            self.stdin_buf = self.stdin_buf[getattr(self, "consumed_text", 0):]
            return n
        return self.scan(a[1], a[2:], c, None, "scanf")

    def sscanf(self, a: list, c: Call):
        return self.scan(a[1], a[2:], c, self.it.mem.read_cstring(a[0]), "sscanf")

    # ----------------------------------------------------------------- heap

    def realloc(self, a: list, c: Call):
        p, n = a
        it = self.it
        old = it.heap.get(p) if p else None
        if p and (old is None or not old.alive):
            raise MemoryFault(f"realloc of a pointer that is not a heap block ({p:#x})")
        base = it.heap_alloc.alloc(n)
        data = bytearray(n)
        if old is not None:
            k = min(n, old.size)
            data[:k] = old.data[:k]
            old.alive = False
        obj = MemObject(base, n, data, f"heap block from realloc at {c.loc}", "heap")
        it.mem.add(obj)
        it.heap[base] = obj
        return base

    # ----------------------------------------------------------------- math

    @staticmethod
    def m(f: Callable[[float], float]):
        def call(lib: "NativeLibrary", a: list, c: Call) -> float:
            try:
                return float(f(a[0]))
            except (ValueError, OverflowError):
                return math.nan
        return call

    @staticmethod
    def mf(f: Callable[[float], float]):
        from ..ir.values import round_f32

        def call(lib: "NativeLibrary", a: list, c: Call) -> float:
            try:
                return round_f32(float(f(a[0])))
            except (ValueError, OverflowError):
                return math.nan
        return call

    def fmod(self, a: list, c: Call) -> float:
        try:
            return math.fmod(a[0], a[1])
        except ValueError:
            return math.nan

    def pow(self, a: list, c: Call) -> float:
        try:
            return math.pow(a[0], a[1])
        except (ValueError, OverflowError):
            return math.nan


class VaSlot(int):
    """One 8-byte slot of a va_list block (frontend/include/stdarg.h): an integer,
    or the double stored there when the format converts a floating value."""

    def __float__(self) -> float:
        return struct.unpack("<d", (int(self) & (1 << 64) - 1).to_bytes(8, "little"))[0]


class VaSlots(Sequence):
    """The arguments a va_list points at, read slot by slot as the format takes them."""

    def __init__(self, lib: NativeLibrary, addr: int) -> None:
        self.lib, self.addr = lib, addr

    def __len__(self) -> int:
        return 1 << 20  # unknown: reading past the block is the program's memory error

    def __getitem__(self, i):  # noqa: ANN001 - Sequence's signature
        return VaSlot(int.from_bytes(self.lib.it.mem.read_bytes(self.addr + 8 * i, 8), "little"))
