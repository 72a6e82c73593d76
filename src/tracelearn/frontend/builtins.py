"""Verifier built-ins that benchmark files call without declaring them.

SV-COMP (``__VERIFIER_*``, ``reach_error``), CBMC (``nondet_*``,
``__CPROVER_assume``, ``assert``), pv (``_Learn_assert``, ``Learn``) and
tracelearn's own ``__tl_event``. A name is a built-in only when the program
does not define a function of that name itself.
"""

from __future__ import annotations

from ..ir.datamodel import StdTypes
from ..ir.types import CType

ASSUME = {"__VERIFIER_assume", "__CPROVER_assume", "assume"}
ERROR_CALLS = {"__VERIFIER_error", "reach_error"}
ASSERTS = {"assert", "__CPROVER_assert", "_Learn_assert", "__VERIFIER_assert"}
EVENTS = {"__tl_event", "Learn"}
EXITS = {"exit", "_exit", "abort", "__assert_fail"}
HEAP = {"malloc", "calloc", "free", "alloca", "__builtin_alloca"}

def nondet_type(name: str, std: StdTypes) -> CType | None:
    """Return type of a nondet built-in, from its name's suffix."""
    for prefix in ("__VERIFIER_nondet_", "nondet_", "__CPROVER_nondet_"):
        if name.startswith(prefix):
            suffix = name[len(prefix):]
            break
    else:
        return None
    table: dict[str, CType] = {
        "int": std.int, "uint": std.uint, "unsigned": std.uint, "unsigned_int": std.uint,
        "char": std.char, "uchar": std.uchar, "unsigned_char": std.uchar, "schar": std.schar,
        "short": std.short, "ushort": std.ushort, "unsigned_short": std.ushort,
        "long": std.long, "ulong": std.ulong, "unsigned_long": std.ulong,
        "longlong": std.llong, "long_long": std.llong, "ulonglong": std.ullong,
        "bool": std.bool, "_Bool": std.bool,
        "float": std.float, "double": std.double,
        "pointer": std.ptr(std.void), "size_t": std.size_t,
        "s8": std.schar, "u8": std.uchar, "s16": std.short, "u16": std.ushort,
        "s32": std.int, "u32": std.uint, "s64": std.llong, "u64": std.ullong,
        "int8_t": std.schar, "uint8_t": std.uchar, "int16_t": std.short, "uint16_t": std.ushort,
        "int32_t": std.int, "uint32_t": std.uint, "int64_t": std.llong, "uint64_t": std.ullong,
        "loff_t": std.llong, "sector_t": std.ulong,
    }
    return table.get(suffix, std.int)
