"""The registry of library models: every C library function the engines model
natively (no C body), declared once with its concrete model (the interpreter's,
``native.py``), its symbolic model (the model checker's, ``symlib.py``) and the
inputs it draws, in order: the contract that makes counterexamples replay
(``tests/test_library_agreement.py`` checks each entry both ways).

Adding a builtin is one entry here (and its declaration in a bundled header, where
C programs find it). Functions with C bodies (``frontend/libc/models.c``) and the
verifier built-ins the frontend lowers itself (``assert``, ``malloc``, ...) are not
models of this kind.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import z3

from .native import NativeLibrary as N
from .symlib import SymLibrary as Y, approximate, fabs, rounding, sqrt


@dataclass(frozen=True)
class LibraryModel:
    name: str
    concrete: Callable  # (NativeLibrary, args, call) -> value
    symbolic: Callable  # (SymLibrary, state, args, call) -> (state or None, value or None)
    draws: str = ""  # the inputs it draws, in order ("" for none)


def _round_half_away(x: float) -> float:
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


_MODELS = [
    # output: writes (or nothing, in the model checker: an output step), draws nothing
    LibraryModel("printf", N.printf, Y.output("printf")),
    LibraryModel("fprintf", N.fprintf, Y.output("fprintf")),
    LibraryModel("sprintf", N.sprintf, Y.output("sprintf")),
    LibraryModel("snprintf", N.snprintf, Y.output("snprintf")),
    LibraryModel("vprintf", N.vprintf, Y.output("vprintf")),
    LibraryModel("vfprintf", N.vfprintf, Y.output("vfprintf")),
    LibraryModel("vsprintf", N.vsprintf, Y.output("vsprintf")),
    LibraryModel("vsnprintf", N.vsnprintf, Y.output("vsnprintf")),
    LibraryModel("puts", N.puts, Y.output("puts")),
    LibraryModel("fputs", N.fputs, Y.output("fputs")),
    LibraryModel("putchar", N.putchar, Y.output("putchar")),
    LibraryModel("fputc", N.fputc, Y.output("fputc")),
    LibraryModel("putc", N.fputc, Y.output("putc")),
    LibraryModel("write", N.write, Y.output("write")),
    LibraryModel("fflush", N.zero, Y.zero),
    LibraryModel("fclose", N.fclose, Y.zero),
    LibraryModel("srand", N.nothing, Y.zero),
    # input
    LibraryModel("getchar", N.getchar, Y.getchar, "int in [-1, 255]"),
    LibraryModel("getc", N.fgetc, Y.getchar, "int in [-1, 255]"),
    LibraryModel("fgetc", N.fgetc, Y.getchar, "int in [-1, 255]"),
    LibraryModel("rand", N.rand, Y.rand, "int in [0, 2147483647]"),
    LibraryModel("scanf", N.scanf, Y.scan, "one value per conversion (%s: width or 15 bytes)"),
    LibraryModel("fscanf", N.fscanf, Y.scan, "one value per conversion (%s: width or 15 bytes)"),
    LibraryModel("sscanf", N.sscanf, Y.scan, "one value per conversion (model checker: over-approximated)"),
    LibraryModel("fgets", N.fgets, Y.fgets, "size-1 bytes"),
    LibraryModel("read", N.read, Y.read, "a count in [0, n], then n bytes"),
    # the environment: the real one in `tracelearn run`, inputs elsewhere
    LibraryModel("isatty", N.isatty, Y.flag("isatty()"), "int in [0, 1]"),
    LibraryModel("feof", N.feof, Y.flag("feof()"), "int in [0, 1]"),
    LibraryModel("ferror", N.zero, Y.zero),
    LibraryModel("clearerr", N.nothing, Y.nothing),
    LibraryModel("getuid", N.getuid, Y.getuid, "unsigned int"),
    LibraryModel("__tl_fopen", N.tl_fopen, Y.tl_fopen, "int in [0, 1]"),
    LibraryModel("__tl_stat", N.tl_stat, Y.tl_stat, "int in [0, 1], then 8 long longs"),
    LibraryModel("__tl_now", N.tl_now, Y.tl_now, "2 long longs (seconds, microseconds)"),
    LibraryModel("clock", N.clock, Y.clock, "long in [0, 2^63)"),
    LibraryModel("__tl_getenv", N.tl_getenv, Y.env_answer("getenv() set"), "int in [0, 1] (then getenv draws 15 chars)"),
    LibraryModel("__tl_realpath", N.tl_realpath, Y.env_answer("realpath() exists"), "int in [0, 1]"),
    # heap
    LibraryModel("realloc", N.realloc, Y.realloc),
    # math (exact in both engines, or over-approximated in the model checker)
    LibraryModel("sqrt", N.m(math.sqrt), sqrt),
    LibraryModel("sqrtf", N.mf(math.sqrt), sqrt),
    LibraryModel("fabs", N.m(math.fabs), fabs),
    LibraryModel("fabsf", N.mf(math.fabs), fabs),
    LibraryModel("floor", N.m(math.floor), rounding(z3.RTN())),
    LibraryModel("ceil", N.m(math.ceil), rounding(z3.RTP())),
    LibraryModel("trunc", N.m(math.trunc), rounding(z3.RTZ())),
    LibraryModel("round", N.m(_round_half_away), rounding(z3.RNA())),
    LibraryModel("fmod", N.fmod, approximate),
    LibraryModel("pow", N.pow, approximate),
    LibraryModel("exp", N.m(math.exp), approximate),
    LibraryModel("log", N.m(math.log), approximate),
    LibraryModel("sin", N.m(math.sin), approximate),
    LibraryModel("cos", N.m(math.cos), approximate),
]

LIBRARY: Mapping[str, LibraryModel] = MappingProxyType({m.name: m for m in _MODELS})
