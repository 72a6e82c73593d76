"""Symbolic finite transducers with lookback (Sigma*, Sec. 4), plus an initial and a
final output (our end-of-input extension).

A transducer reads a stream of ``bits``-bit signed elements. Its guards and outputs
are z3 terms over the window ``w0`` (the element read), ``w1`` (the one before), ...
``w<lookback>``. Before the stream's start the window holds the bottom value: a
transition whose guard or outputs read it is not enabled (Sigma*: every comparison
with bottom is false), whatever the rest of its guard says (``true || x[-1] < 0`` too:
the operations, the generated C and the oracle read a term's places, not its value).
Every state is final. On input ``a0 .. a(n-1)`` a run writes the
initial output, then each transition's outputs, then the outputs of the first
enabled final move of the last state (window relative to position ``n``: ``w1`` is the
last element; none enabled: nothing). Outputs are 32-bit (C's ``int``).

A ``nondeterministic`` transducer may take any enabled move, and at the end any enabled
final move (none enabled: nothing): ``outputs`` gives every output of its runs. The
operations on transducers (composition, union, single-valuedness, equivalence) are in
``transducer_algebra``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from ..bvterm import TermFacts, Undefined, compile_term, window_vars  # noqa: F401 - window_vars: the automata's name for it
from ..z3dag import any_of, assert_all, holds, signed

OUT_BITS = 32

# The guard lists of states' moves proved disjoint, by their AST ids (the terms kept: an
# id is reused once its term is gone): ``Transducer.overlapping`` asks each list once.
DisjointGuards = dict[tuple[int, ...], list[z3.BoolRef]]


@dataclass(frozen=True)
class Move:
    src: int
    guard: z3.BoolRef
    outputs: tuple[z3.ExprRef, ...]
    dst: int


@dataclass(frozen=True)
class FinalMove:
    src: int
    guard: z3.BoolRef
    outputs: tuple[z3.ExprRef, ...]


def window(j: int, bits: int) -> z3.BitVecRef:
    return z3.BitVec(f"w{j}", bits)


def read_later(t: "Transducer") -> list[frozenset[int]]:
    """Per state, the places ``w<j>`` (j >= 1: elements read already, as the state's
    next move sees them) that some run from it reads, in a move's guard or outputs or
    a final move's: its own moves' places, and one less than a successor's (each step
    moves the window one place). What the window holds elsewhere is never used again."""
    places = t.facts.places if t.facts is not None else window_vars  # (a conjecture's terms recur)
    live: list[set[int]] = [set() for _ in range(t.states)]
    for m in [*t.moves, *t.finals]:
        for x in (m.guard, *m.outputs):
            live[m.src].update(j for j in places(x) if j >= 1)
    changed = True
    while changed:  # at most lookback rounds: a place only moves nearer
        changed = False
        for m in t.moves:
            more = {j - 1 for j in live[m.dst] if j >= 2} - live[m.src]
            if more:
                live[m.src] |= more
                changed = True
    return [frozenset(s) for s in live]


@dataclass
class Transducer:
    bits: int  # element width
    states: int
    initial: int = 0
    moves: list[Move] = field(default_factory=list)
    finals: list[FinalMove] = field(default_factory=list)
    initial_output: tuple[int, ...] = ()
    names: list[str] = field(default_factory=list)  # a label per state (e.g. its access word)
    chars: bool = False  # the elements are C chars: constants read as character literals
    nondeterministic: bool = False  # any enabled move may be taken (else the first enabled)
    # shared by the conjectures of one learning run (their terms recur round after round)
    facts: TermFacts | None = field(default=None, repr=False, compare=False)
    _compiled: dict | None = field(default=None, repr=False, compare=False)
    _by_src: dict[int, list[Move]] | None = field(default=None, init=False, repr=False, compare=False)
    _finals_by_src: dict[int, list[FinalMove]] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def lookback(self) -> int:
        return self._compile()["lookback"]

    def out_of(self, q: int) -> list[Move]:
        """``q``'s moves in order (indexed once: the oracle asks of every node's state,
        and a snippet escaper's conjecture has thousands of states). The moves of a
        transducer are not changed once it is used, as ``_compile`` assumes too."""
        if self._by_src is None:
            self._by_src = {}
            for m in self.moves:
                self._by_src.setdefault(m.src, []).append(m)
        return list(self._by_src.get(q, ()))

    def finals_of(self, q: int) -> list[FinalMove]:
        """``q``'s final moves in order (indexed once, as :meth:`out_of`)."""
        if self._finals_by_src is None:
            self._finals_by_src = {}
            for f in self.finals:
                self._finals_by_src.setdefault(f.src, []).append(f)
        return list(self._finals_by_src.get(q, ()))

    # ------------------------------------------------------------------ running

    def _compile(self) -> dict:
        if self._compiled is None:
            by_src: dict[int, list[Move]] = {}
            for m in self.moves:
                by_src.setdefault(m.src, []).append(m)
            fin: dict[int, list[Move]] = {}
            for f in self.finals:
                fin.setdefault(f.src, []).append(f)
            # the window read, and each term compiled when a run first needs it (a
            # separating input's replay visits a few of a conjecture's moves)
            facts = self.facts if self.facts is not None else TermFacts()
            k = 0
            reach: dict[int, tuple[int, int]] = {}  # id(move) -> (its nearest, its farthest place)
            for m in [*self.moves, *self.finals]:
                ps = set().union(*(facts.places(t) for t in (m.guard, *m.outputs)))
                reach[id(m)] = (min(ps, default=1), max(ps, default=0))
                k = max(k, reach[id(m)][1])
            self._compiled = {"moves": by_src, "finals": fin, "lookback": k, "terms": facts.compiled,
                              "reach": reach}
        return self._compiled

    def _fn(self, t: z3.ExprRef):
        return compile_term(t, self._compile()["terms"])

    def compile_all(self) -> None:
        """Every guard and output compiled now (``UnsupportedTerm`` for one outside the
        bit-vector terms a run evaluates, floating point say), not at the first run
        that needs it."""
        for m in [*self.moves, *self.finals]:
            for t in (m.guard, *m.outputs):
                self._fn(t)

    def run(self, values: list[int]) -> list[int] | None:
        """The output on ``values``, or None when no transition is enabled (the input is
        outside the transducer's domain)."""
        steps = self.trace(values)
        if steps is None:
            return None
        out = list(self.initial_output)
        for s in steps[:-1]:
            out.extend(s)
        return out + steps[-1]

    def outputs(self, values: list[int]) -> set[tuple[int, ...]]:
        """The outputs of every run on ``values`` (empty: outside the domain); a
        deterministic transducer's one run."""
        if not self.nondeterministic:
            out = self.run(values)
            return set() if out is None else {tuple(out)}
        c = self._compile()
        k = c["lookback"]
        mask = (1 << self.bits) - 1

        def env(n: int, i: int) -> dict:
            return {f"w{j}": (values[i - j] & mask if 0 <= i - j < n else None) for j in range(k + 1)}

        def enabled(m, e: dict, at: int, final: bool = False) -> list[int] | None:
            near, far = c["reach"][id(m)]
            if far > at or (final and near == 0):  # reads before the start (or w0 at the end)
                return None
            try:
                return [signed(self._fn(o)(e), OUT_BITS) for o in m.outputs] if self._fn(m.guard)(e) else None
            except Undefined:
                return None

        # the runs as a set of (state, output so far): a word of n elements has at most
        # states x outputs of them, not one per path
        runs = {(self.initial, tuple(self.initial_output))}
        for i in range(len(values)):
            e = env(i + 1, i)
            runs = {(m.dst, out + tuple(o)) for q, out in runs for m in c["moves"].get(q, [])
                    if (o := enabled(m, e, i)) is not None}
        e = env(len(values), len(values))
        done: set[tuple[int, ...]] = set()
        for q, out in runs:
            ends = [o for f in c["finals"].get(q, []) if (o := enabled(f, e, len(values), True)) is not None]
            done.update(out + tuple(o) for o in ends) if ends else done.add(out)
        return done

    def trace(self, values: list[int]) -> list[list[int]] | None:
        """The outputs of each transition on ``values``, then those of the final move."""
        c = self._compile()
        k = c["lookback"]
        steps: list[list[int]] = []
        q = self.initial
        mask = (1 << self.bits) - 1
        reach = c["reach"]
        for i in range(len(values)):
            env = {f"w{j}": (values[i - j] & mask if i - j >= 0 else None) for j in range(k + 1)}
            for m in c["moves"].get(q, []):
                if reach[id(m)][1] > i:  # it reads before the stream's start: not enabled
                    continue
                try:
                    if self._fn(m.guard)(env):
                        steps.append([signed(self._fn(o)(env), OUT_BITS) for o in m.outputs])
                        q = m.dst
                        break
                except Undefined:
                    continue
            else:
                return None
        n = len(values)
        env = {f"w{j}": (values[n - j] & mask if 0 <= n - j < n else None) for j in range(k + 1)}
        for f in c["finals"].get(q, []):
            if reach[id(f)][0] == 0 or reach[id(f)][1] > n:  # w0 (none at the end), or before the start
                continue
            try:
                if self._fn(f.guard)(env):
                    return steps + [[signed(self._fn(o)(env), OUT_BITS) for o in f.outputs]]
            except Undefined:
                continue
        return steps + [[]]

    # ------------------------------------------------------------------ checks

    def overlapping(self, known: DisjointGuards | None = None) -> tuple[Move, Move] | None:
        """Two transitions from one state whose guards overlap (not deterministic), if any.
        ``known``: guard lists already proved disjoint (by their AST ids, terms kept)."""
        for q in range(self.states):
            ms = self.out_of(q)
            if known is not None:
                gkey = tuple(m.guard.get_id() for m in ms)
                hit = known.get(gkey)
                if hit is not None and all(a.eq(m.guard) for a, m in zip(hit, ms)):
                    continue
            s = z3.Solver()
            # one question per move (does it overlap any later one?), not one per pair:
            # a state of an escaper has dozens of moves
            for i in range(len(ms) - 1):
                s.push()
                assert_all(s, [ms[i].guard, any_of([m.guard for m in ms[i + 1:]])])
                answer = s.check()
                if answer == z3.sat:
                    model = s.model()
                    j = next(j for j in range(i + 1, len(ms)) if holds(model, [ms[j].guard]))
                    return ms[i], ms[j]
                if answer == z3.unknown:  # undecided: a pair that may overlap, never "deterministic"
                    maybe = next((m for m in ms[i + 1:] if _maybe_both(ms[i].guard, m.guard)), None)
                    if maybe is not None:
                        return ms[i], maybe
                s.pop()
            if known is not None:
                known[gkey] = [m.guard for m in ms]
        return None

    # ------------------------------------------------------------------ output

    def to_json(self) -> dict:
        pr = TermPrinter(self.chars)

        def move(m) -> dict:
            return {"guard": term_text(m.guard, printer=pr), "outputs": [term_text(o, printer=pr) for o in m.outputs],
                    "outputs_text": outputs_text(m.outputs, printer=pr),
                    "guard_smt": m.guard.sexpr(), "outputs_smt": [o.sexpr() for o in m.outputs]}

        return {
            "element_bits": self.bits,
            "lookback": self.lookback,
            "states": self.states,
            "initial": self.initial,
            "initial_output": list(self.initial_output),
            "state_names": self.names,
            "chars": self.chars,
            "nondeterministic": self.nondeterministic,
            "transitions": [{"from": m.src, "to": m.dst, **move(m)} for m in self.moves],
            "final": [{"state": f.src, **move(f)} for f in self.finals],
        }

    @staticmethod
    def from_json(d: dict) -> "Transducer":
        """The transducer of a ``to_json`` document: its guards and outputs read back
        from their SMT-LIB text over the window ``w0 .. w<lookback>``."""
        decls = {f"w{j}": window(j, d["element_bits"]) for j in range(d["lookback"] + 1)}

        def guard(text: str) -> z3.BoolRef:
            return z3.parse_smt2_string(f"(assert {text})", decls=decls)[0]

        def term(text: str) -> z3.ExprRef:  # a term is read as one side of an equation
            return z3.parse_smt2_string(f"(assert (= {text} {text}))", decls=decls)[0].arg(0)

        def parts(m: dict) -> tuple[z3.BoolRef, tuple[z3.ExprRef, ...]]:
            return guard(m["guard_smt"]), tuple(term(o) for o in m["outputs_smt"])

        moves = [Move(m["from"], *parts(m), m["to"]) for m in d["transitions"]]
        finals = [FinalMove(f["state"], *parts(f)) for f in d["final"]]
        return Transducer(d["element_bits"], d["states"], d["initial"], moves, finals, tuple(d["initial_output"]),
                          list(d["state_names"]), d["chars"], nondeterministic=d.get("nondeterministic", False))

    def to_dot(self, name: str = "transducer") -> str:
        lines = [f'digraph "{name}" {{', "  rankdir=LR;", '  node [shape=circle, fontname="monospace"];',
                 '  edge [fontname="monospace"];', '  __start [shape=point];']
        init = f" / {', '.join(map(str, self.initial_output))}" if self.initial_output else ""
        lines.append(f'  __start -> q{self.initial} [label="{_esc(init)}"];')
        pr = TermPrinter(self.chars)
        for q in range(self.states):
            fins = self.finals_of(q)
            label = f"q{q}"
            if fins:
                label += "\\n" + "\\n".join(
                    _esc(f"end: {term_text(f.guard, printer=pr)} / {outputs_text(f.outputs, printer=pr)}")
                    for f in fins)
            lines.append(f'  q{q} [label="{label}", shape=doublecircle];')
        for m in self.moves:
            lab = f"{term_text(m.guard, printer=pr)} / {outputs_text(m.outputs, printer=pr) or 'ε'}"
            lines.append(f'  q{m.src} -> q{m.dst} [label="{_esc(lab)}"];')
        lines.append("}")
        return "\n".join(lines) + "\n"


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


# -------------------------------------------------------------------- text

_BIN = {z3.Z3_OP_BADD: "+", z3.Z3_OP_BSUB: "-", z3.Z3_OP_BMUL: "*", z3.Z3_OP_BAND: "&",
        z3.Z3_OP_BOR: "|", z3.Z3_OP_BXOR: "^", z3.Z3_OP_SLEQ: "<=", z3.Z3_OP_SLT: "<",
        z3.Z3_OP_SGEQ: ">=", z3.Z3_OP_SGT: ">", z3.Z3_OP_ULEQ: "<=u", z3.Z3_OP_ULT: "<u",
        z3.Z3_OP_UGEQ: ">=u", z3.Z3_OP_UGT: ">u", z3.Z3_OP_EQ: "==", z3.Z3_OP_BSDIV: "/",
        z3.Z3_OP_BSDIV_I: "/", z3.Z3_OP_BSREM: "%", z3.Z3_OP_BSREM_I: "%", z3.Z3_OP_BSHL: "<<",
        z3.Z3_OP_BASHR: ">>", z3.Z3_OP_BLSHR: ">>u", z3.Z3_OP_BUDIV: "/u", z3.Z3_OP_BUDIV_I: "/u",
        z3.Z3_OP_BUREM: "%u", z3.Z3_OP_BUREM_I: "%u", z3.Z3_OP_AND: "&&", z3.Z3_OP_OR: "||"}


def _maybe_both(a: z3.BoolRef, b: z3.BoolRef) -> bool:
    s = z3.Solver()
    s.add(a, b)
    return s.check() != z3.unsat


def term_text(e: z3.ExprRef, bits: int = 8, chars: bool = False, printer: "TermPrinter | None" = None) -> str:
    """A C-like rendering: ``x`` is the element read, ``x[-j]`` the one j before;
    sign extensions (C's promotions) are implicit. ``chars``: a constant compared with
    a term, or output whole, is a character literal when it is printable. ``printer``:
    one shared by many terms (a transducer's guards share most of their subterms)."""
    pr = printer if printer is not None else TermPrinter(chars)
    return pr.operand(e) if z3.is_bv_value(e) else pr.text(e)


_COMPARE = {z3.Z3_OP_EQ, z3.Z3_OP_SLEQ, z3.Z3_OP_SLT, z3.Z3_OP_SGEQ, z3.Z3_OP_SGT, z3.Z3_OP_ULEQ,
            z3.Z3_OP_ULT, z3.Z3_OP_UGEQ, z3.Z3_OP_UGT}

_ESCAPES = {0: "\\0", 9: "\\t", 10: "\\n", 13: "\\r", 92: "\\\\"}


def char_literal(v: int, quote: str = "'") -> str | None:
    """``v`` (a byte, either sign) as a C character literal, or None when it has no
    readable one."""
    if not -128 <= v <= 255:
        return None
    c = v & 0xFF
    if c in _ESCAPES:
        return f"{quote}{_ESCAPES[c]}{quote}"
    if c == ord(quote):
        return f"{quote}\\{quote}{quote}"
    return f"{quote}{chr(c)}{quote}" if 32 <= c < 127 else None


def outputs_text(outputs: tuple | list, chars: bool = False, printer: "TermPrinter | None" = None) -> str:
    """What a move writes: with ``chars``, runs of printable constants read as one
    string literal (``"&lt;"``)."""
    pr = printer if printer is not None else TermPrinter(chars)
    parts: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) == 1:
            parts.append(f"'{run[0]}'" if run[0] != "'" else "'\\''")
        elif run:
            parts.append('"' + "".join(run) + '"')
        run.clear()

    for o in outputs:
        lit = char_literal(signed(o.as_long(), o.size()), '"') if pr.chars and z3.is_bv_value(o) else None
        if lit is not None:
            run.append(lit[1:-1])
        else:
            flush()
            parts.append(term_text(o, printer=pr))
    flush()
    return ", ".join(parts)


class TermPrinter:
    """Renders terms, each distinct subterm once: guards are DAGs whose shared parts,
    walked as trees through z3's Python API, took seconds per transducer."""

    def __init__(self, chars: bool = False) -> None:
        self.chars = chars
        self._memo: dict[int, tuple[z3.ExprRef, str]] = {}  # ast id -> (term kept alive, text)

    def text(self, e: z3.ExprRef) -> str:
        hit = self._memo.get(e.get_id())
        if hit is None:
            hit = (e, self._render(e))
            self._memo[e.get_id()] = hit
        return hit[1]

    def operand(self, e: z3.ExprRef) -> str:
        """A side of a comparison (or a whole output): a constant as a character literal."""
        if self.chars and z3.is_bv_value(e):
            lit = char_literal(signed(e.as_long(), e.size()))
            if lit is not None:
                return lit
        return self.atom(e)

    def atom(self, e: z3.ExprRef) -> str:
        s = self.text(e)
        simple = z3.is_const(e) or z3.is_bv_value(e) or z3.is_app_of(e, z3.Z3_OP_SIGN_EXT) and z3.is_const(e.arg(0))
        zero = z3.is_app_of(e, z3.Z3_OP_CONCAT) and e.num_args() == 2 and z3.is_bv_value(e.arg(0)) \
            and e.arg(0).as_long() == 0  # (a zero extension)
        whole = _whole(e.arg(0) if z3.is_app_of(e, z3.Z3_OP_ZERO_EXT) else e.arg(1) if zero else e)
        simple = simple or whole is not None and z3.is_const(whole)  # x, or (x & 255): already an atom
        return s if simple else f"({s})"

    def _unsigned(self, e: z3.ExprRef) -> str:
        """``e`` zero-extended: implicit, as C's promotions are, but its constants (the
        1-bit values of a flag's ``If``, say) read unsigned."""
        if z3.is_bv_value(e):
            return str(e.as_long())
        if z3.is_app_of(e, z3.Z3_OP_ITE):
            return f"({self.text(e.arg(0))} ? {self._unsigned(e.arg(1))} : {self._unsigned(e.arg(2))})"
        whole = _whole(e)
        if whole is not None and z3.is_const(whole):  # a signed element read unsigned: (unsigned char) x
            return f"({self.text(whole)} & {(1 << whole.size()) - 1})"
        return self.text(e)

    def _render(self, e: z3.ExprRef) -> str:  # noqa: C901
        if z3.is_true(e):
            return "true"
        if z3.is_false(e):
            return "false"
        if z3.is_bv_value(e):
            return str(signed(e.as_long(), e.size()))
        k = e.decl().kind()
        if z3.is_const(e) and k == z3.Z3_OP_UNINTERPRETED:
            n = e.decl().name()
            if n.startswith("w") and n[1:].isdigit():
                return "x" if n == "w0" else f"x[-{n[1:]}]"
            return n
        ch = e.children()
        if k == z3.Z3_OP_SIGN_EXT:
            return self.text(ch[0])
        if k == z3.Z3_OP_ZERO_EXT:
            return self._unsigned(ch[0])
        if k == z3.Z3_OP_NOT:
            a = ch[0]
            if z3.is_app_of(a, z3.Z3_OP_EQ):
                return f"{self.operand(a.arg(0))} != {self.operand(a.arg(1))}"
            for op, neg in ((z3.Z3_OP_SLEQ, ">"), (z3.Z3_OP_SLT, ">="), (z3.Z3_OP_SGEQ, "<"), (z3.Z3_OP_SGT, "<=")):
                if z3.is_app_of(a, op):
                    return f"{self.operand(a.arg(0))} {neg} {self.operand(a.arg(1))}"
            return f"!({self.text(a)})"
        if k == z3.Z3_OP_BADD and len(ch) == 2:
            for a, b in ((ch[0], ch[1]), (ch[1], ch[0])):
                if z3.is_app_of(b, z3.Z3_OP_BMUL) and b.num_args() == 2 and z3.is_bv_value(b.arg(0)) \
                        and signed(b.arg(0).as_long(), b.size()) == -1:
                    return f"{self.atom(a)} - {self.atom(b.arg(1))}"
        if k == z3.Z3_OP_BMUL and len(ch) == 2 and z3.is_bv_value(ch[0]) and signed(ch[0].as_long(), ch[0].size()) == -1:
            return f"-{self.atom(ch[1])}"
        if k == z3.Z3_OP_EQ:
            sign = _sign_test(ch[0], ch[1]) or _sign_test(ch[1], ch[0])
            if sign is not None:  # a sign bit (``drop_implied_bits`` leaves them): x[7:7] == 0
                return f"{self.atom(sign[0])} {sign[1]} 0"
        if k in _COMPARE and all(z3.is_bv(c) and c.size() < 8 for c in ch):
            # a few bits of an element (x[1:0] == 3): their value, unsigned, no character
            return f" {_BIN[k]} ".join(str(c.as_long()) if z3.is_bv_value(c) else self.atom(c) for c in ch)
        if k in _COMPARE:
            return f" {_BIN[k]} ".join(self.operand(c) for c in ch)
        if k in _BIN:
            return f" {_BIN[k]} ".join(self.atom(c) for c in ch)
        if k == z3.Z3_OP_ITE:
            return f"({self.text(ch[0])} ? {self.text(ch[1])} : {self.text(ch[2])})"
        if k == z3.Z3_OP_EXTRACT:
            hi, lo = e.params()
            inner = ch[0]
            if z3.is_app_of(inner, z3.Z3_OP_SIGN_EXT) and hi < inner.arg(0).size():
                inner = inner.arg(0)  # bits of the value extended: the value's own bits
                if (hi, lo) == (inner.size() - 1, 0):
                    return self.text(inner)
            return f"{self.atom(inner)}[{hi}:{lo}]"
        if k == z3.Z3_OP_CONCAT:
            if len(ch) == 2 and z3.is_bv_value(ch[0]) and ch[0].as_long() == 0:
                return self._unsigned(ch[1])  # a zero extension
            def low(c: z3.ExprRef) -> str:  # (a part below another: its bits, unsigned)
                return str(c.as_long()) if z3.is_bv_value(c) else f"({self.atom(c)} & {(1 << c.size()) - 1})"

            out, width = low(ch[-1]), ch[-1].size()
            for c in reversed(ch[:-1]):
                top = self.atom(c) if c is ch[0] else low(c)
                out, width = f"({top} << {width}) | {out}", width + c.size()
            return out
        return str(e)


def _whole(e: z3.ExprRef) -> z3.ExprRef | None:
    """The value ``e`` is all of, when ``e`` takes a sign-extended value's own bits back
    (``x[7:0]`` of a promoted char is the char), else None."""
    if not z3.is_app_of(e, z3.Z3_OP_EXTRACT) or not z3.is_app_of(e.arg(0), z3.Z3_OP_SIGN_EXT):
        return None
    hi, lo = e.params()
    inner = e.arg(0).arg(0)
    return inner if (hi, lo) == (inner.size() - 1, 0) else None


def _sign_test(a: z3.ExprRef, b: z3.ExprRef) -> tuple[z3.ExprRef, str] | None:
    """``a == b`` as a sign test when ``a`` is a term's top bit and ``b`` 0 or 1: the term
    and ``>=`` or ``<``."""
    if not (z3.is_app_of(a, z3.Z3_OP_EXTRACT) and z3.is_bv_value(b)):
        return None
    hi, lo = a.params()
    t = a.arg(0)
    if hi != lo or hi != t.size() - 1:
        return None
    return t, ">=" if b.as_long() == 0 else "<"



