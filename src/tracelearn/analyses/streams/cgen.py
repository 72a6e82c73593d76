"""C code from symbolic transducers: their terms as C expressions, and the
equivalence harness that checks a filter against a conjecture with the engine's own
model checker and provers (our stand-in for Sigma*'s predicate abstraction, Alg. 3).

The harness defines the stream built-ins over a nondeterministic input and runs the
conjecture beside the filter: at the end of each big step (the filter meets the next
element, or the end) the outputs the filter wrote in the step must be those of the
conjecture's enabled transition; at the end, those of its final move. An assertion
that can fail is a separating input; a proof that none can is the equivalence.
"""

from __future__ import annotations

import z3

from ...automata.transducer import Transducer

_T = {8: "signed char", 16: "short", 32: "int", 64: "long long"}
_UT = {8: "unsigned char", 16: "unsigned short", 32: "unsigned", 64: "unsigned long long"}


def _t(w: int) -> str:
    if w not in _T:
        raise ValueError(f"a {w}-bit term has no C type here")
    return _T[w]


def _ut(w: int) -> str:
    return _UT.get(w, "unsigned")


def _odd(e: z3.ExprRef, a: list[str], var: dict[str, str]) -> str:  # noqa: C901
    """A term of a width with no C type (under 31 bits): an ``int`` holding its value
    as unsigned (z3's simplifier makes sign tests ``extract(7, 7, x) == 0``)."""
    k = e.decl().kind()
    w = e.size()
    m = (1 << w) - 1
    ch = e.children()
    if w > 30:
        raise ValueError(f"a {w}-bit term has no C type here")
    if z3.is_bv_value(e):
        return f"({e.as_long()})"
    if k == z3.Z3_OP_EXTRACT:
        hi, lo = e.params()
        return f"((int)((({_ut(ch[0].size())}){a[0]} >> {lo}) & {m}u))"
    ops = {z3.Z3_OP_BADD: "+", z3.Z3_OP_BMUL: "*", z3.Z3_OP_BAND: "&", z3.Z3_OP_BOR: "|",
           z3.Z3_OP_BXOR: "^", z3.Z3_OP_BSUB: "-"}
    if k in ops and (k != z3.Z3_OP_BMUL or w <= 15):
        return f"(({f' {ops[k]} '.join(a)}) & {m})"
    if k == z3.Z3_OP_BNOT:
        return f"((~{a[0]}) & {m})"
    if k == z3.Z3_OP_CONCAT:
        out = a[0]
        for c, x in zip(ch[1:], a[1:]):
            out = f"(({out} << {c.size()}) | ((int)(({_ut(c.size())}){x} & {(1 << c.size()) - 1}u)))"
        return out
    if k == z3.Z3_OP_ITE:
        return f"({a[0]} ? {a[1]} : {a[2]})"
    raise ValueError(f"operator {e.decl().name()} on {w} bits has no C form here")


def _sx(x: str, w: int) -> str:
    return x if w in _T else f"(({x} ^ {1 << (w - 1)}) - {1 << (w - 1)})"


def c_expr(e: z3.ExprRef, var: dict[str, str]) -> str:  # noqa: C901 - one case per operator
    """``e`` as a C expression: a ``w``-bit term has C's signed type of ``w`` bits, a
    Boolean term is an ``int``; ``var`` names each free variable's C expression.
    Arithmetic wraps (the engine's default for signed overflow; gcc needs ``-fwrapv``)."""
    if z3.is_true(e):
        return "1"
    if z3.is_false(e):
        return "0"
    if z3.is_bv_value(e) and e.size() not in _T:
        return _odd(e, [], var)
    if z3.is_bv_value(e):
        w = e.size()
        v = e.as_long()
        v = v - (1 << w) if v >> (w - 1) else v
        if w == 64:
            return f"({v}LL)" if v != -(1 << 63) else "(-9223372036854775807LL - 1)"
        return f"(({_t(w)}){v})" if w != 32 else (f"({v})" if v != -(1 << 31) else "(-2147483647 - 1)")
    k = e.decl().kind()
    if z3.is_const(e) and k == z3.Z3_OP_UNINTERPRETED:
        return f"(({_t(e.size())}){var[e.decl().name()]})"
    ch = e.children()
    a = [c_expr(c, var) for c in ch]
    w = e.size() if z3.is_bv(e) else 0
    w0 = ch[0].size() if ch and z3.is_bv(ch[0]) else 0
    if w and w not in _T:
        return _odd(e, a, var)
    T = _t(w) if w else ""
    if k == z3.Z3_OP_AND:
        return "(" + " && ".join(a) + ")"
    if k == z3.Z3_OP_OR:
        return "(" + " || ".join(a) + ")"
    if k == z3.Z3_OP_NOT:
        return f"(!{a[0]})"
    if k == z3.Z3_OP_EQ:
        return f"({a[0]} == {a[1]})"
    if k == z3.Z3_OP_ITE:
        return f"({a[0]} ? {a[1]} : {a[2]})"
    ops = {z3.Z3_OP_BADD: "+", z3.Z3_OP_BMUL: "*", z3.Z3_OP_BAND: "&", z3.Z3_OP_BOR: "|", z3.Z3_OP_BXOR: "^"}
    if k in ops:
        return f"(({T})({f' {ops[k]} '.join(a)}))"
    if k == z3.Z3_OP_BSUB:
        return f"(({T})({a[0]} - {a[1]}))"
    if k == z3.Z3_OP_BNEG:
        return f"(({T})(-{a[0]}))"
    if k == z3.Z3_OP_BNOT:
        return f"(({T})(~{a[0]}))"
    ops = {z3.Z3_OP_SLEQ: "<=", z3.Z3_OP_SLT: "<", z3.Z3_OP_SGEQ: ">=", z3.Z3_OP_SGT: ">"}
    if k in ops:
        return f"({_sx(a[0], w0)} {ops[k]} {_sx(a[1], w0)})"
    ops = {z3.Z3_OP_ULEQ: "<=", z3.Z3_OP_ULT: "<", z3.Z3_OP_UGEQ: ">=", z3.Z3_OP_UGT: ">"}
    if k in ops:
        u = _ut(w0)
        return f"(({u}){a[0]} {ops[k]} ({u}){a[1]})"
    if k == z3.Z3_OP_SIGN_EXT:
        return f"(({T}){_sx(a[0], w0)})"
    if k == z3.Z3_OP_ZERO_EXT:
        return f"(({T})({_ut(w0)}){a[0]})"
    if k == z3.Z3_OP_EXTRACT:
        hi, lo = e.params()
        return f"(({T})(({_ut(w0)}){a[0]} >> {lo}))"
    if k == z3.Z3_OP_BSHL:
        return f"({a[1]} >= 0 && {a[1]} < {w} ? ({T})(({_UT[w]}){a[0]} << {a[1]}) : ({T})0)"
    if k == z3.Z3_OP_BLSHR:
        return f"({a[1]} >= 0 && {a[1]} < {w} ? ({T})(({_UT[w]}){a[0]} >> {a[1]}) : ({T})0)"
    if k == z3.Z3_OP_BASHR:
        return f"(({T})({a[0]} >> ({a[1]} >= 0 && {a[1]} < {w} ? {a[1]} : {w - 1})))"
    if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I, z3.Z3_OP_BUREM, z3.Z3_OP_BUREM_I):
        u = _UT[w]
        op = "/" if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I) else "%"
        zero = f"({T})-1" if op == "/" else a[0]
        return f"({a[1]} ? ({T})(({u}){a[0]} {op} ({u}){a[1]}) : {zero})"
    if k in (z3.Z3_OP_BSDIV, z3.Z3_OP_BSDIV_I, z3.Z3_OP_BSREM, z3.Z3_OP_BSREM_I):
        op = "/" if k in (z3.Z3_OP_BSDIV, z3.Z3_OP_BSDIV_I) else "%"
        zero = f"({a[0]} < 0 ? ({T})1 : ({T})-1)" if op == "/" else a[0]
        return f"({a[1]} ? ({T})({a[0]} {op} {a[1]}) : {zero})"
    raise ValueError(f"operator {e.decl().name()} has no C form here")


def _vars(t: z3.ExprRef) -> set[int]:
    out: set[int] = set()
    todo, seen = [t], set()
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.add(int(e.decl().name()[1:]))
        else:
            todo.extend(e.children())
    return out


def _enabled(guard: z3.BoolRef, outputs: tuple, var: dict[str, str]) -> str:
    used = set().union(_vars(guard), *(_vars(o) for o in outputs))
    defined = [f"__tl_def > {j}" for j in sorted(used)]
    return " && ".join(defined + [c_expr(guard, var)])


def _expect(outputs: tuple, var: dict[str, str]) -> list[str]:
    lines = [f"    __tl_check(__tl_nout == {len(outputs)});"]
    for i, o in enumerate(outputs):
        lines.append(f"    __tl_check(__tl_o{i} == {c_expr(o, var)});")
    return lines


def harness(filter_file: str, function: str, conj: Transducer) -> str:
    """A C translation unit: the filter's file, the stream over nondeterministic input,
    the conjecture as a monitor, and ``__tl_main`` driving them."""
    k = conj.lookback
    el = {8: "signed char", 16: "short", 32: "int"}[conj.bits]
    nondet_el = {8: "__VERIFIER_nondet_char", 16: "__VERIFIER_nondet_short", 32: "__VERIFIER_nondet_int"}[conj.bits]
    var = {f"w{j}": f"__tl_w{j}" for j in range(k + 1)}
    most = max([len(m.outputs) for m in conj.moves] + [len(f.outputs) for f in conj.finals]
               + [len(conj.initial_output)] + [0])
    cap = most + 1
    out: list[str] = [f'#include "{filter_file}"', "",
                      "/* tracelearn: equivalence harness (generated) */",
                      f"{el} {nondet_el}(void);", "_Bool __VERIFIER_nondet_bool(void);",
                      "void __VERIFIER_error(void);", "void exit(int status);",
                      # scalars, not arrays: a variable index would leave the provers' integer arithmetic
                      "static int " + ", ".join(f"__tl_w{j}" for j in range(k + 1))
                      + ";  /* the window: w0 the element met, wj the one j before */",
                      "static int __tl_def;  /* how many window places hold an element */",
                      "static int __tl_have;  /* the element met is not consumed yet */",
                      "static int __tl_end;  /* the input has ended */",
                      "static int __tl_started;  /* an element or the end was met */",
                      "static int __tl_q;  /* the conjecture's state */",
                      "static int " + ", ".join(f"__tl_o{i}" for i in range(cap)) + ";  /* the step's outputs */",
                      "static int __tl_nout;", "",
                      "static void __tl_check(int ok) { if (!ok) __VERIFIER_error(); }", "",
                      "static void __tl_shift(void) {"]
    for j in range(k, 0, -1):
        out.append(f"    __tl_w{j} = __tl_w{j - 1};")
    out += ["}", "", "/* the step that ends (or the initial output) against the conjecture */",
            "static void __tl_close(void) {", "    if (!__tl_started) {"]
    out += ["    " + s for s in _expect(tuple(z3.BitVecVal(v, 32) for v in conj.initial_output), var)]
    out += ["        __tl_nout = 0;", "        return;", "    }"]
    for q in range(conj.states):
        out.append(f"    if (__tl_q == {q}) {{")
        for m in conj.out_of(q):
            out.append(f"        if ({_enabled(m.guard, m.outputs, var)}) {{")
            out += ["    " + s for s in _expect(m.outputs, var)]
            out += [f"            __tl_q = {m.dst};", "            __tl_nout = 0;", "            return;", "        }"]
        out.append("    }")
    out += ["    __tl_check(0);  /* no transition of the conjecture: the filter reads on */", "}", "",
            "/* at the end of the input: the last state's final move */",
            "static void __tl_finish(void) {"]
    for f in conj.finals:
        out.append(f"    if (__tl_q == {f.src} && {_enabled(f.guard, f.outputs, var)}) {{")
        out += _expect(f.outputs, var)
        out += ["        exit(0);", "    }"]
    out += ["    __tl_check(__tl_nout == 0);", "    exit(0);", "}", "",
            "/* the filter meets the next element, or the end */",
            "static void __tl_next(void) {",
            "    __tl_close();", "    __tl_started = 1;", "    __tl_shift();",
            "    if (__tl_def <= " + str(k) + ") __tl_def++;",
            "    if (__VERIFIER_nondet_bool()) {", "        __tl_end = 1;",
            "        __tl_w0 = 0;  /* never read: the final move's w0 */", "        return;", "    }",
            f"    __tl_w0 = {nondet_el}();", "    __tl_have = 1;", "}", "",
            "int tl_peek(int k) {", "    if (!__tl_have && !__tl_end) __tl_next();",
            "    if (__tl_end) __tl_finish();  /* a read at the end stops the filter */",
            "    return __tl_w0;", "}", "",
            "int tl_in(void) {", "    int c = tl_peek(0);", "    __tl_have = 0;", "    return c;", "}", "",
            "int tl_eof(void) {", "    if (!__tl_have && !__tl_end) __tl_next();", "    return __tl_end;", "}", "",
            "void tl_out(int c) {", f"    __tl_check(__tl_nout < {cap});",
            *[f"    {'else ' if i else ''}if (__tl_nout == {i}) __tl_o{i} = c;" for i in range(cap)],
            "    __tl_nout++;", "}", "",
            "int __tl_main(void) {", f"    {function}();",
            "    /* the filter returned: it ignores the rest of its input */",
            "    while (!__tl_end) { __tl_next(); __tl_have = 0; }", "    __tl_finish();", "    return 0;", "}", ""]
    return "\n".join(out)


def run_harness(filter_file: str, function: str, bits: int) -> str:
    """A C translation unit that runs the filter on a stream read from the inputs:
    before each element a ``__VERIFIER_nondet_bool()`` (1: the input ends), then the
    element; ``tl_out`` prints each output on a line. The interpreter, the model
    checker and gcc (with a small prelude for the inputs) all run this file."""
    el = {8: "signed char", 16: "short", 32: "int"}[bits]
    nondet_el = {8: "__VERIFIER_nondet_char", 16: "__VERIFIER_nondet_short", 32: "__VERIFIER_nondet_int"}[bits]
    return "\n".join([
        f'#include "{filter_file}"', "",
        "/* tracelearn: stream harness (generated) */",
        f"{el} {nondet_el}(void);", "_Bool __VERIFIER_nondet_bool(void);",
        "int printf(const char *format, ...);", "void exit(int status);",
        "static int __tl_have, __tl_end, __tl_cur;",
        "static void __tl_next(void) {",
        "    if (__VERIFIER_nondet_bool()) { __tl_end = 1; return; }",
        f"    __tl_cur = {nondet_el}();", "    __tl_have = 1;", "}",
        "int tl_peek(int k) {", "    if (!__tl_have && !__tl_end) __tl_next();",
        "    if (__tl_end) exit(0);  /* a read at the end stops the filter */", "    return __tl_cur;", "}",
        "int tl_in(void) { int c = tl_peek(0); __tl_have = 0; return c; }",
        "int tl_eof(void) { if (!__tl_have && !__tl_end) __tl_next(); return __tl_end; }",
        'void tl_out(int c) { printf("%d\\n", c); }',
        f"int __tl_main(void) {{ {function}(); return 0; }}", ""])


GCC_PRELUDE = r"""/* tracelearn: the inputs of the stream harness from stdin (one number per line) */
#include <stdio.h>
#include <stdlib.h>
static long __tl_read(void) { long v; if (scanf("%ld", &v) != 1) return 1; return v; }
_Bool __VERIFIER_nondet_bool(void) { return __tl_read() != 0; }
signed char __VERIFIER_nondet_char(void) { return (signed char)__tl_read(); }
short __VERIFIER_nondet_short(void) { return (short)__tl_read(); }
int __VERIFIER_nondet_int(void) { return (int)__tl_read(); }
int __tl_main(void);
int main(void) { return __tl_main(); }
"""
