"""Concrete playback (as Kani's): a C harness that feeds the counterexample's inputs to
the program, so the failure reproduces with gcc (built with sanitizers for the
runtime checks)."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from ..ir.program import Program
from ..semantics.traces import Counterexample

BUILTIN_VOID = {
    "__VERIFIER_assume": "void __VERIFIER_assume(int c) { if (!c) { fprintf(stderr, \"playback: assumption violated\\n\"); exit(0); } }",
    "__CPROVER_assume": "void __CPROVER_assume(int c) { if (!c) { fprintf(stderr, \"playback: assumption violated\\n\"); exit(0); } }",
    "__VERIFIER_error": "void __VERIFIER_error(void) { fprintf(stderr, \"playback: __VERIFIER_error reached\\n\"); abort(); }",
    "reach_error": "void reach_error(void) { fprintf(stderr, \"playback: reach_error reached\\n\"); abort(); }",
    "_Learn_assert": "void _Learn_assert(int c) { if (!c) { fprintf(stderr, \"playback: _Learn_assert failed\\n\"); abort(); } }",
    "__CPROVER_assert": "void __CPROVER_assert(int c, const char *m) { if (!c) { fprintf(stderr, \"playback: %s\\n\", m); abort(); } }",
}


def nondet_functions(program: Program) -> dict[str, str]:
    """Built-in nondet functions the program calls, with their C return types."""
    out: dict[str, str] = {}
    for p in program.procedures.values():
        for b in p.blocks:
            for s in b.stmts:
                origin = getattr(s, "origin", "")
                if type(s).__name__ == "Nondet" and origin.endswith("()") and " " not in origin:
                    out[origin[:-2]] = str(s.lhs.type).replace("_Bool", "_Bool")
    return out


def _fed(i: dict) -> bool:
    """Inputs the harness controls: results of nondet calls and the entry's parameters."""
    o = i["origin"]
    return (o.endswith("()") and " " not in o) or o.startswith("parameter ")


def _c_double(v) -> str:
    """A C constant expression for ``v`` (NaN and infinities included)."""
    x = float(v)
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return repr(x)


def _c_int(v) -> str:
    # An input slot is read either as a double or as an integer: a non-finite
    # float's integer reading is never used.
    return str(int(v)) if not isinstance(v, float) or math.isfinite(v) else "0"


def playback_harness(program: Program, cex: Counterexample, source: str) -> str:
    values = [i["value"] for i in cex.inputs if _fed(i) and isinstance(i["value"], (int, float))]
    funcs = nondet_functions(program)
    uncontrolled = [i for i in cex.inputs if not _fed(i)]
    text = Path(source).read_text(errors="replace") if Path(source).is_file() else ""
    used = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    out = [
        "/* tracelearn concrete playback: replays a counterexample with gcc.",
        f"   property: {cex.prop_id} ({cex.kind}) - {cex.message}",
        "   build and run:",
        "     gcc -g -fsanitize=address,undefined -fno-sanitize-recover=all -o playback playback.c && ./playback",
        "   It must stop with the failure above (a non-zero exit status). */",
        "#include <stdio.h>",
        "#include <stdlib.h>",
        "#include <assert.h>",
        "#include <math.h>",
        f"static const double __tl_values[] = {{ {', '.join(_c_double(v) for v in values) or '0'} }};",
        f"static const long long __tl_ints[] = {{ {', '.join(_c_int(v) for v in values) or '0'} }};",
        f"static const int __tl_count = {len(values)};",
        "static int __tl_next = 0;",
        "static int __tl_take(void) {",
        '    if (__tl_next >= __tl_count) { fprintf(stderr, "playback: inputs exhausted\\n"); exit(3); }',
        "    return __tl_next++;",
        "}",
    ]
    if uncontrolled:
        out.append("/* Inputs that cannot be set from here (uninitialised variables, heap contents):")
        out.extend(f"   {i['origin']} at {i['file']}:{i['line']} = {i['value']}" for i in uncontrolled)
        out.append("*/")
    for name, ctype in sorted(funcs.items()):
        src = "__tl_values" if ctype in ("float", "double") else "__tl_ints"
        out.append(f"{ctype} {name}(void) {{ return ({ctype}){src}[__tl_take()]; }}")
    for name, body in BUILTIN_VOID.items():
        if name in used:
            out.append(body)
    entry = program.entry
    path = os.path.abspath(source)
    if entry != "main":
        out.append("#define main __tl_original_main")
        out.append(f'#include "{path}"')
        out.append("#undef main")
        proc = program.procedures[entry]
        args = []
        for p in proc.params:
            src = "__tl_values" if str(p.type) in ("float", "double") else "__tl_ints"
            args.append(f"({p.type}){src}[__tl_take()]")
        out.append(f"int main(void) {{ {entry}({', '.join(args)}); return 0; }}")
    else:
        out.append(f'#include "{path}"')
    return "\n".join(out) + "\n"


def write_playback(program: Program, cex: Counterexample, source: str, directory: str) -> Path:
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    path = d / "playback.c"
    path.write_text(playback_harness(program, cex, source))
    return path
