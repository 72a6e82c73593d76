"""C code for stream filters: the harness that runs a filter on a stream given as
inputs (the interpreter and gcc run it), and gcc's prelude for those inputs."""

from __future__ import annotations

import z3

from ...automata.transducer import Transducer, window_vars
from ...bvterm import UnsupportedTerm, compile_term
from ...semantics.strategies.bigstep import MAX_LOOKAHEAD
from ...semantics.symexpr import fold_sign_ext
from ...z3dag import signed


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
        f"static int __tl_buf[{MAX_LOOKAHEAD}], __tl_have, __tl_end;  /* elements read, not consumed */",
        "static int __tl_fill(int k) {  /* element k ahead is there (read now if need be) */",
        "    while (__tl_have <= k) {", "        if (__tl_end || __VERIFIER_nondet_bool()) { __tl_end = 1; return 0; }",
        f"        __tl_buf[__tl_have++] = {nondet_el}();", "    }", "    return 1;", "}",
        "int tl_peek(int k) {",
        f"    if (k < 0 || k >= {MAX_LOOKAHEAD}) exit(2);",
        "    if (!__tl_fill(k)) exit(0);  /* a read at the end stops the filter */", "    return __tl_buf[k];", "}",
        "int tl_in(void) {", "    int c = tl_peek(0);",
        "    for (int i = 1; i < __tl_have; i++) __tl_buf[i - 1] = __tl_buf[i];", "    __tl_have--;",
        "    return c;", "}",
        "int tl_eof(void) { return !__tl_fill(0); }",
        'void tl_out(int c) { printf("%d\\n", c); }',
        f"int __tl_main(void) {{ {function}(); return 0; }}", ""])


GCC_PRELUDE = r"""/* tracelearn: the inputs of the stream harness, for gcc. stdin holds one input per
   line (the harness's draws); each runs in a child process (the filter may keep
   static state, and it stops with exit), its outputs followed by a line "#". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static long *__tl_vals;
static int __tl_n, __tl_i;
static long __tl_read(void) { return __tl_i < __tl_n ? __tl_vals[__tl_i++] : 1; }
_Bool __VERIFIER_nondet_bool(void) { return __tl_read() != 0; }
signed char __VERIFIER_nondet_char(void) { return (signed char)__tl_read(); }
short __VERIFIER_nondet_short(void) { return (short)__tl_read(); }
int __VERIFIER_nondet_int(void) { return (int)__tl_read(); }
int __tl_main(void);
int main(void) {
    static char line[1 << 20];
    static long vals[1 << 18];
    while (fgets(line, sizeof line, stdin)) {
        int n = 0;
        for (char *p = strtok(line, " \n"); p && n < (1 << 18); p = strtok(NULL, " \n"))
            vals[n++] = strtol(p, NULL, 10);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            __tl_vals = vals; __tl_n = n; __tl_i = 0;
            __tl_main();
            exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        printf("#\n");
    }
    return 0;
}
"""


_T = {8: "signed char", 16: "short", 32: "int", 64: "long long"}
_UT = {8: "unsigned char", 16: "unsigned short", 32: "unsigned", 64: "unsigned long long"}


def _t(w: int) -> str:
    if w not in _T:
        raise UnsupportedTerm(f"a {w}-bit term has no C type here")
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
    if z3.is_bv_value(e):  # (a wide one: the zeros a concatenation extends with, say)
        return f"({e.as_long()})" if w <= 30 else f"({e.as_long()}ULL)"
    if w > 30:
        raise UnsupportedTerm(f"a {w}-bit term has no C type here")
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
    raise UnsupportedTerm(f"operator {e.decl().name()} on {w} bits has no C form here")


def _sx(x: str, w: int) -> str:
    return x if w in _T else f"(({x} ^ {1 << (w - 1)}) - {1 << (w - 1)})"


def c_term(e: z3.ExprRef, var: dict[str, str]) -> str:
    """``c_expr`` of ``e`` as z3 simplifies it (a learned term carries the filter's
    casts, shifts by zero and sums of negations; the simplifier writes sign extensions
    as concatenations, folded back), or of ``e`` itself where the simplified term has
    an operator with no C form here."""
    try:
        return c_expr(fold_sign_ext(z3.simplify(e)), var)
    except ValueError:
        return c_expr(e, var)


def _negated(e: z3.ExprRef) -> z3.ExprRef | None:
    """``x`` when ``e`` is ``-1 * x`` (z3's form of a negation in a sum), else None."""
    if e.decl().kind() == z3.Z3_OP_BMUL and e.num_args() == 2:
        c, x = e.children()
        if z3.is_bv_value(c) and c.as_long() == (1 << c.size()) - 1:
            return x
    return None


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
        v = signed(e.as_long(), w)
        if w == 64:
            return f"({v}LL)" if v != -(1 << 63) else "(-9223372036854775807LL - 1)"
        return f"(({_t(w)}){v})" if w != 32 else (f"({v})" if v != -(1 << 31) else "(-2147483647 - 1)")
    k = e.decl().kind()
    if z3.is_const(e) and k == z3.Z3_OP_UNINTERPRETED:
        n = e.decl().name()
        if n not in var and n.startswith("invalid.read"):
            # the value of a read out of bounds: on a branch no input takes (learning
            # completed, so the filter's bounds checks hold on every input): any value
            return f"(({_t(e.size())})0)" if e.size() in _T else "0"
        if n not in var:
            raise UnsupportedTerm(f"a term reads {n}, which the generated C has no value for")
        return f"(({_t(e.size())}){var[n]})"
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
    if k == z3.Z3_OP_BADD and any(_negated(c) is not None for c in ch):
        # x - y for z3's x + -1*y (the terms wrap: their order is free)
        terms = sorted(((_negated(c), x) for c, x in zip(ch, a)), key=lambda t: t[0] is not None)
        acc = ""
        for neg, x in terms:
            term = c_expr(neg, var) if neg is not None else x
            acc = (f"-{term}" if neg is not None else term) if not acc else \
                f"{acc} {'-' if neg is not None else '+'} {term}"
        return f"(({T})({acc}))"
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
    if k == z3.Z3_OP_CONCAT:
        acc = ""
        for c, x in zip(ch, a):
            part = f"((unsigned long long)({_ut(c.size())}){x} & {(1 << c.size()) - 1}ULL)"
            acc = part if not acc else f"(({acc} << {c.size()}) | {part})"
        return f"(({T}){acc})"
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
    raise UnsupportedTerm(f"operator {e.decl().name()} has no C form here")


def pipeline_source(first: Transducer, second_file: str, second_function: str, name: str,
                    lookahead: int = 0) -> str:
    """A C filter ``name``: the input goes through ``first`` (a learned transducer, as C),
    whose outputs are the input of ``second_function`` (C code). The second filter's
    stream operations are renamed onto a queue that the first refills, one element of
    the real input at a time; at the end of the input the first's final outputs are
    queued, and a read of the second past them stops the pipeline. ``lookahead``: the
    largest k of the second's ``tl_peek(k)`` (the queue holds that many more; its size
    is what the learner explores, so no more than needed)."""
    k = first.lookback
    var = {f"w{j}": f"__p_w{j}" for j in range(k + 1)}
    most = max([len(m.outputs) for m in first.moves] + [len(f.outputs) for f in first.finals]
               + [len(first.initial_output)] + [1])
    cap = most + 1 + lookahead
    el = {8: "signed char", 16: "short", 32: "int"}[first.bits]
    out = ["/* tracelearn: a pipeline (generated) */", "#include <tracelearn.h>", "void exit(int status);",
           "#define tl_in __p_in", "#define tl_peek __p_peek", "#define tl_eof __p_eof",
           f'#include "{second_file}"', "#undef tl_in", "#undef tl_peek", "#undef tl_eof", "",
           "static int " + ", ".join(var.values()) + ";", f"static int __p_q = {first.initial}, __p_def, __p_ended;",
           f"static int __p_buf[{cap}], __p_head, __p_len;", "",
           f"static void __p_push(int v) {{ __p_buf[(__p_head + __p_len) % {cap}] = v; __p_len++; }}", "",
           "static void __p_shift(void) {"]
    out += [f"    __p_w{j} = __p_w{j - 1};" for j in range(k, 0, -1)]
    out += [f"    if (__p_def <= {k}) __p_def++;", "}", "", "static void __p_step(int x) {", "    __p_shift();",
            f"    __p_w0 = ({el})x;"]
    out += _moves_c(first, var, "__p_push", "return", "    ")
    out += ["    __p_ended = 1;  /* no transition: outside the first filter's domain */", "}", "",
            "static void __p_final(void) {", "    __p_shift();", "    __p_w0 = 0;"]
    out += _finals_c(first, var, "__p_push")
    out += ["}", "", "static int __p_fill(int k) {", "    while (__p_len <= k) {", "        if (__p_ended) return 0;",
            "        if (tl_eof()) { __p_final(); __p_ended = 1; continue; }", "        __p_step(tl_in());", "    }",
            "    return 1;", "}", "",
            "int __p_peek(int k) {", f"    if (k < 0 || k > {lookahead}) exit(2);",
            "    if (!__p_fill(k)) tl_in();  /* a read at the end stops the pipeline */",
            f"    return __p_buf[(__p_head + k) % {cap}];", "}", "",
            "int __p_in(void) {", "    int c = __p_peek(0);",
            "    __p_buf[__p_head] = 0;  /* forget it: an old element kept would make every state new */",
            f"    __p_head = (__p_head + 1) % {cap};",
            "    __p_len--;", "    return c;", "}", "",
            "int __p_eof(void) { return !__p_fill(0); }", "",
            f"void {name}(void) {{"]
    out += [f"    __p_push({v});" for v in first.initial_output]
    out += [f"    {second_function}();", "}", ""]
    return "\n".join(out)


def _moves_c(t: Transducer, var: dict[str, str], emit: str, leave: str, ind: str) -> list[str]:
    """C for one step of ``t`` in state ``__p_q``: the enabled transition writes its
    outputs with ``emit``, moves, and ends the step with ``leave``."""
    return [line for q in range(t.states) for line in _state_c(t, q, var, emit, leave, ind)]


def _state_c(t: Transducer, q: int, var: dict[str, str], emit: str, leave: str, ind: str) -> list[str]:
    """``_moves_c`` for state ``q``: its guards in order."""
    out = [f"{ind}if (__p_q == {q}) {{"]
    for m in t.out_of(q):
        out.append(f"{ind}    if ({_enabled(m.guard, m.outputs, var)}) {{")
        out += [f"{ind}        {emit}({c_term(o, var)});" for o in m.outputs]
        out += [f"{ind}        __p_q = {m.dst};", f"{ind}        {leave};", f"{ind}    }}"]
    return out + [f"{ind}}}"]


def _moves_table_c(t: Transducer, var: dict[str, str]) -> list[str]:
    """One step of ``t`` (8-bit elements, every window place there): in a state whose
    guards read only the element itself, a table of the 256 values gives the move (as
    gcc makes a switch of the filter's own), else the guards in order."""
    out = []
    for q in range(t.states):
        moves = t.out_of(q)
        try:
            fns = [compile_term(m.guard) for m in moves] if moves and not any(
                window_vars(m.guard) - {0} for m in moves) else None
        except ValueError:  # a guard outside the compiled fragment
            fns = None
        if fns is None:
            out += _state_c(t, q, var, "__P_EMIT", "return __p_q", "    ")
            continue
        row = []
        for v in range(256):
            hit = next((i for i, f in enumerate(fns) if f({"w0": v})), -1)
            row.append(str(hit))
        out.append(f"    if (__p_q == {q}) {{")
        out.append(f"        static const signed char __p_t{q}[256] = {{{', '.join(row)}}};")
        out.append(f"        switch (__p_t{q}[(unsigned char)__p_w0]) {{")
        for i, m in enumerate(moves):
            out.append(f"        case {i}:")
            out += [f"            __P_EMIT({c_term(o, var)});" for o in m.outputs]
            out.append(f"            return {m.dst};")
        out += ["        default:", "            return -1;", "        }", "    }"]
    return out


def _finals_c(t: Transducer, var: dict[str, str], emit: str) -> list[str]:
    """C for the end of the input: the first enabled final move of ``__p_q``."""
    out = []
    for f in t.finals:
        cond = _enabled(f.guard, f.outputs, var, final=True)
        out.append(f"    if (__p_q == {f.src}{'' if cond == '1' else ' && ' + cond}) {{")
        out += [f"        {emit}({c_term(o, var)});" for o in f.outputs]
        out += ["        return;", "    }"]
    return out


def _enabled(guard: z3.BoolRef, outputs: tuple, var: dict[str, str], final: bool = False) -> str:
    """C for: the guard holds and every window place it (or an output) reads exists
    (``__p_def`` only grows: the farthest place read is the one to test)."""
    used = set().union(window_vars(guard), *(window_vars(o) for o in outputs))
    if final and 0 in used:
        return "0"
    parts = [f"__p_def > {max(used)}"] if used else []
    cond = c_term(guard, var)
    return " && ".join(parts + ([cond] if cond != "1" else [])) or "1"


def transducer_filter(t: Transducer, name: str) -> str:
    """A C stream filter ``name`` computing ``t`` (filter fusion: a learned pipeline
    written back as one filter)."""
    k = t.lookback
    var = {f"w{j}": f"__p_w{j}" for j in range(k + 1)}
    el = {8: "signed char", 16: "short", 32: "int"}[t.bits]
    out = [f"/* tracelearn: the transducer of {name} as a filter (generated) */", "#include <tracelearn.h>", "",
           f"void {name}(void) {{", f"    int __p_q = {t.initial}, __p_def = 0;",
           "    int " + ", ".join(f"{v} = 0" for v in var.values()) + ";"]
    out += [f"    tl_out({v});" for v in t.initial_output]
    out += ["    while (!tl_eof()) {", f"        {var['w0']} = 0;"]
    shift = [f"        __p_w{j} = __p_w{j - 1};" for j in range(k, 0, -1)]
    out = out[:-1] + shift + [f"        __p_w0 = ({el})tl_in();", f"        if (__p_def <= {k}) __p_def++;"]
    out += _moves_c(t, var, "tl_out", "continue", "        ")
    out += ["        return;  /* no transition: outside the transducer's domain */", "    }"]
    out += [s[4:] for s in shift] + ["    __p_w0 = 0;", f"    if (__p_def <= {k}) __p_def++;"]
    out += _finals_c(t, var, "tl_out")
    out += ["}", ""]
    return "\n".join(out)


def array_source(t: Transducer, name: str) -> str:
    """A C translation unit computing ``t`` on an array, sequentially and in parallel
    (data-parallel code for a stateful filter):

    - ``long NAME_capacity(long n)``: outputs at most, for ``n`` elements;
    - ``long NAME_seq(const EL *in, long n, int *out)``: the outputs, their count;
    - ``long NAME_par(const EL *in, long n, int *out, int threads)``: the same outputs.

    In parallel, the input is cut into one chunk per thread. The first chunk runs from
    the initial state. Every other chunk runs from every state at once (its window is
    the input's, known), the runs in step, until all that are left are in one state;
    from there one run goes on for all. Then the chunks are stitched in order: each
    takes the run of the state the chunk before ended in. A filter whose runs meet
    soon (an escaper forgets its state at most characters) costs little more than one
    run per chunk. Where every state's moves all go to one state (base64's phase: the
    runs never meet), the state a chunk starts in depends on its position alone, and
    that run alone is made; else a filter whose runs never meet costs one per state.
    A transition missing stops the filter there (no final outputs), as the stream
    filter does."""
    k = t.lookback
    var = {f"w{j}": f"__p_w{j}" for j in range(k + 1)}
    el = {8: "signed char", 16: "short", 32: "int"}[t.bits]
    most = max([len(m.outputs) for m in t.moves] + [1])
    fmost = max([len(f.outputs) for f in t.finals] + [0])
    q = t.states

    def window(pos: str, at_end: bool, full: bool = False) -> list[str]:
        # after element i the filter holds min(i + 1, k + 1) elements; at the end one more;
        # ``full``: at i >= k, where every place exists (gcc then drops the checks)
        if full:
            lines = [f"    const int __p_def = {k + 1};", f"    int __p_w0 = in[{pos}];"]
            lines += [f"    int __p_w{j} = in[{pos} - {j}];" for j in range(1, k + 1)]
        else:
            lines = [f"    int __p_def = {pos} + 1 < {k + 1} ? (int)({pos} + 1) : {k + 1};"]
            lines.append(f"    int __p_w0 = {'0' if at_end else f'in[{pos}]'};")
            lines += [f"    int __p_w{j} = {pos} >= {j} ? in[{pos} - {j}] : 0;" for j in range(1, k + 1)]
        lines += [f"    (void)__p_w{j};" for j in range(k + 1)] + ["    (void)__p_def;"]
        return lines

    out = [f"/* tracelearn: the transducer of {name} on arrays, sequential and parallel (generated) */",
           "#include <pthread.h>", "#include <stdlib.h>", "#include <string.h>", "",
           "/* inlined at every call, or the output count lives in memory: the parallel worker calls",
           "   the step twice, and gcc then keeps it out of line (twice as slow per element) */",
           "#define __P_INLINE static inline __attribute__((always_inline))",
           f"#define __P_Q {q}", f"#define __P_MOST {most}", "#define __P_EMIT(v) (o[(*no)++] = (v))", "",
           f"__P_INLINE int __p_step_start(int __p_q, const {el} *in, long i, int *o, long *no) {{"]
    out += window("i", False)
    out += _moves_c(t, var, "__P_EMIT", "return __p_q", "    ")
    out += ["    return -1;  /* no transition: outside the transducer's domain */", "}", "",
            f"__P_INLINE int __p_step_full(int __p_q, const {el} *in, long i, int *o, long *no) {{"]
    out += window("i", False, full=True)
    out += _moves_table_c(t, var) if t.bits == 8 else _moves_c(t, var, "__P_EMIT", "return __p_q", "    ")
    out += ["    return -1;", "}", "",
            f"__P_INLINE int __p_step(int q, const {el} *in, long i, int *o, long *no) {{",
            f"    return i >= {k} ? __p_step_full(q, in, i, o, no) : __p_step_start(q, in, i, o, no);", "}", "",
            f"static void __p_final(int __p_q, const {el} *in, long n, int *o, long *no) {{"]
    out += window("n", True)
    out += _finals_c(t, var, "__P_EMIT")
    out += ["}", ""]
    # the one successor of each state, whatever the input (-1: more than one, or none)
    succ = []
    for st in range(q):
        dsts = {m.dst for m in t.out_of(st)}
        succ.append(dsts.pop() if len(dsts) == 1 else -1)
    out += [f"#define __P_BLIND {int(all(d >= 0 for d in succ))}",
            f"static const int __attribute__((unused)) __p_succ[__P_Q] = {{{', '.join(map(str, succ))}}};", ""]
    initial = "".join(f"    __P_EMIT({v});\n" for v in t.initial_output)
    runtime = (_ARRAY_RUNTIME.replace("@NAME@", name).replace("@EL@", el).replace("@INIT@", str(t.initial))
               .replace("@CAP0@", str(len(t.initial_output) + fmost)).replace("@INITIAL@\n", initial))
    return "\n".join(out) + runtime


_ARRAY_RUNTIME = r"""
long @NAME@_capacity(long n) { return @CAP0@ + __P_MOST * n; }

long @NAME@_seq(const @EL@ *in, long n, int *out) {
    long __n = 0, *no = &__n;
    int *o = out, s = @INIT@;
@INITIAL@
    for (long i = 0; i < n; i++)
        if ((s = __p_step(s, in, i, o, no)) < 0)
            return __n;
    __p_final(s, in, n, o, no);
    return __n;
}

/* The state after ``steps`` elements from ``s`` when every state has one successor
   whatever the input (__P_BLIND): a walk round the successors' cycle, not the input. */
static int __attribute__((unused)) __p_after(int s, long steps) {
    long at[__P_Q];
    for (int q = 0; q < __P_Q; q++)
        at[q] = -1;
    for (long i = 0; i < steps; i++) {
        if (at[s] >= 0) {  /* on the cycle: what is left of the steps, modulo its length */
            for (long left = (steps - i) % (i - at[s]); left > 0; left--)
                s = __p_succ[s];
            return s;
        }
        at[s] = i;
        s = __p_succ[s];
    }
    return s;
}

struct __p_chunk {
    const @EL@ *in;
    long lo, hi;
    int from;                      /* the one state this chunk starts in, if known (-1: any) */
    int end[__P_Q], joined[__P_Q]; /* per start state: the state at hi (-1: stopped), whether it met the others */
    int *pre[__P_Q];               /* per start state: its outputs before the runs met */
    long npre[__P_Q], cap[__P_Q];
    int *rest;                     /* the outputs of the one run after they met: in out, provisionally */
    long nrest;
};

static void *__p_work(void *arg) {
    struct __p_chunk *c = arg;
    int cur[__P_Q], one = -1, same = 1;
    long i = c->lo;
    for (int s = 0; s < __P_Q; s++) {
        cur[s] = c->from >= 0 && s != c->from ? -1 : s;
        c->npre[s] = c->cap[s] = 0;
        c->pre[s] = 0;
        c->joined[s] = 0;
    }
    for (;;) {  /* the runs from every state, in step, until those left are in one state */
        same = 1;
        one = -1;
        for (int s = 0; s < __P_Q; s++)
            if (cur[s] >= 0) {
                if (one < 0)
                    one = cur[s];
                else if (cur[s] != one) {
                    same = 0;
                    break;
                }
            }
        if (same || i >= c->hi)
            break;
        for (int s = 0; s < __P_Q; s++) {
            if (cur[s] < 0)
                continue;
            if (c->npre[s] + __P_MOST > c->cap[s]) {
                c->cap[s] = 2 * c->cap[s] + 64 * __P_MOST;
                c->pre[s] = realloc(c->pre[s], sizeof(int) * c->cap[s]);
            }
            cur[s] = __p_step(cur[s], c->in, i, c->pre[s], &c->npre[s]);
        }
        i++;
    }
    c->nrest = 0;
    if (!same || one < 0) {  /* the chunk ended before the runs met, or all stopped */
        for (int s = 0; s < __P_Q; s++)
            c->end[s] = cur[s];
        return 0;
    }
    int q = one, *rest = c->rest;
    long nrest = 0, hi = c->hi;
    const @EL@ *in = c->in;
    for (; i < hi && q >= 0; i++)  /* on locals: the count in a register */
        q = __p_step(q, in, i, rest, &nrest);
    c->nrest = nrest;
    for (int s = 0; s < __P_Q; s++) {
        c->joined[s] = cur[s] >= 0;
        c->end[s] = cur[s] >= 0 ? q : -1;
    }
    return 0;
}

long @NAME@_par(const @EL@ *in, long n, int *out, int threads) {
    if (threads < 2 || n < 2 * threads)
        return @NAME@_seq(in, n, out);
    struct __p_chunk *cs = calloc(threads, sizeof *cs);
    pthread_t *ts = calloc(threads, sizeof *ts);
    long __n = 0, *no = &__n;
    int *o = out, s = @INIT@;
@INITIAL@
    for (int c = 0; c < threads; c++) {
        cs[c].in = in;
        cs[c].lo = n * c / threads;
        cs[c].hi = n * (c + 1) / threads;
        /* the first chunk from the initial state; with one successor per state, every
           chunk from the state its position gives (a run that stops before it stops the
           stitching there) */
        cs[c].from = c == 0 ? @INIT@ : __P_BLIND ? __p_after(@INIT@, cs[c].lo) : -1;
    }
    /* Each chunk's one run writes into out at MOST outputs per element before it (the
       chunks' places cannot overlap), then moves back to its place: the first chunk's is
       its place already; a later one's differs by less than its own length. */
    for (int c = 0; c < threads; c++)
        cs[c].rest = out + __n + __P_MOST * cs[c].lo;
    for (int c = 1; c < threads; c++)
        if (pthread_create(&ts[c], 0, __p_work, &cs[c]))
            __p_work(&cs[c]);  /* no thread: here */
    __p_work(&cs[0]);
    for (int c = 1; c < threads; c++)
        pthread_join(ts[c], 0);
    __n += cs[0].nrest;  /* in place */
    s = cs[0].end[s];
    for (int c = 1; c < threads && s >= 0; c++) {  /* stitched: the run of the state the chunk before ended in */
        long at = __n + cs[c].npre[s];
        if (cs[c].joined[s]) {  /* first the run (its place may overlap where it was), then what came before */
            memmove(out + at, cs[c].rest, sizeof(int) * cs[c].nrest);
            at += cs[c].nrest;
        }
        if (cs[c].npre[s])
            memcpy(out + __n, cs[c].pre[s], sizeof(int) * cs[c].npre[s]);
        __n = at;
        s = cs[c].end[s];
    }
    if (s >= 0)
        __p_final(s, in, n, o, no);
    for (int c = 0; c < threads; c++) {
        for (int q = 0; q < __P_Q; q++)
            free(cs[c].pre[q]);
    }
    free(cs);
    free(ts);
    return __n;
}
"""
