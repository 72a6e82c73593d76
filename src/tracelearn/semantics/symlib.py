"""Library functions in symbolic execution: the mirror of ``native.py``.

Input functions produce inputs in the same order and shape as the interpreter
consumes them in its nondeterministic mode, so counterexamples replay. Output
functions record what they print (an ``output`` step) and return an unconstrained
count. Math functions without an exact SMT encoding return unconstrained values
and are listed as approximations.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import z3

from ..ir.program import Call
from ..ir.types import ArrayType, CType, IntType, VoidType
from . import symexpr as S
from .equation import Step
from .libspec import SCAN_STRING, scan_conversions, scan_type
from .native import VaSlot
from .printf import FormatError, format_printf
from .symstate import SVal, State

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .library import LibraryModel
    from .symbolic import SymbolicSemantics



class SymLibrary:
    def __init__(self, sx: "SymbolicSemantics", models: "Mapping[str, LibraryModel]") -> None:
        self.sx = sx
        self.models = models

    def int32(self) -> IntType:
        return IntType(32, True)

    def unconstrained(self, name: str, t: CType) -> SVal:
        return SVal(S.fresh(self.sx.fresh_name(f"{name}.result"), t))

    def ret_type(self, name: str) -> CType:
        ft = self.sx.program.externs.get(name)
        return ft.ret if ft is not None else self.int32()

    def call(self, st: State, name: str, args: list[SVal], call: Call) -> tuple[State | None, SVal | None]:
        model = self.models.get(name)
        if model is not None:
            if call.callee != name:  # reached through a function pointer: the model's name
                call = replace(call, callee=name)
            return model.symbolic(self, st, args, call)
        # No body, no model: an input (the interpreter draws one too).
        rt = self.ret_type(name)
        if isinstance(rt, VoidType):
            return st, None
        return st, self.sx.input(st, rt, f"result of {name}()", call.loc, f"{name}()")

    def cut(self, st: State, why: str) -> tuple[None, None]:
        """A call the model checker cannot follow: the path ends, no "true" verdict."""
        self.sx.unsupported(why)
        st.guard = z3.BoolVal(False)
        return None, None

    # --------------------------------------------------------------- output

    @staticmethod
    def output(name: str):
        """printf and friends: an ``output`` step with the printed values; the result
        is unconstrained (a count), except write's, which is its byte count."""
        fmt_i = {"printf": 0, "fprintf": 1, "sprintf": 1, "snprintf": 2,
                 "vprintf": 0, "vfprintf": 1, "vsprintf": 1, "vsnprintf": 2}.get(name)

        def model(lib: "SymLibrary", st: State, args: list[SVal], call: Call):
            sx = lib.sx
            fmt = lib.constant_string(st, args[fmt_i]) if fmt_i is not None and fmt_i < len(args) else None
            rest = args[fmt_i + 1:] if fmt_i is not None else args
            sx.step(Step("output", st.guard, call.loc, sx.fn, lhs=name, message=(fmt or b"").decode("latin-1"),
                         args=[a.term for a in rest]))
            if name in ("sprintf", "snprintf", "vsprintf", "vsnprintf"):
                done = lib.format_into(st, name, fmt, args, call) if fmt is not None else None
                if done is not None:
                    return st, done
                return lib.cut(st, f"{call.loc}: {name} into a buffer needs a constant format and constant "
                                   "arguments here")
            if name == "write" and len(args) == 3:
                return st, args[2]
            rt = lib.ret_type(name)
            return st, lib.unconstrained(name, rt) if not isinstance(rt, VoidType) else None
        return model

    @staticmethod
    def flag(origin: str):
        """A yes/no answer of the outside world: an input in [0, 1]."""
        def model(lib: "SymLibrary", st: State, args: list[SVal], call: Call):
            return st, lib.ranged_input(st, lib.int32(), 0, 1, origin, call)
        return model

    @staticmethod
    def env_answer(origin: str):
        """__tl_getenv / __tl_realpath outside `run`: 0 (unset, no such file) or 2 (an
        input decides the value: the C body draws it), as the interpreter draws."""
        def model(lib: "SymLibrary", st: State, args: list[SVal], call: Call):
            v = lib.ranged_input(st, lib.int32(), 0, 1, origin, call)
            return st, SVal(v.term * 2)
        return model

    def tl_fopen(self, st: State, args: list[SVal], call: Call):
        """Outside `run` an input decides: NULL with ENOENT in ``*err``, or stream 4
        (whose bytes are inputs), as the interpreter draws."""
        v = self.ranged_input(st, self.int32(), 0, 1, "fopen() opens", call)
        opened = v.term == 1
        self.sx.store(st, args[2], self.int32(), SVal(z3.BitVecVal(2, 32)), call.loc, when=z3.Not(opened))
        pw = self.sx.pw
        return st, SVal(z3.If(opened, z3.BitVecVal(4, pw), z3.BitVecVal(0, pw)))

    def tl_stat(self, st: State, args: list[SVal], call: Call):
        """Outside `run`: inputs, as the interpreter draws them (exists, then the
        eight numbers of sys/stat.h's order); ENOENT when the file does not exist."""
        exists = self.ranged_input(st, self.int32(), 0, 1, "stat() exists", call).term == 1
        t = ArrayType(IntType(64, True), 8)
        data = self.sx.input(st, t, "stat() information", call.loc, "stat() information")
        self.sx.store(st, args[2], t, data, call.loc, when=exists)
        return st, SVal(z3.If(exists, z3.BitVecVal(0, 32), z3.BitVecVal(2, 32)))

    def tl_now(self, st: State, args: list[SVal], call: Call):
        t = ArrayType(IntType(64, True), 2)
        data = self.sx.input(st, t, "the clock", call.loc, "the clock")
        self.sx.store(st, args[0], t, data, call.loc)
        return st, None

    def clock(self, st: State, args: list[SVal], call: Call):
        return st, self.ranged_input(st, IntType(64, True), 0, (1 << 63) - 1, "clock()", call)

    def getuid(self, st: State, args: list[SVal], call: Call):
        return st, self.sx.input(st, IntType(32, False), "getuid()", call.loc, "getuid()")

    def zero(self, st: State, args: list[SVal], call: Call):
        rt = self.ret_type(call.callee or "")
        return st, SVal(S.const(rt, 0)) if not isinstance(rt, VoidType) else None

    def nothing(self, st: State, args: list[SVal], call: Call):
        return st, None

    def getchar(self, st: State, args: list[SVal], call: Call):
        return st, self.ranged_input(st, self.int32(), -1, 255, f"{call.callee}()", call)

    def rand(self, st: State, args: list[SVal], call: Call):
        return st, self.ranged_input(st, self.int32(), 0, 2147483647, "rand()", call)

    def realloc(self, st: State, args: list[SVal], call: Call):
        return self.cut(st, f"{call.loc}: realloc is not supported by the model checker")

    def format_into(self, st: State, name: str, fmt: bytes, args: list[SVal], call: Call) -> SVal | None:
        """sprintf and friends when the arguments are constants on this path (a path of
        the path strategy, where data are concrete): the bytes are formatted as the
        interpreter formats them and stored; None when a value is symbolic."""
        sx = self.sx
        sized = name in ("snprintf", "vsnprintf")
        first = 3 if sized else 2
        n = None
        if sized:
            nt = z3.simplify(args[1].term)
            if not z3.is_bv_value(nt):
                return None
            n = nt.as_long()
        byte, slot_t = IntType(8, False), IntType(64, False)

        def const(v: SVal) -> int:
            t = z3.simplify(v.term)
            if not z3.is_bv_value(t):
                raise _Symbolic
            return t.as_long()

        pts: dict[int, SVal] = {}  # address -> the value it came from (its points-to set)
        if name.startswith("v"):
            va = args[first]
            vt = z3.simplify(va.term)
            if not z3.is_bv_value(vt):
                return None
            base = vt.as_long()

            def slot(i: int) -> VaSlot:
                v = sx.load(st, SVal(z3.BitVecVal(base + 8 * i, sx.pw), va.pts), slot_t, call.loc)
                x = const(v)
                pts[x] = v
                return VaSlot(x)
            values: object = _Slots(slot)
        else:
            vals = []
            for a in args[first:]:
                t = z3.simplify(a.term)
                if not z3.is_bv_value(t):
                    return None
                pts[t.as_long()] = a
                vals.append(t.as_long())
            values = vals

        def read_string(addr: int, limit: int | None) -> bytes:
            src = pts.get(addr, SVal(z3.BitVecVal(addr, sx.pw), None))
            out = bytearray()
            while limit is None or len(out) < limit:
                c = const(sx.load(st, SVal(z3.BitVecVal(addr + len(out), sx.pw), src.pts), byte, call.loc))
                if c == 0 or len(out) >= 1 << 16:
                    break
                out.append(c)
            return bytes(out)
        try:
            data = format_printf(fmt, values, read_string, sx.dm.long_width)
        except (_Symbolic, FormatError):
            return None
        if n is not None:
            data_out = data[:n - 1] + b"\0" if n > 0 else b""
        else:
            data_out = data + b"\0"
        if data_out:
            sx.store(st, args[0], ArrayType(byte, len(data_out)),
                     SVal(z3.BitVecVal(int.from_bytes(data_out, "little"), 8 * len(data_out))), call.loc)
        return SVal(z3.BitVecVal(len(data), 32))

    # ---------------------------------------------------------------- input

    def ranged_input(self, st: State, t: IntType, lo: int, hi: int, origin: str, call: Call) -> SVal:
        v = self.sx.input(st, t, origin, call.loc, origin)
        st.guard = S.conj(st.guard, v.term >= lo, v.term <= hi)
        return v

    def constant_string(self, st: State, addr: SVal) -> bytes | None:
        a = z3.simplify(addr.term)
        if not z3.is_bv_value(a):
            return None
        v = a.as_long()
        for name, g in self.sx.program.globals.items():
            if g.is_string and g.init_bytes is not None:
                base = self.sx.layout.bases[name]
                if base <= v < base + len(g.init_bytes):
                    data = g.init_bytes[v - base:]
                    return data.split(b"\0", 1)[0]
        return None

    def scan(self, st: State, args: list[SVal], call: Call):
        sx = self.sx
        name = call.callee or "scanf"
        fmt_i = 0 if name == "scanf" else 1
        fmt = self.constant_string(st, args[fmt_i])
        if fmt is None:
            return self.cut(st, f"{call.loc}: {name} with a non-constant format")
        if name == "sscanf":
            sx.approximation(f"{call.loc}: sscanf parses nondeterministically here")
        ptrs = args[fmt_i + 1:]
        count = 0
        label = "scanf" if name != "sscanf" else "sscanf"
        for (conv, length, width), p in zip(scan_conversions(fmt), ptrs):
            if conv == b"s":
                n = width or SCAN_STRING
                data = sx.input(st, ArrayType(IntType(8, False), n), f"{label} %s", call.loc, f"{label} %s")
                sx.store(st, p, ArrayType(IntType(8, False), n + 1), SVal(z3.Concat(z3.BitVecVal(0, 8), data.term)), call.loc)
            else:
                t = scan_type(conv, length, sx.dm.long_width, sx.pw)
                v = sx.input(st, t, f"{label} %{conv.decode()}", call.loc, f"{label} %{conv.decode()}")
                sx.store(st, p, t, v, call.loc)
            count += 1
        return st, SVal(S.const(self.int32(), count))

    def fgets(self, st: State, args: list[SVal], call: Call):
        sx = self.sx
        size = z3.simplify(args[1].term)
        if not z3.is_bv_value(size):
            return self.cut(st, f"{call.loc}: fgets with a non-constant size")
        n = size.as_long()
        if n >= 2:
            data = sx.input(st, ArrayType(IntType(8, False), n - 1), "fgets()", call.loc, "fgets()")
            sx.store(st, args[0], ArrayType(IntType(8, False), n), SVal(z3.Concat(z3.BitVecVal(0, 8), data.term)), call.loc)
        elif n == 1:
            sx.store(st, args[0], IntType(8, False), SVal(z3.BitVecVal(0, 8)), call.loc)
        return st, args[0]

    def read(self, st: State, args: list[SVal], call: Call):
        sx = self.sx
        n_term = z3.simplify(args[2].term)
        if not z3.is_bv_value(n_term):
            return self.cut(st, f"{call.loc}: read with a non-constant size")
        n = n_term.as_long()
        count_t = IntType(sx.pw, True)
        count = self.ranged_input(st, count_t, 0, n, "read() count", call)
        if n:
            # n bytes are drawn (the interpreter's order), the first `count` written: byte
            # i is a write only when count > i, so a short read into a small buffer is fine.
            data = sx.input(st, ArrayType(IntType(8, False), n), "read() data", call.loc, "read() data")
            byte = IntType(8, False)
            for i in range(n):
                at = SVal(args[1].term + i, args[1].pts)
                sx.store(st, at, byte, SVal(z3.Extract(8 * i + 7, 8 * i, data.term)), call.loc, when=count.term > i)
        return st, SVal(S.resize(count.term, sx.pw, self.ret_type("read").size * 8, True)
                        if self.ret_type("read").size * 8 != sx.pw else count.term)


class _Symbolic(Exception):
    """A value sprintf needs is not a constant on this path."""


class _Slots:
    """va_list slots read on demand (the format decides how many)."""

    def __init__(self, read) -> None:  # noqa: ANN001 - a slot reader
        self.read = read

    def __len__(self) -> int:
        return 1 << 20

    def __getitem__(self, i: int) -> VaSlot:
        return self.read(i)


def math_model(f):
    """A math function over the argument's term (the result type is the call's)."""
    def model(lib: SymLibrary, st: State, args: list[SVal], call: Call):
        return st, f(lib, args, lib.ret_type(call.callee or ""), call)
    return model


def rounding(mode):
    return math_model(lambda lib, args, rt, call: SVal(z3.fpRoundToIntegral(mode, args[0].term)))


sqrt = math_model(lambda lib, args, rt, call: SVal(z3.fpSqrt(S.RNE, args[0].term)))
fabs = math_model(lambda lib, args, rt, call: SVal(z3.fpAbs(args[0].term)))


def _approx(lib: SymLibrary, args: list[SVal], rt: CType, call: Call) -> SVal:
    name = call.callee or ""
    lib.sx.approximation(f"{call.loc}: {name}() is not modelled exactly (result unconstrained)")
    return lib.unconstrained(name, rt)


approximate = math_model(_approx)
