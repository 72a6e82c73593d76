"""Bounded model checking on one incremental encoding.

``Encoding`` is the program unwound to one bound, asserted once into one z3
solver; every question (is a check violated? can a loop exceed the bound? is
there a path with these events?) is posed as assumptions or temporary
constraints on it. ``check`` deepens the bound until it has a verdict.
"""

from __future__ import annotations

import math
import struct
import time
from dataclasses import dataclass, field
from typing import Callable

import z3

from ..errors import OptionError
from ..ir.program import Program, SourceLoc, is_library_file
from ..ir.types import ArrayType, CType, FloatType, IntType, PointerType
from .equation import Equation, Step
from .inputs import InputSource
from .memory import decode
from .interpreter import ALL_CHECKS, Interpreter, InterpOptions
from ..bigstack import run_with_big_stack
from .solving import check_sat
from .strategies.unwind import MergedUnwinding, UnwindOptions
from .symbolic import SemanticsOptions, SymbolicSemantics, SymexLimit
from .targets import EquationTarget


@dataclass
class SolverStats:
    calls: int = 0
    time_s: float = 0.0
    encode_time_s: float = 0.0
    constraints: int = 0
    steps: int = 0

    def add(self, other: "SolverStats") -> None:
        self.calls += other.calls
        self.time_s += other.time_s
        self.encode_time_s += other.encode_time_s
        self.constraints = max(self.constraints, other.constraints)
        self.steps = max(self.steps, other.steps)

    def to_json(self) -> dict:
        return {"solver_calls": self.calls, "solver_time_s": round(self.time_s, 4),
                "encoding_time_s": round(self.encode_time_s, 4), "formula_size": self.constraints,
                "equation_steps": self.steps}


class Encoding:
    """The program unwound to ``bound`` (merged exploration into an equation target),
    asserted into one incremental solver."""

    def __init__(self, program: Program, bound: int, loop_bounds: dict[str, int] | None = None,
                 timeout_s: float | None = None, max_steps: int = 2_000_000, deadline: float | None = None,
                 semantics: SemanticsOptions | None = None, unwinding: UnwindOptions | None = None) -> None:
        t0 = time.perf_counter()
        self.program = program
        self.bound = bound
        sem_opts = semantics or SemanticsOptions()
        sem_opts.max_steps = max_steps
        unwind = unwinding or UnwindOptions()
        unwind.bound = bound
        unwind.loop_bounds = dict(loop_bounds or unwind.loop_bounds)
        sem = SymbolicSemantics(program, sem_opts, EquationTarget(bound))
        sem.deadline = deadline
        strategy = MergedUnwinding(sem, unwind)
        self.deadline = deadline  # every query gets the time left before it
        try:
            self.eq: Equation = run_with_big_stack(strategy.run)
        except RecursionError:
            raise SymexLimit("program nests calls too deeply for the unwinding") from None
        self.semantics = sem
        self.solver = z3.Solver()
        if timeout_s is not None:
            self.solver.set("timeout", max(1, int(timeout_s * 1000)))
        for c in self.eq.constraints:
            self.solver.add(c)
        self.stats = SolverStats(calls=strategy.prune_calls, time_s=strategy.prune_time,
                                 encode_time_s=time.perf_counter() - t0 - strategy.prune_time,
                                 constraints=len(self.eq.constraints), steps=len(self.eq.steps))
        self._lits = 0

    def set_timeout(self, seconds: float | None) -> None:
        if seconds is not None:
            self.solver.set("timeout", max(1, int(seconds * 1000)))

    def literal(self, goal: z3.BoolRef) -> z3.BoolRef:
        """A fresh assumption literal implying ``goal`` (incremental: no push/pop)."""
        self._lits += 1
        lit = z3.Bool(f"goal#{self._lits}")
        self.solver.add(z3.Implies(lit, goal))
        return lit

    def solve(self, goal: z3.BoolRef | None = None, assumptions: list[z3.BoolRef] | None = None,
              extra: list[z3.BoolRef] | None = None) -> tuple[str, z3.ModelRef | None]:
        """``sat``/``unsat``/``unknown`` and a model for sat."""
        assumptions = list(assumptions or [])
        if goal is not None:
            assumptions.append(self.literal(goal))
        t0 = time.perf_counter()
        if extra:
            self.solver.push()
            for c in extra:
                self.solver.add(c)
        try:
            r = check_sat(self.solver, assumptions, self.deadline)
            model = self.solver.model() if r == z3.sat else None
        finally:
            if extra:
                self.solver.pop()
            self.stats.calls += 1
            self.stats.time_s += time.perf_counter() - t0
        return str(r), model

    def checks(self, kinds: frozenset[str]) -> list[Step]:
        return self.eq.checks(kinds)


# ---------------------------------------------------------------- values


def model_value(model: z3.ModelRef, term: z3.ExprRef, t: CType | None):
    """Python value of ``term`` in ``model`` (ints signed per type, floats, bytes)."""
    v = model.eval(term, model_completion=True)
    if isinstance(t, FloatType):
        if z3.is_true(model.eval(z3.fpIsNaN(term), model_completion=True)):
            return math.nan  # z3 leaves a NaN's bits open: asking for them gave 0.0
        bits = model.eval(z3.fpToIEEEBV(term), model_completion=True).as_long()
        fmt, ifmt = ("<f", "<I") if t.width == 32 else ("<d", "<Q")
        return struct.unpack(fmt, struct.pack(ifmt, bits))[0]
    if z3.is_bv_value(v):
        n = v.as_long()
        if isinstance(t, IntType):
            return t.wrap(n)
        if isinstance(t, PointerType) or t is None:
            return n
        return n.to_bytes(max(t.size, 1), "little")
    if z3.is_true(v):
        return 1
    if z3.is_false(v):
        return 0
    return str(v)


def elements(value, t: CType | None):
    """An array of scalars as the list of its element values (for traces; the bytes
    stay the input's value for replay)."""
    if not (isinstance(value, bytes) and isinstance(t, ArrayType) and isinstance(t.elem, (IntType, FloatType))):
        return value
    n = max(t.elem.size, 1)
    if len(value) != n * (t.length or 0):
        return value
    return [decode(t.elem, value[i:i + n]) for i in range(0, len(value), n)]


def bits_text(value, t: CType | None) -> str:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(t, FloatType):
        ifmt, fmt = ("<I", "<f") if t.width == 32 else ("<Q", "<d")
        n = struct.unpack(ifmt, struct.pack(fmt, value))[0]
        return format(n, f"0{t.width}b")
    if isinstance(t, (IntType, PointerType)):
        return format(value & ((1 << t.width) - 1), f"0{t.width}b")
    return ""


# ---------------------------------------------------------- counterexamples


@dataclass
class CexStep:
    kind: str  # assign | input | call | return | output
    loc: SourceLoc
    function: str
    lhs: str
    value: object
    type: str
    bits: str
    hidden: bool
    name: str = ""

    def to_json(self) -> dict:
        v = self.value.hex() if isinstance(self.value, bytes) else self.value
        return {"kind": self.kind, "file": self.loc.file, "line": self.loc.line, "column": self.loc.col,
                "function": self.function, "lhs": self.lhs, "value": v, "type": self.type,
                "binary": self.bits, "hidden": self.hidden, "ssa": self.name}


@dataclass
class Counterexample:
    kind: str
    prop_id: str
    loc: SourceLoc
    message: str
    function: str
    steps: list[CexStep]
    inputs: list[dict]
    input_values: list
    replay: dict = field(default_factory=dict)
    minimized: str = "none"
    value_sum: int | None = None

    @property
    def length(self) -> int:
        return sum(1 for s in self.steps if s.kind in ("assign", "input") and not s.hidden)

    def to_json(self) -> dict:
        d = {
            "property": self.prop_id, "kind": self.kind, "message": self.message,
            "file": self.loc.file, "line": self.loc.line, "column": self.loc.col, "function": self.function,
            "steps": [s.to_json() for s in self.steps if not s.hidden and s.kind in ("assign", "input")],
            "inputs": self.inputs, "length": self.length, "minimized": self.minimized,
            "replay": self.replay,
        }
        if self.value_sum is not None:
            d["value_sum"] = self.value_sum
        return d


def extract(enc: Encoding, model: z3.ModelRef, kinds: frozenset[str] | None = None) -> Counterexample:
    """The trace of ``model``: steps whose guard holds, up to the violated check."""
    steps: list[CexStep] = []
    inputs: list[dict] = []
    values: list = []
    viol: Step | None = None
    for s in enc.eq.steps:
        if not z3.is_true(model.eval(s.guard, model_completion=True)):
            continue
        if s.kind in ("assign", "input", "param"):
            if s.kind == "input" and s.type is None and s.extent is not None:
                n = model.eval(s.extent, model_completion=True).as_long()
                value: object = bytes(model.eval(z3.Select(s.ssa, i), model_completion=True).as_long()
                                      for i in range(n))
                tname = f"unsigned char[{n}]"
            else:
                value = model_value(model, s.ssa, s.type)
                tname = str(s.type)
            steps.append(CexStep(s.kind, s.loc, s.function, s.lhs, elements(value, s.type), tname,
                                 bits_text(value, s.type), s.hidden, s.name))
            if s.kind == "input":
                values.append(value)
                inputs.append({"index": len(inputs), "origin": s.message, "file": s.loc.file,
                               "line": s.loc.line, "type": tname,
                               "value": value.hex() if isinstance(value, bytes) else value})
        elif s.kind in ("call", "return"):
            steps.append(CexStep(s.kind, s.loc, s.function, s.lhs, None, "", "", True))
        elif s.kind == "check" and s.violation is not None and (kinds is None or s.prop_kind in kinds):
            if z3.is_true(model.eval(s.violation, model_completion=True)):
                viol = s
                break
    if viol is None:
        raise ValueError("the model violates no selected check")
    return Counterexample(viol.prop_kind, viol.prop_id, viol.loc, viol.message, viol.function,
                          steps, inputs, values)


def replay(program: Program, cex: Counterexample, checks: frozenset[str]) -> dict:
    """Run the counterexample's inputs in the interpreter: it must fail the same way."""
    it = Interpreter(program, InterpOptions(checks=checks, max_steps=20_000_000))
    r = it.run(InputSource(list(cex.input_values), seed=0), argv=None)
    ok = r.status == "violation" and r.violation is not None and r.violation.prop_id == cex.prop_id
    detail = (f"{r.status}" + (f": {r.violation.kind} at {r.violation.loc}" if r.violation else "")
              + (f" ({r.note})" if r.note else ""))
    return {"status": "confirmed" if ok else "failed", "interpreter": detail, "steps": r.steps}


# ------------------------------------------------------------------ check


@dataclass
class CheckOptions:
    bound: int | None = None  # None: deepen 1, 2, 4, ... until a verdict or the timeout
    timeout_s: float = 60.0
    checks: frozenset[str] = ALL_CHECKS
    loop_bounds: dict[str, int] = field(default_factory=dict)
    max_bound: int = 1 << 12
    max_steps: int = 2_000_000
    progress: Callable[[str], None] | None = None  # a line of text per phase (for a live display)


@dataclass
class CheckProgress:
    """What a running check has finished so far: kept by the caller, so a run stopped
    from outside (time limit, Ctrl-C) still reports its last completed bound."""

    last_done: int | None = None
    working_on: int | None = None
    stats: SolverStats = field(default_factory=SolverStats)
    found: "CheckResult | None" = None  # a counterexample, before its replay

    def stopped(self, why: str) -> "CheckResult":
        if self.found is not None:  # a violation found is a finished result: keep it
            return self.found
        verdict = "true-up-to-bound" if self.last_done is not None else "unknown"
        done = f" after bound {self.last_done}" if self.last_done is not None else ""
        return CheckResult(verdict, self.last_done, None, self.stats, f"{why}{done}")


@dataclass
class CheckResult:
    verdict: str  # "false", "true", "true-up-to-bound", "unknown"
    bound: int | None
    counterexample: Counterexample | None
    stats: SolverStats
    reason: str = ""
    approximations: list[str] = field(default_factory=list)
    encoding: Encoding | None = None
    model: z3.ModelRef | None = None  # the counterexample's model (verdict false)


def check(program: Program, opts: CheckOptions, done: CheckProgress | None = None) -> CheckResult:
    start = time.perf_counter()
    deadline = start + opts.timeout_s
    check_loop_bounds(program, opts.loop_bounds)
    done = done if done is not None else CheckProgress()
    stats = done.stats

    def say(text: str) -> None:
        if opts.progress is not None:
            opts.progress(f"{text} ({stats.calls} solver calls)")

    bounds = [opts.bound] if opts.bound is not None else _deepening(opts.max_bound)
    last_done: int | None = None
    last_enc: Encoding | None = None
    reason = ""
    approximations: list[str] = []
    for b in bounds:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            reason = f"timeout after bound {last_done}" if last_done is not None else "timeout"
            break
        done.working_on = b
        say(f"bound {b}: unwinding")
        try:
            enc = Encoding(program, b, opts.loop_bounds, remaining, opts.max_steps, deadline,
                           SemanticsOptions(leak_checks="memleak" in opts.checks))
        except SymexLimit as e:
            reason = str(e)
            break
        stats.add(enc.stats)
        enc.stats = SolverStats()
        approximations = list(dict.fromkeys(enc.eq.approximations))
        if enc.eq.unsupported:
            cut = "; ".join(dict.fromkeys(enc.eq.unsupported))
        say(f"bound {b}: solving ({len(enc.eq.constraints)} constraints)")
        viol = [s.violation for s in enc.checks(opts.checks)]
        r, model = _ask(enc, viol, stats) if viol else ("unsat", None)
        if r == "sat":
            assert model is not None
            cex = extract(enc, model, opts.checks)
            cex.replay = {"status": "not-run", "interpreter": "stopped by the time limit before the replay"}
            done.found = CheckResult("false", b, cex, stats, "", approximations, enc, model)
            say(f"bound {b}: replaying the counterexample")
            cex.replay = replay(program, cex, opts.checks)
            if cex.replay.get("status") == "failed":
                # Never a `false` the program cannot reach: an over-approximated model
                # (fmod, exp, ...) made it up, or the engines disagree (a bug).
                why = ("the counterexample relies on over-approximated library models: " + "; ".join(approximations)
                       if approximations else
                       "the counterexample does not replay in the interpreter (a tracelearn bug: please report it)")
                done.found = None
                return CheckResult("unknown", b, None, stats, why, approximations, enc)
            return done.found
        if r == "unknown":
            why = enc.solver.reason_unknown() or "solver gave up"
            # z3 says "canceled" for a timeout too: name the time limit when it is past.
            timed_out = time.perf_counter() >= deadline - 0.05
            reason = (f"timeout while solving bound {b}" if timed_out
                      else f"the solver gave up at bound {b} ({why})")
            break
        if enc.eq.unsupported:
            return CheckResult("unknown", b, None, stats, f"unsupported: {cut}", approximations, enc)
        ub = _switched_off_violation(enc, opts.checks, stats)
        if ub is not None:
            return CheckResult("unknown", b, None, stats, ub, approximations, enc)
        last_done, last_enc = b, enc
        done.last_done = b
        unwinds = enc.eq.unwinds()
        if not unwinds:
            return CheckResult("true", b, None, stats, "", approximations, enc)
        r2 = _reachable(enc, [s.guard for s in unwinds], stats)
        if r2 == "unsat":
            return CheckResult("true", b, None, stats, "", approximations, enc)
        if opts.bound is not None:
            return CheckResult("true-up-to-bound", b, None, stats, "some paths exceed the bound", approximations, enc)
        by_global = [s.guard for s in unwinds if s.origin != "explicit"]
        if r2 == "sat" and (not by_global or _reachable(enc, by_global, stats) == "unsat"):
            # Only loops with their own --unwind-loop bound are cut: a larger global
            # bound would change nothing.
            return CheckResult("true-up-to-bound", b, None, stats,
                               "paths exceed the --unwind-loop bounds (a larger --bound changes nothing)",
                               approximations, enc)
    else:
        if opts.bound is None:
            reason = f"the deepening stopped at its largest bound, {opts.max_bound}"
    if last_done is not None:
        return CheckResult("true-up-to-bound", last_done, None, stats, reason, approximations, last_enc)
    return CheckResult("unknown", None, None, stats, reason or "no bound completed", approximations, None)


# Runtime checks whose failure is undefined behaviour: switched off, the engines do
# not follow a path past a failing one, so a `true` could hide what comes after.
UNDEFINED_BEHAVIOUR_CHECKS = frozenset({"bounds", "pointer", "div-by-zero"})


def _switched_off_violation(enc: Encoding, checks: frozenset[str], stats: SolverStats) -> str | None:
    """Why the verdict cannot be `true` although every selected check holds: a
    switched-off runtime check can fail (undefined behaviour; what follows it is not
    analysed). ``None`` when no such failure is reachable within the bound."""
    off = UNDEFINED_BEHAVIOUR_CHECKS - checks
    steps = [s for s in enc.checks(off)] if off else []
    if not steps:
        return None
    r, model = _ask(enc, [s.violation for s in steps], stats)
    if r == "unsat":
        return None
    if r != "sat":
        return "could not decide whether a switched-off runtime check fails (solver: " + str(r) + ")"
    hit = next(s for s in steps if z3.is_true(model.eval(s.violation, model_completion=True)))
    return (f"undefined behaviour at {hit.loc} ({hit.prop_kind} check switched off: {hit.message}); "
            f"the paths through it are not analysed")


def _ask(enc: Encoding, goals: list, stats: SolverStats) -> tuple[str, z3.ModelRef | None]:
    """Can one of ``goals`` hold? The call is counted in ``stats`` (the check's totals)."""
    r, model = enc.solve(z3.Or(*goals))
    stats.calls += enc.stats.calls
    stats.time_s += enc.stats.time_s
    enc.stats = SolverStats()
    return r, model


def _reachable(enc: Encoding, guards: list, stats: SolverStats) -> str:
    return _ask(enc, guards, stats)[0]


def loop_heads(program: Program) -> list[SourceLoc]:
    """Source locations of the loop heads of the user's procedures (targets of back
    edges), the lines ``--unwind-loop`` can name."""
    heads = []
    for proc in program.procedures.values():
        for blk in proc.blocks:
            for dst in blk.successors():
                if dst <= blk.index and not is_library_file(proc.blocks[dst].loc.file):
                    heads.append(proc.blocks[dst].loc)
    return sorted(set(heads), key=lambda l: (l.file, l.line))


def check_loop_bounds(program: Program, loop_bounds: dict[str, int]) -> None:
    """Every ``--unwind-loop`` names a loop head (else a clear error listing them)."""
    heads = loop_heads(program)
    keys = {k for h in heads for k in (f"{h.file}:{h.line}", str(h.line))}
    keys |= {f"{p.name}:{b.loc.line}" for p in program.procedures.values() for b in p.blocks
             if b.loc in heads}
    for k in loop_bounds:
        if k not in keys and not any(h.file.endswith("/" + k.rpartition(":")[0]) and str(h.line) == k.rpartition(":")[2]
                                     for h in heads):
            lines = ", ".join(f"{h.file}:{h.line}" for h in heads) or "none"
            raise OptionError(f"--unwind-loop {k}: no loop starts on that line (loop heads: {lines})")


def _deepening(max_bound: int):
    b = 1
    while b <= max_bound:
        yield b
        b *= 2


__all__ = ["Encoding", "check", "CheckOptions", "CheckProgress", "CheckResult", "Counterexample", "CexStep",
           "extract", "replay", "model_value", "bits_text", "SolverStats"]
